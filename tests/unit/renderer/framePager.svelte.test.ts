// @vitest-environment svelte-client
/**
 * The pager is reactive: what a component derives from it (count, rows, the selected row,
 * the load error) follows pages and live frames as they arrive, with no change counter.
 * Runes compiled for the client, effects flushed by hand.
 */
import { flushSync } from 'svelte';
import { SvelteSet } from 'svelte/reactivity';
import { afterEach, describe, expect, it } from 'vitest';
import type { FrameSummary, FramesPage, FramesQuery } from '../../../src/shared/api.ts';
import { T0, frameSummary } from '../../support/frameSummary.ts';
import { FramePager } from '../../../src/renderer/lib/framePager.svelte.ts';

const frame = (i: number, over: Partial<FrameSummary> = {}): FrameSummary => frameSummary(i, { target: `desktop:window:${i % 3}`, ...over });

/** A server whose answers the test releases one at a time. */
function heldServer(n: number) {
  const all = Array.from({ length: n }, (_, i) => frame(i));
  const waiting: (() => void)[] = [];
  const fetchPage = (q: FramesQuery): Promise<FramesPage> =>
    new Promise((resolve) => {
      const offset = q.offset ?? 0;
      waiting.push(() => resolve({ frames: all.slice(offset, offset + (q.limit ?? 100)), total: n }));
    });
  /** Answer every request made so far, then let the pager and the effects catch up. */
  const answer = async (): Promise<void> => {
    for (const release of waiting.splice(0)) release();
    await new Promise((r) => setTimeout(r, 0));
    flushSync();
  };
  return { fetchPage, answer };
}

let stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

/** Record what an effect reads from the pager each time it runs (a component rendering it). */
function watch<T>(read: () => T): T[] {
  const seen: T[] = [];
  stops.push(
    $effect.root(() => {
      $effect(() => {
        seen.push(read());
      });
    }),
  );
  flushSync();
  return seen;
}

describe('FramePager reactivity', () => {
  it('re-runs readers of count and loaded when the first page answers', async () => {
    const s = heldServer(250);
    const p = new FramePager(s.fetchPage, {}, { pageSize: 100, anchor: new Date(T0 + 1) });
    const seen = watch(() => `${p.loaded}:${p.count}`);
    p.ensure(0, 10);
    flushSync();
    expect(seen).toEqual(['false:0']);
    await s.answer();
    expect(seen).toEqual(['false:0', 'true:250']);
  });

  it('re-runs a reader of a row when its page arrives, and not for other pages', async () => {
    const s = heldServer(250);
    const p = new FramePager(s.fetchPage, {}, { pageSize: 100, anchor: new Date(T0 + 1) });
    p.ensure(0, 1);
    await s.answer();
    const row150 = watch(() => p.at(150)?.ref);
    const row5 = watch(() => p.at(5)?.ref);
    p.ensure(140, 160);
    await s.answer();
    expect(row150).toEqual([undefined, 'f150']);
    // Row 5's page did not change: its reader did not run again.
    expect(row5).toEqual(['f5']);
  });

  it('shows live frames ahead of the pages, and updates in place', async () => {
    const s = heldServer(20);
    const p = new FramePager(s.fetchPage, {}, { pageSize: 100, anchor: new Date(T0 + 1) });
    p.ensure(0, 5);
    await s.answer();
    const top = watch(() => [p.count, p.at(0)?.ref, p.at(0)?.pinned]);
    const selected = watch(() => p.indexOf('f3'));
    expect(p.insertLive(frame(-1, { ref: 'live1', capturedAt: new Date(T0 + 5000).toISOString() }))).toBe(true);
    flushSync();
    expect(top.at(-1)).toEqual([21, 'live1', false]);
    expect(selected).toEqual([3, 4]);
    p.update({ ...p.at(0)!, pinned: true });
    flushSync();
    expect(top.at(-1)).toEqual([21, 'live1', true]);
    const pinnedInPage = watch(() => p.at(4)?.pinned);
    p.update({ ...p.at(4)!, pinned: true });
    flushSync();
    expect(pinnedInPage).toEqual([false, true]);
  });

  it('holds the load error as state, cleared by the next page that loads', async () => {
    let fail = true;
    const p = new FramePager(async (q) => {
      if (fail) throw new Error('boom');
      return { frames: [frame(q.offset ?? 0)], total: 1 };
    }, {});
    const errors = watch(() => (p.error instanceof Error ? p.error.message : p.error));
    p.ensure(0, 1);
    await new Promise((r) => setTimeout(r, 0));
    flushSync();
    expect(errors).toEqual([null, 'boom']);
    fail = false;
    p.ensure(0, 1);
    await new Promise((r) => setTimeout(r, 0));
    flushSync();
    expect(errors).toEqual([null, 'boom', null]);
  });

  it('adds the targets it sees to a shared set that outlives it', async () => {
    const seenTargets = new SvelteSet<string>();
    const targets = watch(() => [...seenTargets].sort().join(','));
    const s = heldServer(5);
    const p = new FramePager(s.fetchPage, { pinned: true }, { anchor: new Date(T0 + 1), seenTargets });
    p.ensure(0, 5);
    await s.answer();
    p.insertLive(frame(-1, { ref: 'live1', target: 'desktop:window:9', pinned: true, capturedAt: new Date(T0 + 5000).toISOString() }));
    p.dispose();
    flushSync();
    expect(targets).toEqual(['', 'desktop:window:0,desktop:window:1,desktop:window:2', 'desktop:window:0,desktop:window:1,desktop:window:2,desktop:window:9']);
  });
});
