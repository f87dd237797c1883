/**
 * What changed between two images of the same size (a frame and one captured after an action):
 * the bounding box of the pixels that differ, in pixels of those images. Compared at a reduced
 * size in grey, so it costs a few milliseconds and ignores JPEG noise.
 */
import type { Rect } from '../../../shared/frame.ts';
import { greyPixels } from './pipeline.ts';

const CELL_LONG_EDGE = 256;
/** Grey levels (0–255) a pixel must move by to count as changed: above JPEG q70 noise. */
const THRESHOLD = 24;

export async function changedRegion(before: Buffer, after: Buffer, size: { width: number; height: number }): Promise<Rect | undefined> {
  const k = Math.min(1, CELL_LONG_EDGE / Math.max(size.width, size.height));
  const w = Math.max(1, Math.round(size.width * k));
  const h = Math.max(1, Math.round(size.height * k));
  const [a, b] = await Promise.all([greyPixels(before, w, h), greyPixels(after, w, h)]);
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (Math.abs((a[i] as number) - (b[i] as number)) <= THRESHOLD) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  if (x1 < 0) return undefined;
  // Back to full pixels, a cell wider on each side (the reduction blurs edges).
  const sx = size.width / w;
  const sy = size.height / h;
  const left = Math.max(0, Math.floor((x0 - 1) * sx));
  const top = Math.max(0, Math.floor((y0 - 1) * sy));
  const right = Math.min(size.width, Math.ceil((x1 + 2) * sx));
  const bottom = Math.min(size.height, Math.ceil((y1 + 2) * sy));
  return { x: left, y: top, width: right - left, height: bottom - top };
}
