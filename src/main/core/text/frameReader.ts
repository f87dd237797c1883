/**
 * Reads frames' text for the index, reading again only what changed on their screen. Per screen
 * (a source's target: a monitor, a window, a tab, a device) it keeps the last frame read: its
 * pixels, cells (screenCells.ts) and its words with boxes. The next frame of that screen is
 * compared with it:
 * - the same (no 2×2 block changed beyond JPEG noise): its text and boxes are taken as they are,
 *   with no OCR;
 * - some bands changed (a word, a title, a clock, a caret): only those bands (whole text lines,
 *   full width) are read, and the words elsewhere are kept; the boxes are the new frame's pixels;
 * - otherwise (another size, half the screen changed, no frame read before): read whole.
 * A frame's text is only ever its own pixels' or those of a frame whose pixels match it there:
 * nothing that changed keeps a neighbour's words.
 *
 * Frames come in batches (the indexer hands an archive's batch at once): every frame of a batch
 * is compared first, on pixels alone, then everything any of them needs read (bands and whole
 * pages) goes to the engine as pages of as few calls as fit (readPages.ts). Each frame's text is
 * put together, in order, as soon as the calls it waits for are back (the newest screenshot need
 * not wait for the whole batch). Batches are read one after the other, so each frame compares
 * with the one before it on its screen.
 */
import { createHash } from 'node:crypto';
import { SightlineError } from '../../../shared/errors.ts';
import type { FrameRecord } from '../catalog/types.ts';
import { ocrItems } from '../frames/screenText.ts';
import { decodeGrey, type Grey, type Prepared, type Whiten } from '../ocr/prepare.ts';
import type { OcrLine, OcrResult } from '../ocr/types.ts';
import { indexedText, type IndexedText } from './indexText.ts';
import { groupCalls, pageSource, regionLines, regionPage, type Region } from './readPages.ts';
import { moveBand, screenOf, type Band, type Screen, type Shift } from './screenCells.ts';
import { barBands, compare, patch } from './screenDiff.ts';
import { lineBands, mergeText, sameScreenText } from './wordLines.ts';

/** How a frame's text was had: read whole by OCR, the same as the frame before, or only changed bands read. */
export type Reuse = 'read' | 'same' | 'bands';

export interface FrameRead extends IndexedText {
  reuse: Reuse;
  /** The frame whose screen this one shows (itself when its text differs from the one before, a clock aside): the timeline folds frames that share it. */
  screen: string;
  /** Share of the image OCR read (0..1). */
  share: number;
}

/** What the reader is handed: a frame's image as OCR reads it, and the background OCR engine. */
export interface FrameLook {
  /** The frame and the image to read (its native original when kept; `shrunk` > 1 when only a shrunk copy is). */
  image(ref: string): Promise<{ frame: FrameRecord; data: Buffer; shrunk: number }>;
  /** Reads prepared pages, each laid out on its own, with the background engine. */
  read(pages: readonly Prepared[], o: { signal: AbortSignal; layout: 'page' | 'sparse' }): Promise<OcrResult[]>;
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
  /** The pixels its text was read from. */
  view: Screen;
  node: TextNode;
  /** Vertical extents of the words read (image px), for growing bands; those of an earlier frame while this one's text is not back. */
  lines: Band[];
}

/** A frame of a batch, decoded (unless its bytes are those of the last frame of its screen). */
interface Loaded {
  frame: FrameRecord;
  digest: string;
  grey: Grey;
  view: Screen;
  /** The shrink of a stored copy, made good when reading (1 when the native original is read). */
  shrink: number;
  key: string;
}

/** A frame of a batch as read from its file. */
interface Fetched {
  frame: FrameRecord;
  data: Buffer;
  digest: string;
  shrink: number;
  key: string;
}

type Plan =
  | { kind: 'same'; base: Base }
  | { kind: 'bands'; base: Base; self: Base; bands: Band[]; share: number; shift?: Shift; node: TextNode }
  | { kind: 'read'; node: TextNode };

type Outcome = { ok: true; read: FrameRead } | { ok: false; error: unknown };

/** Screens remembered at most (monitors, windows, tabs, devices): each keeps its last frame's grey pixels (~1 MB at 1280×720). */
const MAX_SCREENS = 32;
/**
 * The bars along a screen's top and bottom edges (title, tab and status bars) are read enlarged
 * by this, the rest as it is: a status bar's 12 px text lost a tenth of its words at 1× against
 * bare tesseract, and came back whole at 1.5×; the body and side bars read as well at 1×, for
 * about three quarters of the CPU (docs/benchmarks.md, "Text index").
 */
