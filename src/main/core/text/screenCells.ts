/**
 * The pixels of two screenshots of one screen compared, pure: 2×2 px blocks (their mean grey), a
 * 4×4 px cell changed when any of its blocks did, and the groups of changed cells; and where
 * content is after it moved (a scroll). What changed as bands of text lines is screenDiff.ts.
 *
 * Why 2×2 blocks: JPEG noise moves a block's mean by at most 23 grey levels between two
 * encodings of one screen (quality 60 to 95), while one character changed in a 12–16 px word, a
 * clock's digit or a side bar's item moves some block by 57 or more, light theme or dark. A 4×4
 * cell's mean is blunter: noise moves it by up to 10, and a changed character by as little as 12
 * (docs/benchmarks.md, "Text index"), too close to tell apart; a changed word missed there would
 * lend the old word to the new screenshot. Nothing that changed is waved through as noise: a
 * caret, a clock or a title bar is read again (they are small, so it is cheap).
 *
 * Why not a perceptual hash: a hash of the whole screen is blind to a word typed (one changed
 * word moves a 64-bit dHash by 0–2 bits, the same as JPEG noise), and it cannot say where the
 * change is.
 */

/** Image px per cell side. */
export const CELL = 4;
/** A 2×2 block changed when its mean grey moved more than this (the measured noise and change are 23 and 57). */
export const BLOCK_DIFF = 36;
export interface Thumb {
  /** The image's size in px. */
  width: number;
  height: number;
  cols: number;
  rows: number;
  /** Mean grey per cell, row by row. */
  cells: Uint8Array;
  /** Mean grey per CELL px of each pixel row (cols × height): a shift found to the pixel. */
  strips: Uint8Array;
}

export interface Band {
  /** Image px, bottom exclusive. */
  top: number;
  bottom: number;
  /** The columns of what the band holds (a word's), when known: it moves with a pane only when its middle is in it. */
  left?: number;
  right?: number;
}

/** A screenshot as compared: its grey pixels (one byte each) and its cells. */
export interface Screen {
  grey: Uint8Array;
  thumb: Thumb;
}

export function screenOf(grey: Uint8Array, width: number, height: number): Screen {
  return { grey, thumb: thumbOf(grey, width, height) };
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

/**
 * 1 per cell of `b` where a 2×2 block changed from `a`; undefined when they are not the same size
 * (not one screen). With `shift`, `b`'s rows from `shift.from` down, in the pane's columns, are
 * compared with `a`'s rows `dy` lower (what they showed before the content moved); rows with
 * nothing to come from are compared with `a`'s own.
 */
export function changedCells(a: Screen, b: Screen, shift?: Shift): Uint8Array | undefined {
  const t = b.thumb;
  if (a.thumb.width !== t.width || a.thumb.height !== t.height) return undefined;
  const { width, height, cols } = t;
  const out = new Uint8Array(t.cells.length);
  const limit = BLOCK_DIFF * 4;
  // The row of `a` a row of `b` shows inside the pane; -1 when it scrolled in from beyond the pane
  // (above its first row or below the image): nothing to compare with, so it is read.
  const rowA = (yy: number): number => {
    if (!shift || yy < shift.from) return yy;
    const o = yy + shift.dy;
    return o >= shift.from && o < height ? o : -1;
  };
  for (let y = 0; y + 1 < height; y += 2) {
    const b0 = y * width;
    const b1 = b0 + width;
    const r0 = rowA(y);
    const r1 = rowA(y + 1);
    const moved0 = r0 * width;
    const moved1 = r1 * width;
    const cellRow = (y >> 2) * cols;
    for (let x = 0; x + 1 < width; x += 2) {
      // Inside the pane that moved, the rows it came from; elsewhere the same rows.
      const inPane = shift !== undefined && x >= shift.left && x < shift.right;
      if (inPane && (r0 < 0 || r1 < 0)) {
        out[cellRow + (x >> 2)] = 1;
        continue;
      }
      const a0 = inPane ? moved0 : b0;
      const a1 = inPane ? moved1 : b1;
      const sa = (a.grey[a0 + x] as number) + (a.grey[a0 + x + 1] as number) + (a.grey[a1 + x] as number) + (a.grey[a1 + x + 1] as number);
      const sb = (b.grey[b0 + x] as number) + (b.grey[b0 + x + 1] as number) + (b.grey[b1 + x] as number) + (b.grey[b1 + x + 1] as number);
      if (sa - sb > limit || sb - sa > limit) out[cellRow + (x >> 2)] = 1;
    }
  }
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
 * Content that moved up or down (a scroll, a line deleted or inserted): from image row `from` of
 * the new screenshot down, between columns `left` and `right` (a pane: a side bar beside it
 * stays), its row y shows what row y + `dy` showed before (image px, `right` exclusive).
 */
export interface Shift {
  from: number;
  dy: number;
  left: number;
  right: number;
}

/**
 * Where an old extent is after a shift (image px): as it was when it lies above `from` or beside
 * the pane (its middle outside `left`..`right`; an extent with no columns counts as inside), none
 * when its middle scrolled out (above `from` or below `height`) or its rows were deleted. By the
 * middle, as a word is placed in a band: an OCR box can be taller than its word (the line above
 * taken in), and a word whose top alone stayed on screen is gone.
 */
export function moveBand(l: Band, s: Shift, height = Number.POSITIVE_INFINITY): Band[] {
  if (l.top < s.from) return [l];
  if (l.left !== undefined && l.right !== undefined) {
    const cx = (l.left + l.right) / 2;
    if (cx < s.left || cx >= s.right) return [l];
  }
  const middle = (l.top + l.bottom) / 2 - s.dy;
  if (middle < s.from || middle >= height) return [];
  return [{ ...l, top: l.top - s.dy, bottom: l.bottom - s.dy }];
}
