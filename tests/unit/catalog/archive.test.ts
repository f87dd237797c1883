import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { deterministicRef } from '../../../src/main/core/catalog/refs.ts';
import type { ArchiveFrame, FrameVariant } from '../../../src/main/core/catalog/types.ts';
import { filesUnder, frame, openCatalog } from './helpers.ts';

function archiveRow(i: number, over: Partial<ArchiveFrame> = {}): ArchiveFrame {
  const name = `2025-01-15_10-00-${String(i).padStart(2, '0')}_01-00_1920_1080_${1000 + i}_1.jpg`;
  return {
    ref: deterministicRef('m', name),
    source: 'manictime',
    target: 'manictime:monitor:1',
    capturedAt: `2025-01-15T10:00:${String(i).padStart(2, '0')}+01:00`,
    image: { width: 1920, height: 1080 },
    format: 'jpeg',
    imagePath: join('/archive/Screenshots/2025-01-15', name),
    thumbnailPath: i % 2 ? join('/archive/Screenshots/2025-01-15', name.replace('.jpg', '.thumbnail.jpg')) : undefined,
    monitor: 1,
    bytes: 200_000 + i,
    group: '2025-01-15',
    ...over,
  };
}

describe('deterministicRef', () => {
  it('is stable for a key, different across keys, and file-name safe', () => {
    expect(deterministicRef('m', 'a.jpg')).toBe(deterministicRef('m', 'a.jpg'));
    expect(deterministicRef('m', 'a.jpg')).not.toBe(deterministicRef('m', 'b.jpg'));
    expect(deterministicRef('m', 'a.jpg')).toMatch(/^m_[a-z2-7]{16}$/);
  });
});

