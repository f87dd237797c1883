/**
 * Actions an agent can trust, on a real Chromium at devicePixelRatio 2: a scroll
 * re-maps a frame's points through page coordinates, node ids are handles found again at their
 * current box, and every action says what it hit, what received the text, whether the page
 * navigated, a dialog opened or the title changed, and which region changed.
 */
import { ready } from '../../../src/main/core/sources/aim.ts';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { imageToSource, sourceToImage } from '../../../src/main/core/image/mapping.ts';
import { createBrowserSource } from '../../../src/main/core/sources/browser/browserSource.ts';
import type { Point } from '../../../src/shared/frame.ts';
import { act, box, capture, centre, click, evalIn, failure, nodeNamed, open, reload, signal, type Ctx } from './kit.ts';

let c: Ctx;
const PAGE = 'actions.html';
const clicked = (): Promise<string[]> => evalIn<string[]>(c, 'window.state.clicked');
const scrollY = (): Promise<number> => evalIn<number>(c, 'scrollY');

beforeAll(async () => {
  c = await open(PAGE, { dpr: 2 });
});

afterAll(async () => {
  await c?.close();
});

beforeEach(async () => {
  await reload(c, PAGE);
});

/** A point of the frame where the agent saw `selector` (the image point rounded, as an agent gives it). */
async function seen(frame: Parameters<typeof sourceToImage>[0], selector: string): Promise<Point> {
  const p = sourceToImage(frame, centre(await box(c, selector)));
  return imageToSource(frame, { x: Math.round(p.x), y: Math.round(p.y) });
}

describe('a scroll is a move, not a mystery', () => {
  it('keeps the frame fresh after Sightline scrolls, and a click from the earlier frame lands on the element seen', async () => {
    const { frame } = await capture(c);
    const at = await seen(frame, '#b5');
    await act(c, { kind: 'scroll', target: c.target, frame, deltaX: 0, deltaY: 500 });
    expect(await scrollY()).toBe(500);
    await expect(c.source.screen.checkFrame(frame, signal)).resolves.toEqual({});

    const d = await click(c, { frame, point: at });
    expect(await clicked()).toEqual(['b5']);
    expect(d.outcome?.hit).toMatchObject({ role: 'button', name: 'Button 5' });
    expect(d.outcome?.remapped).toMatch(/scrolled by \(0, 500\) CSS px since frame f\w+; re-mapped through page coordinates/);
    // Where it landed: the point seen, in the frame's coordinates; in the viewport now, 500 px higher.
    expect(d.point!.y).toBeCloseTo(at.y, 0);
    expect((d.viewportPoint as { y: number }).y).toBeCloseTo(at.y - 500, 0);
  });

  it('scrolls back to a re-mapped point that is off screen now, or hidden under the fixed header', async () => {
    const { frame } = await capture(c);
    const b3 = await seen(frame, '#b3');
    await evalIn(c, 'scrollTo(0, 2000)');
    const far = await click(c, { frame, point: b3 });
    expect(far.outcome?.remapped).toMatch(/scrolled the page to \(0, \d+\) to bring the point into view/);
    // b3 sits 500 px down: scrolled by 480 it is under the 50 px fixed header, which it never was in the frame.
    await evalIn(c, `scrollTo(0, ${Math.round((await box(c, '#b3')).y + (await scrollY()) - 30)})`);
    await click(c, { frame, point: b3 });
    expect(await clicked()).toEqual(['b3', 'b3']);
  });

  it('does not re-map a point on a fixed element: the agent saw it at that place of the viewport', async () => {
    const { frame } = await capture(c);
    const menu = await seen(frame, '#menu');
    await evalIn(c, 'scrollTo(0, 800)');
    const d = await click(c, { frame, point: menu });
    expect(await clicked()).toEqual(['menu']);
    expect(d.outcome?.remapped).toMatch(/fixed button "Menu" that stays in place: not re-mapped/);
  });
});

