/**
 * Secrets on a real Chromium page through a real MCP client: a password field, a payment field, a
 * card number and an API key in the page's text are one solid colour in the capture, a crop, the
 * after-image of an action and the stored file; get_ui_tree, find_text and search_screenshots
 * (the real OCR engine and the real text index) never give them; text typed into a password field
 * reaches the page exactly and no file under the data directory holds it; a number that fails the
 * Luhn check stays readable; with masking off the field shows as it is.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FrameRecord } from '../../../src/main/core/catalog/types.ts';
import { MASK_COLOUR } from '../../../src/main/core/image/pipeline.ts';
import { OcrService } from '../../../src/main/core/text/ocr.ts';
import type { Rect } from '../../../src/shared/frame.ts';
import { startHarness, type Harness } from '../../support/mcpHarness.ts';
import { box, evalIn, open, reload, type Ctx } from './kit.ts';

const PAGE = 'secrets.html';
const PREFILLED = 'hunter2-correct-horse';
const CARD = '4111 1111 1111 1111';
const NOT_A_CARD = '4111 1111 1111 1112';
const KEY = 'sk-proj-Zq8Wm3Lp0Xv7Tn2Rb5Yc9Hd4';
const PAYMENT = '5555 5555 5555 4444';
const TYPED = 'Typed-Secret-pw!42';

let c: Ctx;
let h: Harness;
let ocr: OcrService;

beforeAll(async () => {
  c = await open(PAGE);
  ocr = new OcrService({ settings: () => ({ enabled: true, engine: 'auto', index: true, cpuBudget: 1, excludeApps: [] }) });
  h = await startHarness({ sources: [c.source], settings: { sources: { browser: { enabled: true } } }, ocr, textIndex: { startDelayMs: 0, quietMs: 0, pollMs: 200, retryMs: 300 } });
});

afterAll(async () => {
  await h?.close();
  await ocr?.dispose();
  await c?.close();
});

beforeEach(async () => {
  h.core.settings.update({ privacy: { masking: true } });
  await reload(c, PAGE);
});

interface Answer {
  r: CallToolResult;
  s: Record<string, unknown> & { frame?: { ref: string } };
  text: string;
}

async function ok(name: string, args: Record<string, unknown>): Promise<Answer> {
  const r = await h.call(name, args);
  const text = r.content.map((x) => (x.type === 'text' ? x.text : '')).join('\n');
  expect(r.isError, text).toBeFalsy();
  return { r, s: (r.structuredContent ?? {}) as Answer['s'], text };
}

function imageOf(r: CallToolResult): Buffer {
  const img = r.content.find((x) => x.type === 'image');
  return Buffer.from(img && img.type === 'image' ? img.data : '', 'base64');
}

/** `css` (viewport CSS px) in image px of `frame`, shrunk by `inset` px on each side. */
function inFrame(frame: FrameRecord, css: Rect, inset = 3): Rect {
  const x = (css.x - frame.origin.x) / frame.scale + inset;
  const y = (css.y - frame.origin.y) / frame.scale + inset;
  return { x: Math.round(x), y: Math.round(y), width: Math.round(css.width / frame.scale - 2 * inset), height: Math.round(css.height / frame.scale - 2 * inset) };
}

/** The largest difference of any pixel of `r` from the mask colour (0–255). */
async function offMask(data: Buffer, r: Rect): Promise<number> {
  const { data: px, info } = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let worst = 0;
  for (let y = r.y; y < r.y + r.height; y++) {
    for (let x = r.x; x < r.x + r.width; x++) {
      const i = (y * info.width + x) * info.channels;
      worst = Math.max(worst, Math.abs(px[i]! - MASK_COLOUR.r), Math.abs(px[i + 1]! - MASK_COLOUR.g), Math.abs(px[i + 2]! - MASK_COLOUR.b));
    }
  }
  return worst;
}

/** JPEG leaves a few levels of ringing inside a flat box; text or a field's dots differ by 100+. */
const SOLID = 16;

async function boxes(): Promise<Record<'pw' | 'card' | 'order' | 'key' | 'cc' | 'login', Rect>> {
  return { pw: await box(c, '#pw'), card: await box(c, '#card'), order: await box(c, '#order'), key: await box(c, '#key'), cc: await box(c, '#cc'), login: await box(c, '#login') };
}

