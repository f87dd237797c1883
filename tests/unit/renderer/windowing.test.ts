import { describe, expect, it } from 'vitest';
import type { FrameSummary } from '../../../src/shared/api.ts';
import { hourKey } from '../../../src/renderer/lib/format.ts';
import { windowRows, windowSize } from '../../../src/renderer/lib/windowing.ts';

const T0 = Date.parse('2025-11-20T12:30:00Z');

/** Frames ten minutes apart, newest first: hours change every six rows or so. */
const frames: FrameSummary[] = Array.from({ length: 40 }, (_, i) => ({
  ref: `f${i}`,
  source: 'desktop',
  target: 'desktop:window:1',
  capturedAt: new Date(T0 - i * 600_000).toISOString(),
  image: { width: 10, height: 10 },
  sourceSize: { width: 10, height: 10 },
  origin: { x: 0, y: 0 },
  scale: 1,
  format: 'jpeg',
  bytes: 1,
  pinned: false,
  hasFull: true,
}));

describe('windowRows', () => {
  it('marks the first row of each hour, judged against the row above the window', () => {
    const at = (i: number): FrameSummary | undefined => frames[i];
    const rows = windowRows(10, 30, windowSize(720, 72), at).sort((a, b) => a.i - b.i);
    expect(rows.map((r) => r.i)).toEqual(Array.from({ length: 20 }, (_, k) => 10 + k));
    const expected = rows.map((r) => hourKey(frames[r.i]!.capturedAt) !== hourKey(frames[r.i - 1]!.capturedAt));
    expect(rows.map((r) => r.header)).toEqual(expected);
    expect(expected.filter(Boolean).length).toBeGreaterThanOrEqual(3);
    // The very first row always starts a group.
    expect(windowRows(0, 3, 23, at)[0]).toMatchObject({ i: 0, header: true });
  });

  it('shows no header next to a row whose page is still loading', () => {
    const at = (i: number): FrameSummary | undefined => (i >= 12 && i < 20 ? undefined : frames[i]);
    const rows = windowRows(10, 26, 23, at).sort((a, b) => a.i - b.i);
    expect(rows.filter((r) => r.i >= 12 && r.i <= 20).map((r) => r.header)).toEqual(Array(9).fill(false));
    expect(rows.find((r) => r.i === 15)?.frame).toBeUndefined();
  });

  it('keeps rows in slot order, one slot per row', () => {
    const pool = windowSize(720, 72);
    const rows = windowRows(30, 30 + pool, pool, (i) => frames[i % frames.length]);
    expect(rows.map((r) => r.slot)).toEqual(Array.from({ length: pool }, (_, k) => k));
    expect(rows.every((r) => r.slot === r.i % pool)).toBe(true);
  });
});