describe('nodes are handles to elements, not cached boxes', () => {
  it('a shifted layout: a click by node still hits its element, not the banner now at its old place', async () => {
    const { frame } = await capture(c);
    const node = await nodeNamed(c, frame, 'Button 1');
    const before = centre(await box(c, '#b1'));
    await evalIn(c, 'insertBanner()');
    const after = centre(await box(c, '#b1'));
    expect(after.y - before.y).toBeGreaterThan(250);
    // The banner is where the button was.
    expect(await evalIn(c, `document.elementFromPoint(${before.x}, ${before.y}).id`)).toBe('banner');
    const d = await click(c, { node });
    expect(await clicked()).toEqual(['b1']);
    expect(d.outcome?.hit).toMatchObject({ role: 'button', name: 'Button 1', node });
    expect(d.point!.y).toBeCloseTo(after.y, 0);
  });

  it('a node id outlives Sightline\'s connection: another source on the same browser finds its element', async () => {
    const { frame } = await capture(c);
    const node = await nodeNamed(c, frame, 'Button 7');
    const other = createBrowserSource({ settings: { endpoint: c.chrome.endpoint, headless: true }, dataDir: c.dataDir });
    try {
      const d = await other.input.perform(ready({ kind: 'click', target: c.target, node, button: 'left', clicks: 1, modifiers: [] }), signal);
      expect(d.outcome?.hit).toMatchObject({ name: 'Button 7', node });
      expect(await clicked()).toEqual(['b7']);
    } finally {
      await other.dispose?.();
    }
  });

  it('an element removed: NODE_NOT_FOUND with a hint to read the tree again', async () => {
    const { frame } = await capture(c);
    const node = await nodeNamed(c, frame, 'Button 6');
    await evalIn(c, "document.getElementById('b6').remove()");
    const e = await failure(click(c, { node }));
    expect(e.code).toBe('NODE_NOT_FOUND');
    expect(e.message).toMatch(/no longer on the page/);
    expect(e.hint).toMatch(/get_ui_tree/);
    expect(await clicked()).toEqual([]);
  });

  it('get_ui_tree → scroll_into_view → capture → click(node) works, and so does clicking an off-screen node directly', async () => {
    const first = await capture(c);
    const b28 = await nodeNamed(c, first.frame, 'Button 28');
    await act(c, { kind: 'scroll_into_view', target: c.target, node: b28, block: 'center', inline: 'nearest' });
    const second = await capture(c);
    expect(await nodeNamed(c, second.frame, 'Button 28')).toBe(b28);
    const d = await click(c, { frame: second.frame, node: b28 });
    expect(d.outcome?.remapped).toBeUndefined();

    const b2 = await nodeNamed(c, second.frame, 'Button 2');
    const off = await click(c, { node: b2 });
    expect(await clicked()).toEqual(['b28', 'b2']);
    expect(off.outcome?.remapped).toMatch(new RegExp(`node ${b2.replace('.', '\\.')} was off screen: scrolled the page to`));
  });
});

describe('type_text says where the text went', () => {
  it('with nothing focused: NO_FOCUSED_INPUT, and nothing is typed', async () => {
    await evalIn(c, 'document.activeElement && document.activeElement.blur()');
    const e = await failure(act(c, { kind: 'type_text', target: c.target, text: 'abc' }));
    expect(e.code).toBe('NO_FOCUSED_INPUT');
    expect(e.hint).toMatch(/node|x, y/);
    expect(await evalIn<string[]>(c, 'window.state.keys')).toEqual([]);

    // Aimed at a button: the click focuses no field, so nothing is typed either.
    const { frame } = await capture(c);
    const aimed = await failure(act(c, { kind: 'type_text', target: c.target, frame, point: await seen(frame, '#grow'), text: 'abc' }));
    expect(aimed.code).toBe('NO_FOCUSED_INPUT');
    expect(aimed.message).toMatch(/button "Grow"/);
    expect(await evalIn<string[]>(c, 'window.state.keys')).toEqual([]);
  });

  it('into a field: the result names the field and the value read back; a limit that cuts the text says so', async () => {
    const { frame } = await capture(c);
    const name = await nodeNamed(c, frame, 'Your name', 'textbox');
    const d = await act(c, { kind: 'type_text', target: c.target, node: name, text: 'Ada Lovelace' });
    expect(d.outcome?.received).toEqual({ role: 'textbox', name: 'Your name', node: name, value: 'Ada Lovelace', valueMatches: true });

    // The tree lists the field, not its label too; the page's text has the label. Aimed at it,
    // the click focuses the field: the result names the field, not the label.
    expect((await c.source.tree.uiTree(c.target, frame, { maxNodes: 50, query: 'Your name', signal })).map((n) => n.role)).toEqual(['textbox']);
    const label = (await c.source.text.readText(c.target, signal)).find((i) => i.text === 'Your name')!.node!;
    const viaLabel = await act(c, { kind: 'type_text', target: c.target, node: label, text: '!' });
    expect(viaLabel.outcome?.received).toMatchObject({ role: 'textbox', node: name, value: 'Ada Lovelace!', valueMatches: true });

    const cleared = await act(c, { kind: 'type_text', target: c.target, node: name, text: 'Grace', clear: true });
    expect(cleared.outcome?.received).toMatchObject({ value: 'Grace', valueMatches: true });
    expect(await c.page.$eval('#name', (el) => (el as unknown as { value: string }).value)).toBe('Grace');

    const code = await act(c, { kind: 'type_text', target: c.target, frame, point: await seen(frame, '#code'), text: 'ABCDE' });
    expect(code.outcome?.received).toMatchObject({ name: 'Code', value: 'ABC', valueMatches: false });
    expect(code.note).toMatch(/now holds "ABC", not the typed text/);

    // A key that opens a dialog stops the typing: nothing lands after the answer.
    const bang = await act(c, { kind: 'type_text', target: c.target, node: await nodeNamed(c, frame, 'Bang', 'textbox'), text: 'ab!cd' });
    expect(bang.outcome?.dialog).toEqual({ type: 'alert', message: 'Bang!' });
    await act(c, { kind: 'handle_dialog', target: c.target, params: { accept: true } });
    expect(await c.page.$eval('#bang', (el) => (el as unknown as { value: string }).value)).toBe('ab!');

    await c.page.focus('#editor');
    const ed = await act(c, { kind: 'type_text', target: c.target, text: 'rich text' });
    expect(ed.outcome?.received).toMatchObject({ role: 'textbox', name: 'Editor', value: 'rich text', valueMatches: true });
  });
});

