/**
 * The browser source against a real Debian Chromium (headless, fresh profile) showing a local
 * test page. The test keeps its own CDP client (the "driver") to read page state and emulate
 * viewports; everything Sightline does goes through the Source.
 */
import { ready } from '../../../src/main/core/sources/aim.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cropMapping, imageToSource, rectSourceToImage, sourceToImage, type Mapping } from '../../../src/main/core/image/mapping.ts';
import { createBrowserSource, type BrowserSource } from '../../../src/main/core/sources/browser/browserSource.ts';
import type { BrowserFrameState } from '../../../src/main/core/sources/browser/frameState.ts';
import type { CaptureOptions, CapturedImage, SourceAction as AnyAction, StoredFrame as AnyFrame } from '../../../src/main/core/sources/source.ts';

type StoredFrame = AnyFrame<BrowserFrameState>;
type SourceAction = AnyAction<BrowserFrameState>;
import type { Point, Rect } from '../../../src/shared/frame.ts';
import { SightlineError } from '../../../src/shared/errors.ts';
import { connectDriver, driverPage, emulate, resizeViewport, serveFixtures, startChromium, type FixtureServer, type RunningChromium } from '../../fixtures/browser/harness.ts';

interface Ctx {
  chrome: RunningChromium;
  driver: Browser;
  source: BrowserSource;
  target: string;
  page: Page;
}

let srv: FixtureServer;
let dataDir: string;
/** One real Chromium per devicePixelRatio: 2 is a HiDPI screen (--force-device-scale-factor), not emulation. */
const ctxs = new Map<number, Ctx>();
let main: Ctx;
const signal = new AbortController().signal;

async function open(dpr: number): Promise<Ctx> {
  const chrome = await startChromium({ url: srv.url('page.html'), deviceScaleFactor: dpr });
  const source = createBrowserSource({ settings: { endpoint: chrome.endpoint, headless: true }, dataDir });
  const driver = await connectDriver(chrome.endpoint);
  const tabs = await source.screen.listTargets(signal);
  const tab = tabs.find((t) => String(t.details?.url).endsWith('/page.html'));
  expect(tab).toBeDefined();
  const page = await driverPage(driver, tab!.id.slice('browser:'.length));
  return { chrome, driver, source, target: tab!.id, page };
}

async function reset(c: Ctx): Promise<void> {
  await c.page.goto(srv.url('page.html'));
  await resizeViewport(c.page, 1280, 800);
}

beforeAll(async () => {
  srv = await serveFixtures();
  dataDir = mkdtempSync(join(tmpdir(), 'sightline-browser-'));
  const [one, two] = await Promise.all([open(1), open(2)]);
  ctxs.set(1, one);
  ctxs.set(2, two);
  main = one;
});

afterAll(async () => {
  for (const c of ctxs.values()) {
    await c.source.dispose?.();
    await c.driver.disconnect();
    await c.chrome.kill();
    c.chrome.cleanup();
  }
  await srv?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  await reset(main);
});

const defaults: CaptureOptions = { maxDimension: 1000, format: 'jpeg', quality: 70, raw: false, signal };

async function capture(opts: Partial<CaptureOptions> = {}, c: Ctx = main): Promise<{ cap: CapturedImage<BrowserFrameState>; frame: StoredFrame }> {
  const cap = await c.source.screen.capture(c.target, { ...defaults, ...opts });
  const image = { width: cap.encoded!.width, height: cap.encoded!.height };
  // The core's mapping: scale = source units per image pixel, along the width.
  const frame: StoredFrame = {
    ref: `f${Math.random().toString(36).slice(2, 8)}`,
    source: 'browser',
    target: c.target,
    capturedAt: new Date().toISOString(),
    image,
    sourceSize: cap.sourceSize,
    origin: cap.origin,
    scale: cap.sourceSize.width / image.width,
    state: cap.state,
  };
  return { cap, frame };
}

async function box(selector: string, c: Ctx = main): Promise<Rect> {
  return c.page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
}

const centre = (r: Rect): Point => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });
const round = (p: Point): Point => ({ x: Math.round(p.x), y: Math.round(p.y) });

