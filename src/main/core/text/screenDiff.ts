/**
 * What changed between two screenshots of one screen, cheaply and in pixels, pure: each image
 * is shrunk to a grid of 4×4 px cells (their mean grey), the grids are compared cell by cell,
 * and the changed cells are turned into horizontal bands of whole text lines to read again.
 *
 * Why cells and not a perceptual hash: a hash of the whole screen is blind to a word typed
 * (docs/benchmarks.md, "Text index": one changed word moves a 64-bit dHash by 0–2 bits, the
 * same as JPEG noise), and it cannot say where the change is; a cell grid both detects it and
 * places it, at about the same cost (the decode dominates both).
 */

/** Image px per cell side. */
export const CELL = 4;
/** A cell changed when its mean grey moved more than this (JPEG noise of one capture to the next stays well below). */
export const CELL_DIFF = 14;
/** A row of cells is quiet (a gap between text lines) with at most this many grey steps across it (panel borders). */
const QUIET_EDGES = 3;
const EDGE = 20;
/** How far a band grows up or down to reach a quiet row, in image px. */
const MAX_GROW = 64;
/** Room kept around a band (image px): tesseract misreads text that touches the crop's edge. */
const PAD = 6;
/** Bands closer than this (image px) are read as one. */
const JOIN = 10;

export interface Thumb {
  /** The image's size in px. */
  width: number;
  height: number;
  cols: number;
  rows: number;
  /** Mean grey per cell, row by row. */
  cells: Uint8Array;
  /** Mean grey per CELL px of each pixel row (cols × height): a shift found to the pixel. */
  strips?: Uint8Array;
}

export interface Band {
  /** Image px, bottom exclusive. */
  top: number;
  bottom: number;
}

/** Cells of a grey image (one byte a pixel): the strips first (one pass over the pixels), the cells from them. */
export function thumbOf(grey: Uint8Array, width: number, height: number): Thumb {
  const cols = Math.ceil(width / CELL);
  const rows = Math.ceil(height / CELL);
  const strips = new Uint8Array(cols * height);
  const full = Math.floor(width / CELL);
  for (let y = 0; y < height; y++) {
    const o = y * width;
    const so = y * cols;
    for (let c = 0; c < full; c++) {
      const x = o + c * CELL;
      strips[so + c] = ((grey[x] as number) + (grey[x + 1] as number) + (grey[x + 2] as number) + (grey[x + 3] as number) + 2) >> 2;
    }
    if (full < cols) {
      let s = 0;
      for (let x = full * CELL; x < width; x++) s += grey[o + x] as number;
      strips[so + full] = Math.round(s / (width - full * CELL));
    }
  }
  const cells = new Uint8Array(cols * rows);
  for (let r = 0; r < rows; r++) {
    const y1 = Math.min(height, (r + 1) * CELL);
    const n = y1 - r * CELL;
    for (let c = 0; c < cols; c++) {
      let s = 0;
      for (let y = r * CELL; y < y1; y++) s += strips[y * cols + c] as number;
      cells[r * cols + c] = Math.round(s / n);
    }
  }
  return { width, height, cols, rows, cells, strips };
}

/** 1 per cell that changed from `a` to `b`; undefined when they are not the same size (not one screen). */
export function changedCells(a: Thumb, b: Thumb, threshold = CELL_DIFF): Uint8Array | undefined {
  if (a.width !== b.width || a.height !== b.height) return undefined;
  const out = new Uint8Array(a.cells.length);
  for (let k = 0; k < out.length; k++) if (Math.abs((a.cells[k] as number) - (b.cells[k] as number)) > threshold) out[k] = 1;
  return out;
}

export interface CellBox {
  /** Cells, inclusive. */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The bounding boxes of the 8-connected groups of changed cells. */
export function components(mask: Uint8Array, cols: number, rows: number): CellBox[] {
  const seen = new Uint8Array(mask.length);
  const out: CellBox[] = [];
  const stack: number[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || seen[start]) continue;
    const box = { x0: cols, y0: rows, x1: -1, y1: -1 };
    seen[start] = 1;
    stack.push(start);
    while (stack.length) {
      const k = stack.pop() as number;
      const x = k % cols;
      const y = (k / cols) | 0;
      box.x0 = Math.min(box.x0, x);
      box.x1 = Math.max(box.x1, x);
      box.y0 = Math.min(box.y0, y);
      box.y1 = Math.max(box.y1, y);
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= cols || ny >= rows) continue;
          const j = ny * cols + nx;
          if (mask[j] && !seen[j]) {
            seen[j] = 1;
            stack.push(j);
          }
        }
      }
    }
    out.push(box);
  }
  return out;
}