const BAR_SCALE = 1.5;
/** The ways a frame's page sources are made (one source per frame and way). */
const WHITENINGS: readonly Whiten[] = ['grey', 'all'];
/** A shrunk copy is first enlarged back by its shrink, up to this (as ScreenText does). */
const MAX_ENLARGE = 2;

/** How much a frame's image is enlarged before anything else (its shrink made good; the engines take up to 3×). */
function shrinkOf(shrunk: number): number {
  return shrunk > 1 ? Math.min(MAX_ENLARGE, shrunk) : 1;
}

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
        fetched.push({ frame, data, digest: createHash('sha1').update(data).digest('base64'), shrink: shrinkOf(shrunk), key: `${frame.source}\u0000${frame.target}` });
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
        l = { frame: f.frame, digest: f.digest, grey, view: screenOf(grey.data, grey.width, grey.height), shrink: f.shrink, key: f.key };
      } catch (error) {
        loaded.push(undefined);
        plans.push(undefined);
        out[i] = { ok: false, error };
        continue;
      }
      loaded.push(l);
      plans.push(plan(l, work));
    }
    // Every region wanted, each a page of its own, in as few OCR calls as fit.
    const regions: Region[] = [];
    plans.forEach((p, entry) => {
      if (p?.kind === 'bands' || p?.kind === 'read') regions.push(...regionsOf(p, loaded[entry] as Loaded, entry));
    });
    const firstRead = plans.findIndex((p) => p !== undefined);
    const calls = groupCalls(regions, plans[firstRead]?.kind === 'read' ? firstRead : undefined);
    const results = new Map<number, OcrLine[]>();
    const engines = new Map<number, Pick<OcrResult, 'engine' | 'geometry'>>();
    const failed = new Map<number, unknown>();
    // The last call each frame waits for: regions are in frame order, so frames are done in order.
    const lastCall = new Map<number, number>();
    calls.forEach((call, c) => call.forEach((r) => lastCall.set(r.entry, c)));
    let next = 0;
    const settleUpTo = (c: number): void => {
      for (; next < plans.length && (lastCall.get(next) ?? -1) <= c; next++) {
        out[next] = assemble(plans[next], loaded[next], failed.has(next) ? { error: failed.get(next) } : { lines: results.get(next) ?? [], engine: engines.get(next) }) ?? (out[next] as Outcome);
        settled(next, out[next] as Outcome);
      }
    };
    settleUpTo(-1);
    const sources = new Map<string, Grey>();
    for (const [c, call] of calls.entries()) {
      try {
        if (signal.aborted) cancelledRead();
        const pages = await Promise.all(
          call.map((r) => {
            const key = `${r.entry}:${r.whiten}`;
            let src = sources.get(key);
            if (!src) sources.set(key, (src = pageSource((loaded[r.entry] as Loaded).grey, r.whiten)));
            return regionPage(src, r);
          }),
        );
        const got = await this.#look.read(pages, { signal, layout: 'sparse' });
        call.forEach((r, k) => {
          const res = got[k] as OcrResult;
          engines.set(r.entry, { engine: res.engine, geometry: res.geometry });
          results.set(r.entry, [...(results.get(r.entry) ?? []), ...regionLines(res.lines, r)]);
        });
      } catch (e) {
        for (const r of call) failed.set(r.entry, e);
      }
      // A frame's page sources are needed only until its last call.
      for (const r of call) if (lastCall.get(r.entry) === c) for (const whiten of WHITENINGS) sources.delete(`${r.entry}:${whiten}`);
      settleUpTo(c);
    }
    settleUpTo(Number.POSITIVE_INFINITY);
    this.#remember(work, loaded);
    return out;
  }

  /** Keep the last frame of each screen, with the lines of its words; a screen whose text could not be had is read whole next time. */
  #remember(work: Map<string, Base>, loaded: readonly (Loaded | undefined)[]): void {
    for (const [key, b] of work) {
      if (this.#bases.get(key) === b) continue;
      this.#bases.delete(key);
      if (!b.node.text) continue;
      const l = loaded.find((x) => x?.frame.ref === b.ref);
      this.#bases.set(key, { ...b, lines: l ? lineBands(b.node.text, b.image.width / l.grey.width, b.image.height / l.grey.height) : b.lines });
      if (this.#bases.size > MAX_SCREENS) this.#bases.delete(this.#bases.keys().next().value as string);
    }
  }
}

