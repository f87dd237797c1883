import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitSize } from '../../../src/main/core/image/fit.ts';
import {
  assertInsideImage,
  cropMapping,
  fitMapping,
  imageToSource,
  isInsideImage,
  planCrop,
  rectImageToSource,
  rectSourceToImage,
  resolveCropRect,
  sourceToImage,
  type CropUnits,
  type Mapping,
} from '../../../src/main/core/image/mapping.ts';
import { isSightlineError } from '../../../src/shared/errors.ts';
import type { Point, Rect, Size } from '../../../src/shared/frame.ts';

const size = fc.record({ width: fc.integer({ min: 1, max: 8000 }), height: fc.integer({ min: 1, max: 8000 }) });
const origin = fc.record({ x: fc.integer({ min: -10_000, max: 10_000 }), y: fc.integer({ min: -10_000, max: 10_000 }) });
const scale = fc.double({ min: 0.1, max: 10, noNaN: true });
const mapping: fc.Arbitrary<Mapping> = fc.record({ image: size, origin, scale });
/** A point inside `s`, fractional allowed. */
const pointIn = (s: Size): fc.Arbitrary<Point> =>
  fc.record({ x: fc.double({ min: 0, max: s.width, maxExcluded: true, noNaN: true }), y: fc.double({ min: 0, max: s.height, maxExcluded: true, noNaN: true }) });
/** A crop request (percent) that overlaps the image. */
const percentRect = fc
  .record({ x: fc.double({ min: 0, max: 99, noNaN: true }), y: fc.double({ min: 0, max: 99, noNaN: true }), w: fc.double({ min: 0.5, max: 100, noNaN: true }), h: fc.double({ min: 0.5, max: 100, noNaN: true }) })
  .map(({ x, y, w, h }): Rect => ({ x, y, width: Math.min(w, 100 - x), height: Math.min(h, 100 - y) }));

function expectCode(f: () => unknown, code: string): void {
  try {
    f();
  } catch (e) {
    expect(isSightlineError(e) && e.code).toBe(code);
    return;
  }
  expect.unreachable(`expected ${code}`);
}

