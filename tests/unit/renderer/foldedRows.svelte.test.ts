// @vitest-environment svelte-client
/**
 * Runs of near-identical frames (one target, one screen key) fold into one row of the list as
 * drawn: row ↔ frame index both ways, across folding and plain pages, and a run opened and folded.
 */
import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import type { FramesPage, FramesQuery } from '../../../src/shared/api.ts';
import { T0, frameSummary as frame } from '../../support/frameSummary.ts';
import { FramePager } from '../../../src/renderer/lib/framePager.svelte.ts';
import { MIN_FOLD, firstRowFrames, pageSegments } from '../../../src/shared/timeline.ts';

describe('pageSegments', () => {
  it('folds runs of one target and one screen key, and nothing without a key', () => {
    const fs = [frame(0, { screen: 'a' }), frame(1, { screen: 'a' }), frame(2, { screen: 'a' }), frame(3, { screen: 'a', target: 'desktop:window:2' }), frame(4), frame(5), frame(6), frame(7, { screen: 'b' }), frame(8, { screen: 'b' })];
    expect(pageSegments(fs)).toEqual([
      { start: 0, len: 3, fold: true },
      { start: 3, len: 1, fold: false },
      { start: 4, len: 1, fold: false },
      { start: 5, len: 1, fold: false },
      { start: 6, len: 1, fold: false },
      // Two alike: fewer than MIN_FOLD, left as they are.
      { start: 7, len: 2, fold: MIN_FOLD <= 2 },
    ]);
  });

  it('names the frames the first rows show, a folded run by its newest', () => {
    const fs = [frame(0), frame(1, { screen: 'a' }), frame(2, { screen: 'a' }), frame(3, { screen: 'a' }), frame(4, { screen: 'b' }), frame(5, { screen: 'b' }), frame(6)];
    const refs = (n: number): string[] => firstRowFrames(fs, n).map((f) => f.ref);
    expect(refs(3)).toEqual([fs[0]!.ref, fs[1]!.ref, fs[4]!.ref]);
    expect(refs(10)).toEqual([0, 1, 4, 5, 6].map((i) => fs[i]!.ref));
    expect(refs(0)).toEqual([]);
  });
});

describe('the list as drawn', () => {
  // 250 frames in pages of 100: frames 10–19 of page 0 and 120–149 of page 1 are runs; page 2 has none.
  const all = Array.from({ length: 250 }, (_, i) => frame(i, i >= 10 && i < 20 ? { screen: 's1' } : i >= 120 && i < 150 ? { screen: 's2' } : {}));
  const fetchPage = (q: FramesQuery): Promise<FramesPage> => Promise.resolve({ frames: all.slice(q.offset ?? 0, (q.offset ?? 0) + (q.limit ?? 100)), total: all.length });
  const settle = async (): Promise<void> => {
    await new Promise((r) => setTimeout(r, 0));
    flushSync();
  };

  it('maps rows to frames and back, with pages loaded or not', async () => {
    const pager = new FramePager(fetchPage, {}, { pageSize: 100, anchor: new Date(T0 + 1000) });
    pager.ensure(0, 1);
    await settle();
    // Page 0 loaded: 9 frames folded away; pages 1 and 2 not loaded count a row a frame.
    expect(pager.count).toBe(250);
    expect(pager.rowCount).toBe(241);
    expect(pager.rowAt(10)).toMatchObject({ index: 10, run: { count: 10, open: false } });
    expect(pager.rowAt(10)!.run!.oldest.ref).toBe('f19');
    expect(pager.rowAt(11)).toMatchObject({ index: 20 });
    expect(pager.rowOf(15)).toBe(10);
    expect(pager.rowOf(20)).toBe(11);
    // Past page 0: unloaded rows shift by what page 0 folded.
    expect(pager.rowAt(91)).toMatchObject({ index: 100, frame: undefined });
    expect(pager.rowOf(249)).toBe(240);

    pager.ensure(100, 250);
    await settle();
    expect(pager.rowCount).toBe(250 - 9 - 29);
    expect(pager.rowAt(111)).toMatchObject({ index: 120, run: { count: 30 } });
    expect(pager.rowAt(112)).toMatchObject({ index: 150 });
    expect(pager.rowOf(135)).toBe(111);
    expect(pager.rowAt(pager.rowCount - 1)?.frame?.ref).toBe('f249');
    for (let r = 0; r < pager.rowCount; r++) expect(pager.rowOf(pager.rowAt(r)!.index)).toBe(r);

    // Opened, the run's frames are rows of their own after its first; folded again, gone.
    pager.toggleRun('f10');
    flushSync();
    expect(pager.rowCount).toBe(250 - 29);
    expect(pager.rowAt(10)).toMatchObject({ index: 10, run: { count: 10, open: true } });
    expect(pager.rowAt(11)).toMatchObject({ index: 11, inRun: true });
    expect(pager.rowOf(15)).toBe(15);
    pager.toggleRun('f10');
    flushSync();
    expect(pager.rowCount).toBe(250 - 9 - 29);
    pager.dispose();
  });
});
