import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_DIMENSION, MODEL_PROFILES, estimateVisionTokens, fitSize } from '../../../src/main/core/image/fit.ts';
import { isSightlineError } from '../../../src/shared/errors.ts';

const side = fc.integer({ min: 1, max: 20_000 });
const limits = fc.record(
  {
    maxDimension: fc.integer({ min: 1, max: 5000 }),
    maxPixels: fc.integer({ min: 1, max: 20_000_000 }),
  },
  { requiredKeys: [] },
);

describe('fitSize', () => {
  it('scales a 1920x1080 screen to 1000x563 by default', () => {
    expect(fitSize({ width: 1920, height: 1080 })).toEqual({ width: 1000, height: 563 });
    expect(fitSize({ width: 1080, height: 2400 })).toEqual({ width: 450, height: 1000 });
  });

  it('never upscales', () => {
    expect(fitSize({ width: 640, height: 480 })).toEqual({ width: 640, height: 480 });
    expect(fitSize({ width: 640, height: 480 }, { maxDimension: 4000, maxPixels: 10_000_000 })).toEqual({ width: 640, height: 480 });
  });

  it('fits the claude profile in both 1568 px and 1.15 MP', () => {
    const out = fitSize({ width: 1920, height: 1080 }, MODEL_PROFILES.claude);
    expect(out).toEqual({ width: 1429, height: 804 });
    expect(out.width * out.height).toBeLessThanOrEqual(1_150_000);
    // A square phone-ish capture: the pixel limit, not the edge, decides.
    const sq = fitSize({ width: 2000, height: 2000 }, MODEL_PROFILES.claude);
    expect(sq.width).toBe(sq.height);
    expect(sq.width * sq.height).toBeLessThanOrEqual(1_150_000);
    expect((sq.width + 1) * (sq.height + 1)).toBeGreaterThan(1_150_000);
  });

  it('keeps invariants for any size and limits', () => {
    fc.assert(
      fc.property(side, side, limits, (width, height, opts) => {
        const out = fitSize({ width, height }, opts);
        const maxDimension = opts.maxDimension ?? DEFAULT_MAX_DIMENSION;
        // Integers ≥ 1, never upscaled.
        expect(Number.isInteger(out.width) && Number.isInteger(out.height)).toBe(true);
        expect(out.width).toBeGreaterThanOrEqual(1);
        expect(out.height).toBeGreaterThanOrEqual(1);
        expect(out.width).toBeLessThanOrEqual(width);
        expect(out.height).toBeLessThanOrEqual(height);
        // Limits respected exactly (a 1x1 image is the floor when a limit is below it).
        expect(Math.max(out.width, out.height)).toBeLessThanOrEqual(Math.max(1, maxDimension));
        if (opts.maxPixels !== undefined) expect(out.width * out.height).toBeLessThanOrEqual(Math.max(1, opts.maxPixels));
        // Aspect kept: the short edge is within 1 px of the exact proportional value.
        if (width >= height) expect(Math.abs(out.height - (height * out.width) / width)).toBeLessThanOrEqual(1);
        else expect(Math.abs(out.width - (width * out.height) / height)).toBeLessThanOrEqual(1);
        // Nothing to do ⇒ nothing done.
        const fits = Math.max(width, height) <= maxDimension && (opts.maxPixels === undefined || width * height <= opts.maxPixels);
        if (fits) expect(out).toEqual({ width, height });
        else expect(Math.max(out.width, out.height)).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 2000 },
    );
  });

  it('uses as much of the limit as it may (long edge hits maxDimension when only it binds)', () => {
    fc.assert(
      fc.property(side, side, fc.integer({ min: 1, max: 5000 }), (width, height, maxDimension) => {
        const out = fitSize({ width, height }, { maxDimension });
        expect(Math.max(out.width, out.height)).toBe(Math.min(Math.max(width, height), maxDimension));
      }),
    );
  });

  it('rejects sizes and limits that are not numbers', () => {
    for (const bad of [
      () => fitSize({ width: 0, height: 10 }),
      () => fitSize({ width: 10.5, height: 10 }),
      () => fitSize({ width: Number.NaN, height: 10 }),
      () => fitSize({ width: 10, height: 10 }, { maxDimension: 0 }),
      () => fitSize({ width: 10, height: 10 }, { maxPixels: Number.POSITIVE_INFINITY }),
    ]) {
      try {
        bad();
        expect.unreachable();
      } catch (e) {
        expect(isSightlineError(e) && e.code).toBe('INVALID_ARGUMENT');
      }
    }
  });
});

describe('estimateVisionTokens', () => {
  it("follows Anthropic's width × height / 750, rounded up", () => {
    expect(estimateVisionTokens({ width: 1000, height: 625 })).toBe(834);
    expect(estimateVisionTokens({ width: 750, height: 1 })).toBe(1);
    expect(estimateVisionTokens({ width: 1, height: 1 })).toBe(1);
    expect(estimateVisionTokens({ width: 1092, height: 1092 })).toBe(1590);
  });
});