async function pixel(cap: CapturedImage, p: Point): Promise<[number, number, number]> {
  const { data, info } = await sharp(cap.encoded!.data).raw().toBuffer({ resolveWithObject: true });
  const i = (Math.floor(p.y) * info.width + Math.floor(p.x)) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

function near(actual: number[], expected: number[], tolerance = 40): boolean {
  return actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance);
}

async function state<T = Record<string, unknown>>(c: Ctx = main): Promise<T> {
  return evalIn<T>(c.page, 'window.state');
}

async function act(a: SourceAction, c: Ctx = main): Promise<Record<string, unknown>> {
  return c.source.input.perform(ready(a), signal);
}

async function click(frame: StoredFrame | undefined, point: Point, extra: Partial<Extract<SourceAction, { kind: 'click' }>> = {}, c: Ctx = main): Promise<Record<string, unknown>> {
  return act({ kind: 'click', target: c.target, frame, point, button: 'left', clicks: 1, modifiers: [], ...extra }, c);
}

/** Evaluate an expression in the page (a string: this project type-checks without DOM globals). */
async function evalIn<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

async function valueOf(selector: string, c: Ctx = main): Promise<string> {
  return c.page.$eval(selector, (el) => (el as unknown as { value: string }).value);
}

async function failure(p: Promise<unknown>): Promise<SightlineError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(SightlineError);
    return e as SightlineError;
  }
  throw new Error('expected a SightlineError');
}

describe('list_targets', () => {
  it('lists the tab with title, url and viewport, and hides browser UI pages', async () => {
    const ui = await main.driver.newPage();
    await ui.goto('chrome://version').catch(() => undefined);
    try {
      const tabs = await main.source.screen.listTargets(signal);
      const tab = tabs.find((t) => t.id === main.target);
      expect(tab).toMatchObject({ source: 'browser', kind: 'tab', title: 'Sightline browser test page' });
      expect(tab!.details).toMatchObject({ url: srv.url('page.html'), viewport: { width: 1280, height: 800 }, devicePixelRatio: 1 });
      expect(tabs.some((t) => String(t.details?.url).startsWith('chrome://'))).toBe(false);
      expect(tabs.every((t) => /^browser:[A-F0-9]+$/.test(t.id))).toBe(true);
    } finally {
      await ui.close();
    }
  });
});

