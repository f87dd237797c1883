/**
 * The browser's tools through a real MCP client, on a real Chromium at devicePixelRatio 2: what an
 * agent sees of scrolls, node handles, typing, navigation, dialogs, native crops, hover, drag and
 * the form task, with the core's tools and the browser module's own.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/mcpHarness.ts';
import { box, centre, evalIn, open, reload, type Ctx } from './kit.ts';

let c: Ctx;
let h: Harness;
const SCALE = 1.28; // 1280 CSS px seen at 1000 image px

beforeAll(async () => {
  c = await open('actions.html', { dpr: 2 });
  h = await startHarness({ sources: [c.source], settings: { sources: { browser: { enabled: true } } } });
});

afterAll(async () => {
  await h?.close();
  await c?.close();
});

beforeEach(async () => {
  await reload(c, 'actions.html');
});

interface Answer {
  r: CallToolResult;
  s: Record<string, unknown> & { hit?: { role?: string; name?: string }; received?: Record<string, unknown>; frame?: { ref: string; scale: number; image: { width: number; height: number } } };
  text: string;
}

async function call(name: string, args: Record<string, unknown>): Promise<Answer> {
  const r = await h.call(name, args);
  return { r, s: (r.structuredContent ?? {}) as Answer['s'], text: r.content.map((x) => (x.type === 'text' ? x.text : '')).join('\n') };
}

async function ok(name: string, args: Record<string, unknown>): Promise<Answer> {
  const a = await call(name, args);
  expect(a.r.isError, a.text).toBeFalsy();
  return a;
}

async function refused(name: string, args: Record<string, unknown>): Promise<string> {
  const a = await call(name, args);
  expect(a.r.isError, a.text).toBe(true);
  return a.text;
}

async function node(name: string, role?: string): Promise<string> {
  const { s } = await ok('get_ui_tree', { target: c.target, query: name, maxNodes: 40 });
  const n = (s.nodes as { id: string; name: string; role: string }[]).find((x) => x.name === name && (!role || x.role === role));
  expect(n, `${role ?? 'node'} "${name}"`).toBeDefined();
  return n!.id;
}

/** Where `selector` is in image pixels of a 1000-px-wide viewport frame, now. */
async function imagePoint(selector: string): Promise<{ x: number; y: number }> {
  const p = centre(await box(c, selector));
  return { x: Math.round(p.x / SCALE), y: Math.round(p.y / SCALE) };
}

const clicked = (): Promise<string[]> => evalIn<string[]>(c, 'window.state.clicked');

