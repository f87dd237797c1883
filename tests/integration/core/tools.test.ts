import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { FakeSource, type FakeWindow } from '../../support/fakeSource.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';

const WIN: FakeWindow = { id: 'desktop:window:1', app: 'Notes', x: 100, y: 50, width: 1600, height: 1000, pixelRatio: 2 };

describe('MCP tools over an in-memory fake source', () => {
  let h: Harness;
  let fake: FakeSource;
  beforeEach(async () => {
    fake = new FakeSource({ ...WIN });
    h = await startHarness({ sources: [fake] });
  });
  afterEach(async () => h.close());

  async function capture(args: Record<string, unknown> = {}) {
    const r = await h.call('capture', { target: WIN.id, ...args });
    expect(r.isError, textOf(r)).toBeFalsy();
    return r.structuredContent as { frame: { ref: string; image: { width: number; height: number }; scale: number; origin: { x: number; y: number } }; estimatedTokens: number };
  }

  it('lists the MCP surface, a source-specific tool only for its source', async () => {
    const { tools } = await h.client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['list_targets', 'capture', 'click', 'type_text', 'press_key', 'scroll', 'focus_window', 'get_ui_tree', 'list_screenshots', 'get_screenshot', 'crop_screenshot']) expect(names).toContain(n);
    // The browser and android sources are not registered here: their own tools are not listed.
    expect(names).not.toContain('scroll_into_view');
    expect(names).not.toContain('swipe');
    // Every field is described, but for those whose name, type and the server's instructions say
    // it all (a description there costs every agent tokens and says nothing more).
    const plain = new Set(['target', 'ref', 'after', 'button', 'modifiers', 'format', 'quality', 'text', 'source', 'max', 'maxNodes', 'height', 'width', 'gone', 'intervalSeconds', 'name', 'runId', 'toAction', 'replace', 'inputs']);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      for (const [k, v] of Object.entries(t.inputSchema.properties ?? {})) {
        if (!plain.has(k) && !k.endsWith('Ms') && k !== 'ms') expect((v as { description?: string }).description, `${t.name}.${k}`).toBeTruthy();
      }
    }
  });

  it('captures a dual-audience frame whose mapping reaches the real device', async () => {
    const r = await h.call('capture', { target: WIN.id });
    const sc = r.structuredContent as Awaited<ReturnType<typeof capture>>;
    // 3200×2000 device px fit into 1000×625; the frame maps to 1600×1000 screen points.
    expect(sc.frame.image).toEqual({ width: 1000, height: 625 });
    expect(sc.frame.scale).toBeCloseTo(1.6, 6);
    expect(sc.frame.origin).toEqual({ x: 100, y: 50 });
    expect(sc.estimatedTokens).toBe(834);
    const image = r.content.find((c) => c.type === 'image');
    expect(image?.type === 'image' && image.annotations?.audience).toEqual(['user', 'assistant']);
    expect(image?.type === 'image' && image.mimeType).toBe('image/jpeg');
    const link = r.content.find((c) => c.type === 'resource_link');
    expect(link?.type === 'resource_link' && link.uri).toBe(`sightline://screenshot/${sc.frame.ref}`);
  });

  it('clicks in image coordinates, mapped through origin and scale', async () => {
    await capture();
    const r = await h.call('click', { target: WIN.id, x: 500, y: 300 });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(fake.actions.at(-1)).toMatchObject({ kind: 'click', point: { x: 100 + 500 * 1.6, y: 50 + 300 * 1.6 }, button: 'left', clicks: 1 });
    expect(r.structuredContent).toMatchObject({ ok: true, imagePoint: { x: 500, y: 300 }, sourcePoint: { x: 900, y: 530 } });
  });

  it('acts in the coordinates of a crop when its ref is given', async () => {
    const { frame } = await capture();
    const crop = await h.call('crop_screenshot', { ref: frame.ref, x: 50, y: 50, width: 25, height: 25 });
    expect(crop.isError, textOf(crop)).toBeFalsy();
    const c = (crop.structuredContent as { frame: { ref: string; parentRef: string; image: { width: number }; scale: number; origin: { x: number; y: number } } }).frame;
    expect(c.parentRef).toBe(frame.ref);
    // The crop is cut at native resolution: 25% of 3200 device px = 800 px wide.
    expect(c.image.width).toBe(800);
    expect(c.origin).toEqual({ x: 100 + 500 * 1.6, y: 50 + 312.5 * 1.6 });
    await h.call('click', { ref: c.ref, x: 10, y: 20 });
    expect(fake.actions.at(-1)).toMatchObject({ point: { x: c.origin.x + 10 * c.scale, y: c.origin.y + 20 * c.scale } });
  });

  it('cuts a crop of a crop from the original, keeping its resolution', async () => {
    const { frame } = await capture();
    const first = (await h.call('crop_screenshot', { ref: frame.ref, x: 0, y: 0, width: 50, height: 50, maxDimension: 4000 })).structuredContent as { frame: { ref: string; image: { width: number }; scale: number; origin: { x: number; y: number } } };
    // Half of 3200 device px: 1600 px wide, 0.5 screen points per pixel.
    expect(first.frame.image.width).toBe(1600);
    const second = (await h.call('crop_screenshot', { ref: first.frame.ref, x: 50, y: 50, width: 50, height: 50, maxDimension: 4000 })).structuredContent as typeof first;
    expect(second.frame.image.width).toBe(800);
    expect(second.frame.scale).toBeCloseTo(0.5, 6);
    // Within a pixel of the first crop's grid (its height, 312.5 image px, rounds outwards).
    expect(second.frame.origin.x).toBeCloseTo(100 + 400, 0);
    expect(Math.abs(second.frame.origin.y - (50 + 250))).toBeLessThanOrEqual(1);
  });

  it('re-maps a frame whose window only moved, refuses one that was resized', async () => {
    await capture();
    fake.windows.get(WIN.id)!.x += 300;
    await h.call('click', { target: WIN.id, x: 0, y: 0 });
    expect(fake.actions.at(-1)).toMatchObject({ point: { x: 400, y: 50 } });
    fake.windows.get(WIN.id)!.width = 800;
    const r = await h.call('click', { target: WIN.id, x: 0, y: 0 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^FRAME_STALE: .* Hint: /);
    expect(r.structuredContent).toBeUndefined();
  });

  it('refuses, in order: a gone target, then a point outside the frame', async () => {
    await capture();
    let r = await h.call('click', { target: WIN.id, x: 1000, y: 10 });
    expect(textOf(r)).toMatch(/^POINT_OUTSIDE_FRAME/);
    fake.windows.get(WIN.id)!.gone = true;
    r = await h.call('click', { target: WIN.id, x: 1000, y: 10 });
    expect(textOf(r)).toMatch(/^TARGET_NOT_FOUND/);
    expect(fake.actions).toHaveLength(0);
  });

  it('obeys the pause switch, read-only mode and the allowlist, and logs every attempt', async () => {
    await capture();
    h.core.setPaused(true);
    expect(textOf(await h.call('click', { target: WIN.id, x: 1, y: 1 }))).toMatch(/^INPUT_PAUSED/);
    h.core.settings.update({ input: { paused: false, readOnly: true } });
    expect(textOf(await h.call('type_text', { target: WIN.id, text: 'hi' }))).toMatch(/^READ_ONLY/);
    h.core.settings.update({ input: { readOnly: false, allowlist: ['Terminal'] } });
    expect(textOf(await h.call('press_key', { target: WIN.id, key: 'Enter' }))).toMatch(/^NOT_ALLOWED/);
    h.core.settings.update({ input: { allowlist: ['notes'] } });
    const pressed = await h.call('press_key', { target: WIN.id, key: 'Enter' });
    expect(pressed.isError).toBeFalsy();
    expect(fake.actions.map((a) => a.kind)).toEqual(['press_key']);
    const log = h.core.catalog.activity.list({ limit: 10 });
    expect(log.map((e) => e.result)).toEqual(['ok', 'NOT_ALLOWED', 'READ_ONLY', 'INPUT_PAUSED']);
    expect(log[3]).toMatchObject({ tool: 'click', client: 'test-agent', target: WIN.id, source: 'desktop' });
    // The successful action's row names the picture taken right after it (the one its answer
    // described); a capture made later is not its "after"; refused actions have none.
    const own = (pressed.structuredContent as { afterRef?: string }).afterRef;
    expect(own).toMatch(/^f_/);
    expect(log[0]).toMatchObject({ result: 'ok', afterRef: own });
    const { frame } = await capture();
    const linked = h.core.catalog.activity.list({ limit: 10 });
    expect(linked[0]).toMatchObject({ result: 'ok', afterRef: own });
    expect(linked.some((e) => e.afterRef === frame.ref)).toBe(false);
    expect(linked.slice(1).every((e) => e.afterRef === undefined)).toBe(true);
  });

  it('clicks a UI-tree node at the exact centre of its box in source space', async () => {
    const r = await h.call('get_ui_tree', { target: WIN.id });
    expect(r.isError, textOf(r)).toBeFalsy();
    const tree = r.structuredContent as { frameRef: string; nodes: { id: string; bounds: { x: number; y: number; width: number; height: number } }[] };
    const ok = tree.nodes.find((n) => n.id === 'ok')!;
    expect(ok.bounds).toEqual({ x: 63, y: 125, width: 50, height: 25 });
    await h.call('click', { target: WIN.id, node: 'ok' });
    // The node's true centre in screen points (box 200,250 80×40), not a centre rounded in image pixels.
    expect(fake.actions.at(-1)).toMatchObject({ point: { x: 240, y: 270 } });
    expect(textOf(await h.call('click', { target: WIN.id, node: 'nope' }))).toMatch(/^NODE_NOT_FOUND/);
  });

  it('names the field in validation errors and refuses unknown arguments', async () => {
    let r = await h.call('capture', { target: WIN.id, maxDimension: 5 });
    expect(textOf(r)).toMatch(/^INVALID_ARGUMENT: "maxDimension"/);
    r = await h.call('click', { target: WIN.id, x: 1, y: 1, bogus: 1 });
    expect(textOf(r)).toMatch(/^INVALID_ARGUMENT: .*bogus/);
    // A key too many inside a nested argument is refused as one at the top is.
    r = await h.call('capture', { target: WIN.id, scrollOffset: { x: 0, y: 10, z: 1 } });
    expect(textOf(r)).toMatch(/^INVALID_ARGUMENT: "scrollOffset\.z"|^INVALID_ARGUMENT: .*scrollOffset.*z/);
    expect(fake.captures).toBe(0);
    r = await h.call('type_text', { target: WIN.id, text: 'x'.repeat(10_001) });
    expect(textOf(r)).toMatch(/^INVALID_ARGUMENT: "text"/);
    r = await h.call('click', { target: 'nosuch:1', x: 1, y: 1 });
    expect(textOf(r)).toMatch(/^TARGET_NOT_FOUND/);
  });

  it('lists screenshots in a window with a strict max, and says why a list is empty', async () => {
    for (let i = 0; i < 3; i++) await capture();
    let r = await h.call('list_screenshots', { max: 2 });
    let list = r.structuredContent as { screenshots: { ref: string; capturedAt: string }[]; matched: number; reason?: string };
    expect(list.screenshots).toHaveLength(2);
    expect(list.matched).toBe(3);
    expect(list.screenshots[0]!.capturedAt <= list.screenshots[1]!.capturedAt).toBe(true);
    r = await h.call('list_screenshots', { from: '2001-01-01', to: '2001-01-02' });
    list = r.structuredContent as typeof list;
    expect(list.screenshots).toHaveLength(0);
    expect(list.reason).toBe('RETENTION_OR_PURGED');
    r = await h.call('list_screenshots', { pinned: true });
    expect((r.structuredContent as typeof list).reason).toBe('NO_MATCH');
    expect(textOf(await h.call('list_screenshots', { from: 'yesterday' }))).toMatch(/^INVALID_ARGUMENT: "from"/);
  });

  it('get_screenshot gives the model the small image and the human a link; resources read back', async () => {
    const { frame } = await capture();
    const r = await h.call('get_screenshot', { ref: frame.ref });
    const img = r.content.find((c) => c.type === 'image');
    expect(img?.type === 'image' && img.annotations?.audience).toEqual(['user', 'assistant']);
    const full = await h.client.readResource({ uri: `sightline://screenshot/${frame.ref}` });
    const thumb = await h.client.readResource({ uri: `sightline://screenshot/${frame.ref}/thumbnail` });
    const fullBytes = Buffer.from((full.contents[0] as { blob: string }).blob, 'base64');
    const thumbBytes = Buffer.from((thumb.contents[0] as { blob: string }).blob, 'base64');
    expect(thumbBytes.length).toBeGreaterThan(100);
    expect(thumbBytes.length).toBeLessThan(fullBytes.length);
    const health = await h.client.readResource({ uri: 'sightline://health' });
    expect(JSON.parse((health.contents[0] as { text: string }).text).sources.find((s: { source: string }) => s.source === 'desktop')).toMatchObject({ available: true });
    expect(textOf(await h.call('get_screenshot', { ref: 'f_nope' }))).toMatch(/^FRAME_NOT_FOUND/);
    // Protocol errors carry a hint too.
    await expect(h.client.readResource({ uri: 'sightline://screenshot/f_nope' })).rejects.toThrow(/FRAME_NOT_FOUND: no frame "f_nope"\. Hint: list_screenshots/);
    await expect(h.client.readResource({ uri: 'sightline://nothing' })).rejects.toThrow(/Unknown resource: sightline:\/\/nothing\. Hint: /);
    await expect(h.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool: no_such_tool\. Hint: Call tools\/list/);
  });

  it('lists pinned frames as resources and tells the client when pins change', async () => {
    const { frame } = await capture();
    let changed = 0;
    const { ResourceListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    h.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changed++);
    h.core.frames.setPinned(frame.ref, true);
    await new Promise((r) => setTimeout(r, 50));
    expect(changed).toBeGreaterThan(0);
    const { resources } = await h.client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`sightline://screenshot/${frame.ref}`);
    const pinned = await h.call('list_screenshots', { pinned: true });
    expect((pinned.structuredContent as { screenshots: { ref: string }[] }).screenshots.map((s) => s.ref)).toEqual([frame.ref]);
  });

  it('works again after the source is turned off and on', async () => {
    h.core.settings.update({ sources: { desktop: { enabled: false } } });
    await h.core.sources.health();
    expect(textOf(await h.call('capture', { target: WIN.id }))).toMatch(/^SOURCE_DISABLED/);
    expect((await h.client.listTools()).tools.map((t) => t.name)).not.toContain('focus_window');
    h.core.settings.update({ sources: { desktop: { enabled: true } } });
    expect((await h.call('capture', { target: WIN.id })).isError).toBeFalsy();
    expect((await h.client.listTools()).tools.map((t) => t.name)).toContain('focus_window');
  });

  it('lists no tool of a source with nothing to act on, and says so when that changes', async () => {
    let changed = 0;
    h.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed++);
    fake.idle = true;
    await h.core.sources.health();
    await vi.waitFor(() => expect(changed).toBe(1));
    expect((await h.client.listTools()).tools.map((t) => t.name)).not.toContain('focus_window');
    // Still answered: something to act on may have come since the last health check.
    const r = await h.call('capture', { target: WIN.id });
    expect(r.isError, textOf(r)).toBeFalsy();
    fake.idle = false;
    await h.core.sources.health();
    await vi.waitFor(() => expect(changed).toBe(2));
    expect((await h.client.listTools()).tools.map((t) => t.name)).toContain('focus_window');
  });

  it('hides a source that became unavailable and explains it in tool errors', async () => {
    fake.available = false;
    await h.core.sources.health();
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('focus_window');
    const r = await h.call('capture', { target: WIN.id });
    expect(textOf(r)).toMatch(/^SOURCE_UNAVAILABLE: .*fake outage.* Hint: turn it back on/);
  });
});