/**
 * A change that carries no word: a text caret (a group one cell wide: a caret is 1–2 px), or a
 * small change in the strip along the top or bottom edge (a clock or a tray icon in a menu bar
 * or taskbar). The text read before is kept for those, untouched.
 */
export function negligible(box: CellBox, t: Pick<Thumb, 'rows'>): boolean {
  const w = box.x1 - box.x0 + 1;
  const h = box.y1 - box.y0 + 1;
  if (w === 1) return true;
  const edge = Math.ceil(48 / CELL);
  const inBar = box.y1 < edge || box.y0 >= t.rows - edge;
  return inBar && w * CELL <= 96 && h * CELL <= 40;
}

/**
 * Content that moved up or down (a scroll, a line deleted or inserted): from image row `from` of
 * the new screenshot down, its row y shows what row y + `dy` showed before (image px).
 */
export interface Shift {
  from: number;
  dy: number;
}

/** How a screenshot compares with the last one read of its screen. */
export type Comparison = { kind: 'same' } | { kind: 'bands'; bands: Band[]; share: number; shift?: Shift } | { kind: 'different' };

/** Below this share of changed height, a shift is not looked for. */
const SHIFT_FROM = 0.2;

/**
 * Compare `next` with `base`: the same screen (nothing, or nothing but a caret or a clock,
 * changed), the bands to read again (whole text lines, full width; after a shift of the content
 * below some row when that leaves less to read), or different (another size, or so much changed
 * that reading it whole costs the same). `lines` are the vertical extents of the words read on
 * `base` (image px): a band that cuts one grows to take it whole.
 */
