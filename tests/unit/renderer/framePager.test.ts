import { describe, expect, it } from 'vitest';
import type { FrameSummary, FramesPage, FramesQuery } from '../../../src/shared/api.ts';
import { T0, frameSummary } from '../../support/frameSummary.ts';
import { FramePager, matchesFilter } from '../../../src/renderer/lib/framePager.svelte.ts';
import { visibleRange, windowSize } from '../../../src/renderer/lib/windowing.ts';

const frame = (i: number, over: Partial<FrameSummary> = {}): FrameSummary =>
  frameSummary(i, { source: i % 2 ? 'browser' : 'desktop', target: i % 2 ? 'browser:tab1' : 'desktop:window:1', pinned: i % 10 === 0, ...over });

/** A fake server over N frames, newest first, honouring the query like the real API. */
function server(n: number) {
  const all = Array.from({ length: n }, (_, i) => frame(i));
  const calls: FramesQuery[] = [];
  const fetchPage = async (q: FramesQuery, signal: AbortSignal): Promise<FramesPage> => {
    calls.push(q);
    await new Promise((r) => setTimeout(r, 1));
    if (signal.aborted) throw new Error('aborted');
    const matching = all.filter((f) => (!q.before || Date.parse(f.capturedAt) < Date.parse(q.before)) && matchesFilter(f, { source: q.source, target: q.target, pinned: q.pinned }));
    const offset = q.offset ?? 0;
    return { frames: matching.slice(offset, offset + (q.limit ?? 100)), total: matching.length };
  };
  return { all, calls, fetchPage };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('FramePager', () => {
  it('loads only the pages a window needs, anchored with before', async () => {
    const s = server(100_000);
    const p = new FramePager(s.fetchPage, {}, { pageSize: 100, anchor: new Date(T0 + 1) });
    p.ensure(0, 0);
    await settle();
    expect(p.loaded).toBe(true);
    expect(p.count).toBe(100_000);
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0]).toMatchObject({ offset: 0, limit: 100, before: new Date(T0 + 1).toISOString() });

    p.ensure(50_010, 50_030);
    await settle();
    expect(s.calls.map((c) => c.offset)).toEqual([0, 50_000]);
    expect(p.at(50_020)?.ref).toBe('f50020');
    expect(p.at(49_999)).toBeUndefined();

    // A window spanning two pages loads both.
    p.ensure(50_190, 50_210);
    await settle();
    expect(s.calls.map((c) => c.offset)).toEqual([0, 50_000, 50_100, 50_200]);
  });

  it('cancels pages no longer wanted when the user scrolls on', async () => {
    const s = server(10_000);
    const p = new FramePager(s.fetchPage, {}, { pageSize: 100, anchor: new Date(T0 + 1) });
    p.ensure(0, 10);
    await settle();
    let changes = 0;
    p.onChange = () => changes++;
    p.ensure(3000, 3010);
    p.ensure(6000, 6010);
    await settle();
    expect(p.at(3005)).toBeUndefined();
    expect(p.at(6005)?.ref).toBe('f6005');
    expect(changes).toBe(1);
  });

  it('puts live frames first without shifting the anchored pages', async () => {
    const s = server(500);
    const p = new FramePager(s.fetchPage, {}, { pageSize: 100, anchor: new Date(T0 + 1) });
    p.ensure(0, 10);
    await settle();
    const newer = frame(-5, { ref: 'live1', capturedAt: new Date(T0 + 5000).toISOString() });
    const newest = frame(-9, { ref: 'live2', capturedAt: new Date(T0 + 9000).toISOString() });
    expect(p.insertLive(newer)).toBe(true);
    expect(p.insertLive(newest)).toBe(true);
    expect(p.insertLive(newest)).toBe(false); // duplicate event
    expect(p.count).toBe(502);
    expect([p.at(0)?.ref, p.at(1)?.ref, p.at(2)?.ref]).toEqual(['live2', 'live1', 'f0']);
    expect(p.indexOf('f3')).toBe(5);
    // A frame older than the anchor is already in the pages.
    expect(p.insertLive(frame(7))).toBe(false);
  });

  it('filters live frames like the server does', async () => {
    const s = server(100);
    const p = new FramePager(s.fetchPage, { source: 'desktop', pinned: true }, { pageSize: 20, anchor: new Date(T0 + 1) });
    p.ensure(0, 5);
    await settle();
    expect(p.count).toBe(10);
    expect(s.calls[0]).toMatchObject({ source: 'desktop', pinned: true });
    const later = new Date(T0 + 2000).toISOString();
    expect(p.insertLive(frame(1, { ref: 'b', source: 'browser', pinned: true, capturedAt: later }))).toBe(false);
    expect(p.insertLive(frame(2, { ref: 'u', pinned: false, capturedAt: later }))).toBe(false);
    expect(p.insertLive(frame(2, { ref: 'ok', pinned: true, capturedAt: later }))).toBe(true);
  });

  it('updates a frame in place (pinned) and reports load errors', async () => {
    const s = server(50);
    const p = new FramePager(s.fetchPage, {}, { pageSize: 20, anchor: new Date(T0 + 1) });
    p.ensure(0, 5);
    await settle();
    p.update({ ...p.at(3)!, pinned: true, annotation: 'login form' });
    expect(p.at(3)).toMatchObject({ pinned: true, annotation: 'login form' });

    const errors: unknown[] = [];
    const broken = new FramePager(async () => Promise.reject(new Error('boom')), {}, { pageSize: 20 });
    broken.onError = (e) => errors.push(e);
    broken.ensure(0, 5);
    await settle();
    expect(errors).toHaveLength(1);
    expect(broken.loaded).toBe(false);
  });

  it('drops answers that arrive after dispose', async () => {
    const s = server(50);
    const p = new FramePager(s.fetchPage, {}, { pageSize: 20 });
    let changes = 0;
    p.onChange = () => changes++;
    p.ensure(0, 5);
    p.dispose();
    await settle();
    expect(changes).toBe(0);
  });
});