/** What a decoded frame needs read, against the last frame of its screen in `work` (which it may become). */
function plan(l: Loaded, work: Map<string, Base>): Plan {
  const { frame, view, grey, digest } = l;
  const base = work.get(l.key);
  const sameSize = base && base.image.width === frame.image.width && base.image.height === frame.image.height;
  const cmp = base && sameSize ? compare(base.view, view, base.lines) : ({ kind: 'different' } as const);
  if (base && cmp.kind === 'same') return { kind: 'same', base };
  const node: TextNode = {};
  if (base && cmp.kind === 'bands') {
    // After a shift the pixels are the new frame's: every row of it was compared with what it shows now.
    const shift = cmp.shift;
    const lines = shift ? base.lines.flatMap((b) => moveBand(b, shift, grey.height)) : base.lines;
    const self: Base = { ref: frame.ref, screen: frame.ref, image: frame.image, digest, view: shift ? view : patch(base.view, view, cmp.bands), node, lines };
    work.set(l.key, self);
    return { kind: 'bands', base, self, bands: cmp.bands, share: cmp.share, ...(shift ? { shift } : {}), node };
  }
  work.set(l.key, { ref: frame.ref, screen: frame.ref, image: frame.image, digest, view, node, lines: [] });
  return { kind: 'read', node };
}

/** One frame's text put together from its plan and what its regions read (those before it are). */
function assemble(p: Plan | undefined, l: Loaded | undefined, got: { lines: OcrLine[]; engine?: Pick<OcrResult, 'engine' | 'geometry'> } | { error: unknown }): Outcome | undefined {
  if (!p) return undefined;
  try {
    if (p.kind === 'same') {
      if (!p.base.node.text) throw p.base.node.error;
      return { ok: true, read: { ...p.base.node.text, reuse: 'same', screen: p.base.screen, share: 0 } };
    }
    if ('error' in got) throw got.error;
    const { frame, grey } = l as Loaded;
    const ocr: OcrResult = { engine: got.engine?.engine ?? 'tesseract', geometry: got.engine?.geometry ?? 'word', lines: got.lines, width: grey.width, height: grey.height };
    const fresh = indexedText(ocrItems(ocr, frame), frame);
    if (p.kind === 'read') {
      p.node.text = fresh;
      return { ok: true, read: { ...fresh, reuse: 'read', screen: frame.ref, share: 1 } };
    }
    const before = p.base.node.text;
    if (!before) throw p.base.node.error;
    const kx = frame.image.width / grey.width;
    const ky = frame.image.height / grey.height;
    const shift = p.shift ? { from: p.shift.from * ky, dy: p.shift.dy * ky, left: p.shift.left * kx, right: p.shift.right * kx } : undefined;
    const text = mergeText(before, fresh, p.bands.map((x) => ({ top: x.top * ky, bottom: x.bottom * ky })), shift, frame.image.height);
    p.node.text = text;
    // The same words (a caret, a repainted bar, a clock aside): still the screen before, for folding.
    if (sameScreenText(before, text)) p.self.screen = p.base.screen;
    return { ok: true, read: { ...text, reuse: 'bands', screen: p.self.screen, share: p.share } };
  } catch (error) {
    if (p.kind !== 'same') p.node.error = error;
    return { ok: false, error };
  }
}

/**
 * What a frame needs read, as regions: its changed bands (those in the bars along the edges
 * enlarged), or the whole image, its bars read again enlarged on pages of their own.
 */
function regionsOf(p: Extract<Plan, { kind: 'bands' | 'read' }>, l: Loaded, entry: number): Region[] {
  const bars = barBands(l.view.thumb);
  const small = Math.min(3, l.shrink * BAR_SCALE);
  if (p.kind === 'bands') return p.bands.map((b) => ({ entry, top: b.top, bottom: b.bottom, scale: bars && b.top >= bars.top.bottom && b.bottom <= bars.bottom.top ? l.shrink : small, whiten: 'all' }));
  const height = l.grey.height;
  if (!bars) return [{ entry, top: 0, bottom: height, scale: small, whiten: 'grey' }];
  return [
    { entry, top: 0, bottom: bars.top.bottom, scale: small, whiten: 'all' },
    { entry, top: 0, bottom: height, scale: l.shrink, whiten: 'grey', own: { top: bars.top.bottom, bottom: bars.bottom.top } },
    { entry, top: bars.bottom.top, bottom: height, scale: small, whiten: 'all' },
  ];
}

function cancelledRead(): never {
  throw new SightlineError('CANCELLED', 'The text indexer stopped.', 'It resumes where it stopped when started again.');
}