describe('upsertArchiveFrames', () => {
  it('indexes archive files in place, idempotently, and reports only rows that changed', () => {
    const c = openCatalog();
    const rows = Array.from({ length: 50 }, (_, i) => archiveRow(i));
    expect(c.archive.upsertArchiveFrames(rows)).toBe(50);
    expect(c.archive.upsertArchiveFrames(rows)).toBe(0);
    expect(c.archive.upsertArchiveFrames([archiveRow(3, { bytes: 1 }), archiveRow(4)])).toBe(1);
    expect(c.frames.count({ source: 'manictime' })).toBe(50);
    expect(c.frames.count({ external: true })).toBe(50);
    expect(filesUnder(c.framesDir)).toEqual([]); // nothing copied
    const rec = c.frames.get(rows[1]!.ref)!;
    expect(rec).toMatchObject({
      source: 'manictime',
      external: true,
      hasFull: false,
      capturedAt: '2025-01-15T10:00:01+01:00',
      image: { width: 1920, height: 1080 },
      sourceSize: { width: 1920, height: 1080 },
      origin: { x: 0, y: 0 },
      scale: 1,
      monitor: 1,
      bytes: 200_001,
    });
    expect(c.frames.filePath(rec, 'image')).toBe(rows[1]!.imagePath);
    expect(c.frames.filePath(rec, 'full')).toBe(rows[1]!.imagePath);
    expect(c.frames.filePath(rec, 'thumbnail')).toBe(rows[1]!.thumbnailPath);
    // Newest first by capture time, across the archive.
    expect(c.frames.list({ limit: 2, from: new Date('2025-01-15T00:00:00+01:00'), to: new Date('2025-01-16T00:00:00+01:00') }).map((r) => r.ref)).toEqual([
      rows[49]!.ref,
      rows[48]!.ref,
    ]);
  });

  it('keeps pins and annotations across rescans', () => {
    const c = openCatalog();
    const row = archiveRow(7);
    c.archive.upsertArchiveFrames([row]);
    c.frames.setPinned(row.ref, true);
    c.frames.setAnnotation(row.ref, 'build failed here');
    expect(c.archive.upsertArchiveFrames([{ ...row, bytes: 5 }])).toBe(1);
    expect(c.frames.get(row.ref)).toMatchObject({ pinned: true, annotation: 'build failed here', bytes: 5 });
  });

  it('refuses relative paths and bad refs, in one transaction (nothing from the batch lands)', () => {
    const c = openCatalog();
    expect(() => c.archive.upsertArchiveFrames([archiveRow(1), archiveRow(2, { imagePath: 'relative/x.jpg' })])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => c.archive.upsertArchiveFrames([archiveRow(1, { ref: 'a/b' })])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => c.archive.upsertArchiveFrames([archiveRow(1, { capturedAt: '2025-01-15 10:00:00' })])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(c.frames.count()).toBe(0);
  });

  it("never touches Sightline's own frame under the same ref", async () => {
    const c = openCatalog();
    const own = await c.frames.insert(frame({ ref: 'm_clash' }));
    expect(c.archive.upsertArchiveFrames([archiveRow(1, { ref: 'm_clash' })])).toBe(0);
    expect(c.frames.get('m_clash')).toEqual(own);
  });
});

describe('replaceArchiveGroup', () => {
  it('upserts the day and removes its rows whose files are gone, leaving other days alone', () => {
    const c = openCatalog();
    const rows = Array.from({ length: 5 }, (_, i) => archiveRow(i));
    const other = archiveRow(9, { ref: 'm_otherday', group: '2025-01-14', capturedAt: '2025-01-14T10:00:00+01:00' });
    c.archive.upsertArchiveFrames([other]);
    expect(c.archive.replaceArchiveGroup('manictime', '2025-01-15', rows)).toEqual({ changed: 5, deleted: 0 });
    const deleted: string[][] = [];
    c.on('frames-deleted', (refs) => deleted.push(refs));
    expect(c.archive.replaceArchiveGroup('manictime', '2025-01-15', rows.slice(2))).toEqual({ changed: 0, deleted: 2 });
    expect(deleted.map((refs) => [...refs].sort())).toEqual([[rows[0]!.ref, rows[1]!.ref].sort()]);
    expect(c.frames.get(rows[0]!.ref)).toBeUndefined();
    expect(c.frames.count({ external: true })).toBe(4);
    expect(c.archive.replaceArchiveGroup('manictime', '2025-01-15', [])).toEqual({ changed: 0, deleted: 3 });
    expect(c.frames.get('m_otherday')).toBeDefined();
  });

  it('a group belongs to its archive: another archive with a group of the same name keeps its rows', () => {
    const c = openCatalog();
    const theirs = archiveRow(1, { ref: 'x_same_group', source: 'otherarchive', target: 'otherarchive:screen' });
    c.archive.upsertArchiveFrames([theirs]);
    c.archive.replaceArchiveGroup('manictime', '2025-01-15', [archiveRow(2)]);
    c.archive.replaceArchiveGroup('manictime', '2025-01-15', []);
    expect(c.frames.get('x_same_group')).toMatchObject({ source: 'otherarchive' });
  });
});

describe('reading archive frames', () => {
  it('goes through the registered reader, and generates and caches a thumbnail when the archive has none', async () => {
    const c = openCatalog();
    const row = archiveRow(2); // even: no archive thumbnail
    const withThumb = archiveRow(3);
    c.archive.upsertArchiveFrames([row, withThumb]);
    await expect(c.frames.read(row.ref, 'image')).rejects.toMatchObject({ code: 'SOURCE_UNAVAILABLE' });

    const jpeg = await sharp({ create: { width: 1920, height: 1080, channels: 3, background: '#aa3300' } }).jpeg().toBuffer();
    const calls: [string, FrameVariant][] = [];
    c.frames.setExternalReader(async (rec, variant) => {
      calls.push([rec.ref, variant]);
      return { data: variant === 'thumbnail' ? Buffer.from('archive thumb') : jpeg, format: 'jpeg' };
    });
    expect((await c.frames.read(row.ref, 'image')).data).toBe(jpeg);
    expect((await c.frames.read(row.ref, 'full')).data).toBe(jpeg);
    const t = await c.frames.read(row.ref, 'thumbnail');
    expect((await sharp(t.data).metadata()).width).toBe(320);
    const cached = c.frames.filePath(c.frames.get(row.ref)!, 'thumbnail')!;
    expect(cached.startsWith(c.framesDir)).toBe(true);
    expect((await c.frames.read(row.ref, 'thumbnail')).data.equals(t.data)).toBe(true);
    expect((await c.frames.read(withThumb.ref, 'thumbnail')).data.toString()).toBe('archive thumb');
    expect(calls).toEqual([
      [row.ref, 'image'],
      [row.ref, 'image'],
      [row.ref, 'image'],
      [withThumb.ref, 'thumbnail'],
    ]);
    // The cached thumbnail goes when the archive row goes; the archive file is not ours to delete.
    c.archive.replaceArchiveGroup('manictime', '2025-01-15', [withThumb]);
    expect(filesUnder(c.framesDir)).toEqual([]);
  });
});
