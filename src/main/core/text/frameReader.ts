/**
 * Reads frames' text for the index, reading again only what changed on their screen. Per screen
 * (a source's target: a monitor, a window, a tab, a device) it keeps the last frame read: its
 * cells (screenDiff.ts) and its words with boxes. The next frame of that screen is compared with
 * it:
 * - the same (nothing changed but JPEG noise, a caret, a clock in a bar): its text and boxes are
 *   taken as they are, with no OCR;
 * - some bands changed: only those bands (whole text lines, full width) are read, and the words
 *   elsewhere are kept; the boxes are the new frame's pixels;
 * - otherwise (another size, half the screen changed, no frame read before): read whole.
 * Frames come in batches (the indexer hands an archive's batch at once): every frame of a batch
 * is compared first, on pixels alone, then everything any of them needs read (bands and whole
 * pages) is stacked into as few images as fit and read by one OCR call each: starting the engine
 * (~0.25 s of CPU for tesseract) costs more than reading a line, so a band read alone would cost
 * nearly half a page. Each frame's text is put together, in order, as soon as the calls it waits
 * for are back (the newest screenshot need not wait for the whole batch). Batches are read one
 * after the other, so each frame compares with the one before it on its screen.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { SightlineError } from '../../../shared/errors.ts';
import type { FrameRecord } from '../catalog/types.ts';
import { ocrItems } from '../frames/screenText.ts';
import { decodeGrey } from '../ocr/prepare.ts';
import type { OcrLine, OcrResult } from '../ocr/types.ts';
import { indexedText, type IndexedText } from './indexText.ts';
import { compare, moveBand, patch, thumbOf, type Band, type Shift, type Thumb } from './screenDiff.ts';

/** How a frame's text was had: read whole by OCR, the same as the frame before, or only changed bands read. */
export type Reuse = 'read' | 'same' | 'bands';

export interface FrameRead extends IndexedText {
  reuse: Reuse;
  /** The frame whose screen this one shows (itself when its text was read): near-identical frames share it. */
  screen: string;
  /** Share of the image OCR read (0..1). */
  share: number;
}

/** What the reader is handed: a frame's image as OCR reads it, and the background OCR engine. */
export interface FrameLook {
  /** The frame and the image to read (its native original when kept; `shrunk` > 1 when only a shrunk copy is). */
  image(ref: string): Promise<{ frame: FrameRecord; data: Buffer; shrunk: number }>;
  recognize(image: Buffer, o: { signal: AbortSignal; scale?: number }): Promise<OcrResult>;
}

/** A frame's text, known once the OCR of its batch is back (or the reason it cannot be). */
interface TextNode {
  text?: IndexedText;
  error?: unknown;
}

interface Base {
  ref: string;
  screen: string;
  image: { width: number; height: number };
  /** The bytes of its image file, hashed: the same bytes again are the same screen, told without decoding. */
  digest: string;
  thumb: Thumb;
  node: TextNode;
  /** Vertical extents of the words read (image px), for growing bands; those of an earlier frame while this one's text is not back. */
  lines: Band[];
}

/** A frame of a batch, decoded (unless its bytes are those of the last frame of its screen). */
interface Loaded {
  frame: FrameRecord;
  digest: string;
  grey: { data: Buffer; width: number; height: number };
  thumb: Thumb;
  scale: number | undefined;
  key: string;
}

/** A frame of a batch as read from its file. */
interface Fetched {
  frame: FrameRecord;
  data: Buffer;
  digest: string;
  scale: number | undefined;
  key: string;
}

type Plan =
  | { kind: 'same'; base: Base }
  | { kind: 'bands'; base: Base; bands: Band[]; share: number; shift?: Shift; node: TextNode }
  | { kind: 'read'; node: TextNode };

/** A part of a frame's image to read: rows top..bottom (image px). */
interface Region {
  entry: number;
  top: number;
  bottom: number;
}

type Outcome = { ok: true; read: FrameRead } | { ok: false; error: unknown };