describe('actions report their outcome', () => {
  it('a click that navigates says so, and the old frame is stale', async () => {
    const { frame } = await capture(c);
    const d = await click(c, { frame, point: await seen(frame, '#link') });
    expect(d.outcome?.navigated).toMatchObject({ url: c.srv.url('other.html') });
    expect(d.outcome?.navigated?.title).toBeTruthy();
    expect((await failure(c.source.screen.checkFrame(frame, signal))).code).toBe('FRAME_STALE');
  });

  it('a same-document navigation (a fragment link) says so too', async () => {
    const { frame } = await capture(c);
    const d = await click(c, { frame, point: await seen(frame, '#hash') });
    expect(d.outcome?.navigated?.url).toBe(`${c.srv.url(PAGE)}#row-20`);
  });

  it('a click that opens alert() returns at once saying so; the tab shows the dialog until handle_dialog', async () => {
    const { frame } = await capture(c);
    const t = performance.now();
    const d = await click(c, { frame, point: await seen(frame, '#alert') });
    expect(performance.now() - t).toBeLessThan(5_000);
    expect(d.outcome?.dialog).toEqual({ type: 'alert', message: 'Saved!' });
    const listed = (await c.source.screen.listTargets(signal)).find((x) => x.id === c.target);
    expect(listed).toMatchObject({ state: 'dialog', details: { dialog: { type: 'alert', message: 'Saved!' } } });
    // Anything else on the tab is refused at once, never hung.
    const blocked = await failure(capture(c));
    expect(blocked.code).toBe('DIALOG_OPEN');
    expect(blocked.message).toMatch(/alert dialog is open/);
    expect(blocked.hint).toMatch(/handle_dialog/);

    const h = await act(c, { kind: 'handle_dialog', target: c.target, params: { accept: true } });
    expect(h.note).toMatch(/accepted the alert "Saved!"/);
    expect(await clicked()).toEqual(['alert-closed']);
    expect((await c.source.screen.listTargets(signal)).find((x) => x.id === c.target)?.state).not.toBe('dialog');
  });

  it('confirm dismissed and prompt answered: the page gets the answer, and handle_dialog tells what followed', async () => {
    const { frame } = await capture(c);
    const d = await click(c, { frame, point: await seen(frame, '#confirm') });
    expect(d.outcome?.dialog).toEqual({ type: 'confirm', message: 'Delete everything?' });
    const h = await act(c, { kind: 'handle_dialog', target: c.target, params: { accept: false } });
    expect(await evalIn(c, 'window.state.confirmed')).toBe(false);
    expect(h.outcome?.changed).toBeDefined();

    const p = await click(c, { frame, point: await seen(frame, '#prompt') });
    expect(p.outcome?.dialog).toEqual({ type: 'prompt', message: 'Your age?', defaultPrompt: '30' });
    await act(c, { kind: 'handle_dialog', target: c.target, params: { accept: true, promptText: '42' } });
    expect(await evalIn(c, 'window.state.prompted')).toBe('42');
    const none = await failure(act(c, { kind: 'handle_dialog', target: c.target, params: { accept: true } }));
    expect(none.code).toBe('INVALID_ARGUMENT');
  });

  it('a title change and the changed region, in the frame\'s CSS px; after "none" tells nothing', async () => {
    const { frame } = await capture(c);
    const t = await click(c, { frame, point: await seen(frame, '#retitle') });
    expect(t.outcome?.title).toEqual({ from: 'Sightline actions page', to: 'Retitled' });

    const g = await click(c, { frame, point: await seen(frame, '#grow') });
    const grown = await box(c, '#grown');
    const ch = g.outcome!.changed!;
    expect(ch.x).toBeLessThanOrEqual(grown.x + 0.5);
    expect(ch.y).toBeLessThanOrEqual(grown.y + 0.5);
    expect(ch.x + ch.width).toBeGreaterThanOrEqual(grown.x + grown.width - 0.5);
    expect(ch.y + ch.height).toBeGreaterThanOrEqual(grown.y + grown.height - 0.5);
    expect(ch.height).toBeLessThan(200);

    const quiet = await click(c, { frame, point: await seen(frame, '#b1') }, { after: 'summary' });
    expect(quiet.outcome).toMatchObject({ hit: { name: 'Button 1' } });
    expect(quiet.outcome?.changed).toBeUndefined();
    const none = await click(c, { frame, point: await seen(frame, '#grow') }, { after: 'none' });
    expect(none.outcome).toEqual({});
  });
});