describe('visibleRange', () => {
  it('windows fixed-height rows with overscan, clamped to the list', () => {
    expect(visibleRange(0, 720, 72, 100_000, 6)).toEqual({ from: 0, to: 17 });
    expect(visibleRange(72 * 50_000, 720, 72, 100_000, 6)).toEqual({ from: 49_994, to: 50_017 });
    expect(visibleRange(72 * 99_995, 720, 72, 100_000, 6)).toEqual({ from: 99_989, to: 100_000 });
    expect(visibleRange(0, 720, 72, 0)).toEqual({ from: 0, to: 0 });
    expect(visibleRange(-30, 0, 72, 5)).toEqual({ from: 0, to: 5 });
  });

  it('keeps the same set of recycled slots at any scroll position away from the ends', () => {
    const size = windowSize(720, 72, 6);
    expect(size).toBe(23);
    for (const top of [0, 72 * 6, 72 * 6 + 30, 72 * 500, 72 * 500 + 71, 72 * 12_345 + 5]) {
      const { from, to } = visibleRange(top, 720, 72, 100_000, 6);
      const slots = new Set(Array.from({ length: to - from }, (_, k) => (from + k) % size));
      if (from > 0) expect(slots.size).toBe(size);
      expect(slots.size).toBe(to - from);
    }
  });
});

describe('FramePager.needsReload', () => {
  it('asks for a reload for a new frame dated inside the anchored pages (a crop)', async () => {
    const s = server(50);
    const p = new FramePager(s.fetchPage, { source: 'desktop' }, { pageSize: 20, anchor: new Date(T0 + 1) });
    p.ensure(0, 5);
    await settle();
    const crop = frame(4, { ref: 'crop1', parentRef: 'f4' });
    expect(p.needsReload(crop)).toBe(true);
    expect(p.insertLive(crop)).toBe(false);
    expect(p.needsReload(frame(4))).toBe(false); // already listed
    expect(p.needsReload(frame(3, { ref: 'b' }))).toBe(false); // another source
    expect(p.needsReload(frame(-2, { ref: 'new', capturedAt: new Date(T0 + 5000).toISOString() }))).toBe(false);
  });
});