describe('actions an agent can trust, through MCP', () => {
  it('scroll, then click in the earlier frame: lands on the element seen, and says the page scrolled', async () => {
    const { s } = await ok('capture', { target: c.target });
    const at = await imagePoint('#b5');
    await ok('scroll', { target: c.target, deltaY: 400 });
    expect(await evalIn<number>(c, 'scrollY')).toBe(512);
    const res = await ok('click', { ref: s.frame!.ref, ...at });
    expect(await clicked()).toEqual(['b5']);
    expect(res.s.hit).toMatchObject({ role: 'button', name: 'Button 5' });
    expect(res.s.remapped).toMatch(/scrolled by \(0, 512\) CSS px since frame/);
  });

  it('a shifted layout: click by node hits its element; removed: NODE_NOT_FOUND; off screen: scrolled to', async () => {
    await ok('capture', { target: c.target });
    const b1 = await node('Button 1');
    const b6 = await node('Button 6');
    const b29 = await node('Button 29');
    await evalIn(c, 'insertBanner()');
    await ok('click', { target: c.target, node: b1 });
    expect(await clicked()).toEqual(['b1']);

    await evalIn(c, "document.getElementById('b6').remove()");
    expect(await refused('click', { target: c.target, node: b6 })).toMatch(/^NODE_NOT_FOUND: .*no longer on the page.*Hint: Call get_ui_tree again/);

    const far = await ok('click', { target: c.target, node: b29 });
    expect(await clicked()).toEqual(['b1', 'b29']);
    expect(far.s.remapped).toMatch(/was off screen: scrolled the page to/);
  });

  it('get_ui_tree → scroll_into_view → capture → click(node)', async () => {
    await ok('capture', { target: c.target });
    const b28 = await node('Button 28');
    await ok('scroll_into_view', { target: c.target, node: b28 });
    await ok('capture', { target: c.target });
    expect(await node('Button 28')).toBe(b28);
    const res = await ok('click', { target: c.target, node: b28 });
    expect(res.s.remapped).toBeUndefined();
    expect(await clicked()).toEqual(['b28']);
  });

  it('type_text: NO_FOCUSED_INPUT with nothing focused; into a field, the field and its value read back', async () => {
    await ok('capture', { target: c.target });
    expect(await refused('type_text', { target: c.target, text: 'lost' })).toMatch(/^NO_FOCUSED_INPUT: /);
    expect(await evalIn<string[]>(c, 'window.state.keys')).toEqual([]);
    const res = await ok('type_text', { target: c.target, node: await node('Your name', 'textbox'), text: 'Ada' });
    expect(res.s.received).toMatchObject({ role: 'textbox', name: 'Your name', value: 'Ada', valueMatches: true });
    const code = await ok('type_text', { target: c.target, field: 'Code', text: 'ABCDE' });
    expect(code.s.received).toMatchObject({ name: 'Code', value: 'ABC', valueMatches: false });
    expect(code.text).toMatch(/NOT the text sent/);
  });

  it('a click that navigates says so; a click that opens alert() says so and does not hang', async () => {
    await ok('capture', { target: c.target });
    const alert = await ok('click', { target: c.target, text: 'Alert' });
    expect(alert.s.dialog).toEqual({ type: 'alert', message: 'Saved!' });
    expect(alert.text).toMatch(/alert dialog is open \("Saved!"\): answer it with handle_dialog/);
    await ok('handle_dialog', { target: c.target, accept: true });
    const nav = await ok('click', { target: c.target, text: 'Go elsewhere' });
    expect(nav.s.navigated).toMatchObject({ url: c.srv.url('other.html') });
  });

  it('crop_screenshot of a fresh frame at DPR 2 re-captures at device pixels; after a navigation it is cut from the stored image', async () => {
    const { s } = await ok('capture', { target: c.target });
    const r = await box(c, '#swatch');
    // Whole image pixels (the core rounds a crop outward to them): 200×100 image px = 256×128 CSS px = 512×256 device px.
    const rect = { coordinateUnits: 'pixels', x: Math.round(r.x / SCALE), y: Math.round(r.y / SCALE), width: 200, height: 100, maxDimension: 2000 };
    const crop = await ok('crop_screenshot', { ref: s.frame!.ref, ...rect });
    expect(crop.s.frame!.image).toEqual({ width: 512, height: 256 });
    const img = crop.r.content.find((x) => x.type === 'image');
    const meta = await sharp(Buffer.from(img && img.type === 'image' ? img.data : '', 'base64')).metadata();
    expect({ width: meta.width, height: meta.height }).toEqual({ width: 512, height: 256 });
    expect(crop.s.warnings).toBeUndefined();

    await reload(c, 'other.html');
    const stale = await ok('crop_screenshot', { ref: s.frame!.ref, ...rect });
    expect(stale.s.frame!.image.width).toBeLessThan(512);
    expect(stale.text).toMatch(/cut from the stored image/);
  });
});

