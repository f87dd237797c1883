/**
 * The pure halves of the PaddleOCR pipeline: the detector's probability map to text boxes
 * (DB post-processing for axis-aligned screen text), the recogniser's CTC output to characters
 * with their horizontal positions, and those characters to words with ink-tight boxes.
 */
import type { OcrBox, OcrWord } from './types.ts';

export interface ScoredBox extends OcrBox {
  score: number;
}

export interface DetectOptions {
  /** A map pixel is text above this probability (PaddleOCR's det_db_thresh). */
  threshold?: number;
  /** A region is kept when its mean probability is at least this (det_db_box_thresh). */
  boxThreshold?: number;
  /** Growth of the shrunk region the model predicts back to the text (det_db_unclip_ratio). */
  unclipRatio?: number;
}

/**
 * Connected regions of the thresholded map, each as its bounding box grown by DB's unclip
 * distance (area × ratio ÷ perimeter). Screen text is upright, so no rotated rectangles.
 */
export function detectBoxes(prob: Float32Array, width: number, height: number, opts: DetectOptions = {}): ScoredBox[] {
  const thr = opts.threshold ?? 0.3;
  const boxThr = opts.boxThreshold ?? 0.6;
  const ratio = opts.unclipRatio ?? 1.5;
  const seen = new Uint8Array(width * height);
  const stack = new Int32Array(width * height);
  const out: ScoredBox[] = [];
  for (let start = 0; start < width * height; start++) {
    if (seen[start] || (prob[start] ?? 0) <= thr) continue;
    let top = 0;
    stack[top++] = start;
    seen[start] = 1;
    let x0 = width;
    let y0 = height;
    let x1 = -1;
    let y1 = -1;
    let sum = 0;
    let n = 0;
    while (top > 0) {
      const i = stack[--top] ?? 0;
      const x = i % width;
      const y = (i - x) / width;
      sum += prob[i] ?? 0;
      n++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      // 4-neighbours: lines a pixel apart stay apart.
      const push = (j: number): void => {
        if (!seen[j] && (prob[j] ?? 0) > thr) {
          seen[j] = 1;
          stack[top++] = j;
        }
      };
      if (x > 0) push(i - 1);
      if (x < width - 1) push(i + 1);
      if (y > 0) push(i - width);
      if (y < height - 1) push(i + width);
    }
    const w = x1 - x0 + 1;
    const h = y1 - y0 + 1;
    if (Math.min(w, h) < 2) continue;
    const score = sum / n;
    if (score < boxThr) continue;
    const d = (w * h * ratio) / (2 * (w + h));
    const bx = Math.max(0, x0 - d);
    const by = Math.max(0, y0 - d);
    out.push({ x: bx, y: by, width: Math.min(width, x1 + 1 + d) - bx, height: Math.min(height, y1 + 1 + d) - by, score });
  }
  // Reading order: top to bottom, then left to right within a band of half a line.
  return out.sort((a, b) => (Math.abs(a.y - b.y) < Math.min(a.height, b.height) / 2 ? a.x - b.x : a.y - b.y));
}

export interface DecodedChar {
  ch: string;
  /** Centre in recogniser time steps (fractional: the middle of its run). */
  t: number;
  p: number;
}

/**
 * Greedy CTC: the best class per time step, repeats merged, blanks (class 0) dropped. Class k
 * is `dict[k - 1]`; PaddleOCR appends a space as the last class.
 */
export function ctcDecode(probs: Float32Array, steps: number, classes: number, dict: readonly string[]): { chars: DecodedChar[]; confidence: number } {
  const chars: DecodedChar[] = [];
  let prev = 0;
  let runStart = 0;
  let runP = 0;
  const flush = (end: number): void => {
    if (prev === 0) return;
    const ch = dict[prev - 1];
    if (ch === undefined) return;
    chars.push({ ch, t: (runStart + end) / 2, p: runP });
  };
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let bestP = -Infinity;
    const base = t * classes;
    for (let c = 0; c < classes; c++) {
      const v = probs[base + c] ?? 0;
      if (v > bestP) [best, bestP] = [c, v];
    }
    if (best !== prev) {
      flush(t - 1);
      prev = best;
      runStart = t;
      runP = bestP;
    } else runP = Math.max(runP, bestP);
  }
  flush(steps - 1);
  const real = chars.filter((c) => c.ch !== ' ');
  const confidence = real.length ? real.reduce((s, c) => s + c.p, 0) / real.length : 0;
  return { chars, confidence };
}

/** Grey pixels of one text line (its crop in the source image), row-major. */
export interface LineInk {
  grey: Uint8Array | Buffer;
  width: number;
  height: number;
}

