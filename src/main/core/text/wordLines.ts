/**
 * A frame's stored text as lines of words with boxes, pure: the merge of the words kept from the
 * screenshot before with those read again in changed bands, and whether two texts are the same
 * screen for the timeline's folding.
 */
import type { IndexedText } from './indexText.ts';
import { moveBand, type Band, type Shift } from './screenCells.ts';

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

/** The extent of each word read (px of the image compared: `kx`, `ky` frame px per image px). */
export function lineBands(t: IndexedText, kx: number, ky: number): Band[] {
  const out: Band[] = [];
  for (let i = 0; i + 3 < t.boxes.length; i += 4) {
    const [x, y, w, h] = t.boxes.slice(i, i + 4) as [number, number, number, number];
    out.push({ top: y / ky, bottom: (y + h) / ky, left: x / kx, right: (x + w) / kx });
  }
  return out;
}

/**
 * The text before with the words of `bands` (frame px) replaced by those read there now: a word
 * belongs to a band when its middle is inside it. After a `shift` (frame px) the words before
 * in its pane move with the content first, and those that scrolled out are gone. Lines come out top to bottom.
 */
export function mergeText(before: IndexedText, fresh: IndexedText, bands: readonly Band[], shift?: Shift, height?: number): IndexedText {
  const inside = (w: Word): boolean => {
    const cy = w.box[1] + w.box[3] / 2;
    return bands.some((b) => cy >= b.top && cy < b.bottom);
  };
  const move = (w: Word): Word[] => {
    if (!shift) return [w];
    return moveBand({ top: w.box[1], bottom: w.box[1] + w.box[3], left: w.box[0], right: w.box[0] + w.box[2] }, shift, height).map((b) => ({ text: w.text, box: [w.box[0], Math.round(b.top), w.box[2], w.box[3]] }));
  };
  // A line whose words lie partly in the pane that moved (a side bar's item read on one line with
  // the pane's text) becomes two: the words that stayed and those that moved.
  const kept = linesOf(before)
    .flatMap((l) => {
      const still: Word[] = [];
      const moved: Word[] = [];
      for (const w of l) for (const m of move(w)) (m.box[1] === w.box[1] ? still : moved).push(m);
      return [still, moved];
    })
    .map((l) => l.filter((w) => !inside(w)))
    .filter((l) => l.length > 0);
  const lines = [...kept, ...linesOf(fresh).map((l) => l.filter(inside)).filter((l) => l.length > 0)];
  lines.sort((a, b) => lineTop(a) - lineTop(b) || (a[0] as Word).box[0] - (b[0] as Word).box[0]);
  return { text: lines.map((l) => l.map((w) => w.text).join(' ')).join('\n'), boxes: lines.flatMap((l) => l.flatMap((w) => w.box)) };
}

const lineTop = (l: Word[]): number => Math.min(...l.map((w) => w.box[1]));

/** A time of day as a clock shows it: 9:41, 09:41:07, 9.41, 9:41PM. */
const CLOCK = /^\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:[ap]\.?m\.?)?$/i;

/**
 * Whether two texts show the same screen to a person looking back: the same words in the same
 * order, a clock's time aside. Only the timeline's folding asks this: each frame keeps the text
 * it was read with, its own clock included.
 */
export function sameScreenText(a: IndexedText, b: IndexedText): boolean {
  const words = (t: IndexedText): string[] => t.text.split(/\s+/).filter((w) => w.length > 0 && !CLOCK.test(w));
  const x = words(a);
  const y = words(b);
  return x.length === y.length && x.every((w, i) => w === y[i]);
}