/** Screens remembered at most (monitors, windows, tabs, devices). */
const MAX_SCREENS = 64;
/** Between stacked regions, in image px: enough white for OCR to keep them apart. */
const GAP = 24;
/** Rows of one stacked image at most: tesseract's page layout slows down on taller ones (4 pages of 720 px: 0.78 s of CPU a page; 8: 0.91 s). */
const MAX_STACK = 3200;
/** Text read below this size is read enlarged (as ScreenText does). */
const MAX_ENLARGE = 2;
/** A region darker than this on average is light text on a dark ground: inverted, as prepareForOcr inverts a whole page. */
const INVERT_BELOW = 110;

export class FrameReader {
  readonly #look: FrameLook;
  readonly #bases = new Map<string, Base>();
  #chain: Promise<unknown> = Promise.resolve();

  constructor(look: FrameLook) {
    this.#look = look;
  }

  /** Forget every screen (the exclusions changed, the indexer stopped): the next frames are read whole. */
  forget(): void {
    this.#bases.clear();
  }

  /** The frame's text, reading only what changed since the last frame of its screen. */
  read(ref: string, signal: AbortSignal): Promise<FrameRead> {
    return this.readMany([ref], signal)[0] as Promise<FrameRead>;
  }

  /**
   * The text of each frame (in order: each compares with the one before on its screen), read by
   * as few OCR calls as the batch allows. One promise per ref: a frame that cannot be read fails
   * alone (and so do the frames whose text would have been taken from it).
   */
  readMany(refs: readonly string[], signal: AbortSignal): Promise<FrameRead>[] {
    const done = refs.map(() => {
      let settle!: (o: Outcome) => void;
      const p = new Promise<FrameRead>((resolve, reject) => (settle = (o) => (o.ok ? resolve(o.read) : reject(o.error))));
      // Failures are the caller's to see; none goes unhandled when the caller stops early.
      p.catch(() => undefined);
      return { p, settle };
    });
    const run = this.#chain
      .catch(() => undefined)
      .then(() => this.#batch(refs, signal, (i, o) => done[i]?.settle(o)))
      .then(
        // Settling twice does nothing: these only reach frames left unsettled.
        (out) => out.forEach((o, i) => done[i]?.settle(o)),
        (error: unknown) => done.forEach((d) => d.settle({ ok: false, error })),
      );
    this.#chain = run;
    return done.map((d) => d.p);
  }

  /** Each frame's outcome goes to `settled` as soon as its text is put together (in order), and all of them are returned at the end. */
  async #batch(refs: readonly string[], signal: AbortSignal, settled: (i: number, o: Outcome) => void): Promise<Outcome[]> {
    const out: Outcome[] = [];
    const fetched: (Fetched | undefined)[] = [];
    for (const ref of refs) {
      try {
        const { frame, data, shrunk } = await this.#look.image(ref);
        fetched.push({ frame, data, digest: createHash('sha1').update(data).digest('base64'), scale: shrunk > 1 ? Math.min(MAX_ENLARGE, shrunk) : undefined, key: `${frame.source}\u0000${frame.target}` });
        out.push({ ok: false, error: undefined });
      } catch (error) {
        fetched.push(undefined);
        out.push({ ok: false, error });
      }
    }
    // Compare, on pixels alone: what each frame needs read. A file with the bytes of the last
    // frame of its screen (an idle screen, encoded the same way twice) is that screen, undecoded.
    const work = new Map(this.#bases);
    const loaded: (Loaded | undefined)[] = [];
    const plans: (Plan | undefined)[] = [];
    for (const [i, f] of fetched.entries()) {
      const base = f && work.get(f.key);
      if (!f || (base && base.digest === f.digest)) {
        loaded.push(undefined);
        plans.push(f && base ? { kind: 'same', base } : undefined);
        continue;
      }
      let l: Loaded;
      try {
        const grey = await decodeGrey(f.data);
        l = { frame: f.frame, digest: f.digest, grey, thumb: thumbOf(grey.data, grey.width, grey.height), scale: f.scale, key: f.key };
      } catch (error) {
        loaded.push(undefined);
        plans.push(undefined);
        out[i] = { ok: false, error };
        continue;
      }
      loaded.push(l);
      plans.push(this.#plan(l, work));
    }
    // Read every region wanted, stacked: one OCR call per engine scale and MAX_STACK rows.
    const regions: Region[] = [];
    plans.forEach((p, entry) => {
      if (p?.kind === 'bands') for (const b of p.bands) regions.push({ entry, top: b.top, bottom: b.bottom });
      else if (p?.kind === 'read') regions.push({ entry, top: 0, bottom: (loaded[entry] as Loaded).grey.height });
    });
    const results = new Map<number, Omit<OcrResult, 'width' | 'height'>>();
    const failed = new Map<number, unknown>();
    const calls = stackCalls(regions, loaded as Loaded[], plans);
    // The last call each frame waits for: regions are in frame order, so frames are done in order.
    const lastCall = new Map<number, number>();
    calls.forEach((call, c) => call.forEach((r) => lastCall.set(r.entry, c)));
    let next = 0;
    const settleUpTo = (c: number): void => {
      for (; next < plans.length && (lastCall.get(next) ?? -1) <= c; next++) {
        assemble(next);
        settled(next, out[next] as Outcome);
      }
    };
    // Put one frame's text together (those before it are).
    const assemble = (i: number): void => {
      const p = plans[i];
      if (!p) return;
      const base = p.kind === 'read' ? undefined : p.base;
      try {
        if (p.kind === 'same') {
          const b = base as Base;
          if (!b.node.text) throw b.node.error;
          out[i] = { ok: true, read: { ...b.node.text, reuse: 'same', screen: b.screen, share: 0 } };
          return;
        }
        const { frame, grey } = loaded[i] as Loaded;
        if (failed.has(i)) throw failed.get(i);
        const ocr: OcrResult = { ...(results.get(i) as Omit<OcrResult, 'width' | 'height'>), width: grey.width, height: grey.height };
        const fresh = indexedText(ocrItems(ocr, frame), frame);
        const ky = frame.image.height / grey.height;
        if (p.kind === 'bands') {
          const b = base as Base;
          if (!b.node.text) throw b.node.error;
          const shift = p.shift ? { from: p.shift.from * ky, dy: p.shift.dy * ky } : undefined;
          p.node.text = mergeText(b.node.text, fresh, p.bands.map((x) => ({ top: x.top * ky, bottom: x.bottom * ky })), shift, frame.image.height);
          out[i] = { ok: true, read: { ...p.node.text, reuse: 'bands', screen: frame.ref, share: p.share } };
        } else {
          p.node.text = fresh;
          out[i] = { ok: true, read: { ...fresh, reuse: 'read', screen: frame.ref, share: 1 } };
        }
      } catch (error) {
        if (p.kind !== 'same') p.node.error = error;
        out[i] = { ok: false, error };
      }
    };
    settleUpTo(-1);
    for (const [c, call] of calls.entries()) {
      try {
        const got = signal.aborted ? cancelledRead() : await this.#readStack(call, loaded as Loaded[], signal);
        for (const r of call) {
          const had = results.get(r.entry);
          results.set(r.entry, { engine: got.engine, geometry: got.geometry, lines: [...(had?.lines ?? []), ...(got.lines.get(r) ?? [])] });
        }
      } catch (e) {
        for (const r of call) failed.set(r.entry, e);
      }
      settleUpTo(c);
    }
    settleUpTo(Number.POSITIVE_INFINITY);
    // Remember the last frame of each screen, with the lines of its words; a screen whose text could not be had is read whole next time.
    for (const [key, b] of work) {
      if (this.#bases.get(key) === b) continue;
      this.#bases.delete(key);
      if (!b.node.text) continue;
      const l = loaded.find((x) => x?.frame.ref === b.ref);
      this.#bases.set(key, { ...b, lines: lineBands(b.node.text, l ? b.image.height / l.grey.height : 1) });
      if (this.#bases.size > MAX_SCREENS) this.#bases.delete(this.#bases.keys().next().value as string);
    }
    return out;
  }

  /** What a decoded frame needs read, against the last frame of its screen in `work` (which it may become). */
  #plan(l: Loaded, work: Map<string, Base>): Plan {
    const { frame, thumb, grey, digest } = l;
    const base = work.get(l.key);
    const sameSize = base && base.image.width === frame.image.width && base.image.height === frame.image.height;
    const cmp = base && sameSize ? compare(base.thumb, thumb, base.lines) : ({ kind: 'different' } as const);
    if (base && cmp.kind === 'same') return { kind: 'same', base };
    const node: TextNode = {};
    if (base && cmp.kind === 'bands') {
      // After a shift the cells are the new frame's: every row of it was compared with what it shows now.
      const lines = cmp.shift ? base.lines.flatMap((b) => moveBand(b, (cmp.shift as Shift).from, (cmp.shift as Shift).dy, grey.height)) : base.lines;
      work.set(l.key, { ref: frame.ref, screen: frame.ref, image: frame.image, digest, thumb: cmp.shift ? thumb : patch(base.thumb, thumb, cmp.bands), node, lines });
      return { kind: 'bands', base, bands: cmp.bands, share: cmp.share, ...(cmp.shift ? { shift: cmp.shift } : {}), node };
    }
    work.set(l.key, { ref: frame.ref, screen: frame.ref, image: frame.image, digest, thumb, node, lines: [] });
    return { kind: 'read', node };
  }

  /** One OCR call over regions stacked top to bottom (each inverted when dark); the words of each region back in its frame's image px. */
  async #readStack(call: readonly Region[], loaded: readonly Loaded[], signal: AbortSignal): Promise<Pick<OcrResult, 'engine' | 'geometry'> & { lines: Map<Region, OcrLine[]> }> {
    const width = Math.max(...call.map((r) => (loaded[r.entry] as Loaded).grey.width));
    const slots: { region: Region; at: number; height: number }[] = [];
    let at = 0;
    for (const region of call) {
      slots.push({ region, at, height: region.bottom - region.top });
      at += region.bottom - region.top + GAP;
    }
    const height = at - GAP;
    const stack = Buffer.alloc(width * height, 255);
    for (const s of slots) {
      const g = (loaded[s.region.entry] as Loaded).grey;
      const rows = g.data.subarray(s.region.top * g.width, s.region.bottom * g.width);
      let sum = 0;
      for (let k = 0; k < rows.length; k += 7) sum += rows[k] as number;
      const dark = sum / Math.ceil(rows.length / 7) < INVERT_BELOW;
      for (let y = 0; y < s.height; y++) {
        const src = rows.subarray(y * g.width, (y + 1) * g.width);
        const o = (s.at + y) * width;
        if (dark) for (let x = 0; x < g.width; x++) stack[o + x] = 255 - (src[x] as number);
        else stack.set(src, o);
      }
    }
    const png = await sharp(stack, { raw: { width, height, channels: 1 } }).png({ compressionLevel: 0 }).toBuffer();
    const scale = (loaded[(call[0] as Region).entry] as Loaded).scale;
    const ocr = await this.#look.recognize(png, { signal, ...(scale ? { scale } : {}) });
    const out = new Map<Region, OcrLine[]>();
    const slotOf = (box: OcrLine['box']): (typeof slots)[number] | undefined => {
      const cy = box.y + box.height / 2;
      return slots.find((x) => cy >= x.at && cy < x.at + x.height);
    };
    for (const line of ocr.lines) {
      if (line.words.length === 0) {
        // An engine that gives lines only: the line goes to its region whole.
        const s = slotOf(line.box);
        if (s) out.set(s.region, [...(out.get(s.region) ?? []), { ...line, box: { ...line.box, y: line.box.y - s.at + s.region.top } }]);
        continue;
      }
      // Each word back to its region; a word in a gap (none should be) is dropped.
      const bySlot = new Map<(typeof slots)[number], OcrLine['words']>();
      for (const w of line.words) {
        const s = slotOf(w.box);
        if (!s) continue;
        const list = bySlot.get(s) ?? [];
        list.push({ ...w, box: { ...w.box, y: w.box.y - s.at + s.region.top } });
        bySlot.set(s, list);
      }
      for (const [s, words] of bySlot) {
        const x0 = Math.min(...words.map((w) => w.box.x));
        const y0 = Math.min(...words.map((w) => w.box.y));
        const x1 = Math.max(...words.map((w) => w.box.x + w.box.width));
        const y1 = Math.max(...words.map((w) => w.box.y + w.box.height));
        const list = out.get(s.region) ?? [];
        list.push({ text: words.map((w) => w.text).join(' '), box: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }, confidence: line.confidence, words });
        out.set(s.region, list);
      }
    }
    return { engine: ocr.engine, geometry: ocr.geometry, lines: out };
  }
}

function cancelledRead(): never {
  throw new SightlineError('CANCELLED', 'The text indexer stopped.', 'It resumes where it stopped when started again.');
}

/**
 * Regions grouped into OCR calls: the same enlargement, at most MAX_STACK rows each (a taller
 * region alone). A whole page first in the batch is read by a call of its own: the newest
 * screenshot of a walk is searchable after one page, not after several (one more start of the
 * engine, only for batches that begin with a new page).
 */
function stackCalls(regions: readonly Region[], loaded: readonly Loaded[], plans: readonly (Plan | undefined)[]): Region[][] {
  const calls: Region[][] = [];
  const open = new Map<number | undefined, { regions: Region[]; rows: number }>();
  const alone = plans.findIndex((p) => p !== undefined);
  for (const r of regions) {
    const scale = (loaded[r.entry] as Loaded).scale;
    const h = r.bottom - r.top;
    let cur = open.get(scale);
    if (cur && (cur.rows + GAP + h > MAX_STACK || (r.entry !== alone && cur.regions[0]?.entry === alone && plans[alone]?.kind === 'read'))) cur = undefined;
    if (!cur) {
      cur = { regions: [], rows: -GAP };
      open.set(scale, cur);
      calls.push(cur.regions);
    }
    cur.regions.push(r);
    cur.rows += GAP + h;
  }
  return calls;
}

interface Word {
  text: string;
  box: [number, number, number, number];
}

/** Stored text as lines of words with their boxes (the i-th word owns the i-th box). */
export function linesOf(t: IndexedText): Word[][] {
  const out: Word[][] = [];
  let i = 0;
  for (const line of t.text.split('\n')) {
    const words = line.split(' ').filter((w) => w.length > 0);
    if (words.length === 0) continue;
    out.push(
      words.map((text) => {
        const b = t.boxes.slice(i * 4, i * 4 + 4);
        i++;
        return { text, box: [b[0] ?? 0, b[1] ?? 0, b[2] ?? 0, b[3] ?? 0] };
      }),
    );
  }
  return out;
}

/** The vertical extent of each word read (px of the image compared: `ky` frame px per image px). */
function lineBands(t: IndexedText, ky: number): Band[] {
  const out: Band[] = [];
  for (let i = 0; i + 3 < t.boxes.length; i += 4) out.push({ top: (t.boxes[i + 1] as number) / ky, bottom: ((t.boxes[i + 1] as number) + (t.boxes[i + 3] as number)) / ky });
  return out;
}

/**
 * The text before with the words of `bands` (frame px) replaced by those read there now: a word
 * belongs to a band when its middle is inside it. After a `shift` (frame px) the words before
 * move with the content first, and those that scrolled out are gone. Lines come out top to bottom.
 */
export function mergeText(before: IndexedText, fresh: IndexedText, bands: readonly Band[], shift?: Shift, height?: number): IndexedText {
  const inside = (w: Word): boolean => {
    const cy = w.box[1] + w.box[3] / 2;
    return bands.some((b) => cy >= b.top && cy < b.bottom);
  };
  const moved = (w: Word): Word[] => {
    if (!shift) return [w];
    return moveBand({ top: w.box[1], bottom: w.box[1] + w.box[3] }, shift.from, shift.dy, height).map((b) => ({ text: w.text, box: [w.box[0], Math.round(b.top), w.box[2], w.box[3]] }));
  };
  const kept = linesOf(before)
    .map((l) => l.flatMap(moved).filter((w) => !inside(w)))
    .filter((l) => l.length > 0);
  const lines = [...kept, ...linesOf(fresh).map((l) => l.filter(inside)).filter((l) => l.length > 0)];
  lines.sort((a, b) => lineTop(a) - lineTop(b) || (a[0] as Word).box[0] - (b[0] as Word).box[0]);
  return { text: lines.map((l) => l.map((w) => w.text).join(' ')).join('\n'), boxes: lines.flatMap((l) => l.flatMap((w) => w.box)) };
}

const lineTop = (l: Word[]): number => Math.min(...l.map((w) => w.box[1]));
