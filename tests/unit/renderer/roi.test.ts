import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUsable, MIN_SIZE, moveRect, normalizeRect, rectForKey, rectFromPoints, resizeRect, roundRect, toPixels, HANDLES, type PercentRect } from '../../../src/renderer/lib/roi.ts';

const inside = (r: PercentRect): boolean => r.x >= 0 && r.y >= 0 && r.x + r.width <= 100 + 1e-9 && r.y + r.height <= 100 + 1e-9 && r.width >= 0 && r.height >= 0;

describe('ROI geometry', () => {
  it('spans two points in either order and clamps to the image', () => {
    expect(rectFromPoints(60, 70, 10, 20)).toEqual({ x: 10, y: 20, width: 50, height: 50 });
    expect(rectFromPoints(-10, 50, 120, 40)).toEqual({ x: 0, y: 40, width: 100, height: 10 });
    expect(isUsable(rectFromPoints(10, 10, 10.1, 30))).toBe(false);
    expect(isUsable(rectFromPoints(10, 10, 20, 30))).toBe(true);
  });

  it('moves without resizing and stops at the edges', () => {
    expect(moveRect({ x: 10, y: 10, width: 30, height: 20 }, 5, -3)).toEqual({ x: 15, y: 7, width: 30, height: 20 });
    expect(moveRect({ x: 10, y: 10, width: 30, height: 20 }, 100, -100)).toEqual({ x: 70, y: 0, width: 30, height: 20 });
  });

  it('resizes from each handle, keeping the opposite edge and a minimum size', () => {
    const r = { x: 20, y: 20, width: 40, height: 40 };
    expect(resizeRect(r, 'se', 10, 5)).toEqual({ x: 20, y: 20, width: 50, height: 45 });
    expect(resizeRect(r, 'nw', -5, -10)).toEqual({ x: 15, y: 10, width: 45, height: 50 });
    expect(resizeRect(r, 'e', -100, 0)).toEqual({ x: 20, y: 20, width: MIN_SIZE, height: 40 });
    expect(resizeRect(r, 'n', 0, -100)).toEqual({ x: 20, y: 0, width: 40, height: 60 });
    expect(resizeRect(r, 's', 50, 0)).toEqual(r);
  });

  it('stays inside the image whatever the drags (property)', () => {
    const pct = fc.double({ min: -50, max: 150, noNaN: true });
    fc.assert(
      fc.property(pct, pct, pct, pct, fc.constantFrom(...HANDLES), pct, pct, (ax, ay, bx, by, h, dx, dy) => {
        const start = normalizeRect(rectFromPoints(ax, ay, bx, by));
        const moved = moveRect(start, dx, dy);
        const resized = resizeRect(start, h, dx, dy);
        return inside(moved) && inside(resized) && resized.width >= MIN_SIZE - 1e-9 && resized.height >= MIN_SIZE - 1e-9;
      }),
    );
  });

  it('moves with arrows, resizes with shift, fine steps with alt', () => {
    const r = { x: 10, y: 10, width: 20, height: 20 };
    expect(rectForKey(r, { key: 'ArrowRight', shiftKey: false, altKey: false })).toEqual({ x: 11, y: 10, width: 20, height: 20 });
    expect(rectForKey(r, { key: 'ArrowUp', shiftKey: false, altKey: true })).toEqual({ x: 10, y: 9.9, width: 20, height: 20 });
    expect(rectForKey(r, { key: 'ArrowDown', shiftKey: true, altKey: false })).toEqual({ x: 10, y: 10, width: 20, height: 21 });
    expect(rectForKey(r, { key: 'ArrowLeft', shiftKey: true, altKey: false })).toEqual({ x: 10, y: 10, width: 19, height: 20 });
    expect(rectForKey(r, { key: 'a', shiftKey: false, altKey: false })).toBeNull();
  });

  it('converts to whole pixels with shared edges', () => {
    expect(toPixels({ x: 25, y: 10, width: 50, height: 33.3333 }, 1000, 600)).toEqual({ x: 250, y: 60, width: 500, height: 200 });
    // Adjacent regions share an edge: no pixel lost or doubled.
    const a = toPixels({ x: 0, y: 0, width: 33.3333, height: 100 }, 1001, 10);
    const b = toPixels({ x: 33.3333, y: 0, width: 33.3334, height: 100 }, 1001, 10);
    expect(a.x + a.width).toBe(b.x);
    expect(roundRect({ x: 1 / 3, y: 2 / 3, width: 10, height: 10 })).toEqual({ x: 0.3333, y: 0.6667, width: 10, height: 10 });
  });

  it('normalises typed values', () => {
    expect(normalizeRect({ x: 90, y: -5, width: 30, height: Number.NaN })).toEqual({ x: 70, y: 0, width: 30, height: MIN_SIZE });
  });
});
