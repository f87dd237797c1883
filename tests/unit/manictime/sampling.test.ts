import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { spreadEvenly } from '../../../src/main/core/util/sampling.ts';
import {
  activityOf,
  buildSegments,
  capMoments,
  clusterTimes,
  sampleAll,
  sampleInterval,
  sampleTransitions,
  segmentAt,
  toMoments,
  type ActivitySpan,
} from '../../../src/main/core/sources/manictime/sampling.ts';

interface Shot {
  utcMs: number;
  monitor: number;
}

const MIN = 60_000;
/** Captures every `everyMin` minutes for `count` instants, on `monitors` monitors. */
function shots(count: number, everyMin: number, monitors = 1, start = 0): Shot[] {
  const out: Shot[] = [];
  for (let i = 0; i < count; i++) for (let m = 0; m < monitors; m++) out.push({ utcMs: start + i * everyMin * MIN, monitor: m });
  return out;
}

describe('moments', () => {
  it('groups same-second captures (monitors, collisions) together', () => {
    const m = toMoments([...shots(3, 5, 2), { utcMs: 10 * MIN, monitor: 0 }].sort((a, b) => a.utcMs - b.utcMs));
    expect(m.map((g) => g.length)).toEqual([2, 2, 3]);
  });

  it('spreadEvenly keeps first and last', () => {
    expect(spreadEvenly([1, 2, 3, 4, 5, 6, 7, 8, 9], 3)).toEqual([1, 5, 9]);
    expect(spreadEvenly([1, 2], 5)).toEqual([1, 2]);
    expect(spreadEvenly([1, 2, 3], 1)).toEqual([1]);
    expect(spreadEvenly([1, 2, 3], 0)).toEqual([]);
  });
});