describe('navigation, tabs, forms and dialogs, through MCP', () => {
  it('the form task: field, submit, a button 3,000 px down, in at most 5 calls', async () => {
    const calls: string[] = [];
    const run = async (name: string, args: Record<string, unknown>): Promise<Answer> => {
      calls.push(name);
      return ok(name, args);
    };
    const opened = await run('tabs', { action: 'new', url: c.srv.url('form.html') });
    const target = (opened.s.details as { target: string }).target;
    const tree = await run('get_ui_tree', { target });
    const nodes = tree.s.nodes as { id: string; role: string; name: string; inViewport?: boolean }[];
    const field = nodes.find((n) => n.role === 'textbox' && n.name === 'Name')!;
    const finish = nodes.find((n) => n.role === 'button' && n.name === 'Finish')!;
    expect(finish.inViewport).toBe(false);
    const typed = await run('type_text', { target, node: field.id, text: 'Ada Lovelace', submit: true });
    expect(typed.s.received).toMatchObject({ name: 'Name', value: 'Ada Lovelace', valueMatches: true });
    const done = await run('click', { target, node: finish.id });
    expect(done.s.hit).toMatchObject({ role: 'button', name: 'Finish' });
    expect(calls.length).toBeLessThanOrEqual(5);

    const page = (await c.driver.pages()).find((p) => p.url() === c.srv.url('form.html'))!;
    expect(await page.evaluate('window.state')).toEqual({ sent: ['Ada Lovelace'], finished: 1 });
    await ok('tabs', { action: 'close', target });
  });

  it('the allowlist judges a new tab by the host it opens and a navigation by where it goes', async () => {
    const host = new URL(c.srv.url('form.html')).host;
    h.core.settings.update({ input: { allowlist: ['example.com'] } });
    try {
      expect(await refused('tabs', { action: 'new', url: c.srv.url('form.html') })).toBe(
        `NOT_ALLOWED: Input to ${host} (browser) is not in the input allowlist. Hint: The user can add "${host}" to input.allowlist in settings.`,
      );
      const blank = (await ok('tabs', { action: 'new' })).s.details as { target: string };
      h.core.settings.update({ input: { allowlist: [host] } });
      // A blank tab shows nothing of anyone's: it may be led to an allowed page, and closed.
      await ok('navigate', { target: blank.target, url: c.srv.url('form.html') });
      await ok('tabs', { action: 'close', target: blank.target });
      expect(await refused('navigate', { target: c.target, url: 'https://example.com/' })).toMatch(/^NOT_ALLOWED: Input to example\.com \(browser\)/);
      expect(await evalIn(c, 'location.pathname')).toBe('/actions.html');
      await ok('navigate', { target: c.target, url: c.srv.url('controls.html') });
      expect(await evalIn(c, 'location.pathname')).toBe('/controls.html');
    } finally {
      h.core.settings.update({ input: { allowlist: [] } });
    }
  });

  it('hover shows a tooltip and drag reorders a list, through the core tools', async () => {
    await reload(c, 'controls.html');
    await ok('capture', { target: c.target });
    const hover = await ok('hover', { target: c.target, text: 'Help' });
    expect(hover.s.hit).toMatchObject({ role: 'button', name: 'Help' });
    expect(hover.s.changed).toBeDefined();
    expect(await evalIn(c, 'getComputedStyle(document.getElementById("tip")).display')).toBe('block');

    const apple = await node('Apple');
    const cherry = await node('Cherry');
    await ok('drag', { target: c.target, node: apple, toNode: cherry });
    expect(await evalIn(c, 'window.order()')).toBe('Banana,Cherry,Apple');

    const { s } = await ok('capture', { target: c.target });
    const from = await imagePoint('#item-b');
    const to = await imagePoint('#item-a');
    await ok('drag', { ref: s.frame!.ref, ...from, toX: to.x, toY: to.y });
    expect(await evalIn(c, 'window.order()')).toBe('Cherry,Apple,Banana');
  });

  it('wait_for text and network idle use the page\'s text and requests', async () => {
    await ok('capture', { target: c.target });
    await evalIn(c, "setTimeout(() => { document.getElementById('heading').textContent = 'Ready now'; }, 300)");
    const seen = await ok('wait_for', { target: c.target, text: 'Ready now', timeoutMs: 5000 });
    expect(seen.s.met).toBe(true);
    await evalIn(c, "void fetch('/slow?ms=800')");
    const idle = await ok('wait_for', { target: c.target, networkIdle: true, timeoutMs: 5000 });
    expect(idle.s.waitedMs).toBeGreaterThan(500);
  });
});

describe('find_text', () => {
  interface Found {
    frameRef: string;
    via: string;
    matches: { text: string; center: { x: number; y: number }; node?: string }[];
  }

  it("reads the page's own text, with centres in image pixels of the frame it names", async () => {
    const { s } = await ok('find_text', { target: c.target, text: 'your NAME' });
    const found = s as unknown as Found;
    expect(found.via).toBe('tree');
    expect(found.matches.map((m) => m.text)).toEqual(['Your name']);
    const want = await imagePoint('label[for=name]');
    expect(Math.abs(found.matches[0]!.center.x - want.x)).toBeLessThanOrEqual(3);
    expect(Math.abs(found.matches[0]!.center.y - want.y)).toBeLessThanOrEqual(3);
    // The frame named is one the agent can act in: click there by ref.
    await ok('click', { ref: found.frameRef, x: found.matches[0]!.center.x, y: found.matches[0]!.center.y });
    expect(await evalIn<string>(c, 'document.activeElement?.id')).toBe('name');
  });

  it('reads a stored frame by OCR, where the page may have changed since', async () => {
    const { s } = await ok('capture', { target: c.target });
    const ref = s.frame!.ref;
    const want = await imagePoint('#alert');
    await evalIn(c, "document.getElementById('alert').textContent = 'Changed'");
    const found = (await ok('find_text', { ref, text: 'Alert' })).s as unknown as Found;
    expect(found.via).toBe('ocr');
    expect(found.frameRef).toBe(ref);
    // Whole words first: the button's label leads (OCR may read its border's edge as a mark
    // glued to it, or misread one letter: a near miss still names the button).
    expect(found.matches[0], JSON.stringify(found.matches)).toBeDefined();
    expect(found.matches[0]!.text.replace(/[^A-Za-z]/g, '')).toMatch(/^A.ert$/);
    expect(Math.abs(found.matches[0]!.center.x - want.x)).toBeLessThanOrEqual(3);
    expect(Math.abs(found.matches[0]!.center.y - want.y)).toBeLessThanOrEqual(3);
  });
});