describe('native crops', () => {
  it('a 256×122 CSS px region of a fresh frame comes back at 512×244 at DPR 2, even after a scroll; a stale frame gives none', async () => {
    const { frame } = await capture(c);
    expect(frame.scale).toBeCloseTo(1.28, 6);
    const r = await box(c, '#swatch');
    const rect = { x: r.x, y: r.y, width: 256, height: 122 };
    const opts = { format: 'png' as const, quality: 90, maxDimension: 4000, signal };
    const region = await c.source.screen.captureRegion(frame, rect, opts);
    expect(region).toMatchObject({ width: 512, height: 244, format: 'png', rect });
    const colours = async (data: Buffer): Promise<number[][]> => {
      const { data: px, info } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
      const at = (x: number): number[] => Array.from(px.subarray((Math.floor(info.height / 2) * info.width + x) * info.channels, (Math.floor(info.height / 2) * info.width + x) * info.channels + 3));
      return [at(10), at(info.width - 10)];
    };
    expect(await colours(region!.data)).toEqual([
      [255, 0, 0],
      [0, 0, 255],
    ]);

    await evalIn(c, 'scrollTo(0, 100)');
    const scrolled = await c.source.screen.captureRegion(frame, rect, opts);
    expect(scrolled).toMatchObject({ width: 512, height: 244 });
    expect(await colours(scrolled!.data)).toEqual([
      [255, 0, 0],
      [0, 0, 255],
    ]);
    const capped = await c.source.screen.captureRegion(frame, rect, { ...opts, maxDimension: 256 });
    expect(capped).toMatchObject({ width: 256, height: 122 });

    await reload(c, 'other.html');
    expect(await c.source.screen.captureRegion(frame, rect, opts)).toBeUndefined();
  });
});

describe('text and network', () => {
  it('reads the visible text with node ids an action can aim at, and waits for the network to be idle', async () => {
    const items = await c.source.text.readText(c.target, signal);
    const b1 = items.find((i) => i.text === 'Button 1');
    expect(b1?.node).toBeTruthy();
    const b1Box = await box(c, '#b1');
    for (const k of ['x', 'y', 'width', 'height'] as const) expect(b1!.bounds[k]).toBeCloseTo(b1Box[k], 1);
    expect(items.find((i) => i.text === 'Button 30')).toBeUndefined();
    expect(items.some((i) => i.text === 'Your name')).toBe(true);
    await click(c, { node: b1!.node! });
    expect(await clicked()).toEqual(['b1']);

    const idle = await c.source.network.networkIdle(c.target, { idleMs: 200, timeoutMs: 5_000, signal });
    expect(idle.waitedMs).toBeLessThan(5_000);
    await evalIn(c, "void (window.slow = fetch('/slow?ms=1500').then((r) => r.text()))");
    const timeout = await failure(c.source.network.networkIdle(c.target, { idleMs: 100, timeoutMs: 300, signal }));
    expect(timeout.code).toBe('TIMEOUT');
    expect(timeout.message).toMatch(/1 request in flight/);
    const waited = await c.source.network.networkIdle(c.target, { idleMs: 100, timeoutMs: 5_000, signal });
    expect(waited.waitedMs).toBeGreaterThan(800);
    expect(await evalIn(c, 'window.slow')).toBe('slow');
  });
});
