/** Small pure helpers the engines share; nothing heavy is imported here. */
import { SightlineError } from '../../../shared/errors.ts';
import type { Prepared } from './prepare.ts';
import type { OcrBox, OcrEngine, OcrLine, OcrResult, OcrWord, RecognizeOptions } from './types.ts';

export function unionBox(boxes: readonly OcrBox[]): OcrBox {
  if (boxes.length === 0) return { x: 0, y: 0, width: 0, height: 0 };
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const b of boxes) {
    x0 = Math.min(x0, b.x);
    y0 = Math.min(y0, b.y);
    x1 = Math.max(x1, b.x + b.width);
    y1 = Math.max(y1, b.y + b.height);
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

export function scaleBox(b: OcrBox, k: number): OcrBox {
  return { x: b.x * k, y: b.y * k, width: b.width * k, height: b.height * k };
}

/** Boxes read on a prepared image (shifted by `pad`, enlarged) back in the caller's pixels: (p - pad) × k. */
export function scaleLines(lines: OcrLine[], k: number, pad = 0): OcrLine[] {
  if (k === 1 && pad === 0) return lines;
  const f = (b: OcrBox): OcrBox => scaleBox({ ...b, x: b.x - pad, y: b.y - pad }, k);
  return lines.map((l) => ({ ...l, box: f(l.box), words: l.words.map((w) => ({ ...w, box: f(w.box) })) }));
}

/** Tesseract's page segmentation mode for sparse text (`layout: 'sparse'`). */
export const SPARSE_PSM = 11;

export const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** A line assembled from its words: text joined by single spaces, box the union, confidence the mean. */
export function lineOf(words: OcrWord[]): OcrLine {
  const conf = words.length ? words.reduce((s, w) => s + w.confidence, 0) / words.length : 0;
  return { text: words.map((w) => w.text).join(' '), box: unionBox(words.map((w) => w.box)), confidence: conf, words };
}

export function checkImage(image: unknown): asserts image is Buffer {
  if (!Buffer.isBuffer(image) || image.length === 0) {
    throw new SightlineError('IMAGE_INVALID', 'The image to read is empty.', 'capture again');
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelled();
}

export function cancelled(): SightlineError {
  return new SightlineError('CANCELLED', 'Text recognition was cancelled.', 'run it again if the text is still needed');
}

/** Rejects with CANCELLED as soon as `signal` aborts; `onAbort` stops the work underneath. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined, onAbort?: () => void): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    onAbort?.();
    return Promise.reject(cancelled());
  }
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => {
      onAbort?.();
      reject(cancelled());
    };
    signal.addEventListener('abort', stop, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', stop);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** Tesseract language codes for the BCP-47 tags callers pass (`en-US` → `eng`). */
const TESSERACT_CODES: Record<string, string> = { en: 'eng', fr: 'fra', de: 'deu', es: 'spa', it: 'ita', pt: 'por', nl: 'nld' };

export function tesseractLanguages(languages: readonly string[] | undefined): string[] {
  const out = new Set<string>();
  for (const l of languages?.length ? languages : ['eng']) {
    const base = l.toLowerCase().split(/[-_]/)[0] ?? '';
    out.add(base.length === 3 ? base : (TESSERACT_CODES[base] ?? base));
  }
  return [...out].filter((c) => /^[a-z]{3}(_[a-z]+)?$/.test(c));
}

/** Enlargement the engines accept: 1..3 (beyond 3 the time grows ninefold for no gain). */
export const clampScale = (k: number): number => (Number.isFinite(k) ? Math.min(3, Math.max(1, k)) : 1);

/**
 * Words of a line whose box alone is known, each given a share of the box proportional to its
 * characters (spaces included). Good to a character's width in a proportional font: enough to
 * click a word, not to outline it.
 */
export function wordsByCharacters(text: string, box: OcrBox, confidence: number): OcrWord[] {
  const chars = [...text];
  if (chars.length === 0) return [];
  const per = box.width / chars.length;
  const words: OcrWord[] = [];
  let start = -1;
  chars.forEach((c, i) => {
    const space = /\s/.test(c);
    if (!space && start < 0) start = i;
    if ((space || i === chars.length - 1) && start >= 0) {
      const end = space ? i : i + 1;
      words.push({ text: chars.slice(start, end).join(''), box: { x: box.x + start * per, y: box.y, width: (end - start) * per, height: box.height }, confidence });
      start = -1;
    }
  });
  return words;
}

/** Prepared pages read one `recognize` each (for engines without a call of their own for many): boxes back in each page's caller pixels. */
export async function pagesOneByOne(engine: Pick<OcrEngine, 'recognize'>, pages: readonly Prepared[], opts: Omit<RecognizeOptions, 'scale'> = {}): Promise<OcrResult[]> {
  const out: OcrResult[] = [];
  for (const p of pages) {
    const r = await engine.recognize(p.png, opts);
    out.push({ ...r, width: p.width, height: p.height, lines: scaleLines(r.lines, 1 / p.scale, p.pad) });
  }
  return out;
}
