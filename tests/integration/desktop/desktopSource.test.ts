/**
 * The desktop source on a real X11 desktop (Xvfb + openbox) with a real Tk window,
 * driven through the MCP tools in image coordinates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createDesktopSource } from '../../../src/main/core/sources/desktop/desktopSource.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { startTestApp, startXvfb, xdotool, type TestApp, type XDisplay } from '../../support/xvfb.ts';

interface Frame {
  ref: string;
  image: { width: number; height: number };
  origin: { x: number; y: number };
  scale: number;
}

describe('desktop source on Xvfb', () => {
  let x: XDisplay;
  let app: TestApp;
  let h: Harness;
  let target: string;

  beforeAll(async () => {
    x = await startXvfb();
    app = await startTestApp(x, { title: 'Sightline Désktop Test', geometry: '900x600+60+80' });
    target = `desktop:window:${app.windowId}`;
    // A bare environment, as MCP clients give: the display comes from settings.
    const env = { PATH: process.env.PATH };
    h = await startHarness({ sources: [createDesktopSource({ settings: { display: x.display }, env })], env });
  });
  afterAll(async () => {
    await h?.close();
    await app?.close();
    await x?.stop();
  });

  async function boundsOf(id: string): Promise<{ x: number; y: number; width: number; height: number }> {
    const r = await h.call('list_targets', { source: 'desktop' });
    return (r.structuredContent as { targets: { id: string; bounds: { x: number; y: number; width: number; height: number } }[] }).targets.find((t) => t.id === id)!.bounds;
  }

  async function until(ok: () => Promise<boolean>, ms = 5000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await ok())) {
      if (Date.now() > end) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function capture(maxDimension = 600): Promise<Frame> {
    const r = await h.call('capture', { target, maxDimension });
    expect(r.isError, textOf(r)).toBeFalsy();
    return (r.structuredContent as { frame: Frame }).frame;
  }

  it('lists the window with its app and title, and the display', async () => {
    const r = await h.call('list_targets', { source: 'desktop' });
    const targets = (r.structuredContent as { targets: { id: string; kind: string; title: string; app?: string; bounds: { width: number } }[] }).targets;
    const win = targets.find((t) => t.id === target);
    expect(win).toMatchObject({ kind: 'window', title: 'Sightline Désktop Test', bounds: { width: 900 } });
    expect(win?.app?.toLowerCase()).toContain('sightline-test-app');
    expect(targets.some((t) => t.kind === 'display')).toBe(true);
  });

  it('captures the window scaled and clicks the button at image coordinates', async () => {
    const f = await capture(600);
    expect(f.image).toEqual({ width: 600, height: 400 });
    expect(f.scale).toBeCloseTo(1.5, 6);
    // The button fills the top half of the window: aim at its middle in image pixels.
    const click = app.next((e) => e.event === 'click');
    const r = await h.call('click', { target, x: 300, y: 100 });
    expect(r.isError, textOf(r)).toBeFalsy();
    const e = await click;
    // Tk reports the click relative to the button (the window's top-left): 300 × 1.5, 100 × 1.5.
    expect(e).toMatchObject({ button: 1, x: 450, y: 150 });
  });

  it('says which window a click hit; hovers without clicking; drags from one point to another', async () => {
    await capture(600);
    const r = await h.call('click', { target, x: 300, y: 100, after: 'none' });
    expect((r.structuredContent as { hit?: unknown }).hit).toEqual({ role: 'window', name: 'Sightline Désktop Test', app: expect.stringMatching(/sightline-test-app/i) });
    expect(textOf(r)).toContain('Sightline Désktop Test');

    // Off the button (over the field), then over it: Tk says the pointer entered; no click comes.
    await h.call('hover', { target, x: 300, y: 290 });
    const entered = app.next((e) => e.event === 'enter');
    const clicks = (): number => app.events.filter((e) => e.event === 'click').length;
    const before = clicks();
    const hover = await h.call('hover', { target, x: 200, y: 60 });
    expect(hover.isError, textOf(hover)).toBeFalsy();
    await entered;
    expect(clicks()).toBe(before);

    const released = app.next((e) => e.event === 'release');
    const drag = await h.call('drag', { target, x: 100, y: 100, toX: 400, toY: 150, durationMs: 200 });
    expect(drag.isError, textOf(drag)).toBeFalsy();
    const e = await released;
    // Released where toX, toY map on screen (scale 1.5 from the window's origin), after moves on the way.
    const b = await boundsOf(target);
    expect(e).toMatchObject({ x: b.x + 600, y: b.y + 225 });
    expect(e.motions as number).toBeGreaterThanOrEqual(3);
    expect(clicks()).toBe(before + 1); // the drag pressed the button once
    expect(textOf(await h.call('drag', { target, x: 100, y: 100, toX: 900, toY: 150 }))).toMatch(/^POINT_OUTSIDE_FRAME/);
  });

  it('types exact text with symbols and non-ASCII into the field', async () => {
    await capture(600);
    const text = '!@#$%^&*()_+{}|:"<>?~ héllo 世界';
    const done = app.next((e) => e.event === 'text' && e.value === text, 20_000);
    // The field sits at 60–85 % of the window's height.
    const r = await h.call('type_text', { target, x: 300, y: 290, text });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect((await done).value).toBe(text);
  });

  it('presses keys and combinations', async () => {
    const enter = app.next((e) => e.event === 'key' && e.keysym === 'Return');
    expect((await h.call('press_key', { target, key: 'Enter' })).isError).toBeFalsy();
    await enter;
    const ctrlA = app.next((e) => e.event === 'key' && e.keysym === 'a' && ((e.state as number) & 4) === 4);
    expect((await h.call('press_key', { target, key: 'Control+A' })).isError).toBeFalsy();
    await ctrlA;
    expect(textOf(await h.call('press_key', { target, key: 'Hyper+Q' }))).toMatch(/^INVALID_ARGUMENT: In "Hyper\+Q", "Hyper" is not a modifier/);
  });

  it('re-maps a window that moved, refuses one that was resized', async () => {
    await capture(600);
    const before = await boundsOf(target);
    xdotool(x, 'windowmove', '--sync', String(app.windowId), '200', '150');
    // The window manager finishes the move asynchronously; wait until the desktop reports it.
    await until(async () => (await boundsOf(target)).x !== before.x);
    const click = app.next((e) => e.event === 'click');
    const r = await h.call('click', { target, x: 100, y: 50 });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(await click).toMatchObject({ x: 150, y: 75 });
    xdotool(x, 'windowsize', '--sync', String(app.windowId), '700', '500');
    await until(async () => (await boundsOf(target)).width === 700);
    const stale = await h.call('click', { target, x: 100, y: 50 });
    expect(textOf(stale)).toMatch(/^FRAME_STALE: .*resized from 900×600 to 700×500/);
  });

  it('refuses a point outside the frame and obeys the pause switch', async () => {
    const f = await capture(600);
    expect(textOf(await h.call('click', { target, x: f.image.width, y: 10 }))).toMatch(/^POINT_OUTSIDE_FRAME/);
    h.core.setPaused(true);
    const before = app.events.length;
    expect(textOf(await h.call('click', { target, x: 10, y: 10 }))).toMatch(/^INPUT_PAUSED/);
    h.core.setPaused(false);
    expect(app.events.slice(before).filter((e) => e.event === 'click')).toHaveLength(0);
  });

  it('focuses a window that another covers, and says what it did', async () => {
    const other = await startTestApp(x, { title: 'Cover', geometry: '900x600+200+150' });
    try {
      const r = await h.call('focus_window', { target });
      expect(r.isError, textOf(r)).toBeFalsy();
      expect((r.structuredContent as { note: string }).note).toMatch(/focused/);
      const list = await h.call('list_targets', { source: 'desktop' });
      expect((list.structuredContent as { targets: { id: string; focused?: boolean }[] }).targets.find((t) => t.id === target)?.focused).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('says TARGET_NOT_FOUND when the window closes between capture and click', async () => {
    const gone = await startTestApp(x, { title: 'Short lived', geometry: '300x200+50+50' });
    const id = `desktop:window:${gone.windowId}`;
    const r = await h.call('capture', { target: id });
    expect(r.isError, textOf(r)).toBeFalsy();
    await gone.close();
    await new Promise((ok) => setTimeout(ok, 300));
    const c = (await h.call('click', { target: id, x: 10, y: 10 })) as CallToolResult;
    expect(textOf(c)).toMatch(/^TARGET_NOT_FOUND/);
  });
});