export function compare(base: Thumb, next: Thumb, lines: readonly Band[] = [], maxShare = 0.5): Comparison {
  const mask = changedCells(base, next);
  if (!mask) return { kind: 'different' };
  const groups = components(mask, next.cols, next.rows).filter((g) => !negligible(g, next));
  if (groups.length === 0) return { kind: 'same' };
  let best = bandsOf(groups, base, next, lines);
  let shift: Shift | undefined;
  if (best.share > SHIFT_FROM) {
    const from = Math.min(...groups.map((g) => g.y0));
    const dy = bestShift(base, next, from);
    if (dy !== 0) {
      const moved = shifted(base, next, from * CELL, dy);
      const mask2 = changedCells(moved, next) as Uint8Array;
      const groups2 = components(mask2, next.cols, next.rows).filter((g) => !negligible(g, next));
      const movedLines = lines.flatMap((l) => moveBand(l, from * CELL, dy, next.height));
      const other = groups2.length ? bandsOf(groups2, moved, next, movedLines) : { bands: [], share: 0 };
      if (other.share < best.share / 2) {
        best = other;
        shift = { from: from * CELL, dy };
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

/** Where an old band is after a shift (image px): none when its rows scrolled out (above `from` or below `height`) or were deleted. */
export function moveBand(l: Band, from: number, dy: number, height = Number.POSITIVE_INFINITY): Band[] {
  if (l.top < from) return [l];
  const top = l.top - dy;
  if (top < from || top >= height) return [];
  return [{ top, bottom: l.bottom - dy }];
}

/** Changed cells per row compared, rows `start`.. of `rowsB` against rows shifted by `dy` of `rowsA` (rows with nothing to compare with, scrolled in, are unknown). */
function shiftCost(rowsA: Uint8Array, rowsB: Uint8Array, cols: number, n: number, start: number, dy: number, step = 1): number {
  let bad = 0;
  let rows = 0;
  for (let r = start; r < n; r += step) {
    const o = r + dy;
    if (o < 0 || o >= n) continue;
    rows++;
    const ra = o * cols;
    const rb = r * cols;
    for (let c = 0; c < cols; c++) if (Math.abs((rowsA[ra + c] as number) - (rowsB[rb + c] as number)) > CELL_DIFF) bad++;
  }
  return rows ? bad / rows : Number.POSITIVE_INFINITY;
}

/** Bins across each pixel row (the mean grey of each of PROFILE_BINS spans, from the strips): a line of text gets a shape its words give. */
const PROFILE_BINS = 16;
/** A bin differs when its mean grey moved more than this. */
const PROFILE_DIFF = 2;
function profile(t: Thumb): Float64Array {
  const out = new Float64Array(t.height * PROFILE_BINS);
  const strips = t.strips as Uint8Array;
  for (let y = 0; y < t.height; y++) {
    for (let c = 0; c < t.cols; c++) {
      const k = y * PROFILE_BINS + Math.floor((c * PROFILE_BINS) / t.cols);
      out[k] = (out[k] as number) + (strips[y * t.cols + c] as number);
    }
  }
  return out;
}

/** Offsets (px) at which the row profiles below `from` agree best, best first. */
function profileShifts(a: Thumb, b: Thumb, from: number, range: number, k: number): number[] {
  const pa = profile(a);
  const pb = profile(b);
  const scored: { dy: number; cost: number }[] = [];
  const binWidth = a.cols / PROFILE_BINS;
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
 * The offset (image px) that best lines the new rows from cell row `from` down up with old ones.
 * Candidates come from the rows' binned grey (to the pixel: a scroll by a line of 38 px is 9.5
 * cells, which no whole-cell offset lines up), each tried on the rows' strips around it; without
 * strips, whole cells are tried. 0 when none is better than none.
 */
function bestShift(a: Thumb, b: Thumb, from: number): number {
  const range = Math.floor((b.rows - from) / 2);
  if (!a.strips || !b.strips) {
    let coarse = 0;
    let best = shiftCost(a.cells, b.cells, b.cols, b.rows, from, 0);
    for (let dy = -range; dy <= range; dy++) {
      const c = dy === 0 ? best : shiftCost(a.cells, b.cells, b.cols, b.rows, from, dy);
      if (c < best) {
        coarse = dy;
        best = c;
      }
    }
    return coarse * CELL;
  }
  const fromPx = from * CELL;
  let px = 0;
  let bestPx = shiftCost(a.strips, b.strips, b.cols, b.height, fromPx, 0, 2);
  for (const c0 of profileShifts(a, b, fromPx, range * CELL, 3)) {
    for (let d = c0 - 2; d <= c0 + 2; d++) {
      if (d === 0) continue;
      const c = shiftCost(a.strips, b.strips, b.cols, b.height, fromPx, d, 2);
      if (c < bestPx) {
        px = d;
        bestPx = c;
      }
    }
  }
  return px;
}

/**
 * `a` with its pixel rows from `from` down moved by `dy` (image px), as cells aligned with `b`'s:
 * what `b` would be if only that shift happened. Rows with nothing to come from stay `a`'s.
 */
function shifted(a: Thumb, b: Thumb, from: number, dy: number): Thumb {
  const cells = new Uint8Array(a.cells);
  const r0 = Math.floor(from / CELL);
  const strips = a.strips;
  if (!strips) {
    const d = Math.round(dy / CELL);
    for (let r = r0; r < b.rows; r++) if (r + d >= 0 && r + d < a.rows) cells.set(a.cells.subarray((r + d) * a.cols, (r + d + 1) * a.cols), r * a.cols);
    return { ...a, cells };
  }
  for (let r = r0; r < b.rows; r++) {
    for (let c = 0; c < a.cols; c++) {
      let s = 0;
      let n = 0;
      for (let y = r * CELL; y < Math.min(b.height, (r + 1) * CELL); y++) {
        const o = y + dy;
        const src = o >= 0 && o < a.height ? o : y;
        s += strips[src * a.cols + c] as number;
        n++;
      }
      cells[r * a.cols + c] = Math.round(s / n);
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
export function patch(base: Thumb, next: Thumb, bands: readonly Band[]): Thumb {
  const cells = new Uint8Array(base.cells);
  const strips = base.strips && next.strips ? new Uint8Array(base.strips) : undefined;
  for (const b of bands) {
    const r0 = Math.floor(b.top / CELL);
    const r1 = Math.min(next.rows, Math.ceil(b.bottom / CELL));
    cells.set(next.cells.subarray(r0 * next.cols, r1 * next.cols), r0 * next.cols);
    const y1 = Math.min(next.height, r1 * CELL);
    if (strips && next.strips) strips.set(next.strips.subarray(r0 * CELL * next.cols, y1 * next.cols), r0 * CELL * next.cols);
  }
  return { ...base, cells, ...(strips ? { strips } : {}) };
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