/** Every file under the data directory, as bytes. */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push({ path: p, bytes: readFileSync(p) });
  }
  return out;
}

describe('masking on (the default)', () => {
  it('fills password and payment fields, a card number and an API key in the capture and the stored file; a non-Luhn number stays readable', async () => {
    const b = await boxes();
    const cap = await ok('capture', { target: c.target });
    const frame = h.core.frames.get(cap.s.frame!.ref);
    const stored = (await h.core.frames.read(frame.ref, 'image')).data;
    for (const data of [imageOf(cap.r), stored]) {
      for (const k of ['pw', 'card', 'key', 'cc'] as const) expect(await offMask(data, inFrame(frame, b[k], 2)), k).toBeLessThanOrEqual(SOLID);
      expect(await offMask(data, inFrame(frame, b.order, 2))).toBeGreaterThan(100);
    }
    const thumb = (await h.core.frames.read(frame.ref, 'thumbnail')).data;
    const t = await sharp(thumb).metadata();
    const k = frame.image.width / t.width!;
    const pwInThumb = inFrame({ ...frame, scale: frame.scale * k }, b.pw, 4);
    expect(await offMask(thumb, pwInThumb)).toBeLessThanOrEqual(SOLID);
    // The page itself is left as it was.
    expect(await evalIn<number>(c, 'document.querySelectorAll("sightline-mask").length')).toBe(0);
  });

  it('a crop of a fresh frame (captured again in the page at device resolution) is masked too', async () => {
    const b = await boxes();
    const cap = await ok('capture', { target: c.target });
    const parent = h.core.frames.get(cap.s.frame!.ref);
    const left = Math.min(b.pw.x, b.card.x) - 10;
    const top = b.pw.y - 10;
    const around = inFrame(parent, { x: left, y: top, width: b.pw.x + b.pw.width + 10 - left, height: b.card.y + b.card.height + 10 - top }, 0);
    const crop = await ok('crop_screenshot', { ref: parent.ref, coordinateUnits: 'pixels', ...around, maxDimension: 2000 });
    const cropped = h.core.frames.get(crop.s.frame!.ref);
    for (const data of [imageOf(crop.r), (await h.core.frames.read(cropped.ref, 'image')).data]) {
      expect(await offMask(data, inFrame(cropped, b.pw))).toBeLessThanOrEqual(SOLID);
      expect(await offMask(data, inFrame(cropped, b.card))).toBeLessThanOrEqual(SOLID);
    }
  });

  it('get_ui_tree marks the password field and gives no secret; find_text finds none but finds the non-Luhn number', async () => {
    const tree = await ok('get_ui_tree', { target: c.target, maxNodes: 200 });
    const nodes = tree.s.nodes as { id: string; role: string; name: string; value?: string; password?: boolean }[];
    const all = `${tree.text}\n${JSON.stringify(tree.s)}`;
    for (const secret of [PREFILLED, CARD, KEY, PAYMENT]) expect(all).not.toContain(secret);
    const pw = nodes.filter((n) => n.password);
    expect(pw.length).toBe(2);
    for (const n of pw) expect(n.value).toBeUndefined();
    expect(tree.text).toContain('(password, hidden)');
    expect(await ok('get_ui_tree', { target: c.target, query: '4111 1111 1111 1111' }).then((a) => a.s.nodes)).toEqual([]);
    for (const q of [CARD, KEY, PAYMENT, '5555']) {
      const found = await ok('find_text', { target: c.target, text: q });
      expect(found.s.matches, q).toEqual([]);
    }
    const order = await ok('find_text', { target: c.target, text: NOT_A_CARD });
    expect((order.s.matches as unknown[]).length).toBe(1);
    const wait = await h.call('wait_for', { target: c.target, text: CARD, timeoutMs: 300 });
    expect(wait.isError).toBe(true);
  });

  it('search_screenshots never finds a masked secret; the readable number next to it is found', { timeout: 120_000 }, async () => {
    const stop = h.core.startMaintenance(() => undefined);
    try {
      const cap = await ok('capture', { target: c.target });
      const ref = cap.s.frame!.ref;
      const end = Date.now() + 90_000;
      while (!h.core.catalog.text.indexed([ref]).has(ref)) {
        if (Date.now() > end) throw new Error('the frame was not indexed');
        await new Promise((r) => setTimeout(r, 200));
      }
      const hit = await ok('search_screenshots', { query: `"${NOT_A_CARD}"` });
      expect((hit.s.results as unknown[]).length).toBeGreaterThan(0);
      for (const q of [`"${CARD}"`, 'Zq8Wm3Lp0Xv7Tn2Rb5Yc9Hd4', `"${PAYMENT}"`]) {
        const none = await ok('search_screenshots', { query: q });
        expect(none.s.results, q).toEqual([]);
      }
    } finally {
      stop();
    }
  });

  it('type_text into a password field types the exact text; the answer, the activity log and every file under the data directory say only how many characters', async () => {
    const b = await boxes();
    const tree = await ok('get_ui_tree', { target: c.target, maxNodes: 200 });
    const login = (tree.s.nodes as { id: string; name: string; password?: boolean }[]).find((n) => n.password && n.name === 'New password')!;
    const typed = await ok('type_text', { target: c.target, node: login.id, text: TYPED, after: 'image' });
    expect(await evalIn<string>(c, 'document.getElementById("login").value')).toBe(TYPED);
    expect(typed.text).toContain(`typed ${TYPED.length} characters into a password field`);
    expect(JSON.stringify(typed.s)).not.toContain(TYPED);
    // The after-image is masked where the field is.
    const afterRef = (typed.s.changedRef ?? typed.s.afterRef) as string;
    const after = h.core.frames.get(afterRef);
    expect(await offMask(imageOf(typed.r), inFrame(after, b.login))).toBeLessThanOrEqual(SOLID);
    // And typed by x, y into a password field the tree was never asked about: the source says what it was.
    const cap = await ok('capture', { target: c.target });
    const f = h.core.frames.get(cap.s.frame!.ref);
    await ok('type_text', { ref: f.ref, x: Math.round((b.pw.x + b.pw.width / 2) / f.scale), y: Math.round((b.pw.y + b.pw.height / 2) / f.scale), text: TYPED, clear: true });
    expect(await evalIn<string>(c, 'document.getElementById("pw").value')).toBe(TYPED);
    // A type_text that fails (its field is not there) never learns what the field was: its text is logged by length only.
    const missing = await h.call('type_text', { target: c.target, field: 'Old password', text: TYPED });
    expect(missing.isError).toBe(true);
    const log = h.core.catalog.activity.list({ tool: 'type_text' });
    expect(log.length).toBe(3);
    for (const e of log) expect(JSON.stringify(e)).not.toContain(TYPED);
    for (const e of log.filter((x) => x.result === 'ok')) expect(e.message).toContain(`typed ${TYPED.length} characters into a password field`);
    expect(log.find((x) => x.result !== 'ok')?.params?.text).toBe(`[${TYPED.length} characters, not kept: the action failed]`);
    await h.core.frames.settle();
    for (const { path, bytes } of filesUnder(h.dataDir)) {
      for (const secret of [TYPED, PREFILLED, CARD, KEY, PAYMENT]) {
        expect(bytes.includes(Buffer.from(secret)), `${secret} in ${path}`).toBe(false);
        expect(bytes.includes(Buffer.from(secret, 'utf16le')), `${secret} in ${path}`).toBe(false);
      }
    }
  });
});

describe('masking off', () => {
  it('shows the password field and the card number as they are', async () => {
    h.core.settings.update({ privacy: { masking: false } });
    const b = await boxes();
    const cap = await ok('capture', { target: c.target });
    const frame = h.core.frames.get(cap.s.frame!.ref);
    expect(await offMask(imageOf(cap.r), inFrame(frame, b.pw))).toBeGreaterThan(100);
    expect(await offMask(imageOf(cap.r), inFrame(frame, b.card, 2))).toBeGreaterThan(100);
    const found = await ok('find_text', { target: c.target, text: CARD });
    expect((found.s.matches as unknown[]).length).toBe(1);
  });
});