/** Which pixels are ink: far from the line's background (the median of its border pixels). */
export function inkMask(line: LineInk): Uint8Array {
  const { grey, width: w, height: h } = line;
  const border: number[] = [];
  for (let x = 0; x < w; x++) border.push(grey[x] ?? 0, grey[(h - 1) * w + x] ?? 0);
  for (let y = 0; y < h; y++) border.push(grey[y * w] ?? 0, grey[y * w + w - 1] ?? 0);
  border.sort((a, b) => a - b);
  const bg = border[border.length >> 1] ?? 0;
  let far = 0;
  for (let i = 0; i < w * h; i++) far = Math.max(far, Math.abs((grey[i] ?? 0) - bg));
  // Half the strongest contrast in the line: antialiased fringes stay out, thin strokes stay in.
  const cut = Math.max(24, far * 0.5);
  const mask = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) mask[i] = Math.abs((grey[i] ?? 0) - bg) >= cut ? 1 : 0;
  return mask;
}

/** Ink extent of columns [c0, c1) of a mask, or undefined when they hold none. */
function inkBox(mask: Uint8Array, w: number, h: number, c0: number, c1: number): OcrBox | undefined {
  let x0 = Infinity;
  let x1 = -1;
  let y0 = Infinity;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = Math.max(0, c0); x < Math.min(w, c1); x++) {
      if (!mask[y * w + x]) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return x1 < 0 ? undefined : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

/**
 * Runs of inked columns, split where the blank gap is at least `minGap` columns: the words of
 * the line as the eye sees them.
 */
export function inkRuns(mask: Uint8Array, w: number, h: number, minGap: number): [number, number][] {
  const col = new Uint8Array(w);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (mask[y * w + x]) col[x] = 1;
  const runs: [number, number][] = [];
  let start = -1;
  let lastInk = -Infinity;
  for (let x = 0; x < w; x++) {
    if (!col[x]) continue;
    if (start < 0) start = x;
    else if (x - lastInk - 1 >= minGap) {
      runs.push([start, lastInk + 1]);
      start = x;
    }
    lastInk = x;
  }
  if (start >= 0) runs.push([start, lastInk + 1]);
  return runs;
}

/**
 * Words of one recognised line with boxes in line-crop pixels. Characters sit at
 * `t × stepPx` (stepPx = crop width ÷ time steps). Words are cut where the model read a space
 * and where the ink has a word-sized gap (the Chinese-English model often drops spaces
 * between Latin words); each word's box is the ink of the columns its characters cover.
 */
export function wordsOfLine(chars: readonly DecodedChar[], stepPx: number, ink: LineInk): OcrWord[] {
  const mask = inkMask(ink);
  const { width: w, height: h } = ink;
  const full = inkBox(mask, w, h, 0, w);
  if (!full) return [];
  // A word gap is some 0.4 of the ink height (ascender to descender); letters of one word sit closer than that.
  const runs = inkRuns(mask, w, h, Math.max(2, Math.round(full.height * 0.4)));
  const runOf = (x: number): number => {
    let best = 0;
    let bestD = Infinity;
    runs.forEach(([a, b], i) => {
      const d = x < a ? a - x : x >= b ? x - b + 1 : 0;
      if (d < bestD) [best, bestD] = [i, d];
    });
    return best;
  };
  const groups: { chars: DecodedChar[]; run: number }[] = [];
  let cur: { chars: DecodedChar[]; run: number } | undefined;
  for (const c of chars) {
    if (c.ch === ' ') {
      cur = undefined;
      continue;
    }
    const run = runOf(c.t * stepPx);
    if (!cur || run !== cur.run) {
      // Two model-words in one ink run (a narrow space) stay two words; one model-word over
      // two runs becomes two words.
      cur = { chars: [], run };
      groups.push(cur);
    }
    cur.chars.push(c);
  }
  // Model-words that share a run split it between them at the midpoint of their characters.
  const words: OcrWord[] = [];
  groups.forEach((g, i) => {
    const [a, b] = runs[g.run] ?? [0, w];
    const prev = groups[i - 1];
    const next = groups[i + 1];
    const first = g.chars[0];
    const last = g.chars[g.chars.length - 1];
    if (!first || !last) return;
    const lo = prev && prev.run === g.run ? Math.round((((prev.chars.at(-1)?.t ?? 0) + first.t) / 2) * stepPx) : a;
    const hi = next && next.run === g.run ? Math.round((((next.chars[0]?.t ?? 0) + last.t) / 2) * stepPx) : b;
    const box = inkBox(mask, w, h, lo, hi) ?? { x: lo, y: full.y, width: Math.max(1, hi - lo), height: full.height };
    words.push({ text: g.chars.map((c) => c.ch).join(''), box, confidence: g.chars.reduce((s, c) => s + c.p, 0) / g.chars.length });
  });
  return words;
}
