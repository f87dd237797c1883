/**
 * What changed between two screenshots of one screen, as horizontal bands of whole text lines to
 * read again (after a shift of a pane's content when that leaves less to read), pure. The pixels
 * are compared in screenCells.ts.
 */
import { CELL, changedCells, components, moveBand, type Band, type CellBox, type Screen, type Shift, type Thumb } from './screenCells.ts';

/** A row of cells is quiet (a gap between text lines) with at most this many grey steps across it (panel borders). */
const QUIET_EDGES = 3;
const EDGE = 20;
/** How far a band grows up or down to reach a quiet row, in image px. */
const MAX_GROW = 64;
/** Room kept around a band (image px): tesseract misreads text that touches the crop's edge. */
const PAD = 6;
/** Bands closer than this (image px) are read as one. */
const JOIN = 10;

/** How a screenshot compares with the last one read of its screen. */
export type Comparison = { kind: 'same' } | { kind: 'bands'; bands: Band[]; share: number; shift?: Shift } | { kind: 'different' };

/** Below this share of changed height, a shift is not looked for. */
const SHIFT_FROM = 0.2;
/** The strips along the top and bottom edges where bars sit (title, menu, tab, status bars), in image px. */
const BAR = 48;

/**
 * Compare `next` with `base`: the same screen (no 2×2 block changed beyond JPEG noise), the bands
 * to read again (whole text lines, full width; after a shift of the content of a pane below some
 * row when that leaves less to read), or different (another size, or so much changed that
 * reading it whole costs the same). `lines` are the extents of the words read on `base` (image
 * px): a band that cuts one grows to take it whole.
 */
export function compare(base: Screen, next: Screen, lines: readonly Band[] = [], maxShare = 0.5): Comparison {
  const mask = changedCells(base, next);
  if (!mask) return { kind: 'different' };
  const t = next.thumb;
  const groups = components(mask, t.cols, t.rows);
  if (groups.length === 0) return { kind: 'same' };
  let best = bandsOf(groups, base.thumb, t, lines);
  let shift: Shift | undefined;
  if (best.share > SHIFT_FROM) {
    // The pane that moved: the columns that changed, from the first row that did, leaving out
    // first what changed in the bars along the top and bottom edges (a clock's new minute in a
    // title bar is above the pane: a pane taken from its row would move the tab strip between
    // with the scroll); then with them (content that scrolls up to the edge).
    const edge = Math.ceil(BAR / CELL);
    const inPane = groups.filter((g) => g.y0 >= edge && g.y1 < t.rows - edge);
    for (const set of inPane.length && inPane.length < groups.length ? [inPane, groups] : [groups]) {
      const from = Math.min(...set.map((g) => g.y0));
      const c0 = Math.min(...set.map((g) => g.x0));
      const c1 = Math.max(...set.map((g) => g.x1)) + 1;
      const dy = bestShift(base.thumb, t, from, c0, c1);
      if (dy === 0) continue;
      const s: Shift = { from: from * CELL, dy, left: c0 * CELL, right: Math.min(t.width, c1 * CELL) };
      const moved = shifted(base.thumb, t, s);
      const mask2 = changedCells(base, next, s) as Uint8Array;
      const groups2 = components(mask2, t.cols, t.rows);
      const movedLines = lines.flatMap((l) => moveBand(l, s, t.height));
      const other = groups2.length ? bandsOf(groups2, moved, t, movedLines) : { bands: [], share: 0 };
      if (other.share < best.share / 2) {
        best = other;
        shift = s;
      }
    }
  }
  if (best.share > maxShare) return { kind: 'different' };
  return { kind: 'bands', ...best, ...(shift ? { shift } : {}) };
}

function bandsOf(groups: readonly CellBox[], a: Thumb, b: Thumb, lines: readonly Band[]): { bands: Band[]; share: number } {
  const spans: Band[] = groups.map((g) => ({ top: g.y0 * CELL, bottom: Math.min(b.height, (g.y1 + 1) * CELL) }));
  const bands = merge(spans.map((s) => grow(s, a, b, lines)));
  return { bands, share: bands.reduce((n, x) => n + x.bottom - x.top, 0) / b.height };
}


/** A strip (4 px of one row) differs, for lining rows up after a shift, when its mean moved more than this. */
const STRIP_DIFF = 14;

/** Changed strips per row compared, in columns c0..c1, rows `start`.. of `b` against rows shifted by `dy` of `a` (rows with nothing to compare with, scrolled in, are unknown). */
function shiftCost(a: Thumb, b: Thumb, start: number, dy: number, c0: number, c1: number): number {
  let bad = 0;
  let rows = 0;
  for (let r = start; r < b.height; r += 2) {
    const o = r + dy;
    if (o < 0 || o >= a.height) continue;
    rows++;
    const ra = o * a.cols;
    const rb = r * b.cols;
    for (let c = c0; c < c1; c++) if (Math.abs((a.strips[ra + c] as number) - (b.strips[rb + c] as number)) > STRIP_DIFF) bad++;
  }
  return rows ? bad / rows : Number.POSITIVE_INFINITY;
}

