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