describe('point mapping', () => {
  it('follows source = origin + image × scale', () => {
    const m: Mapping = { image: { width: 1000, height: 563 }, origin: { x: 100, y: 50 }, scale: 1.92 };
    expect(imageToSource(m, { x: 0, y: 0 })).toEqual({ x: 100, y: 50 });
    expect(imageToSource(m, { x: 500, y: 100 })).toEqual({ x: 1060, y: 242 });
    expect(sourceToImage(m, { x: 1060, y: 242 })).toEqual({ x: 500, y: 100 });
  });

  it('round-trips image → source → image for any size and scale', () => {
    fc.assert(
      fc.property(
        mapping.chain((m) => fc.tuple(fc.constant(m), pointIn(m.image))),
        ([m, p]) => {
          const back = sourceToImage(m, imageToSource(m, p));
          expect(Math.abs(back.x - p.x)).toBeLessThan(1e-6);
          expect(Math.abs(back.y - p.y)).toBeLessThan(1e-6);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('round-trips within 1 px when the source takes integer input (a tap, a mouse move)', () => {
    fc.assert(
      fc.property(
        fc.record({ image: size, origin, scale: fc.double({ min: 0.5, max: 10, noNaN: true }) }).chain((m) => fc.tuple(fc.constant(m), pointIn(m.image))),
        ([m, p]) => {
          const s = imageToSource(m, p);
          const back = sourceToImage(m, { x: Math.round(s.x), y: Math.round(s.y) });
          expect(Math.abs(back.x - p.x)).toBeLessThanOrEqual(1 + 1e-9);
          expect(Math.abs(back.y - p.y)).toBeLessThanOrEqual(1 + 1e-9);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('maps rects consistently with their corners', () => {
    fc.assert(
      fc.property(mapping, fc.record({ x: fc.integer({ min: 0, max: 500 }), y: fc.integer({ min: 0, max: 500 }), width: fc.integer({ min: 1, max: 500 }), height: fc.integer({ min: 1, max: 500 }) }), (m, r) => {
        const s = rectImageToSource(m, r);
        const far = imageToSource(m, { x: r.x + r.width, y: r.y + r.height });
        expect(s.x + s.width).toBeCloseTo(far.x, 6);
        expect(s.y + s.height).toBeCloseTo(far.y, 6);
        const back = rectSourceToImage(m, s);
        for (const k of ['x', 'y', 'width', 'height'] as const) expect(back[k]).toBeCloseTo(r[k], 6);
      }),
    );
  });

  it('fitMapping maps the far corner of a fitted image to within one image pixel of the capture corner', () => {
    fc.assert(
      fc.property(size, fc.integer({ min: 16, max: 3000 }), fc.double({ min: 0.25, max: 4, noNaN: true }), (src, maxDimension, dpi) => {
        const image = fitSize(src, { maxDimension });
        const sourceSize = { width: src.width / dpi, height: src.height / dpi };
        const m = fitMapping(image, sourceSize, { x: 0, y: 0 });
        const corner = sourceToImage(m, { x: sourceSize.width, y: sourceSize.height });
        expect(Math.abs(corner.x - image.width)).toBeLessThanOrEqual(1);
        expect(Math.abs(corner.y - image.height)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('inside checks', () => {
  it('accepts 0 ≤ x < w, 0 ≤ y < h and nothing else', () => {
    const s = { width: 100, height: 50 };
    expect(isInsideImage(s, { x: 0, y: 0 })).toBe(true);
    expect(isInsideImage(s, { x: 99.9, y: 49.9 })).toBe(true);
    for (const p of [
      { x: 100, y: 0 },
      { x: 0, y: 50 },
      { x: -0.001, y: 10 },
      { x: Number.NaN, y: 1 },
      { x: 1, y: Number.POSITIVE_INFINITY },
    ]) {
      expect(isInsideImage(s, p)).toBe(false);
    }
  });

  it('rejects any point outside with POINT_OUTSIDE_FRAME naming the point, the size and what to do', () => {
    const outside = size.chain((s) =>
      fc.tuple(
        fc.constant(s),
        fc.oneof(
          fc.record({ x: fc.double({ min: s.width, max: 1e9, noNaN: true }), y: fc.double({ min: -1e9, max: 1e9, noNaN: true }) }),
          fc.record({ x: fc.double({ min: -1e9, max: 1e9, noNaN: true }), y: fc.double({ min: -1e9, max: -1e-9, noNaN: true }) }),
          fc.record({ x: fc.double({ min: -1e9, max: 1e9, noNaN: true }), y: fc.double({ min: s.height, max: 1e9, noNaN: true }) }),
          fc.record({ x: fc.constant(Number.NaN), y: fc.double() }),
        ),
      ),
    );
    fc.assert(
      fc.property(outside, ([s, p]) => {
        expect(isInsideImage(s, p)).toBe(false);
        try {
          assertInsideImage(s, p);
          expect.unreachable();
        } catch (e) {
          if (!isSightlineError(e)) throw e;
          expect(e.code).toBe('POINT_OUTSIDE_FRAME');
          expect(e.message).toContain(`${s.width}x${s.height}`);
          expect(e.message).toContain(String(p.x));
          expect(e.hint).toBe(`use a point inside 0..${s.width - 1} × 0..${s.height - 1} or capture again`);
        }
      }),
    );
    fc.assert(fc.property(size.chain((s) => fc.tuple(fc.constant(s), pointIn(s))), ([s, p]) => assertInsideImage(s, p)));
  });
});

describe('resolveCropRect', () => {
  it('resolves percent, normalized and pixels to the same integer rect', () => {
    const img = { width: 1000, height: 500 };
    expect(resolveCropRect(img, { x: 10, y: 20, width: 50, height: 30 }, 'percent')).toEqual({ x: 100, y: 100, width: 500, height: 150 });
    expect(resolveCropRect(img, { x: 0.1, y: 0.2, width: 0.5, height: 0.3 }, 'normalized')).toEqual({ x: 100, y: 100, width: 500, height: 150 });
    expect(resolveCropRect(img, { x: 100, y: 100, width: 500, height: 150 }, 'pixels')).toEqual({ x: 100, y: 100, width: 500, height: 150 });
    // 0.7 × 1000 is 700.0000000000001 in floating point: that must not widen the crop.
    expect(resolveCropRect(img, { x: 0.1, y: 0, width: 0.6, height: 1 }, 'normalized')).toEqual({ x: 100, y: 0, width: 600, height: 500 });
  });

  it('rounds fractional edges outwards so the crop covers what was asked', () => {
    expect(resolveCropRect({ width: 10, height: 10 }, { x: 1.5, y: 2.2, width: 3, height: 3.1 }, 'pixels')).toEqual({ x: 1, y: 2, width: 4, height: 4 });
  });

  it('clamps pixel rects to the image exactly (the intersection, nothing more)', () => {
    const anyInt = fc.integer({ min: -3000, max: 3000 });
    fc.assert(
      fc.property(size, anyInt, anyInt, fc.integer({ min: 1, max: 6000 }), fc.integer({ min: 1, max: 6000 }), (img, x, y, width, height) => {
        const left = Math.max(0, x);
        const top = Math.max(0, y);
        const right = Math.min(img.width, x + width);
        const bottom = Math.min(img.height, y + height);
        if (right <= left || bottom <= top) {
          expectCode(() => resolveCropRect(img, { x, y, width, height }, 'pixels'), 'INVALID_ARGUMENT');
        } else {
          expect(resolveCropRect(img, { x, y, width, height }, 'pixels')).toEqual({ x: left, y: top, width: right - left, height: bottom - top });
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('always yields a non-empty integer rect inside the image for percent and normalized', () => {
    fc.assert(
      fc.property(size, percentRect, fc.constantFrom<CropUnits>('percent', 'normalized'), (img, pr, units) => {
        const k = units === 'percent' ? 1 : 0.01;
        const r = resolveCropRect(img, { x: pr.x * k, y: pr.y * k, width: pr.width * k, height: pr.height * k }, units);
        for (const v of Object.values(r)) expect(Number.isInteger(v)).toBe(true);
        expect(r.x).toBeGreaterThanOrEqual(0);
        expect(r.y).toBeGreaterThanOrEqual(0);
        expect(r.width).toBeGreaterThanOrEqual(1);
        expect(r.height).toBeGreaterThanOrEqual(1);
        expect(r.x + r.width).toBeLessThanOrEqual(img.width);
        expect(r.y + r.height).toBeLessThanOrEqual(img.height);
        // Covers the request (up to float noise): the requested edges lie inside the result.
        expect(r.x).toBeLessThanOrEqual((pr.x * img.width) / 100 + 1e-6);
        expect(r.x + r.width).toBeGreaterThanOrEqual(Math.min(img.width, ((pr.x + pr.width) * img.width) / 100) - 1e-6);
      }),
      { numRuns: 1000 },
    );
  });

  it('rejects empty, negative and non-finite requests', () => {
    const img = { width: 100, height: 100 };
    expectCode(() => resolveCropRect(img, { x: 0, y: 0, width: 0, height: 10 }, 'pixels'), 'INVALID_ARGUMENT');
    expectCode(() => resolveCropRect(img, { x: 0, y: 0, width: -5, height: 10 }, 'percent'), 'INVALID_ARGUMENT');
    expectCode(() => resolveCropRect(img, { x: Number.NaN, y: 0, width: 5, height: 10 }, 'percent'), 'INVALID_ARGUMENT');
    expectCode(() => resolveCropRect(img, { x: 0, y: 0, width: Number.POSITIVE_INFINITY, height: 10 }, 'pixels'), 'INVALID_ARGUMENT');
    expectCode(() => resolveCropRect(img, { x: 100, y: 0, width: 5, height: 10 }, 'pixels'), 'INVALID_ARGUMENT');
    expectCode(() => resolveCropRect(img, { x: 1.2, y: 0, width: 0.5, height: 0.5 }, 'normalized'), 'INVALID_ARGUMENT');
  });
});

/**
 * What the resampler really does: a crop of `rect` (in parent image pixels) encoded at `out`
 * puts crop pixel q at parent point rect.xy + q × (rect.size / out), per axis.
 */
function truthToParent(rect: Rect, out: Size, q: Point): Point {
  return { x: rect.x + (q.x * rect.width) / out.width, y: rect.y + (q.y * rect.height) / out.height };
}

describe('crop mapping', () => {
  const cropCase = fc.record({ parent: mapping, native: fc.double({ min: 1, max: 4, noNaN: true }), pr: percentRect, maxDimension: fc.integer({ min: 16, max: 2000 }) });

  it('round-trips within 1 px for any size, scale and crop (cut from a native original)', () => {
    fc.assert(
      fc.property(
        cropCase.chain((c) => {
          const input = { width: Math.round(c.parent.image.width * c.native), height: Math.round(c.parent.image.height * c.native) };
          const plan = planCrop(c.parent, input, c.pr, 'percent');
          const out = fitSize({ width: plan.inputRect.width, height: plan.inputRect.height }, { maxDimension: c.maxDimension });
          return fc.tuple(fc.constant({ ...c, plan, out }), pointIn(out));
        }),
        ([{ parent, plan, out }, q]) => {
          const m = cropMapping(parent, plan.imageRect, out);
          expect(m.image).toEqual(out);
          // crop → source → crop is exact.
          const back = sourceToImage(m, imageToSource(m, q));
          expect(Math.abs(back.x - q.x)).toBeLessThan(1e-6);
          expect(Math.abs(back.y - q.y)).toBeLessThan(1e-6);
          // crop → source lands within 1 crop px of where the resampled pixel really came from.
          const truth = imageToSource(parent, truthToParent(plan.imageRect, out, q));
          const err = sourceToImage(m, truth);
          expect(Math.abs(err.x - q.x)).toBeLessThanOrEqual(1);
          expect(Math.abs(err.y - q.y)).toBeLessThanOrEqual(1);
          // The crop's origin is the source position of the cut's corner.
          expect(m.origin.x).toBeCloseTo(plan.sourceRect.x, 6);
          expect(m.origin.y).toBeCloseTo(plan.sourceRect.y, 6);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('round-trips within 1 px through a crop of a crop', () => {
    fc.assert(
      fc.property(
        cropCase.chain((c) => fc.tuple(fc.constant(c), percentRect, fc.integer({ min: 16, max: 2000 }))).chain(([c, pr2, max2]) => {
          const p1 = planCrop(c.parent, c.parent.image, c.pr, 'percent');
          const out1 = fitSize({ width: p1.inputRect.width, height: p1.inputRect.height }, { maxDimension: c.maxDimension });
          const m1 = cropMapping(c.parent, p1.imageRect, out1);
          const p2 = planCrop(m1, out1, pr2, 'percent');
          const out2 = fitSize({ width: p2.inputRect.width, height: p2.inputRect.height }, { maxDimension: max2 });
          return fc.tuple(fc.constant({ parent: c.parent, p1, out1, m1, p2, out2 }), pointIn(out2));
        }),
        ([{ parent, p1, out1, m1, p2, out2 }, q]) => {
          const m2 = cropMapping(m1, p2.imageRect, out2);
          const back = sourceToImage(m2, imageToSource(m2, q));
          expect(Math.abs(back.x - q.x)).toBeLessThan(1e-6);
          expect(Math.abs(back.y - q.y)).toBeLessThan(1e-6);
          // Through both resamplings, per axis, as sharp did them.
          const inCrop1 = truthToParent(p2.imageRect, out2, q);
          const truth = imageToSource(parent, truthToParent(p1.imageRect, out1, inCrop1));
          const err = sourceToImage(m2, truth);
          expect(Math.abs(err.x - q.x)).toBeLessThanOrEqual(1);
          expect(Math.abs(err.y - q.y)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('plans pixel crops in the parent image and cuts them from the native original', () => {
    const parent: Mapping = { image: { width: 1000, height: 563 }, origin: { x: 0, y: 0 }, scale: 1.92 };
    const plan = planCrop(parent, { width: 1920, height: 1080 }, { x: 100, y: 50, width: 200, height: 100 }, 'pixels');
    expect(plan.inputRect).toEqual({ x: 192, y: 95, width: 384, height: 193 });
    expect(plan.imageRect.x).toBeCloseTo(100, 9);
    const m = cropMapping(parent, plan.imageRect, { width: 384, height: 193 });
    // Crop pixel 0 is parent pixel 100 is source 192; a native crop has one source unit per pixel.
    expect(imageToSource(m, { x: 0, y: 0 }).x).toBeCloseTo(192, 9);
    expect(m.scale).toBeCloseTo(1, 9);
  });
});