/** Bins across each pixel row of columns c0..c1 (the mean grey of each of PROFILE_BINS spans, from the strips): a line of text gets a shape its words give. */
const PROFILE_BINS = 16;
/** A bin differs when its mean grey moved more than this. */
const PROFILE_DIFF = 2;
function profile(t: Thumb, c0: number, c1: number): Float64Array {
  const out = new Float64Array(t.height * PROFILE_BINS);
  const span = c1 - c0;
  for (let y = 0; y < t.height; y++) {
    for (let c = c0; c < c1; c++) {
      const k = y * PROFILE_BINS + Math.floor(((c - c0) * PROFILE_BINS) / span);
      out[k] = (out[k] as number) + (t.strips[y * t.cols + c] as number);
    }
  }
  return out;
}

/** Offsets (px) at which the row profiles below `from` agree best, best first. */
function profileShifts(a: Thumb, b: Thumb, from: number, range: number, k: number, c0: number, c1: number): number[] {
  const pa = profile(a, c0, c1);
  const pb = profile(b, c0, c1);
  const scored: { dy: number; cost: number }[] = [];
  const binWidth = (c1 - c0) / PROFILE_BINS;
  for (let dy = -range; dy <= range; dy++) {
    if (dy === 0) continue;
    let s = 0;
    let n = 0;
    for (let y = from; y < b.height; y++) {
      const o = y + dy;
      if (o < 0 || o >= a.height) continue;
      // A row that differs (JPEG noise moves a bin's mean by well under a grey level), not by how much: a scrolled-in line is no worse than another line.
      for (let i = 0; i < PROFILE_BINS; i++) {
        if (Math.abs((pa[o * PROFILE_BINS + i] as number) - (pb[y * PROFILE_BINS + i] as number)) > PROFILE_DIFF * binWidth) {
          s++;
          break;
        }
      }
      n++;
    }
    // Too little overlap says nothing.
    if (n >= (b.height - from) / 2) scored.push({ dy, cost: s / n });
  }
  scored.sort((x, y) => x.cost - y.cost);
  return scored.slice(0, k).map((x) => x.dy);
}

/**
 * The offset (image px) that best lines the new rows from cell row `from` down, in cell columns
 * c0..c1, up with old ones. Candidates come from the rows' binned grey (to the pixel: a scroll by
 * a line of 38 px is 9.5 cells, which no whole-cell offset lines up), each tried on the rows'
 * strips around it. 0 when none is better than none.
 */
function bestShift(a: Thumb, b: Thumb, from: number, c0: number, c1: number): number {
  const range = Math.floor((b.rows - from) / 2);
  const fromPx = from * CELL;
  let px = 0;
  let bestPx = shiftCost(a, b, fromPx, 0, c0, c1);
  for (const guess of profileShifts(a, b, fromPx, range * CELL, 3, c0, c1)) {
    for (let d = guess - 2; d <= guess + 2; d++) {
      if (d === 0) continue;
      const c = shiftCost(a, b, fromPx, d, c0, c1);
      if (c < bestPx) {
        px = d;
        bestPx = c;
      }
    }
  }
  return px;
}

/**
 * `a` with the pane of `s` moved, as cells aligned with `b`'s: what `b` would be if only that
 * shift happened. Rows with nothing to come from stay `a`'s.
 */
function shifted(a: Thumb, b: Thumb, s: Shift): Thumb {
  const cells = new Uint8Array(a.cells);
  const r0 = Math.floor(s.from / CELL);
  const c0 = Math.floor(s.left / CELL);
  const c1 = Math.ceil(s.right / CELL);
  for (let r = r0; r < b.rows; r++) {
    for (let c = c0; c < c1; c++) {
      let sum = 0;
      let n = 0;
      for (let y = r * CELL; y < Math.min(b.height, (r + 1) * CELL); y++) {
        const o = y + s.dy;
        const src = o >= 0 && o < a.height ? o : y;
        sum += a.strips[src * a.cols + c] as number;
        n++;
      }
      cells[r * a.cols + c] = Math.round(sum / n);
    }
  }
  return { ...a, cells };
}

/** Grey steps across a row of cells: many on a row of text, few on a gap between lines. */
function edges(t: Thumb, row: number): number {
  let n = 0;
  const o = row * t.cols;
  for (let c = 1; c < t.cols; c++) if (Math.abs((t.cells[o + c] as number) - (t.cells[o + c - 1] as number)) > EDGE) n++;
  return n;
}