describe.each([1, 2])('capture and click at devicePixelRatio %i', (dpr) => {
  const ctx = (): Ctx => ctxs.get(dpr)!;
  beforeEach(async () => {
    if (dpr !== 1) await reset(ctx());
  });

  it('scales in the browser and maps image pixels to CSS px of the viewport', async () => {
    const c = ctx();
    const { cap, frame } = await capture({}, c);
    expect(cap.encoded).toMatchObject({ format: 'jpeg', width: 1000, height: 625 });
    expect(cap.encoded!.data.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(cap.sourceSize).toEqual({ width: 1280, height: 800 });
    expect(cap.origin).toEqual({ x: 0, y: 0 });
    expect(cap.state).toMatchObject({ dpr, viewport: { width: 1280, height: 800 }, fullPage: false, url: srv.url('page.html') });
    expect(cap.warnings).toBeUndefined();

    // Where the button is in the image, from its DOM box and the frame mapping.
    const counter = await box('#counter', c);
    const imagePoint = round(sourceToImage(frame, centre(counter)));
    // The button's red, away from its white label; and the page's white just outside it.
    expect(near(await pixel(cap, sourceToImage(frame, { x: counter.x + 8, y: counter.y + 8 })), [255, 0, 0])).toBe(true);
    expect(near(await pixel(cap, sourceToImage(frame, { x: counter.x + counter.width - 8, y: counter.y + counter.height - 8 })), [255, 0, 0])).toBe(true);
    expect(near(await pixel(cap, sourceToImage(frame, { x: counter.x + 8, y: counter.y + counter.height + 6 })), [255, 255, 255])).toBe(true);
    await click(frame, imageToSource(frame, imagePoint), {}, c);
    expect((await state<{ counter: number }>(c)).counter).toBe(1);
  });

  it('clicks through a crop frame of the capture', async () => {
    const c = ctx();
    const { frame } = await capture({}, c);
    // A crop of image pixels (60,40)-(460,140), encoded at twice the size (as from a native original).
    const crop: Mapping = cropMapping(frame, { x: 60, y: 40, width: 400, height: 100 }, { width: 800, height: 200 });
    const inCrop = round(sourceToImage(crop, centre(await box('#toggle', c))));
    expect(inCrop.x).toBeGreaterThan(0);
    expect(inCrop.x).toBeLessThan(800);
    expect(inCrop.y).toBeGreaterThan(0);
    expect(inCrop.y).toBeLessThan(200);
    await click(frame, imageToSource(crop, inCrop), {}, c);
    expect((await state<{ toggle: boolean }>(c)).toggle).toBe(true);
  });

  it('raw is native device pixels', async () => {
    const c = ctx();
    const raw = await capture({ raw: true, format: 'png' }, c);
    expect(raw.cap.encoded).toMatchObject({ format: 'png', width: 1280 * dpr, height: 800 * dpr });
    expect(raw.cap.encoded!.data.subarray(1, 4).toString()).toBe('PNG');
    expect(raw.frame.scale).toBe(1 / dpr);
  });

  it('scroll_into_view, then capture: the box in the tree is where the element is drawn', async () => {
    const c = ctx();
    const first = await capture({}, c);
    const far = (await c.source.tree.uiTree(c.target, first.frame, { maxNodes: 20, query: 'Far button', signal }))[0]!;
    expect(far.inViewport).toBe(false);
    const details = await act({ kind: 'scroll_into_view', target: c.target, node: far.id, block: 'center', inline: 'nearest' }, c);
    expect((details.scroll as Point).y).toBeGreaterThan(0);

    const { cap, frame } = await capture({}, c);
    const after = (await c.source.tree.uiTree(c.target, frame, { maxNodes: 20, query: 'Far button', signal }))[0]!;
    expect(after.id).toBe(far.id);
    expect(after.inViewport).toBe(true);
    const inImage = rectSourceToImage(frame, after.bounds);
    expect(inImage.x).toBeGreaterThanOrEqual(0);
    expect(inImage.y).toBeGreaterThanOrEqual(0);
    expect(inImage.x + inImage.width).toBeLessThanOrEqual(cap.encoded!.width);
    expect(inImage.y + inImage.height).toBeLessThanOrEqual(cap.encoded!.height);
    // block: center puts it mid-viewport, and the pixels inside the box are the element's blue.
    expect(Math.abs(inImage.y + inImage.height / 2 - cap.encoded!.height / 2)).toBeLessThan(4);
    // (The label is drawn in white in the middle: sample the button's blue near its edges.)
    expect(near(await pixel(cap, { x: inImage.x + 4, y: inImage.y + 4 }), [0, 0, 255])).toBe(true);
    expect(near(await pixel(cap, { x: inImage.x + 4, y: inImage.y + inImage.height / 2 }), [0, 0, 255])).toBe(true);
    expect(near(await pixel(cap, { x: inImage.x + inImage.width - 5, y: inImage.y + inImage.height - 5 }), [0, 0, 255])).toBe(true);
    expect(near(await pixel(cap, { x: inImage.x + inImage.width + 6, y: inImage.y + inImage.height / 2 }), [0, 0, 255])).toBe(false);
    expect(near(await pixel(cap, { x: inImage.x + inImage.width / 2, y: inImage.y - 6 }), [0, 0, 255])).toBe(false);

    // The node's centre, through the frame, hits it (what the core's click.node does).
    await click(frame, imageToSource(frame, round(centre(inImage))), {}, c);
    expect((await state<{ far?: number }>(c)).far).toBe(1);
  });
});

describe('capture options', () => {
  it('encodes png and webp in the browser and honours the limits', async () => {
    const webp = await capture({ format: 'webp', maxDimension: 640 });
    expect(webp.cap.encoded).toMatchObject({ format: 'webp', width: 640, height: 400 });
    expect(webp.cap.encoded!.data.subarray(8, 12).toString()).toBe('WEBP');
    const png = await capture({ format: 'png' });
    expect(png.cap.encoded).toMatchObject({ format: 'png', width: 1000, height: 625 });
    const limited = await capture({ maxDimension: 1568, maxPixels: 1_150_000 }, ctxs.get(2));
    expect(limited.cap.encoded!.width).toBeLessThanOrEqual(1568);
    expect(limited.cap.encoded!.width * limited.cap.encoded!.height).toBeLessThanOrEqual(1_150_000);
  });

  it('fullPage captures the document; scrollOffset scrolls first', async () => {
    const docHeight = await evalIn<number>(main.page, 'document.documentElement.scrollHeight');
    const full = await capture({ fullPage: true });
    expect(full.cap.sourceSize.height).toBeCloseTo(docHeight, 6);
    expect(full.cap.encoded!.height).toBe(1000);
    expect(full.cap.state).toMatchObject({ fullPage: true });

    const scrolled = await capture({ scrollOffset: { x: 0, y: 300 } });
    expect(scrolled.cap.state).toMatchObject({ scroll: { x: 0, y: 300 } });
    const again = await capture({ scrollOffset: { x: 0, y: 200 } });
    expect(again.cap.state).toMatchObject({ scroll: { x: 0, y: 500 } });
    expect(await evalIn<number>(main.page, 'scrollY')).toBe(500);
  });

  it('clicks a full-page point below the viewport by scrolling it into view first', async () => {
    const { frame } = await capture({ fullPage: true, maxDimension: 4000 });
    const doc = await evalIn<Rect>(
      main.page,
      `(() => { const r = document.getElementById('far').getBoundingClientRect(); return { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height }; })()`,
    );
    expect(doc.y).toBeGreaterThan(800);
    const imagePoint = round(sourceToImage(frame, centre(doc)));
    const details = await click(frame, imageToSource(frame, imagePoint));
    expect((details.outcome as { remapped?: string }).remapped).toMatch(/scrolled the page to \(0, \d+\) to bring the point into view/);
    expect((await state<{ far?: number }>()).far).toBe(1);
  });

  it('still maps correctly when another DevTools client emulates a device on the tab', async () => {
    await emulate(main.page, 1280, 800, 2);
    const { cap, frame } = await capture();
    if (cap.encoded!.width !== 1000) expect(cap.warnings?.join(' ')).toMatch(/emulating/);
    const imagePoint = round(sourceToImage(frame, centre(await box('#counter'))));
    await click(frame, imageToSource(frame, imagePoint));
    expect((await state<{ counter: number }>()).counter).toBe(1);
    await main.page.setViewport(null);
  });
});

describe('typing and keys', () => {
  const exact = '!@#$%^&*()_+{}|:"<>?`~ héllo 世界';

  it('types symbols and non-ASCII exactly, after clicking the field', async () => {
    const { frame } = await capture();
    const at = imageToSource(frame, round(sourceToImage(frame, centre(await box('#text')))));
    const details = await act({ kind: 'type_text', target: main.target, frame, point: at, text: exact });
    expect(details.method).toBe('keys');
    expect(await valueOf('#text')).toBe(exact);
  });

  it('types 10,000 characters exactly (newlines and surrogate pairs included) and refuses more', async () => {
    await main.page.focus('#area');
    // A surrogate pair straddles the 2,000-unit insert chunks; newlines are pressed as Enter.
    const text = `${'a'.repeat(1999)}😀${exact}\n${'b'.repeat(3000)}\n${exact}`.padEnd(9_990, 'z') + '世界😀';
    expect([...text].length).toBeLessThanOrEqual(10_000);
    const details = await act({ kind: 'type_text', target: main.target, text });
    expect(details.method).toBe('insert');
    expect(await valueOf('#area')).toBe(text);

    const tooLong = await failure(act({ kind: 'type_text', target: main.target, text: 'x'.repeat(10_001) }));
    expect(tooLong.code).toBe('INVALID_ARGUMENT');
    expect(tooLong.hint).toMatch(/10000|10,000/);
  });

  it('presses DOM keys and combinations; Enter submits the form', async () => {
    await main.page.focus('#q');
    await act({ kind: 'type_text', target: main.target, text: 'hello' });
    await act({ kind: 'press_key', target: main.target, key: 'Enter' });
    expect((await state<{ submitted: string[] }>()).submitted).toEqual(['hello']);
    await act({ kind: 'press_key', target: main.target, key: 'Control+A' });
    await act({ kind: 'type_text', target: main.target, text: 'x' });
    expect(await valueOf('#q')).toBe('x');
    await act({ kind: 'press_key', target: main.target, key: 'Shift+Tab' });
    const keys = (await state<{ keys: { key: string; shift: boolean; ctrl: boolean }[] }>()).keys;
    expect(keys).toContainEqual(expect.objectContaining({ key: 'a', ctrl: true }));
    expect(keys.at(-1)).toMatchObject({ key: 'Tab', shift: true });
  });

  it('refuses an unknown key by name, sending nothing', async () => {
    const before = (await state<{ keys: unknown[] }>()).keys.length;
    const e = await failure(act({ kind: 'press_key', target: main.target, key: 'Control+Blorp' }));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.message).toContain('Blorp');
    expect(e.hint).toMatch(/Enter/);
    expect((await state<{ keys: unknown[] }>()).keys.length).toBe(before);
  });
});

