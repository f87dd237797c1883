/** Tesseract's output (the CLI's TSV, tesseract.js's block tree) as OcrLines; pure, tested on captured output. */
import type { OcrLine, OcrWord } from './types.ts';
import { clamp01, lineOf } from './util.ts';

/**
 * `tesseract … tsv`: level 5 rows are words, keyed to their line by block, paragraph and line
 * numbers. Confidence is 0..100 (-1 on non-word rows). Boxes are left, top, width, height.
 */
export function linesFromTsv(tsv: string): OcrLine[] {
  return [...pagesFromTsv(tsv).values()].flat();
}

/** The TSV of a multi-page read (a list of images): each page's lines by its number (from 1). */
export function pagesFromTsv(tsv: string): Map<number, OcrLine[]> {
  const lines = new Map<string, { page: number; words: OcrWord[] }>();
  for (const row of tsv.split('\n')) {
    const f = row.split('\t');
    if (f.length < 12 || f[0] !== '5') continue;
    const text = (f.slice(11).join('\t') ?? '').trim();
    if (!text) continue;
    const [left, top, width, height, conf] = [6, 7, 8, 9, 10].map((i) => Number(f[i]));
    if (![left, top, width, height].every((n) => Number.isFinite(n))) continue;
    const key = `${f[1]}.${f[2]}.${f[3]}.${f[4]}`;
    const line = lines.get(key) ?? { page: Number(f[1]), words: [] };
    line.words.push({ text, box: { x: left!, y: top!, width: width!, height: height! }, confidence: clamp01((conf ?? 0) / 100) });
    lines.set(key, line);
  }
  const pages = new Map<number, OcrLine[]>();
  for (const { page, words } of lines.values()) pages.set(page, [...(pages.get(page) ?? []), lineOf(words)]);
  return pages;
}

interface Bbox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The part of tesseract.js's `Block` tree that we read. */
export interface TjsBlock {
  paragraphs?: { lines?: { words?: { text: string; confidence: number; bbox: Bbox }[] }[] }[];
}

export function linesFromBlocks(blocks: readonly TjsBlock[] | null | undefined): OcrLine[] {
  const out: OcrLine[] = [];
  for (const b of blocks ?? []) {
    for (const p of b.paragraphs ?? []) {
      for (const l of p.lines ?? []) {
        const words: OcrWord[] = [];
        for (const w of l.words ?? []) {
          const text = w.text.trim();
          if (!text) continue;
          words.push({ text, box: { x: w.bbox.x0, y: w.bbox.y0, width: w.bbox.x1 - w.bbox.x0, height: w.bbox.y1 - w.bbox.y0 }, confidence: clamp01(w.confidence / 100) });
        }
        if (words.length) out.push(lineOf(words));
      }
    }
  }
  return out;
}
