/** Pure rectangle helpers for the desktop source (global screen coordinates). */
import type { Rect } from '../../../../shared/frame.ts';
import { intersect } from '../../image/mapping.ts';

/**
 * The part of a window a display shows: the display holding most of it, and the window
 * clipped to that display. Undefined when the window is on no display at all.
 */
export function visiblePart(window: Rect, displays: readonly Rect[]): { display: number; rect: Rect } | undefined {
  let best: { display: number; rect: Rect } | undefined;
  displays.forEach((d, i) => {
    const rect = intersect(window, d);
    if (rect && (!best || rect.width * rect.height > best.rect.width * best.rect.height)) best = { display: i, rect };
  });
  return best;
}

/** `rect` (global units) in the pixels of a display image captured at `scale` pixels per unit. */
export function toDisplayPixels(rect: Rect, display: Rect, scale: number, image: { width: number; height: number }): Rect {
  const x = Math.max(0, Math.round((rect.x - display.x) * scale));
  const y = Math.max(0, Math.round((rect.y - display.y) * scale));
  return { x, y, width: Math.max(1, Math.min(image.width - x, Math.round(rect.width * scale))), height: Math.max(1, Math.min(image.height - y, Math.round(rect.height * scale))) };
}

/** A window stacked above another, and what of it shows over the other. */
export interface Cover {
  /** "app “title”" */
  by: string;
  /** The part of the lower window it hides (global units). */
  rect: Rect;
}

/**
 * What of `window` the windows stacked above it hide (X11 without a compositor hands their
 * pixels out as the window's): each one's part, and the share of the window hidden in all (their
 * union, not the sum: two overlapping covers count once).
 */
export function coverage(window: Rect, above: readonly { by: string; rect: Rect }[]): { covers: Cover[]; fraction: number } {
  const covers: Cover[] = [];
  for (const a of above) {
    const rect = intersect(window, a.rect);
    if (rect && rect.width > 0 && rect.height > 0) covers.push({ by: a.by, rect });
  }
  const area = window.width * window.height;
  return { covers, fraction: area > 0 ? unionArea(covers.map((c) => c.rect)) / area : 0 };
}

/** Area of a union of rectangles (coordinate compression: a handful of windows at most). */
export function unionArea(rects: readonly Rect[]): number {
  if (!rects.length) return 0;
  const xs = [...new Set(rects.flatMap((r) => [r.x, r.x + r.width]))].sort((a, b) => a - b);
  const ys = [...new Set(rects.flatMap((r) => [r.y, r.y + r.height]))].sort((a, b) => a - b);
  let area = 0;
  for (let i = 0; i + 1 < xs.length; i++) {
    for (let j = 0; j + 1 < ys.length; j++) {
      const cx = (xs[i]! + xs[i + 1]!) / 2;
      const cy = (ys[j]! + ys[j + 1]!) / 2;
      if (rects.some((r) => cx > r.x && cx < r.x + r.width && cy > r.y && cy < r.y + r.height)) area += (xs[i + 1]! - xs[i]!) * (ys[j + 1]! - ys[j]!);
    }
  }
  return area;
}
