/**
 * Mapping between a frame's image pixels and its source's input space
 * (`source = origin + image × scale`, the one mapping every source shares).
 *
 * A coordinate names a *point*, not a pixel's centre: image point (x, y) maps to
 * origin + (x, y) × scale, so image pixel (x, y) maps to the top-left corner of the source
 * region it covers. This is the formula agents and sources are told about, it stays linear
 * (crops of crops compose by multiplying scales and adding origins), and the error against
 * the pixel's centre is half a pixel, within the 1 px the contract promises.
 * Results are not rounded: a source rounds once, at the edge, to what its input API takes.
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { Point, Rect, Size } from '../../../shared/frame.ts';

export interface Mapping {
  /** Size of the image in pixels. */
  image: Size;
  /** Source-space position of the image's point (0, 0). */
  origin: Point;
  /** Source units per image pixel. */
  scale: number;
}

export function imageToSource(m: Mapping, p: Point): Point {
  return { x: m.origin.x + p.x * m.scale, y: m.origin.y + p.y * m.scale };
}

export function sourceToImage(m: Mapping, p: Point): Point {
  return { x: (p.x - m.origin.x) / m.scale, y: (p.y - m.origin.y) / m.scale };
}

export function rectImageToSource(m: Mapping, r: Rect): Rect {
  const { x, y } = imageToSource(m, r);
  return { x, y, width: r.width * m.scale, height: r.height * m.scale };
}

export function rectSourceToImage(m: Mapping, r: Rect): Rect {
  const { x, y } = sourceToImage(m, r);
  return { x, y, width: r.width / m.scale, height: r.height / m.scale };
}

/**
 * The mapping of an image fitted from a capture of `sourceSize` source units. Taken along the
 * long edge, where rounding the fitted size costs the least; the short edge is then off by at
 * most half an image pixel at its far end (see fitSize).
 */
export function fitMapping(image: Size, sourceSize: Size, origin: Point): Mapping {
  const scale = image.width >= image.height ? sourceSize.width / image.width : sourceSize.height / image.height;
  return { image, origin, scale };
}

export function isInsideImage(size: Size, p: Point): boolean {
  return Number.isFinite(p.x) && Number.isFinite(p.y) && p.x >= 0 && p.y >= 0 && p.x < size.width && p.y < size.height;
}

export function assertInsideImage(size: Size, p: Point): void {
  if (isInsideImage(size, p)) return;
  throw new SightlineError(
    'POINT_OUTSIDE_FRAME',
    `Point (${p.x}, ${p.y}) is outside the ${size.width}x${size.height} image.`,
    `use a point inside 0..${size.width - 1} × 0..${size.height - 1} or capture again`,
    { point: { x: p.x, y: p.y }, image: { width: size.width, height: size.height } },
  );
}

export type CropUnits = 'percent' | 'normalized' | 'pixels';

/** The smallest crop, in image pixels of the frame cut from: smaller shows nothing worth the tokens. */
export const MIN_CROP_PX = 8;

/**
 * Refuse a crop whose numbers do not fit their units (percent that look like pixels or like
 * fractions, fractions beyond 1) or that is smaller than MIN_CROP_PX, before anything is cut.
 */
export function checkCropRequest(image: Size, r: Rect, units: CropUnits): void {
  const values = [r.x, r.y, r.width, r.height];
  const list = `x ${r.x}, y ${r.y}, width ${r.width}, height ${r.height}`;
  if (units === 'percent' && (r.x + r.width > 100.5 || r.y + r.height > 100.5)) {
    throw new SightlineError(
      'INVALID_ARGUMENT',
      `Crop ${list} reaches past 100% of the frame: these look like pixels.`,
      `coordinateUnits is "percent" (0–100) by default; pass coordinateUnits: "pixels" to give image pixels of the ${image.width}×${image.height} frame.`,
    );
  }
  if (units === 'percent' && values.every((v) => v <= 1) && r.width > 0 && r.height > 0) {
    throw new SightlineError(
      'INVALID_ARGUMENT',
      `Crop ${list} is at most 1% of the frame on every side: these look like fractions.`,
      'Pass coordinateUnits: "normalized" for fractions of the frame (0–1), or give percent (0–100).',
    );
  }
  if (units === 'normalized' && (r.x + r.width > 1.005 || r.y + r.height > 1.005)) {
    throw new SightlineError(
      'INVALID_ARGUMENT',
      `Crop ${list} reaches past 1 (the whole frame) in normalized units.`,
      `Give fractions of the frame (0–1), or pass coordinateUnits: "percent" (0–100) or "pixels" (of the ${image.width}×${image.height} frame).`,
    );
  }
  const px = resolveCropRect(image, r, units);
  if (px.width < MIN_CROP_PX || px.height < MIN_CROP_PX) {
    throw new SightlineError(
      'INVALID_ARGUMENT',
      `Crop ${list} (${units}) is ${px.width}×${px.height} image pixels; at least ${MIN_CROP_PX}×${MIN_CROP_PX} is needed.`,
      units === 'pixels'
        ? `Give a larger region in image pixels of the ${image.width}×${image.height} frame.`
        : `coordinateUnits is "${units}": ${units === 'percent' ? '5 means 5% of the frame' : '0.05 means 5% of the frame'}; give a larger region, or pass coordinateUnits: "pixels".`,
    );
  }
}

