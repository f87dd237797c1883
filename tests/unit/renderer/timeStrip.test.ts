/** The time strip's days and hours, in local time (clock changes included), and their counts. */
import { describe, expect, it } from 'vitest';
import { addDays, dayEdges, dayStart, hourEdges, spans } from '../../../src/renderer/lib/timeStrip.ts';

describe('time strip arithmetic', () => {
  it('makes day edges from the newest day down to the oldest, newest first', () => {
    const newest = new Date(2026, 10, 27, 15, 30).getTime();
    const oldest = new Date(2026, 10, 25, 8, 0).getTime();
    expect(dayEdges(oldest, newest)).toEqual([new Date(2026, 10, 28).getTime(), new Date(2026, 10, 27).getTime(), new Date(2026, 10, 26).getTime(), new Date(2026, 10, 25).getTime()]);
    // Capped: the newest days only.
    expect(dayEdges(new Date(2020, 0, 1).getTime(), newest, 2)).toHaveLength(3);
    expect(dayStart(newest)).toBe(new Date(2026, 10, 27).getTime());
    expect(addDays(newest, -1)).toBe(new Date(2026, 10, 26).getTime());
  });

  it('gives a day 24 hour edges plus its end, each a local hour', () => {
    const edges = hourEdges(new Date(2026, 10, 27, 13).getTime());
    expect(edges).toHaveLength(25);
    expect(edges[0]).toBe(new Date(2026, 10, 28).getTime());
    expect(edges[24]).toBe(new Date(2026, 10, 27).getTime());
    expect(new Date(edges[10]!).getHours()).toBe(14);
  });

  it('turns counts since each edge into spans with the row of their newest frame', () => {
    const edges = [400, 300, 200, 100];
    // 2 frames at or after 300, 2 more from 200, none from 100.
    expect(spans(edges, [0, 2, 4, 4], 3)).toEqual([
      { start: 300, end: 400, count: 2, row: 3 },
      { start: 200, end: 300, count: 2, row: 5 },
      { start: 100, end: 200, count: 0, row: 7 },
    ]);
  });
});
