/**
 * The time strip's counts: frames at or after each moment, own frames counted by the catalog
 * (pinned ones alone for the Pinned filter) and an archive's list by binary search; and the
 * first page's thumbnails made ahead of the browser's requests.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countSince, timelinePositions } from '../../../src/main/core/frames/timeline.ts';
import type { HistoryPort } from '../../../src/main/core/sources/source.ts';
import { arrayList } from '../../../src/main/core/util/mergedPages.ts';
import { frame, openCatalog } from '../catalog/helpers.ts';

describe('countSince', () => {
  it('counts the items of a newest-first list at or after a moment', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 80 }), fc.integer({ min: -5, max: 55 }), (times, t) => {
        const sorted = [...times].sort((a, b) => b - a);
        expect(countSince(arrayList(sorted, (x) => x), t)).toBe(sorted.filter((x) => x >= t).length);
      }),
    );
  });
});

describe('timelinePositions (own frames)', () => {
  it('answers each moment in the order asked, before the anchor only, and the ends', async () => {
    const c = openCatalog();
    const base = new Date('2026-11-20T12:00:00Z');
    // Frames 0..9 minutes before base; the one of 3 minutes pinned.
    for (let m = 0; m < 10; m++) {
      const f = await c.frames.insert(frame({ minutesAgo: m, base }));
      if (m === 3) c.frames.setPinned(f.ref, true);
    }
    const at = (m: number): number => base.getTime() - m * 60_000;
    // Anchor just before the newest frame: 9 frames count.
    const before = new Date(at(0) - 1);
    const p = timelinePositions(c, [], { before, at: [at(5), at(-1), at(9), at(2)] });
    expect(p).toEqual({ total: 9, newestMs: at(1), oldestMs: at(9), since: [5, 0, 9, 2] });
    expect(timelinePositions(c, [], { before, pinned: true, at: [at(2), at(4)] })).toEqual({ total: 1, newestMs: at(3), oldestMs: at(3), since: [0, 1] });
    expect(timelinePositions(c, [], { before: new Date(at(20)), at: [at(0)] })).toEqual({ total: 0, since: [0] });
  });

  it('adds the frames of an archive, found by a binary search on its own times', async () => {
    const c = openCatalog();
    const base = new Date('2026-11-20T12:00:00Z');
    const at = (m: number): number => base.getTime() - m * 60_000;
    for (const m of [1, 4]) await c.frames.insert(frame({ minutesAgo: m, base }));
    // An archive with screenshots 0, 2, 3, 30 minutes before base (newest first).
    const times = [at(0), at(2), at(3), at(30)];
    let asked: { before?: Date } | undefined;
    const archive = {
      timeline: (anchor: { before?: Date }) => {
        asked = anchor;
        const kept = times.filter((t) => !anchor.before || t < anchor.before.getTime());
        return { total: kept.length, timeAt: (i: number) => kept[i] as number, page: () => [] };
      },
    } as unknown as HistoryPort;
    const before = new Date(at(0) - 1);
    expect(timelinePositions(c, [archive], { before, at: [at(2), at(5), at(60)] })).toEqual({ total: 5, newestMs: at(1), oldestMs: at(30), since: [2, 4, 5] });
    expect(asked?.before).toEqual(before);
    // Pinned frames are the catalog's alone.
    expect(timelinePositions(c, [archive], { before, pinned: true, at: [at(60)] }).total).toBe(0);
  });

  it('makes the thumbnails of a first page ahead, once', async () => {
    const c = openCatalog();
    const sharp = (await import('sharp')).default;
    const data = await sharp({ create: { width: 640, height: 400, channels: 3, background: '#468' } }).jpeg().toBuffer();
    const f = await c.frames.insert(frame({ data, image: { width: 640, height: 400 } }));
    expect(c.frames.filePath(f, 'thumbnail')).toBeUndefined();
    c.frames.prepareThumbnails([f.ref, 'f_gone']);
    await expect.poll(() => c.frames.filePath(f, 'thumbnail')).toBeDefined();
  });
});