describe('mouse', () => {
  it('double-clicks, right-clicks and holds modifiers', async () => {
    const { frame } = await capture();
    const at = imageToSource(frame, round(sourceToImage(frame, centre(await box('#clicklog')))));
    await click(frame, at, { clicks: 2 });
    await click(frame, at, { button: 'right' });
    await click(frame, at, { modifiers: ['Shift', 'Control'] });
    await click(frame, at);
    const clicks = (await state<{ clicks: { type: string; button: number; detail: number; shift: boolean; ctrl: boolean }[] }>()).clicks;
    expect(clicks.filter((c) => c.type === 'dblclick')).toHaveLength(1);
    expect(clicks).toContainEqual(expect.objectContaining({ type: 'contextmenu', button: 2 }));
    expect(clicks).toContainEqual(expect.objectContaining({ type: 'click', shift: true, ctrl: true }));
    expect(clicks.at(-1)).toMatchObject({ type: 'click', shift: false, ctrl: false, detail: 1 });
  });

  it('scrolls with the wheel; scrolling keeps a viewport frame fresh, resizing or navigating does not', async () => {
    const { frame } = await capture();
    const details = await act({ kind: 'scroll', target: main.target, frame, point: { x: 600, y: 500 }, deltaX: 0, deltaY: 400 });
    expect(await evalIn<number>(main.page, 'scrollY')).toBe(400);
    expect(details.scroll).toEqual({ x: 0, y: 400 });
    await expect(main.source.screen.checkFrame(frame, signal)).resolves.toEqual({});

    await resizeViewport(main.page, 1000, 700);
    const resized = await failure(main.source.screen.checkFrame(frame, signal));
    expect(resized.code).toBe('FRAME_STALE');
    expect(resized.message).toMatch(/1280×800 to 1000×700/);

    const fresh = await capture();
    await main.page.goto(srv.url('other.html'));
    const navigated = await failure(main.source.screen.checkFrame(fresh.frame, signal));
    expect(navigated.code).toBe('FRAME_STALE');
    expect(navigated.message).toMatch(/other\.html/);
    expect(navigated.hint).toMatch(/[Cc]apture/);
  });
});

