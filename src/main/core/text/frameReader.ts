/**
 * Reads a frame's text for the index, reading again only what changed on its screen. Per screen
 * (a source's target: a monitor, a window, a tab, a device) it keeps the last frame read: its
 * cells (screenDiff.ts) and its words with boxes. The next frame of that screen is compared with
 * it:
 * - the same (nothing changed but JPEG noise, a caret, a clock in a bar): its text and boxes are
 *   taken as they are, with no OCR;
 * - some bands changed: only those bands (whole text lines, full width) are read, stacked into
 *   one image so OCR starts once, and the words elsewhere are kept; the boxes are the new
 *   frame's pixels;
 * - otherwise (another size, half the screen changed, no frame read before): read whole.
 * Frames of one screen are read one after the other, so each compares with the one before.
 */
import sharp from 'sharp';
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

interface Base {
  ref: string;
  screen: string;
  image: { width: number; height: number };
  thumb: Thumb;
  text: IndexedText;
}

/** Screens remembered at most (monitors, windows, tabs, devices). */
const MAX_SCREENS = 64;
/** Between stacked bands, in image px: enough white for OCR to keep them apart. */
const GAP = 24;
/** Text read below this size is read enlarged (as ScreenText does). */
const MAX_ENLARGE = 2;

export class FrameReader {
  readonly #look: FrameLook;
  readonly #bases = new Map<string, Base>();
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(look: FrameLook) {
    this.#look = look;
  }

  /** Forget every screen (the exclusions changed, the indexer stopped): the next frames are read whole. */
  forget(): void {
    this.#bases.clear();
  }

  /** The frame's text, reading only what changed since the last frame of its screen. */
  read(ref: string, signal: AbortSignal): Promise<FrameRead> {
    // Which screen is known only from the frame: queue on the ref's record first.
    return this.#look.image(ref).then(({ frame, data, shrunk }) => {
      const key = `${frame.source}\u0000${frame.target}`;
      const before = this.#queues.get(key) ?? Promise.resolve();
      const mine = before.catch(() => undefined).then(() => this.#read(key, frame, data, shrunk, signal));
      this.#queues.set(key, mine);
      void mine
        .catch(() => undefined)
        .then(() => {
          if (this.#queues.get(key) === mine) this.#queues.delete(key);
        });
      return mine;
    });
  }

  async #read(key: string, frame: FrameRecord, data: Buffer, shrunk: number, signal: AbortSignal): Promise<FrameRead> {
    const grey = await decodeGrey(data);
    const thumb = thumbOf(grey.data, grey.width, grey.height);
    const scale = shrunk > 1 ? Math.min(MAX_ENLARGE, shrunk) : undefined;
    const base = this.#bases.get(key);
    const sameSize = base && base.image.width === frame.image.width && base.image.height === frame.image.height;
    const ky = frame.image.height / grey.height;
    const cmp = base && sameSize ? compare(base.thumb, thumb, lineBands(base.text, ky)) : ({ kind: 'different' } as const);
    if (base && cmp.kind === 'same') return { ...base.text, reuse: 'same', screen: base.screen, share: 0 };
    if (base && cmp.kind === 'bands') {
      const ocr = await this.#readBands(data, grey.width, grey.height, cmp.bands, signal, scale);
      const fresh = indexedText(ocrItems(ocr, frame), frame);
      const shift = cmp.shift ? { from: cmp.shift.from * ky, dy: cmp.shift.dy * ky } : undefined;
      const text = mergeText(base.text, fresh, cmp.bands.map((b) => ({ top: b.top * ky, bottom: b.bottom * ky })), shift, frame.image.height);
      // After a shift the cells are the new frame's: every row of it was compared with what it shows now.
      this.#remember(key, { ref: frame.ref, screen: frame.ref, image: frame.image, thumb: cmp.shift ? thumb : patch(base.thumb, thumb, cmp.bands), text });
      return { ...text, reuse: 'bands', screen: frame.ref, share: cmp.share };
    }
    const ocr = await this.#look.recognize(data, { signal, ...(scale ? { scale } : {}) });
    const text = indexedText(ocrItems(ocr, frame), frame);
    this.#remember(key, { ref: frame.ref, screen: frame.ref, image: frame.image, thumb, text });
    return { ...text, reuse: 'read', screen: frame.ref, share: 1 };
  }

  #remember(key: string, b: Base): void {
    this.#bases.delete(key);
    this.#bases.set(key, b);
    if (this.#bases.size > MAX_SCREENS) this.#bases.delete(this.#bases.keys().next().value as string);
  }

  /** OCR of the bands stacked into one image; lines come back in the whole image's pixels. */
  async #readBands(data: Buffer, width: number, height: number, bands: readonly Band[], signal: AbortSignal, scale: number | undefined): Promise<OcrResult> {
    const slots: { top: number; at: number; height: number }[] = [];
    let at = 0;
    for (const b of bands) {
      slots.push({ top: b.top, at, height: b.bottom - b.top });
      at += b.bottom - b.top + GAP;
    }
    const total = at - GAP;
    const parts = await Promise.all(bands.map((b) => sharp(data).greyscale().extract({ left: 0, top: b.top, width, height: b.bottom - b.top }).png({ compressionLevel: 0 }).toBuffer()));
    // The gap takes the colour of the first band's corner: the ground the text is on.
    const ground = (await sharp(parts[0] as Buffer).extract({ left: 0, top: 0, width: 1, height: 1 }).raw().toBuffer())[0] ?? 255;
    const stacked = await sharp({ create: { width, height: total, channels: 3, background: { r: ground, g: ground, b: ground } } })
      .composite(parts.map((input, i) => ({ input, left: 0, top: (slots[i] as { at: number }).at })))
      .png({ compressionLevel: 0 })
      .toBuffer();
    const ocr = await this.#look.recognize(stacked, { signal, ...(scale ? { scale } : {}) });
    const lines: OcrLine[] = [];
    for (const line of ocr.lines) {
      // Each word back to its band; a word in a gap (none should be) is dropped.
      const bySlot = new Map<number, OcrLine['words']>();
      for (const w of line.words) {
        const cy = w.box.y + w.box.height / 2;
        const i = slots.findIndex((s) => cy >= s.at && cy < s.at + s.height);
        if (i < 0) continue;
        const s = slots[i] as { top: number; at: number };
        const list = bySlot.get(i) ?? [];
        list.push({ ...w, box: { ...w.box, y: w.box.y - s.at + s.top } });
        bySlot.set(i, list);
      }
      for (const words of bySlot.values()) {
        const x0 = Math.min(...words.map((w) => w.box.x));
        const y0 = Math.min(...words.map((w) => w.box.y));
        const x1 = Math.max(...words.map((w) => w.box.x + w.box.width));
        const y1 = Math.max(...words.map((w) => w.box.y + w.box.height));
        lines.push({ text: words.map((w) => w.text).join(' '), box: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }, confidence: line.confidence, words });
      }
    }
    return { ...ocr, width, height, lines };
  }
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
