import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { CATALOG_FILE } from '../../../src/main/core/catalog/catalog.ts';
import { SCHEMA_VERSION } from '../../../src/main/core/catalog/migrations.ts';
import type { FrameRecord } from '../../../src/main/core/catalog/types.ts';
import { filesUnder, frame, openCatalog, tempDir } from './helpers.ts';

describe('Catalog.open', () => {
  it('creates the database in WAL mode, at the newest schema, and the frames folder', () => {
    const dir = tempDir();
    const c = openCatalog(join(dir, 'nested', 'data'));
    expect(existsSync(join(c.dataDir, CATALOG_FILE))).toBe(true);
    expect(existsSync(c.framesDir)).toBe(true);
    const db = new Database(join(c.dataDir, CATALOG_FILE), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });
});

describe('insertFrame', () => {
  it('stores the image (and a native original) as files and the descriptor as a row', async () => {
    const c = openCatalog();
    const seen: FrameRecord[] = [];
    c.on('frame', (r) => seen.push(r));
    const rec = await c.frames.insert(
      frame({ capturedAt: '2025-01-15T10:30:00.000+01:00', data: Buffer.from('small'), full: { data: Buffer.from('big native png'), format: 'png' }, dpi: 144, monitor: 1 }),
    );
    expect(rec.ref).toMatch(/^f_[a-z2-7]{16}$/);
    expect(rec).toMatchObject({
      source: 'desktop',
      target: 'desktop:window:0x1',
      capturedAt: '2025-01-15T10:30:00.000+01:00',
      image: { width: 100, height: 50 },
      sourceSize: { width: 200, height: 100 },
      origin: { x: 10, y: 20 },
      scale: 2,
      dpi: 144,
      monitor: 1,
      format: 'jpeg',
      bytes: 5,
      pinned: false,
      hasFull: true,
      external: false,
    });
    expect(rec.parentRef).toBeUndefined();
    expect(rec.annotation).toBeUndefined();
    expect(seen).toEqual([rec]);
    expect(c.frames.get(rec.ref)).toEqual(rec);

    // Files live under frames/<capture day>/, named by ref.
    expect(filesUnder(c.framesDir)).toEqual([`2025-01-15/${rec.ref}.full.png`, `2025-01-15/${rec.ref}.jpg`]);
    expect(readFileSync(c.frames.filePath(rec, 'image')!, 'utf8')).toBe('small');
    expect(await c.frames.read(rec.ref, 'image')).toEqual({ data: Buffer.from('small'), format: 'jpeg' });
    expect(await c.frames.read(rec.ref, 'full')).toEqual({ data: Buffer.from('big native png'), format: 'png' });
  });

  it("falls back to the image for 'full' and keeps caller refs", async () => {
    const c = openCatalog();
    const rec = await c.frames.insert(frame({ ref: 'crop_1', parentRef: 'f_parent', data: Buffer.from('x') }));
    expect(rec.ref).toBe('crop_1');
    expect(rec.hasFull).toBe(false);
    expect(rec.parentRef).toBe('f_parent');
    expect(c.frames.filePath(rec, 'full')).toBe(c.frames.filePath(rec, 'image'));
    expect(await c.frames.read('crop_1', 'full')).toEqual({ data: Buffer.from('x'), format: 'jpeg' });
  });

  it('refuses bad frames before writing anything', async () => {
    const c = openCatalog();
    await expect(c.frames.insert(frame({ capturedAt: '2025-01-15T10:30:00' }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(c.frames.insert(frame({ data: Buffer.alloc(0) }))).rejects.toMatchObject({ code: 'IMAGE_INVALID' });
    await expect(c.frames.insert(frame({ ref: '../escape' }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(c.frames.insert(frame({ image: { width: 0, height: 5 } }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(filesUnder(c.framesDir)).toEqual([]);
    expect(c.frames.count()).toBe(0);
  });

  it('leaves no row, no file and no temp file when the row insert fails after the rename', async () => {
    const c = openCatalog();
    const kept = await c.frames.insert(frame());
    // A real fault inside SQLite, raised between rename and row by a trigger on a second connection.
    const db = new Database(join(c.dataDir, CATALOG_FILE));
    db.exec(`CREATE TRIGGER boom BEFORE INSERT ON frames WHEN NEW.target = 'desktop:window:boom' BEGIN SELECT RAISE(ABORT, 'injected fault'); END`);
    db.close();
    const before = filesUnder(c.framesDir);
    await expect(c.frames.insert(frame({ target: 'desktop:window:boom', full: { data: Buffer.from('native'), format: 'png' } }))).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('injected fault'),
    });
    expect(filesUnder(c.framesDir)).toEqual(before);
    expect(c.frames.count()).toBe(1);
    expect(c.frames.list({ limit: 10 }).map((r) => r.ref)).toEqual([kept.ref]);
  });

  it('removes the already renamed image when the second rename fails', async () => {
    const c = openCatalog();
    const f = frame({ ref: 'f_obstacle', capturedAt: '2025-02-01T08:00:00Z', full: { data: Buffer.from('native'), format: 'png' } });
    // A non-empty directory where the original must go makes its rename fail.
    mkdirSync(join(c.framesDir, '2025-02-01', 'f_obstacle.full.png', 'x'), { recursive: true });
    await expect(c.frames.insert(f)).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(filesUnder(c.framesDir)).toEqual([]); // the obstacle is a directory: no file of the frame remains
    expect(c.frames.get('f_obstacle')).toBeUndefined();
  });

  it('never overwrites the files of an existing ref', async () => {
    const c = openCatalog();
    const a = await c.frames.insert(frame({ ref: 'f_same', data: Buffer.from('first') }));
    await expect(c.frames.insert(frame({ ref: 'f_same', data: Buffer.from('second') }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // Two concurrent inserts of one ref: one wins, the loser leaves nothing.
    const both = await Promise.allSettled([c.frames.insert(frame({ ref: 'f_race', data: Buffer.from('1') })), c.frames.insert(frame({ ref: 'f_race', data: Buffer.from('2') }))]);
    expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await c.frames.read('f_same', 'image')).data.toString()).toBe('first');
    expect(c.frames.get(a.ref)).toEqual(a);
    expect(filesUnder(c.framesDir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });
});

describe('queries', () => {
  const base = new Date('2025-03-10T12:00:00Z');

  async function seed() {
    const c = openCatalog();
    const recs: FrameRecord[] = [];
    // 10 frames one hour apart, alternating two targets of two sources.
    for (let i = 0; i < 10; i++) {
      const desktop = i % 2 === 0;
      recs.push(
        await c.frames.insert(
          frame({ base, minutesAgo: (9 - i) * 60, source: desktop ? 'desktop' : 'android', target: desktop ? 'desktop:display:0' : 'android:emulator-5554' }),
        ),
      );
    }
    return { c, recs };
  }

  it('gives the first frame of each interval over the whole window, filtered', async () => {
    const c = openCatalog();
    const t0 = new Date('2025-03-10T12:00:00Z');
    const at = (sec: number, target = 'desktop:display:0') =>
      c.frames.insert(frame({ capturedAt: new Date(t0.getTime() + sec * 1000).toISOString(), source: 'desktop', target }));
    // Buckets of 300 s: [0, 300) holds three, [300, 600) two, [900, 1200) one; another target sits in the first.
    const firsts = [await at(0), await at(10), await at(20), await at(300), await at(310), await at(900)];
    await at(5, 'desktop:display:1');
    const picked = c.frames.firstPerInterval({ target: 'desktop:display:0' }, 300_000);
    expect(picked.map((r) => r.ref)).toEqual([firsts[0]!.ref, firsts[3]!.ref, firsts[5]!.ref]);
    const windowed = c.frames.firstPerInterval({ target: 'desktop:display:0', from: new Date(t0.getTime() + 15_000) }, 300_000);
    expect(windowed.map((r) => r.ref)).toEqual([firsts[2]!.ref, firsts[3]!.ref, firsts[5]!.ref]);
    expect(() => c.frames.firstPerInterval({}, 0)).toThrow(/bucketMs/);
  });

  it('lists newest first by default, oldest first on request, with limit and offset', async () => {
    const { c, recs } = await seed();
    expect(c.frames.list({ limit: 3 }).map((r) => r.ref)).toEqual([recs[9]!.ref, recs[8]!.ref, recs[7]!.ref]);
    expect(c.frames.list({ limit: 2, offset: 3 }).map((r) => r.ref)).toEqual([recs[6]!.ref, recs[5]!.ref]);
    expect(c.frames.list({ limit: 2, order: 'asc' }).map((r) => r.ref)).toEqual([recs[0]!.ref, recs[1]!.ref]);
    expect(c.frames.count()).toBe(10);
  });

  it('filters by source, target, time window (from inclusive, to exclusive), pinned and parent', async () => {
    const { c, recs } = await seed();
    expect(c.frames.list({ source: 'android', limit: 100 }).map((r) => r.ref)).toEqual([9, 7, 5, 3, 1].map((i) => recs[i]!.ref));
    expect(c.frames.count({ target: 'desktop:display:0' })).toBe(5);
    const from = new Date(recs[2]!.capturedAt);
    const to = new Date(recs[5]!.capturedAt);
    expect(c.frames.list({ from, to, limit: 100, order: 'asc' }).map((r) => r.ref)).toEqual([2, 3, 4].map((i) => recs[i]!.ref));
    expect(c.frames.count({ from, to, source: 'desktop' })).toBe(2);
    c.frames.setPinned(recs[4]!.ref, true);
    expect(c.frames.list({ pinned: true, limit: 10 }).map((r) => r.ref)).toEqual([recs[4]!.ref]);
    expect(c.frames.count({ pinned: false })).toBe(9);
    const cropRec = await c.frames.insert(frame({ base, parentRef: recs[4]!.ref, target: 'desktop:display:0' }));
    expect(c.frames.list({ parentRef: recs[4]!.ref, limit: 10 }).map((r) => r.ref)).toEqual([cropRec.ref]);
    expect(c.frames.count({ rootOnly: true })).toBe(10);
    expect(() => c.frames.list({ limit: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => c.frames.list({ limit: 5, from: new Date('nope') })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it("latestFrame returns the target's newest frame that is not a crop, unless asked", async () => {
    const { c, recs } = await seed();
    const crop = await c.frames.insert(frame({ base, minutesAgo: -5, parentRef: recs[8]!.ref, target: 'desktop:display:0' }));
    expect(c.frames.latest('desktop', 'desktop:display:0')?.ref).toBe(recs[8]!.ref);
    expect(c.frames.latest('desktop', 'desktop:display:0', { rootOnly: false })?.ref).toBe(crop.ref);
    expect(c.frames.latest('android', 'android:emulator-5554')?.ref).toBe(recs[9]!.ref);
    expect(c.frames.latest('browser', 'desktop:display:0')).toBeUndefined();
  });

  it('answers the one-day window from an index, without sorting', () => {
    const c = openCatalog();
    const db = new Database(join(c.dataDir, CATALOG_FILE), { readonly: true });
    const plan = (sql: string): string =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ s: 'desktop', t: 'x', a: 0, b: 1 }) as { detail: string }[]).map((r) => r.detail).join(' | ');
    for (const where of ['', 'source = @s AND', 'target = @t AND', 'pinned = 1 AND']) {
      const p = plan(`SELECT * FROM frames WHERE ${where} captured_at >= @a AND captured_at < @b ORDER BY captured_at DESC, rowid DESC LIMIT 20`);
      expect(p, where).toMatch(/USING INDEX/);
      expect(p, where).not.toMatch(/TEMP B-TREE/);
    }
    db.close();
  });
});

describe('pins and annotations', () => {
  it('update the row and announce it', async () => {
    const c = openCatalog();
    const rec = await c.frames.insert(frame());
    const updates: FrameRecord[] = [];
    c.on('frame-updated', (r) => updates.push(r));
    expect(c.frames.setPinned(rec.ref, true).pinned).toBe(true);
    expect(c.frames.setAnnotation(rec.ref, 'the login dialog').annotation).toBe('the login dialog');
    expect(c.frames.setAnnotation(rec.ref, null).annotation).toBeUndefined();
    expect(updates.map((u) => [u.pinned, u.annotation])).toEqual([
      [true, undefined],
      [true, 'the login dialog'],
      [true, undefined],
    ]);
    expect(() => c.frames.setPinned('f_nope', true)).toThrow(expect.objectContaining({ code: 'FRAME_NOT_FOUND' }));
    await expect(c.frames.read('f_nope', 'image')).rejects.toMatchObject({ code: 'FRAME_NOT_FOUND' });
  });
});

describe('thumbnails', () => {
  it('are made on first use from the image, cached atomically beside it, and then read from the cache', async () => {
    const c = openCatalog();
    const jpeg = await sharp({ create: { width: 1000, height: 500, channels: 3, background: '#204080' } }).jpeg().toBuffer();
    const rec = await c.frames.insert(frame({ data: jpeg, image: { width: 1000, height: 500 } }));
    expect(c.frames.filePath(rec, 'thumbnail')).toBeUndefined();
    const [t1, t2] = await Promise.all([c.frames.read(rec.ref, 'thumbnail'), c.frames.read(rec.ref, 'thumbnail')]);
    expect(t1.format).toBe('jpeg');
    expect(t2.data.equals(t1.data)).toBe(true);
    const meta = await sharp(t1.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 160]);
    const path = c.frames.filePath(rec, 'thumbnail');
    expect(path).toBeDefined();
    expect(readFileSync(path!).equals(t1.data)).toBe(true);
    expect(filesUnder(c.framesDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // A second read comes from the cached file, not a new resize.
    writeFileSync(path!, 'cached');
    expect((await c.frames.read(rec.ref, 'thumbnail')).data.toString()).toBe('cached');
  });

  it('report an undecodable image as IMAGE_INVALID and cache nothing', async () => {
    const c = openCatalog();
    const rec = await c.frames.insert(frame({ data: Buffer.from('not a jpeg') }));
    await expect(c.frames.read(rec.ref, 'thumbnail')).rejects.toMatchObject({ code: 'IMAGE_INVALID' });
    expect(c.frames.filePath(rec, 'thumbnail')).toBeUndefined();
    expect(filesUnder(c.framesDir)).toHaveLength(1);
  });
});

describe('sweep', () => {
  it('removes temp files and files no row names, and keeps the rest', async () => {
    const c = openCatalog();
    const rec = await c.frames.insert(frame({ capturedAt: '2025-04-01T09:00:00Z' }));
    const day = join(c.framesDir, '2025-04-01');
    writeFileSync(join(day, 'f_crashed.jpg.1234abcd.tmp'), 'partial');
    writeFileSync(join(day, 'f_orphan.jpg'), 'renamed, never indexed');
    expect((await c.retention.sweep()).removed).toBe(0); // too young: another process may be mid-insert
    expect(await c.retention.sweep({ olderThanMs: 0 })).toEqual({ removed: 2 });
    expect(filesUnder(c.framesDir)).toEqual([`2025-04-01/${rec.ref}.jpg`]);
  });
});