describe('get_ui_tree', () => {
  it('returns a bounded, filtered tree of interactive and text nodes with stable ids', async () => {
    const { frame } = await capture();
    const nodes = await main.source.tree.uiTree(main.target, frame, { maxNodes: 500, signal });
    const byName = (n: string) => nodes.find((x) => x.name === n);
    expect(byName('Clicked 0')).toMatchObject({ role: 'button', clickable: true, enabled: true, inViewport: true });
    expect(byName('Disabled')).toMatchObject({ role: 'button', enabled: false });
    expect(byName('Off')?.attributes).toMatchObject({ pressed: 'false' });
    expect(nodes.find((x) => x.role === 'textbox' && x.name === 'Name')).toBeDefined();
    expect(nodes.find((x) => x.role === 'textbox' && x.name === 'Notes')).toBeDefined();
    expect(byName('Far button')).toMatchObject({ role: 'button', inViewport: false });
    expect(byName('Item 1')).toMatchObject({ role: 'listitem', inViewport: true });
    expect(byName('Clicked 0')!.bounds).toEqual(await box('#counter'));
    const ids = new Set(nodes.map((n) => n.id));
    expect(ids.size).toBe(nodes.length);
    for (const n of nodes) if (n.parentId) expect(ids.has(n.parentId)).toBe(true);

    const again = await main.source.tree.uiTree(main.target, frame, { maxNodes: 500, signal });
    expect(again.find((x) => x.name === 'Clicked 0')!.id).toBe(byName('Clicked 0')!.id);

    const filtered = await main.source.tree.uiTree(main.target, frame, { maxNodes: 500, query: 'item 19', signal });
    expect(filtered.map((n) => n.name).sort()).toEqual(['Item 19', ...Array.from({ length: 10 }, (_, i) => `Item ${190 + i}`)].sort());
    const few = await main.source.tree.uiTree(main.target, frame, { maxNodes: 5, signal });
    expect(few).toHaveLength(5);
    expect(few.every((n) => n.inViewport)).toBe(true);
  });

  it('gives full-page frames document coordinates', async () => {
    await evalIn(main.page, 'scrollTo(0, 300)');
    const { frame } = await capture({ fullPage: true });
    const node = (await main.source.tree.uiTree(main.target, frame, { maxNodes: 5, query: 'Clicked 0', signal }))[0]!;
    expect(node.bounds).toEqual(await box('#counter').then((r) => ({ ...r, y: r.y + 300 })));
  });

  it('refuses node ids that name nothing', async () => {
    const { frame } = await capture();
    const node = (await main.source.tree.uiTree(main.target, frame, { maxNodes: 5, signal }))[0]!;
    for (const bad of ['zzzzz.1', 'nonsense', `${node.id.split('.')[0]}.999999`]) {
      const e = await failure(act({ kind: 'scroll_into_view', target: main.target, node: bad, block: 'start', inline: 'nearest' }));
      expect(e.code).toBe('NODE_NOT_FOUND');
      expect(e.hint).toMatch(/get_ui_tree/);
    }
    await main.page.goto(srv.url('other.html'));
    const gone = await failure(act({ kind: 'scroll_into_view', target: main.target, node: node.id, block: 'start', inline: 'nearest' }));
    expect(gone.code).toBe('NODE_NOT_FOUND');
  });
});

