/**
 * Pure fit geometry: how big the image the model sees may be, and what it costs.
 * No sharp here, so the rules are testable in isolation (tests/unit/image/fit.test.ts).
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { Size } from '../../../shared/frame.ts';

/** 1000 px on the long edge is enough for UI work and leaves room for many images in a model's context. */
export const DEFAULT_MAX_DIMENSION = 1000;

export type ModelProfileName = 'default' | 'claude';
export interface FitLimits {
  maxDimension?: number;
  maxPixels?: number;
}

/** Named limits a user picks in settings (`capture.profile`). */
export const MODEL_PROFILES: Record<ModelProfileName, { maxDimension: number; maxPixels?: number }> = {
  default: { maxDimension: DEFAULT_MAX_DIMENSION },
  // Anthropic resizes anything beyond ~1.15 MP or 1568 px itself; sending more only adds latency.
  claude: { maxDimension: 1568, maxPixels: 1_150_000 },
};

/**
 * The size an image of `src` pixels is scaled to: aspect kept (the short edge is within half a
 * pixel of exact, or 1), never upscaled, integers ≥ 1, long edge ≤ `maxDimension` and
 * width × height ≤ `maxPixels`, both exactly.
 */
export function fitSize(src: Size, opts: FitLimits = {}): Size {
  const { width, height } = src;
  if (!isPositiveInt(width) || !isPositiveInt(height)) {
    throw new SightlineError('INVALID_ARGUMENT', `Image size ${width}x${height} is not a positive integer size.`, 'Capture again: the source reported an empty image.');
  }
  const maxDimension = opts.maxDimension ?? DEFAULT_MAX_DIMENSION;
  if (!Number.isFinite(maxDimension) || maxDimension < 1) {
    throw new SightlineError('INVALID_ARGUMENT', `maxDimension must be a number ≥ 1 (got ${maxDimension}).`, 'Use e.g. maxDimension: 1000.');
  }
  const maxPixels = opts.maxPixels;
  if (maxPixels !== undefined && (!Number.isFinite(maxPixels) || maxPixels < 1)) {
    throw new SightlineError('INVALID_ARGUMENT', `maxPixels must be a number ≥ 1 (got ${maxPixels}).`, 'Use a model profile from settings (capture.profile) or leave maxPixels out.');
  }

  const landscape = width >= height;
  const long = landscape ? width : height;
  const short = landscape ? height : width;

  let l = Math.min(long, Math.floor(maxDimension));
  if (maxPixels !== undefined && width * height > maxPixels) {
    l = Math.min(l, Math.floor(long * Math.sqrt(maxPixels / (width * height))));
  }
  l = Math.max(1, l);
  let s = shortEdge(short, long, l);
  // Rounding the short edge up can push the area just over maxPixels: step down until it fits.
  while (maxPixels !== undefined && l * s > maxPixels && l > 1) {
    l -= 1;
    s = shortEdge(short, long, l);
  }
  return landscape ? { width: l, height: s } : { width: s, height: l };
}

function shortEdge(short: number, long: number, l: number): number {
  return Math.max(1, Math.min(short, Math.round((short * l) / long)));
}

function isPositiveInt(n: number): boolean {
  return Number.isSafeInteger(n) && n > 0;
}

/** Anthropic's published estimate: tokens ≈ width × height / 750. */
export function estimateVisionTokens(size: Size): number {
  return Math.ceil((size.width * size.height) / 750);
}