/** Float noise (0.7 × 1000 = 700.0000000000001) must not widen a crop by a whole pixel. */
const EPS = 1e-6;

/**
 * A crop request in `units` of `image`, as an integer pixel rect of that image: rounded
 * outwards (so it covers all that was asked for) and clamped to the image.
 */
export function resolveCropRect(image: Size, r: Rect, units: CropUnits): Rect {
  for (const key of ['x', 'y', 'width', 'height'] as const) {
    if (!Number.isFinite(r[key])) {
      throw new SightlineError('INVALID_ARGUMENT', `Crop ${key} must be a finite number (got ${r[key]}).`, cropHint(units));
    }
  }
  if (r.width <= 0 || r.height <= 0) {
    throw new SightlineError('INVALID_ARGUMENT', `Crop width and height must be positive (got ${r.width}x${r.height}).`, cropHint(units));
  }
  const fx = units === 'percent' ? image.width / 100 : units === 'normalized' ? image.width : 1;
  const fy = units === 'percent' ? image.height / 100 : units === 'normalized' ? image.height : 1;
  const left = Math.max(0, Math.floor(r.x * fx + EPS));
  const top = Math.max(0, Math.floor(r.y * fy + EPS));
  const right = Math.min(image.width, Math.ceil((r.x + r.width) * fx - EPS));
  const bottom = Math.min(image.height, Math.ceil((r.y + r.height) * fy - EPS));
  if (right <= left || bottom <= top) {
    throw new SightlineError(
      'INVALID_ARGUMENT',
      `Crop (${r.x}, ${r.y}, ${r.width}x${r.height} ${units}) does not overlap the ${image.width}x${image.height} image.`,
      cropHint(units),
    );
  }
  return { x: left, y: top, width: right - left, height: bottom - top };
}

function cropHint(units: CropUnits): string {
  return units === 'percent'
    ? 'give x, y, width, height in percent of the image (0..100)'
    : units === 'normalized'
      ? 'give x, y, width, height as fractions of the image (0..1)'
      : 'give x, y, width, height in image pixels';
}

/**
 * The mapping of a crop: `cropPx` is the region of the parent's image that was cut (it may be
 * fractional when the cut was made in a higher-resolution original, see planCrop) and
 * `cropImage` the size the crop was encoded at. The result maps straight to source space, so a
 * crop of a crop needs no chain walk.
 */
export function cropMapping(parent: Mapping, cropPx: Rect, cropImage: Size): Mapping {
  const ratio = cropImage.width >= cropImage.height ? cropPx.width / cropImage.width : cropPx.height / cropImage.height;
  return { image: cropImage, origin: imageToSource(parent, cropPx), scale: parent.scale * ratio };
}

export interface CropPlan {
  /** Integer rect to cut from the input pixels (the native original, or the image itself). */
  inputRect: Rect;
  /** The same region in the parent image's pixels (fractional when input ≠ image size); pass to cropMapping. */
  imageRect: Rect;
  /** The same region in source space: the crop frame's `origin` and `sourceSize`. */
  sourceRect: Rect;
}

/**
 * Plan a crop of `parent` cut from `input` pixels (the parent's native original when it has
 * one, else its image). Percent and normalized requests are resolved against the input, so
 * nothing is lost to the parent's downscale; pixel requests are in the parent image's pixels.
 */
export function planCrop(parent: Mapping, input: Size, r: Rect, units: CropUnits): CropPlan {
  const kx = input.width / parent.image.width;
  const ky = input.height / parent.image.height;
  let inputRect: Rect;
  if (units === 'pixels') {
    // Validate and clamp in the pixels the caller meant, then widen to the input's grid.
    const px = resolveCropRect(parent.image, r, 'pixels');
    inputRect = resolveCropRect(input, { x: px.x * kx, y: px.y * ky, width: px.width * kx, height: px.height * ky }, 'pixels');
  } else {
    inputRect = resolveCropRect(input, r, units);
  }
  const imageRect = { x: inputRect.x / kx, y: inputRect.y / ky, width: inputRect.width / kx, height: inputRect.height / ky };
  return { inputRect, imageRect, sourceRect: rectImageToSource(parent, imageRect) };
}

/** The overlap of two rectangles, or undefined when they do not overlap. */
export function intersect(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : undefined;
}

/** Intersection over union of two boxes; two equal boxes (empty ones too) overlap fully. */
export function boxOverlap(a: Rect, b: Rect): number {
  if (a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height) return 1;
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  return (w * h) / (a.width * a.height + b.width * b.height - w * h);
}

/** 0..2: how likely two boxes are the same element's: 1 + overlap when they meet, else falling with the centres' distance. */
export function boxCloseness(a: Rect, b: Rect): number {
  const o = boxOverlap(a, b);
  if (o > 0) return 1 + o;
  return 1 / (1 + Math.hypot(a.x + a.width / 2 - (b.x + b.width / 2), a.y + a.height / 2 - (b.y + b.height / 2)) / 100);
}
