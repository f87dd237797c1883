import { existsSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../../src/main/core/catalog/catalog.ts';
import type { FrameRecord } from '../../../src/main/core/catalog/types.ts';
import { filesUnder, frame, openCatalog } from './helpers.ts';

const now = new Date('2025-05-20T12:00:00Z');
const day = 24 * 60;

function paths(c: Catalog, rec: FrameRecord): string[] {
  return [c.frames.filePath(rec, 'image'), c.frames.filePath(rec, 'full')].filter((p): p is string => p !== undefined);
}

describe('retention by age', () => {
  it('deletes frames older than maxAgeDays with their unpinned crops; pinned frames and archive rows stay', async () => {
    const c = openCatalog();
    const old = await c.frames.insert(frame({ base: now, minutesAgo: 10 * day, full: { data: Buffer.from('native'), format: 'png' } }));
    const oldCrop = await c.frames.insert(frame({ base: now, minutesAgo: 1, parentRef: old.ref }));
    const pinnedCrop = await c.frames.insert(frame({ base: now, minutesAgo: 1, parentRef: old.ref }));
    const cropOfCrop = await c.frames.insert(frame({ base: now, minutesAgo: 1, parentRef: oldCrop.ref }));
    c.frames.setPinned(pinnedCrop.ref, true);
    const oldPinned = await c.frames.insert(frame({ base: now, minutesAgo: 30 * day }));
    c.frames.setPinned(oldPinned.ref, true);
    const fresh = await c.frames.insert(frame({ base: now, minutesAgo: 6 * day }));
    c.archive.upsertArchiveFrames([
      { ref: 'm_old', source: 'manictime', target: 'manictime:screen', capturedAt: new Date(now.getTime() - 40 * day * 60_000).toISOString(), image: { width: 10, height: 10 }, format: 'jpeg', imagePath: '/archive/old.jpg' },
    ]);
    const oldFiles = [...paths(c, old), ...paths(c, oldCrop), ...paths(c, cropOfCrop)];
    expect(oldFiles.every(existsSync)).toBe(true);
    const deleted: string[][] = [];
    c.on('frames-deleted', (refs) => deleted.push(refs));

    const r = c.retention.apply({ maxAgeDays: 7, maxBytes: 1e12, now });
    expect(r.deletedFrames).toBe(3);
    expect(r.freedBytes).toBe(old.bytes + 'native'.length + oldCrop.bytes + cropOfCrop.bytes);
    expect(deleted.flat().sort()).toEqual([old.ref, oldCrop.ref, cropOfCrop.ref].sort());
    for (const gone of [old, oldCrop, cropOfCrop]) expect(c.frames.get(gone.ref)).toBeUndefined();
    expect(oldFiles.some(existsSync)).toBe(false);
    // A pinned crop outlives its parent (it maps straight to source space).
    expect(c.frames.get(pinnedCrop.ref)?.parentRef).toBe(old.ref);
    for (const kept of [pinnedCrop, oldPinned, fresh]) expect(paths(c, kept).every(existsSync)).toBe(true);
    expect(c.frames.get('m_old')).toBeDefined();
    expect(() => c.retention.apply({ maxAgeDays: Number.NaN, maxBytes: 1 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    // Nothing left to do: a second run deletes nothing.
    expect(c.retention.apply({ maxAgeDays: 7, maxBytes: 1e12, now })).toEqual({ deletedFrames: 0, freedBytes: 0 });
  });
});

describe('retention by bytes', () => {
  it('deletes the oldest unpinned frames until the files fit in maxBytes', async () => {
    const c = openCatalog();
    const recs: FrameRecord[] = [];
    for (let i = 0; i < 10; i++) recs.push(await c.frames.insert(frame({ base: now, minutesAgo: (10 - i) * 60, data: Buffer.alloc(1000, i) })));
    c.frames.setPinned(recs[0]!.ref, true);
    const crop = await c.frames.insert(frame({ base: now, minutesAgo: 1, parentRef: recs[1]!.ref, data: Buffer.alloc(500) }));

    // 10 × 1000 + 500 bytes; keep ≤ 6000 → the pinned oldest stays, recs[1] goes with its crop, then recs[2..4].
    const r = c.retention.apply({ maxAgeDays: 365, maxBytes: 6000, now });
    expect(r).toEqual({ deletedFrames: 5, freedBytes: 4500 });
    const left = c.frames.list({ limit: 100, order: 'asc' }).map((f) => f.ref);
    expect(left).toEqual([recs[0]!.ref, ...recs.slice(5).map((f) => f.ref)]);
    expect(c.frames.get(crop.ref)).toBeUndefined();
    expect(filesUnder(c.framesDir)).toHaveLength(6);

    // Pinned frames are kept even when they alone exceed the budget.
    for (const f of c.frames.list({ limit: 100 })) c.frames.setPinned(f.ref, true);
    expect(c.retention.apply({ maxAgeDays: 365, maxBytes: 1, now })).toEqual({ deletedFrames: 0, freedBytes: 0 });
    expect(c.frames.count()).toBe(6);
  });

  it('counts native originals and generated thumbnails in the budget, and removes them', async () => {
    const c = openCatalog();
    const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#808080' } }).jpeg().toBuffer();
    const a = await c.frames.insert(frame({ base: now, minutesAgo: 2, data: jpeg, full: { data: Buffer.alloc(900), format: 'png' } }));
    const thumb = await c.frames.read(a.ref, 'thumbnail');
    await c.frames.insert(frame({ base: now, minutesAgo: 1, data: Buffer.alloc(100) }));
    expect(filesUnder(c.framesDir)).toHaveLength(4);
    const r = c.retention.apply({ maxAgeDays: 365, maxBytes: 500, now });
    expect(r).toEqual({ deletedFrames: 1, freedBytes: jpeg.length + 900 + thumb.data.length });
    expect(c.frames.get(a.ref)).toBeUndefined();
    expect(filesUnder(c.framesDir)).toHaveLength(1);
  });
});
