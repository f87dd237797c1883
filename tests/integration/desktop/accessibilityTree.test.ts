/**
 * The desktop's accessibility tree on a real X11 desktop (Xvfb + openbox) with a real AT-SPI bus
 * (at-spi2-core on a private session bus) and a real GTK 3 form that reports its own events:
 * get_ui_tree, click by node and by text, type_text by field label or placeholder, AMBIGUOUS_TEXT, and a Tk
 * window (no tree) still read by OCR. Sightline gets a bare environment, as MCP clients give it:
 * it finds the accessibility bus on the display's root window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createDesktopSource } from '../../../src/main/core/sources/desktop/desktopSource.ts';
import { startA11y, startGtkApp, type A11ySession, type GtkApp } from '../../support/a11y.ts';
import { bareWalk, findWindow, nativeBus } from '../../support/atspiWalk.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { startTestApp, startXvfb, type TestApp, type XDisplay } from '../../support/xvfb.ts';

interface Node {
  id: string;
  parentId?: string;
  role: string;
  name: string;
  value?: string;
  bounds: { x: number; y: number; width: number; height: number };
  center: { x: number; y: number };
  enabled?: boolean;
  clickable?: boolean;
  attributes?: Record<string, string>;
}
interface Frame {
  ref: string;
  origin: { x: number; y: number };
  scale: number;
}

describe('desktop accessibility tree (AT-SPI, GTK 3)', { timeout: 120_000 }, () => {
  let x: XDisplay;
  let a: A11ySession;
  let form: GtkApp;
  let twins: GtkApp;
  let tk: TestApp;
  let h: Harness;
  let target: string;

  beforeAll(async () => {
    x = await startXvfb('1280x800');
    a = await startA11y(x);
    form = await startGtkApp(a, { title: 'Sightline GTK Form', geometry: '420x360+120+80' });
    twins = await startGtkApp(a, { title: 'Sightline GTK Twins', geometry: '420x360+700+80', twins: true });
    tk = await startTestApp(x, { title: 'Sightline Tk App', geometry: '400x300+700+480' });
    target = `desktop:window:${form.windowId}`;
    const env = { PATH: process.env.PATH };
    h = await startHarness({ sources: [createDesktopSource({ settings: { display: x.display }, env })], env });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await tk?.close();
    await twins?.close();
    await form?.close();
    await a?.stop();
    await x?.stop();
  });

  function ok(r: CallToolResult): CallToolResult {
    expect(r.isError, textOf(r)).toBeFalsy();
    return r;
  }

  async function tree(t = target): Promise<{ frameRef: string; nodes: Node[] }> {
    return ok(await h.call('get_ui_tree', { target: t })).structuredContent as { frameRef: string; nodes: Node[] };
  }

  function named(nodes: Node[], role: string, name: string): Node {
    const n = nodes.find((x) => x.role === role && x.name === name);
    if (!n) throw new Error(`no ${role} “${name}” in ${JSON.stringify(nodes.map((x) => [x.role, x.name]))}`);
    return n;
  }

  it('lists labels, fields, buttons and the check box, with boxes within 3 image px of AT-SPI’s own', async () => {
    // A small image (scale ≠ 1): the boxes must be mapped, not copied.
    const frame = (ok(await h.call('capture', { target, maxDimension: 300 })).structuredContent as { frame: Frame }).frame;
    expect(frame.scale).toBeGreaterThan(1.2);
    const t = await tree();
    expect(t.frameRef).toBe(frame.ref);
    for (const [role, name] of [
      ['label', 'Email'],
      ['label', 'Name'],
      ['label', 'Password'],
      ['label', 'Sign up'],
      ['button', 'Save'],
      ['button', 'Cancel'],
      ['checkbox', 'Subscribe'],
    ] as const) {
      expect(named(t.nodes, role, name).enabled).toBe(true);
    }
    expect(t.nodes.filter((n) => n.role === 'textbox')).toHaveLength(3);
    expect(named(t.nodes, 'checkbox', 'Subscribe').attributes).toMatchObject({ checked: 'false', platformRole: 'check box' });
    // The label names its field (GTK 3 leaves the field's own name empty).
    expect(named(t.nodes, 'label', 'Email').attributes?.labelFor).toBe(named(t.nodes, 'textbox', 'Email').id);

    // What AT-SPI itself says, read apart from Sightline's backend.
    const bus = nativeBus(a.busAddress);
    try {
      const root = await findWindow(bus, 'Sightline GTK Form');
      const own = await bareWalk(bus, root!);
      const roles: Record<string, string> = { label: 'label', 'push button': 'button', 'check box': 'checkbox' };
      let compared = 0;
      for (const e of own) {
        const role = roles[e.role];
        if (!role || !e.name || !e.extents) continue;
        const n = named(t.nodes, role, e.name);
        const [ex, ey, ew, eh] = e.extents;
        const want = { x: (ex - frame.origin.x) / frame.scale, y: (ey - frame.origin.y) / frame.scale, width: ew / frame.scale, height: eh / frame.scale };
        for (const k of ['x', 'y', 'width', 'height'] as const) expect(Math.abs(n.bounds[k] - want[k]), `${e.name} ${k}`).toBeLessThanOrEqual(3);
        compared++;
      }
      expect(compared).toBeGreaterThanOrEqual(7);
    } finally {
      bus.close();
    }
  });

  it('keeps node ids across fresh reads', async () => {
    const first = await tree();
    const second = await tree();
    for (const name of ['Save', 'Cancel']) expect(named(second.nodes, 'button', name).id).toBe(named(first.nodes, 'button', name).id);
    expect(second.nodes.filter((n) => n.role === 'textbox').map((n) => n.id)).toEqual(first.nodes.filter((n) => n.role === 'textbox').map((n) => n.id));
  });

  it('clicks a button by node and by text', async () => {
    const t = await tree();
    const save = named(t.nodes, 'button', 'Save');
    const clicked = form.next((e) => e.event === 'click');
    const r = ok(await h.call('click', { target, node: save.id }));
    expect(await clicked).toMatchObject({ button: 'Save' });
    const s = r.structuredContent as { imagePoint: { x: number; y: number }; hit?: { role: string; name: string; node: string } };
    expect(s.hit).toMatchObject({ role: 'button', name: 'Save', node: save.id });
    expect(Math.abs(s.imagePoint.x - save.center.x)).toBeLessThanOrEqual(1);
    expect(Math.abs(s.imagePoint.y - save.center.y)).toBeLessThanOrEqual(1);

    const cancelled = form.next((e) => e.event === 'click');
    const byText = ok(await h.call('click', { target, text: 'cancel' }));
    expect(await cancelled).toMatchObject({ button: 'Cancel' });
    expect(textOf(byText)).not.toMatch(/OCR/);
  });

  it('ticks the check box by its label and reads it back as checked', async () => {
    const toggled = form.next((e) => e.event === 'toggled');
    ok(await h.call('click', { target, text: 'Subscribe' }));
    expect(await toggled).toMatchObject({ active: true });
    expect(named((await tree()).nodes, 'checkbox', 'Subscribe').attributes?.checked).toBe('true');
  });

  it('types into the field its label names, and never gives a password field’s value', async () => {
    const typed = form.next((e) => e.event === 'text' && e.field === 'email' && e.value === 'ada@example.org');
    ok(await h.call('type_text', { target, field: 'Email', text: 'ada@example.org' }));
    await typed;
    const pw = form.next((e) => e.event === 'text' && e.field === 'password');
    ok(await h.call('type_text', { target, field: 'Password', text: 'hunter2' }));
    await pw;
    const t = await tree();
    expect(named(t.nodes, 'textbox', 'Email').value).toBe('ada@example.org');
    expect(named(t.nodes, 'textbox', 'Name').value).toBeUndefined();
    const password = named(t.nodes, 'password', 'Password');
    expect(password.attributes).toMatchObject({ password: 'true' });
    expect(password.value).toBeUndefined();
    expect(JSON.stringify(t)).not.toContain('hunter2');
    const found = ok(await h.call('find_text', { target, text: 'hunter2' }));
    expect((found.structuredContent as { total: number }).total).toBe(0);
  });

  it('types into a field whose only name is its placeholder, as on a page', async () => {
    const typed = form.next((e) => e.event === 'text' && e.field === 'search' && e.value === 'invoices');
    const r = ok(await h.call('type_text', { target, field: 'Search mail', text: 'invoices' }));
    await typed;
    expect(textOf(r)).not.toMatch(/OCR/);
    const search = named((await tree()).nodes, 'textbox', 'Search mail');
    expect(search.value).toBe('invoices');
    expect(search.attributes?.labelFor).toBeUndefined();
  });

  it('two equal labels are AMBIGUOUS_TEXT and press nothing', async () => {
    const twinTarget = `desktop:window:${twins.windowId}`;
    const before = twins.events.filter((e) => e.event === 'click').length;
    const r = await h.call('click', { target: twinTarget, text: 'OK' });
    expect(textOf(r)).toMatch(/^AMBIGUOUS_TEXT: "OK" matches 2 places/);
    await new Promise((done) => setTimeout(done, 300));
    expect(twins.events.filter((e) => e.event === 'click').length).toBe(before);
    const pressed = twins.next((e) => e.event === 'click');
    ok(await h.call('click', { target: twinTarget, text: 'OK', index: 2 }));
    expect(await pressed).toMatchObject({ button: 'OK 2' });
  });

  it('find_text answers from the tree, and sightline://health says the tree is readable', async () => {
    const found = ok(await h.call('find_text', { target, text: 'Sign up' })).structuredContent as { via: string; matches: { text: string; node?: string }[] };
    expect(found.via).toBe('tree');
    expect(found.matches).toHaveLength(1);
    expect(found.matches[0]!.node).toBe(named((await tree()).nodes, 'label', 'Sign up').id);
    const res = await h.client.readResource({ uri: 'sightline://health' });
    const health = JSON.parse((res.contents[0] as { text: string }).text) as { sources: { source: string; checks?: { id: string; status: string }[] }[] };
    const check = health.sources.find((s) => s.source === 'desktop')!.checks?.find((c) => c.id === 'accessibility-tree');
    expect(check?.status).toBe('ok');
  });

  it('a window without a tree (Tk) is still clicked by text, read by OCR', async () => {
    const tkTarget = `desktop:window:${tk.windowId}`;
    const none = await h.call('get_ui_tree', { target: tkTarget });
    expect(textOf(none)).toMatch(/^UNSUPPORTED: The app of desktop:window:\d+ exposes no accessibility tree/);
    await h.call('capture', { target: tkTarget });
    const click = tk.next((e) => e.event === 'click');
    const r = ok(await h.call('click', { target: tkTarget, text: 'Click me' }));
    expect(textOf(r)).toMatch(/by OCR/);
    expect(await click).toMatchObject({ event: 'click', button: 1 });
  });
});
