/**
 * Region-of-interest geometry for the cropper, in percent of the image (0–100), the
 * unit the crop API and the MCP `crop_screenshot` tool share. Pure, so the drag,
 * handle and keyboard behaviour is unit-tested without a browser.
 */

export interface PercentRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type Handle = 'n' | 's' | 'e' | 'w' | 'ne' | 'nw' | 'se' | 'sw';
export const HANDLES: readonly Handle[] = ['nw', 'n', 'ne', 'e', 'se', 's', 'sw', 'w'];

/** The smallest region, in percent, so a stray click does not make an empty crop. */
export const MIN_SIZE = 0.5;

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** The rectangle spanned by two points (in either order), kept inside the image. */
export function rectFromPoints(ax: number, ay: number, bx: number, by: number): PercentRect {
  const x0 = clamp(Math.min(ax, bx), 0, 100);
  const y0 = clamp(Math.min(ay, by), 0, 100);
  const x1 = clamp(Math.max(ax, bx), 0, 100);
  const y1 = clamp(Math.max(ay, by), 0, 100);
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** Whether a region is big enough to crop. */
export function isUsable(r: PercentRect | null | undefined): r is PercentRect {
  return !!r && r.width >= MIN_SIZE && r.height >= MIN_SIZE;
}

/** Shift a region, stopping at the image's edges without changing its size. */
export function moveRect(r: PercentRect, dx: number, dy: number): PercentRect {
  return {
    x: clamp(r.x + dx, 0, 100 - r.width),
    y: clamp(r.y + dy, 0, 100 - r.height),
    width: r.width,
    height: r.height,
  };
}

/**
 * Drag one handle by (dx, dy). The opposite edge stays put; an edge never crosses
 * it (the region keeps MIN_SIZE) nor leaves the image.
 */
export function resizeRect(r: PercentRect, handle: Handle, dx: number, dy: number): PercentRect {
  let left = r.x;
  let top = r.y;
  let right = r.x + r.width;
  let bottom = r.y + r.height;
  if (handle.includes('w')) left = clamp(left + dx, 0, right - MIN_SIZE);
  if (handle.includes('e')) right = clamp(right + dx, left + MIN_SIZE, 100);
  if (handle.includes('n')) top = clamp(top + dy, 0, bottom - MIN_SIZE);
  if (handle.includes('s')) bottom = clamp(bottom + dy, top + MIN_SIZE, 100);
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** Keep a typed-in region valid: inside the image and at least MIN_SIZE. */
export function normalizeRect(r: PercentRect): PercentRect {
  const width = clamp(Number.isFinite(r.width) ? r.width : MIN_SIZE, MIN_SIZE, 100);
  const height = clamp(Number.isFinite(r.height) ? r.height : MIN_SIZE, MIN_SIZE, 100);
  return {
    x: clamp(Number.isFinite(r.x) ? r.x : 0, 0, 100 - width),
    y: clamp(Number.isFinite(r.y) ? r.y : 0, 0, 100 - height),
    width,
    height,
  };
}

export interface KeyInput {
  key: string;
  shiftKey: boolean;
  altKey: boolean;
}

/**
 * Arrow keys move the region; Shift+arrows resize it from its right/bottom edge
 * (right/down grow, left/up shrink). Alt makes the step fine (0.1 %). Returns null
 * for keys the cropper does not handle.
 */
export function rectForKey(r: PercentRect, e: KeyInput): PercentRect | null {
  const step = e.altKey ? 0.1 : 1;
  const d: Record<string, [number, number]> = {
    ArrowLeft: [-step, 0],
    ArrowRight: [step, 0],
    ArrowUp: [0, -step],
    ArrowDown: [0, step],
  };
  const delta = d[e.key];
  if (!delta) return null;
  return e.shiftKey ? resizeRect(r, 'se', delta[0], delta[1]) : moveRect(r, delta[0], delta[1]);
}

/** The region in whole pixels of an image of the given size (what the crop will hold). */
export function toPixels(r: PercentRect, width: number, height: number): PercentRect {
  const x = Math.round((r.x / 100) * width);
  const y = Math.round((r.y / 100) * height);
  const right = Math.round(((r.x + r.width) / 100) * width);
  const bottom = Math.round(((r.y + r.height) / 100) * height);
  return { x, y, width: Math.max(1, right - x), height: Math.max(1, bottom - y) };
}

/** Round percent to 4 decimals for the API (sub-pixel for any image ≤ 10,000 px). */
export function roundRect(r: PercentRect): PercentRect {
  const q = (v: number): number => Math.round(v * 10_000) / 10_000;
  return { x: q(r.x), y: q(r.y), width: q(r.width), height: q(r.height) };
}

/** A centred default region for keyboard users who start without a drag. */
export function defaultRect(): PercentRect {
  return { x: 25, y: 25, width: 50, height: 50 };
}