describe('strict max', () => {
  it('capMoments never exceeds max and keeps whole moments when it can', () => {
    const moments = toMoments(shots(50, 1, 2));
    const out = capMoments(moments, 7);
    expect(out.length).toBeLessThanOrEqual(7);
    expect(out.length).toBe(6); // three whole two-monitor moments
    expect(capMoments(moments, 1)).toHaveLength(1); // a moment bigger than max is cut
  });

  it('holds for every sampling on random archives (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ utcMs: fc.integer({ min: 0, max: 500 }).map((s) => s * 1000), monitor: fc.integer({ min: 0, max: 2 }) }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 120 }),
        (list, max, interval) => {
          const moments = toMoments([...list].sort((a, b) => a.utcMs - b.utcMs));
          const segs = buildSegments([{ startMs: 0, endMs: 100_000, value: 'a' }, { startMs: 100_000, endMs: 300_000, value: 'b' }], [{ startMs: 50_000, endMs: 250_000, value: 'd' }]);
          return (
            sampleAll(moments, max).length <= max &&
            sampleInterval(moments, interval * 1000, 0, max).length <= max &&
            sampleInterval(moments, 0, 0, max).length <= max &&
            sampleTransitions(moments, segs, max).length <= max
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('sampleAll', () => {
  it('is chronological and cut at max (page on with from)', () => {
    const out = sampleAll(toMoments(shots(10, 1, 2)), 5);
    expect(out.map((s) => [s.utcMs / MIN, s.monitor])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
      [2, 0],
    ]);
  });
});

describe('sampleInterval', () => {
  it('takes the first moment of each interval bucket', () => {
    // Every minute for an hour, 15-minute buckets → 00, 15, 30, 45.
    const out = sampleInterval(toMoments(shots(60, 1)), 15 * MIN, 0, 20);
    expect(out.map((s) => s.utcMs / MIN)).toEqual([0, 15, 30, 45]);
  });

  it('thins evenly to max when there are more buckets than max', () => {
    const out = sampleInterval(toMoments(shots(100, 1)), MIN, 0, 5);
    expect(out.map((s) => s.utcMs / MIN)).toEqual([0, 25, 50, 74, 99]);
  });

  it('keeps both monitors of a moment', () => {
    const out = sampleInterval(toMoments(shots(60, 1, 2)), 30 * MIN, 0, 20);
    expect(out.map((s) => `${s.utcMs / MIN}:${s.monitor}`)).toEqual(['0:0', '0:1', '30:0', '30:1']);
  });

  it('spreads about max moments over the window when no interval is given', () => {
    const out = sampleInterval(toMoments(shots(200, 1)), 0, 0, 10);
    expect(out.length).toBeGreaterThanOrEqual(9);
    expect(out.length).toBeLessThanOrEqual(10);
  });
});

describe('activity segments', () => {
  const apps: ActivitySpan[] = [
    { startMs: 0, endMs: 25 * MIN, value: 'Chrome' },
    { startMs: 25 * MIN, endMs: 70 * MIN, value: 'Code' },
    { startMs: 70 * MIN, endMs: 100 * MIN, value: 'Chrome' },
    { startMs: 110 * MIN, endMs: 180 * MIN, value: 'Outlook' },
  ];
  const docs: ActivitySpan[] = [
    { startMs: 0, endMs: 25 * MIN, value: 'https://example.com/a' },
    { startMs: 25 * MIN, endMs: 45 * MIN, value: 'report.ts' },
    { startMs: 45 * MIN, endMs: 70 * MIN, value: 'notes.md' },
    { startMs: 70 * MIN, endMs: 100 * MIN, value: 'https://example.com/b' },
  ];

  it('merges applications and documents into (app, document) segments, skipping gaps', () => {
    const segs = buildSegments(apps, docs);
    expect(segs.map((s) => [s.startMs / MIN, s.endMs / MIN, s.app, s.document])).toEqual([
      [0, 25, 'Chrome', 'https://example.com/a'],
      [25, 45, 'Code', 'report.ts'],
      [45, 70, 'Code', 'notes.md'],
      [70, 100, 'Chrome', 'https://example.com/b'],
      [110, 180, 'Outlook', undefined],
    ]);
    expect(segmentAt(segs, 50 * MIN)?.document).toBe('notes.md');
    expect(segmentAt(segs, 105 * MIN)).toBeUndefined();
    expect(segmentAt(segs, 180 * MIN)).toBeUndefined();
  });

  it('merges adjacent spans with the same pair', () => {
    const segs = buildSegments(
      [
        { startMs: 0, endMs: 10, value: 'A' },
        { startMs: 10, endMs: 20, value: 'A' },
      ],
      [],
    );
    expect(segs).toEqual([{ startMs: 0, endMs: 20, app: 'A', document: undefined }]);
  });

  it('picks one moment per change: the first screenshot inside each segment', () => {
    // Screenshots every 10 minutes from 0 to 180, two monitors.
    const moments = toMoments(shots(19, 10, 2));
    const out = sampleTransitions(moments, buildSegments(apps, docs), 20);
    expect([...new Set(out.map((s) => s.utcMs / MIN))]).toEqual([0, 30, 50, 70, 110]);
    expect(out).toHaveLength(10); // both monitors of each moment
  });

  it('skips a segment with no screenshot inside it', () => {
    const moments = toMoments([{ utcMs: 0, monitor: 0 }, { utcMs: 120 * MIN, monitor: 0 }]);
    const out = sampleTransitions(moments, buildSegments(apps, docs), 20);
    expect(out.map((s) => s.utcMs / MIN)).toEqual([0, 120]);
  });

  it('caps transitions at max, spread over the window', () => {
    const many: ActivitySpan[] = Array.from({ length: 100 }, (_, i) => ({ startMs: i * MIN, endMs: (i + 1) * MIN, value: `app${i % 2}` }));
    const out = sampleTransitions(toMoments(shots(100, 1)), buildSegments(many, []), 4);
    expect(out.map((s) => s.utcMs / MIN)).toEqual([0, 33, 66, 99]);
  });
});

describe('activity labels for a page of screenshots', () => {
  it('names the app and document of a segment, "unknown" for a document alone', () => {
    expect(activityOf({ startMs: 0, endMs: 1, app: 'Chrome', document: 'Invoice 4411.pdf' })).toEqual({ app: 'Chrome', document: 'Invoice 4411.pdf' });
    expect(activityOf({ startMs: 0, endMs: 1, app: 'Chrome', document: undefined })).toEqual({ app: 'Chrome' });
    expect(activityOf({ startMs: 0, endMs: 1, app: undefined, document: 'notes.md' })).toEqual({ app: 'unknown', document: 'notes.md' });
    expect(activityOf(undefined)).toBeUndefined();
  });

  it('clusters instants into runs no more than the gap apart, remembering their positions', () => {
    const H = 3_600_000;
    expect(clusterTimes([10 * H, 0, 1 * H, 30 * H, 11 * H], 6 * H)).toEqual([
      { fromMs: 0, toMs: 1 * H, members: [1, 2] },
      { fromMs: 10 * H, toMs: 11 * H, members: [0, 4] },
      { fromMs: 30 * H, toMs: 30 * H, members: [3] },
    ]);
    expect(clusterTimes([], H)).toEqual([]);
  });

  it('every instant lands in exactly one run that covers it', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1e9 }), { maxLength: 80 }), fc.integer({ min: 1, max: 1e8 }), (times, gap) => {
        const runs = clusterTimes(times, gap);
        expect(runs.flatMap((r) => r.members).sort((a, b) => a - b)).toEqual(times.map((_, i) => i));
        for (const r of runs) for (const i of r.members) expect(times[i]! >= r.fromMs && times[i]! <= r.toMs).toBe(true);
        for (let k = 1; k < runs.length; k++) expect(runs[k]!.fromMs - runs[k - 1]!.toMs).toBeGreaterThan(gap);
      }),
    );
  });
});