const busy = (a: Thumb, b: Thumb, row: number): boolean => edges(a, row) > QUIET_EDGES || edges(b, row) > QUIET_EDGES;

/** A span of changed rows grown to whole text lines: to quiet rows (before or after), and over every line it cuts. */
function grow(s: Band, a: Thumb, b: Thumb, lines: readonly Band[]): Band {
  let top = Math.floor(s.top / CELL);
  let bottom = Math.ceil(s.bottom / CELL);
  const limit = MAX_GROW / CELL;
  for (let i = 0; i < limit && top > 0 && busy(a, b, top - 1); i++) top--;
  for (let i = 0; i < limit && bottom < b.rows && busy(a, b, bottom); i++) bottom++;
  let out: Band = { top: top * CELL, bottom: Math.min(b.height, bottom * CELL) };
  // The words read before that the band cuts are read again whole (a taller line, a descender).
  for (let again = true; again; ) {
    again = false;
    for (const l of lines) {
      if (l.bottom > out.top && l.top < out.bottom && (l.top < out.top || l.bottom > out.bottom)) {
        out = { top: Math.min(out.top, l.top), bottom: Math.max(out.bottom, l.bottom) };
        again = true;
      }
    }
  }
  return { top: Math.max(0, out.top - PAD), bottom: Math.min(b.height, out.bottom + PAD) };
}

/**
 * The bars along the top and bottom edges of a screen (title, menu, tab and status bars: where
 * the smallest text is), each grown to a quiet row so that no line is cut; none when the image
 * is too short for bars and a body between them.
 */
export function barBands(t: Thumb): { top: Band; bottom: Band } | undefined {
  if (t.height < 5 * BAR) return undefined;
  const top = grow({ top: 0, bottom: BAR }, t, t, []);
  const bottom = grow({ top: t.height - BAR, bottom: t.height }, t, t, []);
  return top.bottom < bottom.top ? { top, bottom } : undefined;
}

/** Overlapping or nearly touching bands as one, top to bottom. */
export function merge(bands: readonly Band[]): Band[] {
  const sorted = [...bands].sort((x, y) => x.top - y.top);
  const out: Band[] = [];
  for (const b of sorted) {
    const last = out[out.length - 1];
    if (last && b.top <= last.bottom + JOIN) last.bottom = Math.max(last.bottom, b.bottom);
    else out.push({ ...b });
  }
  return out;
}

/** `base` with the rows of `bands` taken from `next`: the pixels the text now stored was read from. */
export function patch(base: Screen, next: Screen, bands: readonly Band[]): Screen {
  const grey = new Uint8Array(base.grey);
  const { width, height } = next.thumb;
  for (const b of bands) grey.set(next.grey.subarray(b.top * width, Math.min(height, b.bottom) * width), b.top * width);
  const t = next.thumb;
  const cells = new Uint8Array(base.thumb.cells);
  const strips = new Uint8Array(base.thumb.strips);
  for (const b of bands) {
    const r0 = Math.floor(b.top / CELL);
    const r1 = Math.min(t.rows, Math.ceil(b.bottom / CELL));
    cells.set(t.cells.subarray(r0 * t.cols, r1 * t.cols), r0 * t.cols);
    const y1 = Math.min(t.height, r1 * CELL);
    strips.set(t.strips.subarray(r0 * CELL * t.cols, y1 * t.cols), r0 * CELL * t.cols);
  }
  return { grey, thumb: { ...base.thumb, cells, strips } };
}

/** A 64-bit difference hash (the image shrunk to 9×8, each block brighter than its right neighbour): kept to measure against. */
export function dHash(t: Thumb): bigint {
  const grid = new Float64Array(9 * 8);
  for (let gy = 0; gy < 8; gy++) {
    const r0 = Math.floor((gy * t.rows) / 8);
    const r1 = Math.max(r0 + 1, Math.floor(((gy + 1) * t.rows) / 8));
    for (let gx = 0; gx < 9; gx++) {
      const c0 = Math.floor((gx * t.cols) / 9);
      const c1 = Math.max(c0 + 1, Math.floor(((gx + 1) * t.cols) / 9));
      let sum = 0;
      for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) sum += t.cells[r * t.cols + c] as number;
      grid[gy * 9 + gx] = sum / ((r1 - r0) * (c1 - c0));
    }
  }
  let h = 0n;
  for (let gy = 0; gy < 8; gy++) for (let gx = 0; gx < 8; gx++) h = (h << 1n) | ((grid[gy * 9 + gx] as number) > (grid[gy * 9 + gx + 1] as number) ? 1n : 0n);
  return h;
}

export function hamming(a: bigint, b: bigint): number {
  let x = a ^ b;
  let n = 0;
  while (x) {
    n += Number(x & 1n);
    x >>= 1n;
  }
  return n;
}