describe('bad input and concurrency', () => {
  it('answers unknown or closed tabs and bad arguments with clear errors, and keeps working', async () => {
    const { source, target, driver } = main;
    const unknown = await failure(source.screen.capture('browser:0123456789ABCDEF0123456789ABCDEF', defaults));
    expect(unknown.code).toBe('TAB_NOT_FOUND');
    expect(unknown.hint).toMatch(/list_targets/);
    expect((await failure(act({ kind: 'press_key', target: 'browser:nope', key: 'Enter' }))).code).toBe('TAB_NOT_FOUND');
    expect((await failure(source.screen.capture('browser:', defaults))).code).toBe('TAB_NOT_FOUND');

    const extra = await driver.newPage();
    await extra.goto(srv.url('other.html'));
    const tabs = await source.screen.listTargets(signal);
    const other = tabs.find((t) => t.id !== target && String(t.details?.url).endsWith('other.html'))!;
    await source.screen.capture(other.id, defaults);
    await extra.close();
    const closed = await failure(source.screen.capture(other.id, defaults));
    expect(closed.code).toBe('TAB_NOT_FOUND');

    expect((await failure(act({ kind: 'swipe', target, point: { x: 1, y: 1 }, to: { x: 2, y: 2 }, durationMs: 100 }))).code).toBe('UNSUPPORTED');
    expect((await failure(act({ kind: 'type_text', target, text: '' }))).code).toBe('INVALID_ARGUMENT');
    expect((await capture()).cap.encoded!.width).toBe(1000);
  });

  it('serialises concurrent calls on one tab', async () => {
    await main.page.focus('#text');
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    await Promise.all([act({ kind: 'type_text', target: main.target, text: a }), act({ kind: 'type_text', target: main.target, text: b }), capture()]);
    expect([a + b, b + a]).toContain(await valueOf('#text'));
  });

  it('honours an aborted signal and releases the tab', async () => {
    const ac = new AbortController();
    ac.abort();
    const e = await failure(main.source.screen.capture(main.target, { ...defaults, signal: ac.signal }));
    expect(e.code).toBe('CANCELLED');
    const slow = new AbortController();
    await main.page.focus('#text');
    const pending = main.source.input.perform(ready({ kind: 'type_text', target: main.target, text: 'q'.repeat(150) }), slow.signal);
    setTimeout(() => slow.abort(), 20);
    expect((await failure(pending)).code).toBe('CANCELLED');
    expect((await capture()).cap.encoded!.width).toBe(1000);
  });
});
