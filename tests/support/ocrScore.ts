/**
 * Scores an OCR result against a page whose text and word boxes are known: character error
 * rate per drawn line (order-free across panes) and how many words were found with their box
 * within a tolerance.
 */
import type { OcrResult, OcrWord } from '../../src/main/core/ocr/types.ts';
import type { Box, ScreenPage } from './ocrPage.ts';

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const sub = (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      cur[j] = Math.min(sub, (prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length] ?? 0;
}

const centre = (b: Box): { x: number; y: number } => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });
const contains = (b: Box, p: { x: number; y: number }, slack: number): boolean =>
  p.x >= b.x - slack && p.x <= b.x + b.width + slack && p.y >= b.y - slack && p.y <= b.y + b.height + slack;

export interface Score {
  /** Edit distance over reference characters (spaces between words included). */
  cer: number;
  refChars: number;
  edits: number;
}

/**
 * Each recognised word goes to the drawn line whose box holds its centre; a line's hypothesis
 * is its words left to right. Words that fall on no line count as insertions. Accents are
 * compared as drawn: an engine that reads `café` as `cafe` pays one edit.
 */
export function characterErrorRate(page: ScreenPage, result: OcrResult): Score {
  const hyp = page.lines.map(() => [] as OcrWord[]);
  let stray = 0;
  for (const w of result.lines.flatMap((l) => l.words)) {
    const c = centre(w.box);
    // The closest line vertically among those that hold the centre (lines of a pane never overlap).
    let best = -1;
    let bestD = Infinity;
    page.lines.forEach((l, i) => {
      if (!contains(l.box, c, 4)) return;
      const d = Math.abs(centre(l.box).y - c.y);
      if (d < bestD) [best, bestD] = [i, d];
    });
    if (best < 0) stray += w.text.length + 1;
    else hyp[best]?.push(w);
  }
  let edits = stray;
  let refChars = 0;
  page.lines.forEach((l, i) => {
    const h = (hyp[i] ?? []).sort((a, b) => a.box.x - b.box.x).map((w) => w.text).join(' ');
    edits += levenshtein(l.text, h);
    refChars += l.text.length;
  });
  return { cer: refChars ? edits / refChars : 0, refChars, edits };
}

export interface BoxError {
  word: string;
  expected: Box;
  got?: Box;
  /** Largest edge difference in px. */
  error: number;
}

/** The worst edge distance between two boxes. */
export function edgeError(a: Box, b: Box): number {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y), Math.abs(a.x + a.width - (b.x + b.width)), Math.abs(a.y + a.height - (b.y + b.height)));
}

/** Normalised for comparing a drawn word with a read one: case and accents aside. */
const fold = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * For every drawn word, the recognised word of the same text (case and accents aside) whose
 * box is nearest, and how far its edges are from the drawn ink box.
 */
export function wordBoxErrors(page: ScreenPage, result: OcrResult): BoxError[] {
  const got = result.lines.flatMap((l) => l.words);
  return page.words.map((w) => {
    let best: OcrWord | undefined;
    let bestE = Infinity;
    for (const g of got) {
      if (fold(g.text) !== fold(w.text)) continue;
      const e = edgeError(g.box, w.box);
      if (e < bestE) [best, bestE] = [g, e];
    }
    return { word: w.text, expected: w.box, ...(best ? { got: best.box } : {}), error: bestE };
  });
}
