/**
 * The parts of screenshots the text index reads, as pages for the OCR engine: each part (a band
 * of changed lines, a whole screenshot) is its own page, turned dark on light block by block and
 * enlarged when its text is small, so that one part's ground, contrast or size never decides how
 * another is read. Many pages go to the engine in one call (one process start for tesseract).
 *
 * Measured on app screens with title, tab, side and status bars (docs/benchmarks.md, "Text
 * index"): four screenshots stacked into one image lost a fifth of the side-bar words and a
 * seventh of the title bars (the layout analysis ran columns of one screenshot into the next),
 * while the same screenshots read as pages of one call lost none, at the cost of the stack.
 */
import { darkOnLight, preparedPage, type Grey, type Prepared, type Whiten } from '../ocr/prepare.ts';
import type { OcrLine } from '../ocr/types.ts';
import { lineOf } from '../ocr/util.ts';

/** A part of a frame's image to read: rows top..bottom (px of the image read), enlarged by `scale`. */
export interface Region {
  entry: number;
  top: number;
  bottom: number;
  scale: number;
  /**
   * Which grounds are whitened (prepare.ts, Whiten): every one for a band or a bar read alone (a
   * light grey status bar kept grey on a page of its own read as a picture, its words lost); a
   * screenshot read whole keeps its light grounds.
   */
  whiten: Whiten;
  /** The rows whose words this region's reading gives (default all of it): a page read whole leaves its bars to their own regions. */
  own?: { top: number; bottom: number };
}

/** Rows of one OCR call at most: the newest screenshots become searchable call by call, and a stop waits for one call. */
const MAX_ROWS = 3600;

/**
 * Regions grouped into OCR calls of at most MAX_ROWS rows (a taller region alone). A whole page
 * first in the batch (`alone`) is read by a call of its own: the newest screenshot of a walk is
 * searchable after one page, not after several.
 */
export function groupCalls(regions: readonly Region[], alone?: number): Region[][] {
  const calls: Region[][] = [];
  let rows = Number.POSITIVE_INFINITY;
  for (const r of regions) {
    const h = r.bottom - r.top;
    const first = calls[calls.length - 1]?.[0];
    if (rows + h > MAX_ROWS || (alone !== undefined && first?.entry === alone && r.entry !== alone)) {
      calls.push([]);
      rows = 0;
    }
    (calls[calls.length - 1] as Region[]).push(r);
    rows += h;
  }
  return calls;
}

/** A frame's image made ready, dark on light, for the regions that whiten grounds so: once per frame and kind. */
export function pageSource(grey: Grey, whiten: Whiten): Grey {
  return darkOnLight(grey, whiten);
}

/** One region of a frame as a page. */
export function regionPage(grey: Grey, r: Region): Promise<Prepared> {
  return preparedPage({ data: grey.data.subarray(r.top * grey.width, r.bottom * grey.width), width: grey.width, height: r.bottom - r.top }, r.scale);
}

/** Lines read on a region's page, in px of the frame's image read: only the words of the rows it owns. */
export function regionLines(lines: readonly OcrLine[], r: Region): OcrLine[] {
  const down = <T extends { box: OcrLine['box'] }>(x: T): T => ({ ...x, box: { ...x.box, y: x.box.y + r.top } });
  const own = r.own;
  const out: OcrLine[] = [];
  for (const l of lines) {
    const words = l.words.map(down).filter((w) => !own || (w.box.y + w.box.height / 2 >= own.top && w.box.y + w.box.height / 2 < own.bottom));
    if (l.words.length === 0) {
      // An engine that gives lines only: the line by its middle.
      const line = down(l);
      const cy = line.box.y + line.box.height / 2;
      if (!own || (cy >= own.top && cy < own.bottom)) out.push(line);
    } else if (words.length) out.push(words.length === l.words.length ? { ...down(l), words } : lineOf(words));
  }
  return out;
}
