/**
 * The ManicTime source end to end on a generated archive: real files, a real catalog,
 * a real ManicTimeReports.db. No MCP layer (see mcpFlow.test.ts for that).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../../src/main/core/catalog/catalog.ts';
import type { FrameRecord } from '../../../src/main/core/catalog/types.ts';
import { isSightlineError, type SightlineError } from '../../../src/shared/errors.ts';
import type { ScreenshotEntry, ScreenshotList } from '../../../src/shared/frame.ts';
import { noActivities } from '../../../src/main/core/sources/manictime/activities.ts';
import { createCore } from '../../../src/main/core/index.ts';
import { createManicTimeSource, type ManicTimeSource, type ManicTimeSourceOptions } from '../../../src/main/core/sources/manictime/manictimeSource.ts';
import { manictimeModule } from '../../../src/main/core/sources/manictime/module.ts';
import type { ScreenshotQuery } from '../../../src/main/core/sources/source.ts';
import { addScreenshot, createManicTimeFixture, lockingIo, type FixtureShot, type ManicTimeFixture } from '../../support/manictimeFixture.ts';

const signal = new AbortController().signal;
/** "Now" for the tests: the afternoon after the last fixture day. */
const NOW = new Date('2024-04-02T16:00:00Z');

let base: string;
let fx: ManicTimeFixture;
const opened: Array<{ source: ManicTimeSource; catalog: Catalog }> = [];

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sightline-mt-'));
  fx = await createManicTimeFixture(join(base, 'fixture'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

afterEach(async () => {
  for (const o of opened.splice(0)) {
    await o.source.dispose?.();
    o.catalog.close();
  }
});

function open(over: Partial<ManicTimeSourceOptions> & { catalogDir?: string } = {}): { source: ManicTimeSource; catalog: Catalog; clock: { now: Date } } {
  const catalog = Catalog.open(over.catalogDir ?? mkdtempSync(join(base, 'sl-')));
  const clock = { now: NOW };
  const source = createManicTimeSource({
    settings: { dataDir: fx.dataDir },
    archive: catalog.archive,
    indexDir: catalog.dataDir,
    env: {},
    platform: 'linux',
    now: () => clock.now,
    retry: { attempts: 3, baseDelayMs: 10 },
    ...over,
  });
  // As the core does: archive frames are read through their source.
  catalog.frames.setExternalReader((rec, variant) => source.history.read(rec, variant));
  opened.push({ source, catalog });
  return { source, catalog, clock };
}

const q = (over: Partial<ScreenshotQuery> = {}): ScreenshotQuery => ({ sampling: 'all', intervalSeconds: 300, max: 200, ...over });
const shotAt = (date: string, time: string, monitor?: number, kind = 'ok'): FixtureShot =>
  fx.shots.find((s) => s.date === date && s.time === time && s.monitor === monitor && s.kind === kind)!;
const entryFor = (list: ScreenshotEntry[], shot: FixtureShot): ScreenshotEntry | undefined =>
  list.find((e) => e.capturedAt.startsWith(`${shot.date}T${shot.time}`) && e.monitor === shot.monitor && Date.parse(e.capturedAt) === shot.utcMs);

async function expectCode(p: Promise<unknown>, code: string): Promise<SightlineError> {
  try {
    await p;
  } catch (e) {
    expect(isSightlineError(e), String(e)).toBe(true);
    expect((e as SightlineError).code).toBe(code);
    return e as SightlineError;
  }
  throw new Error(`expected ${code}`);
}

describe('indexing', () => {
  it('indexes every screenshot, pairs thumbnails, counts junk, skips symlinked folders, reports progress', async () => {
    const { source } = open();
    const progress: number[] = [];
    await source.history.refresh({ signal, onProgress: (p) => progress.push(p.done) });
    const scan = source.lastScan()!;
    expect(scan.dayFolders).toBe(5);
    expect(scan.unknown).toBe(fx.junkNames.length);
    expect(scan.symlinksSkipped).toBe(1); // 2024-03-30/linked → outside
    expect(progress.at(-1)).toBe(5);

    const all = await source.history.listScreenshots(q(), signal);
    expect(all.matched).toBe(fx.shots.length);
    expect(all.screenshots).toHaveLength(fx.shots.length);
    // Chronological, refs unique.
    const times = all.screenshots.map((e) => Date.parse(e.capturedAt));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(new Set(all.screenshots.map((e) => e.ref)).size).toBe(fx.shots.length);
    // Nothing from outside the root (a third 10:50:00 capture sits behind the symlinked folder).
    expect(all.screenshots.filter((e) => e.capturedAt === '2024-03-30T10:50:00+01:00').map((e) => e.monitor)).toEqual([0, 1]);
  });

  it('returns same-second collisions as separate entries with their own refs', async () => {
    const { source } = open();
    const list = await source.history.listScreenshots(q({ from: new Date('2024-03-30T10:00:00+01:00'), to: new Date('2024-03-30T10:00:01+01:00') }), signal);
    expect(list.screenshots.map((e) => [e.monitor, e.width, e.height, e.hasThumbnail])).toEqual([
      [0, 320, 200, true],
      [0, 320, 200, true],
      [1, 200, 320, true],
    ]);
    expect(new Set(list.screenshots.map((e) => e.ref)).size).toBe(3);
    expect(list.screenshots.every((e) => e.capturedAt === '2024-03-30T10:00:00+01:00' && e.displayLocalTime === '2024-03-30 10:00:00')).toBe(true);
  });

  it('keeps each file’s own offset across the DST change and at -05:00', async () => {
    const { source } = open();
    const dst = await source.history.listScreenshots(q({ from: new Date('2024-03-31T00:00:00+01:00'), to: new Date('2024-04-01T00:00:00+02:00') }), signal);
    expect(dst.screenshots.map((e) => [e.capturedAt, e.displayLocalTime])).toEqual([
      ['2024-03-31T01:30:00+01:00', '2024-03-31 01:30:00'],
      ['2024-03-31T01:59:00+01:00', '2024-03-31 01:59:00'],
      ['2024-03-31T03:00:00+02:00', '2024-03-31 03:00:00'],
      ['2024-03-31T03:30:00+02:00', '2024-03-31 03:30:00'],
    ]);
    const trip = await source.history.listScreenshots(q({ from: new Date('2024-04-02T00:00:00-05:00'), to: new Date('2024-04-03T00:00:00-05:00') }), signal);
    expect(trip.screenshots.map((e) => e.capturedAt)).toEqual([
      '2024-04-02T08:00:00-05:00',
      '2024-04-02T08:15:00-05:00',
      '2024-04-02T08:30:00-05:00',
      '2024-04-02T08:45:00-05:00',
      '2024-04-02T09:00:00-05:00',
    ]);
  });

  it('lists old v0 .png screenshots on the whole-desktop target', async () => {
    const { source } = open();
    const list = await source.history.listScreenshots(q({ target: 'manictime:desktop' }), signal);
    expect(list.screenshots.map((e) => [e.displayLocalTime, e.monitor, e.hasThumbnail])).toEqual([
      ['2024-03-29 09:00:00', undefined, true],
      ['2024-03-29 09:05:00', undefined, false],
    ]);
  });

  it('gives the same refs after a restart and on another catalog (deterministic), without rescanning', async () => {
    const dir = mkdtempSync(join(base, 'sl-'));
    const first = open({ catalogDir: dir });
    const a = await first.source.history.listScreenshots(q({ max: 30 }), signal);
    await first.source.dispose?.();
    first.catalog.close();
    opened.splice(opened.findIndex((o) => o.source === first.source), 1);

    const again = open({ catalogDir: dir });
    const b = await again.source.history.listScreenshots(q({ max: 30 }), signal);
    expect(again.source.lastScan()?.scannedDays).toBe(0); // loaded from the index, fingerprints unchanged
    expect(b.screenshots.map((e) => e.ref)).toEqual(a.screenshots.map((e) => e.ref));
    const other = open();
    const c = await other.source.history.listScreenshots(q({ max: 30 }), signal);
    expect(c.screenshots.map((e) => e.ref)).toEqual(a.screenshots.map((e) => e.ref));
  });

  it('picks up new files in today’s folder and forgets deleted ones', async () => {
    const { source, catalog, clock } = open();
    const day = { from: new Date('2024-04-02T00:00:00-05:00'), to: new Date('2024-04-03T00:00:00-05:00') };
    const before = await source.history.listScreenshots(q(day), signal);
    expect(before.screenshots).toHaveLength(5);

    const added = await addScreenshot(fx.screenshotsDir, { date: '2024-04-02', time: '09:15:00', offsetMinutes: -300, width: 320, height: 200, id: 9000, monitor: 0 });
    clock.now = new Date(NOW.getTime() + 5_000);
    const after = await source.history.listScreenshots(q(day), signal);
    expect(after.screenshots.map((e) => e.displayLocalTime).at(-1)).toBe('2024-04-02 09:15:00');
    expect(source.lastScan()?.scanned).toEqual(['2024-04-02']);
    const ref = after.screenshots.at(-1)!.ref;
    expect(catalog.frames.get(ref)).toBeDefined();

    // ManicTime deletes it again (retention): the row goes with it on the next refresh.
    unlinkSync(added.full);
    unlinkSync(added.thumb);
    clock.now = new Date(NOW.getTime() + 120_000);
    await source.history.refresh({ signal });
    expect(catalog.frames.get(ref)).toBeUndefined();
    expect((await source.history.listScreenshots(q(day), signal)).screenshots).toHaveLength(5);
  });
});

describe('paging the whole archive, newest first (the dashboard timeline)', () => {
  it('pages every screenshot before the anchor exactly once, with the right total', async () => {
    const { source } = open();
    await source.history.refresh({ signal });
    const all = (await source.history.listScreenshots(q(), signal)).screenshots;
    const newestFirst = [...all].sort((a, b) => Date.parse(b.capturedAt) - Date.parse(a.capturedAt));
    const fresh = open();
    await fresh.source.history.refresh({ signal });
    const seen: string[] = [];
    let total = -1;
    for (let offset = 0; ; offset += 7) {
      const p = fresh.source.history.page({ offset, limit: 7 });
      total = p.total;
      if (p.refs.length === 0) break;
      seen.push(...p.refs);
    }
    expect(total).toBe(all.length);
    expect(seen).toHaveLength(all.length);
    expect(new Set(seen)).toEqual(new Set(all.map((e) => e.ref)));
    // Newest first, and every paged screenshot is now a catalog row (so the dashboard can show it).
    const times = seen.map((r) => Date.parse(fresh.catalog.frames.get(r)!.capturedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(Date.parse(fresh.catalog.frames.get(seen[0]!)!.capturedAt)).toBe(Date.parse(newestFirst[0]!.capturedAt));
  });

  it('cuts at the anchor and filters by monitor', async () => {
    const { source } = open();
    await source.history.refresh({ signal });
    const before = new Date('2024-03-30T10:00:01+01:00');
    const expected = (await source.history.listScreenshots(q({ to: before }), signal)).screenshots;
    const p = source.history.page({ before, offset: 0, limit: 500 });
    expect(p.total).toBe(expected.length);
    expect(new Set(p.refs)).toEqual(new Set(expected.map((e) => e.ref)));
    const m1 = source.history.page({ before, target: 'manictime:monitor:1', offset: 0, limit: 500 });
    expect(m1.total).toBe(expected.filter((e) => e.monitor === 1).length);
    expect(source.history.page({ target: 'manictime:bogus', offset: 0, limit: 5 })).toEqual({ refs: [], total: 0 });
  });

  it('as a list: probing a position makes no catalog row, and its time is the paged screenshot\'s', async () => {
    const { source, catalog } = open();
    await source.history.refresh({ signal });
    const before = new Date('2024-04-01T11:00:00+02:00');
    const list = source.history.timeline({ before });
    const rows = (): number => catalog.frames.count({ source: 'manictime' });
    const probed = [0, 1, 17, 40, list.total - 1].map((i) => list.timeAt(i));
    expect(rows()).toBe(0);
    const refs = list.page(0, list.total);
    expect(rows()).toBe(list.total);
    expect(probed).toEqual([0, 1, 17, 40, list.total - 1].map((i) => Date.parse(catalog.frames.get(refs[i]!)!.capturedAt)));
    expect(Math.max(...probed)).toBeLessThan(before.getTime());
    // A page in the middle reads the same screenshots as the whole list does there.
    expect(list.page(17, 9)).toEqual(refs.slice(17, 26));
    expect(list.page(list.total - 2, 10)).toEqual(refs.slice(-2));
  });

  it('knows the activity at any instant, and nothing where none was recorded', async () => {
    const { source } = open();
    const at = (local: string): number => Date.parse(`2024-04-01T${local}+02:00`);
    expect(await source.history.activityAt!([at('09:10:00'), Date.parse('2024-03-30T10:00:00+01:00'), at('10:45:00')])).toEqual([
      { app: 'Google Chrome', document: 'https://example.com/a' },
      undefined,
      { app: 'Outlook' },
    ]);
    const none = open({ activities: noActivities() });
    expect(await none.source.history.activityAt!([at('09:10:00')])).toEqual([undefined]);
  });
});

describe('pins and cancellation', () => {
  it('lists pinned archive frames and marks them in normal listings', async () => {
    const { source, catalog } = open();
    const day = { from: new Date('2024-04-01T00:00:00+02:00'), to: new Date('2024-04-02T00:00:00+02:00') };
    const list = await source.history.listScreenshots(q({ ...day, max: 4 }), signal);
    const ref = list.screenshots[1]!.ref;
    catalog.frames.setPinned(ref, true);
    const pinned = await source.history.listScreenshots(q({ ...day, pinned: true }), signal);
    expect(pinned.screenshots.map((e) => [e.ref, e.pinned, e.displayLocalTime, e.hasThumbnail])).toEqual([[ref, true, list.screenshots[1]!.displayLocalTime, true]]);
    expect((await source.history.listScreenshots(q({ ...day, max: 4 }), signal)).screenshots[1]).toMatchObject({ ref, pinned: true });
    expect((await source.history.listScreenshots(q({ from: new Date('2024-03-30T00:00:00Z'), to: new Date('2024-03-31T00:00:00Z'), pinned: true }), signal)).reason).toBe('NO_MATCH');
  });

  it('stops a scan when cancelled and finishes it on the next refresh', async () => {
    const { source } = open();
    const aborted = AbortSignal.abort();
    await expectCode(source.history.refresh({ signal: aborted }), 'CANCELLED');
    await source.history.refresh({ signal });
    expect((await source.history.listScreenshots(q(), signal)).matched).toBe(fx.shots.length);
  });
});

describe('sampling', () => {
  const day = { from: new Date('2024-04-01T00:00:00+02:00'), to: new Date('2024-04-02T00:00:00+02:00') };

  it('activity: one moment per change of application or document, with labels', async () => {
    const { source } = open();
    const list = await source.history.listScreenshots(q({ ...day, sampling: 'activity', max: 20 }), signal);
    expect(list.warnings).toBeUndefined();
    expect(list.matched).toBe(38);
    const moments = [...new Set(list.screenshots.map((e) => e.displayLocalTime))];
    expect(moments).toEqual(['2024-04-01 09:00:00', '2024-04-01 09:30:00', '2024-04-01 09:50:00', '2024-04-01 10:10:00', '2024-04-01 10:40:00']);
    expect(list.screenshots).toHaveLength(10); // both monitors
    expect(list.screenshots.filter((e) => e.monitor === 0).map((e) => e.activity)).toEqual([
      { app: 'Google Chrome', document: 'https://example.com/a' },
      { app: 'Visual Studio Code', document: 'report.ts' },
      { app: 'Visual Studio Code', document: 'notes.md' },
      { app: 'Google Chrome', document: 'https://example.com/b' },
      { app: 'Outlook' },
    ]);
  });

  it('activity falls back to interval sampling without the database, and says so', async () => {
    const { source } = open({ activities: noActivities('no ManicTimeReports.db') });
    const list = await source.history.listScreenshots(q({ ...day, sampling: 'activity', intervalSeconds: 3600, max: 20 }), signal);
    expect(list.warnings?.join(' ')).toMatch(/fell back.*3600 s.*ManicTimeReports\.db/);
    expect([...new Set(list.screenshots.map((e) => e.displayLocalTime.slice(11)))]).toEqual(['09:00:00', '10:00:00', '11:00:00', '12:00:00']);
    expect(list.screenshots.every((e) => e.activity === undefined)).toBe(true);
  });

  it('interval and all respect a strict max; activity labels come with every sampling', async () => {
    const { source } = open();
    const interval = await source.history.listScreenshots(q({ ...day, sampling: 'interval', intervalSeconds: 600, max: 5 }), signal);
    expect(interval.screenshots.length).toBeLessThanOrEqual(5);
    expect(interval.screenshots.length).toBe(4); // two whole two-monitor moments
    expect(interval.screenshots[0]?.activity?.app).toBe('Google Chrome');
    const all = await source.history.listScreenshots(q({ ...day, sampling: 'all', max: 3 }), signal);
    expect(all.screenshots).toHaveLength(3);
    expect(all.matched).toBe(38);
    const one = await source.history.listScreenshots(q({ ...day, sampling: 'activity', max: 1 }), signal);
    expect(one.screenshots).toHaveLength(1);
  });

  it('filters by monitor target', async () => {
    const { source } = open();
    const list = await source.history.listScreenshots(q({ ...day, target: 'manictime:monitor:1' }), signal);
    expect(list.screenshots).toHaveLength(19);
    expect(list.screenshots.every((e) => e.target === 'manictime:monitor:1' && e.monitor === 1)).toBe(true);
  });
});

describe('empty results say why', () => {
  it('RETENTION_OR_PURGED before the oldest screenshot', async () => {
    const { source } = open();
    const list = await source.history.listScreenshots(q({ from: new Date('2024-03-01T00:00:00Z'), to: new Date('2024-03-02T00:00:00Z') }), signal);
    expect(list).toMatchObject({ screenshots: [], reason: 'RETENTION_OR_PURGED' });
    expect(list.remediation).toMatch(/retention/);
  });

  it('UNKNOWN for a gap, NO_MATCH for a target with nothing, CAPTURE_DISABLED after capture stopped', async () => {
    const { source, clock } = open();
    expect((await source.history.listScreenshots(q({ from: new Date('2024-03-30T14:00:00+01:00'), to: new Date('2024-03-30T15:00:00+01:00') }), signal)).reason).toBe('UNKNOWN');
    expect((await source.history.listScreenshots(q({ from: new Date('2024-04-01T09:00:00+02:00'), to: new Date('2024-04-01T10:00:00+02:00'), target: 'manictime:monitor:7' }), signal)).reason).toBe('NO_MATCH');
    clock.now = new Date('2024-04-20T12:00:00Z');
    expect((await source.history.listScreenshots(q({ from: new Date('2024-04-19T00:00:00Z'), to: new Date('2024-04-20T00:00:00Z') }), signal)).reason).toBe('CAPTURE_DISABLED');
  });

  it('lists nothing (SOURCE_UNAVAILABLE) once the folder has gone, even with an index', async () => {
    const { cpSync, renameSync } = await import('node:fs');
    const dir = mkdtempSync(join(base, 'gone-'));
    cpSync(fx.screenshotsDir, join(dir, 'Screenshots'), { recursive: true, verbatimSymlinks: true });
    const { source, clock } = open({ settings: { dataDir: dir } });
    expect((await source.history.listScreenshots(q({ max: 5 }), signal)).screenshots).toHaveLength(5);
    renameSync(join(dir, 'Screenshots'), join(dir, 'Screenshots.unplugged'));
    clock.now = new Date(NOW.getTime() + 10_000);
    expect(await source.history.listScreenshots(q({ max: 5 }), signal)).toMatchObject({ screenshots: [], reason: 'SOURCE_UNAVAILABLE' });
  });

  it('follows settings changes (the dashboard changes manictime.dataDir): the registry rebuilds the source', async () => {
    const dir = mkdtempSync(join(base, 'core-'));
    const module = { ...manictimeModule, create: (ctx: Parameters<typeof manictimeModule.create>[0]) => createManicTimeSource({ settings: ctx.settings(), archive: ctx.archive, indexDir: ctx.dataDir, env: {}, platform: 'linux', now: () => NOW }) };
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ manictime: { dataDir: join(base, 'not-yet') } }));
    const core = await createCore({ dataDir: dir, env: {}, modules: [module] });
    try {
      const list = (): Promise<ScreenshotList> => core.history.listScreenshots('manictime', q(), signal);
      expect((await list()).reason).toBe('SOURCE_UNAVAILABLE');
      core.settings.update({ manictime: { dataDir: fx.dataDir } });
      expect((await list()).matched).toBe(fx.shots.length);
    } finally {
      await core.close();
    }
  });

  it('CAPTURE_DISABLED when the Screenshots folder is empty; SOURCE_UNAVAILABLE when there is none', async () => {
    const empty = mkdtempSync(join(base, 'empty-'));
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(empty, 'Screenshots'));
    const { source } = open({ settings: { dataDir: empty } });
    const list = await source.history.listScreenshots(q(), signal);
    expect(list).toMatchObject({ screenshots: [], reason: 'CAPTURE_DISABLED' });
    expect(list.remediation).toMatch(/Settings → Screenshots/);

    const { source: none } = open({ settings: { dataDir: join(base, 'does-not-exist') } });
    expect((await none.history.listScreenshots(q(), signal)).reason).toBe('SOURCE_UNAVAILABLE');
    const h = await none.health();
    expect(h).toMatchObject({ available: false, degraded: true });
    expect(h.remediation).toMatch(/manictime\.dataDir|screenshotsDir|Screenshots/);
  });
});

describe('reading', () => {
  it('serves the thumbnail for the model and the full image for the human and crops', async () => {
    const { source, catalog } = open();
    const list = await source.history.listScreenshots(q({ from: new Date('2024-03-30T10:00:00+01:00'), to: new Date('2024-03-30T10:00:01+01:00') }), signal);
    const m0 = list.screenshots[0]!;
    const thumb = await catalog.frames.read(m0.ref, 'thumbnail');
    const full = await catalog.frames.read(m0.ref, 'full');
    expect(thumb.format).toBe('jpeg');
    expect(await sharp(thumb.data).metadata()).toMatchObject({ width: 160, height: 100 });
    expect(await sharp(full.data).metadata()).toMatchObject({ width: 320, height: 200 });
    expect(catalog.frames.get(m0.ref)).toMatchObject({ external: true, image: { width: 320, height: 200 }, sourceSize: { width: 320, height: 200 }, origin: { x: 0, y: 0 }, scale: 1, monitor: 0 });
  });

  it('reads v0 PNGs and thumbnail-only captures', async () => {
    const { source, catalog } = open();
    const v0 = (await source.history.listScreenshots(q({ target: 'manictime:desktop' }), signal)).screenshots;
    const png = await catalog.frames.read(v0[0]!.ref, 'full');
    expect(png.format).toBe('png');
    const only = entryFor((await source.history.listScreenshots(q(), signal)).screenshots, shotAt('2024-03-30', '10:34:30', 1))!;
    expect(only.hasThumbnail).toBe(true);
    expect((await catalog.frames.read(only.ref, 'full')).format).toBe('jpeg');
  });

  it('never returns half-written files: empty, no end marker, not a regular file', async () => {
    const { source, catalog } = open();
    const all = (await source.history.listScreenshots(q(), signal)).screenshots;
    const zero = entryFor(all, shotAt('2024-03-30', '10:30:30', 0, 'zero'))!;
    const truncated = entryFor(all, shotAt('2024-03-30', '10:31:30', 0, 'truncated'))!;
    const fifo = entryFor(all, shotAt('2024-03-30', '10:32:30', 0, 'fifo'))!;
    expect((await expectCode(catalog.frames.read(zero.ref, 'full'), 'FILE_UNAVAILABLE')).message).toMatch(/empty/);
    const t = await expectCode(catalog.frames.read(truncated.ref, 'full'), 'FILE_UNAVAILABLE');
    expect(t.message).toMatch(/no end marker/);
    expect(t.hint).toMatch(/try again/);
    expect((await expectCode(catalog.frames.read(fifo.ref, 'full'), 'FILE_UNAVAILABLE')).message).toMatch(/not a regular file/);
  });

  it('waits for a file that is completed while it retries', async () => {
    const { source } = open({ retry: { attempts: 5, baseDelayMs: 40 } });
    const shot = await addScreenshot(fx.screenshotsDir, { date: '2024-04-01', time: '12:30:00', offsetMinutes: 120, width: 320, height: 200, id: 9100, monitor: 0 });
    const whole = readFileSync(shot.full);
    writeFileSync(shot.full, whole.subarray(0, whole.length - 200));
    try {
      const rec = { source: 'manictime', state: { day: '2024-04-01', dir: '', full: shot.full.split('/').at(-1) } } as unknown as FrameRecord;
      const reading = source.history.read(rec, 'full');
      setTimeout(() => appendFileSync(shot.full, whole.subarray(whole.length - 200)), 30);
      const got = await reading;
      expect(got.data.equals(whole)).toBe(true);
    } finally {
      unlinkSync(shot.full);
      unlinkSync(shot.thumb);
    }
  });

  it('retries a locked file, then gives up with FILE_UNAVAILABLE', async () => {
    const locked = new Map<string, number>();
    const { source, catalog } = open({ io: lockingIo(locked), retry: { attempts: 3, baseDelayMs: 5 } });
    const list = await source.history.listScreenshots(q({ from: new Date('2024-04-01T09:00:00+02:00'), to: new Date('2024-04-01T09:00:01+02:00') }), signal);
    const e = list.screenshots[0]!;
    const path = shotAt('2024-04-01', '09:00:00', 0).full!;
    locked.set(path, 2); // held for two attempts, then released
    expect((await catalog.frames.read(e.ref, 'full')).format).toBe('jpeg');
    expect(locked.get(path)).toBe(0);
    locked.set(path, Number.POSITIVE_INFINITY);
    const err = await expectCode(catalog.frames.read(e.ref, 'full'), 'FILE_UNAVAILABLE');
    expect(err.message).toMatch(/EBUSY/);
    expect(err.details).toMatchObject({ code: 'EBUSY', attempts: 3 });
  });

  it('falls back to the full image when the thumbnail is locked', async () => {
    const locked = new Map<string, number>();
    const { source } = open({ io: lockingIo(locked), retry: { attempts: 2, baseDelayMs: 1 } });
    const shot = shotAt('2024-04-01', '09:00:00', 0);
    locked.set(shot.thumb!, Number.POSITIVE_INFINITY);
    const rec = { source: 'manictime', state: { day: '2024-04-01', dir: '', full: shot.full!.split('/').at(-1), thumb: shot.thumb!.split('/').at(-1) } } as unknown as FrameRecord;
    const got = await source.history.read(rec, 'thumbnail');
    expect(await sharp(got.data).metadata()).toMatchObject({ width: 320 });
  });
});

describe('security: refs are the only handle', () => {
  const name = (s: FixtureShot): string => s.full!.split('/').at(-1)!;
  const rec = (state: Record<string, unknown>, source = 'manictime'): FrameRecord => ({ source, state }) as unknown as FrameRecord;

  it('refuses a screenshot-named symlink that points out of the root', async () => {
    const { source, catalog } = open();
    const e = entryFor((await source.history.listScreenshots(q(), signal)).screenshots, shotAt('2024-03-30', '10:33:30', 0, 'symlinkOut'))!;
    expect((await expectCode(catalog.frames.read(e.ref, 'full'), 'PATH_REFUSED')).message).toMatch(/outside/);
  });

  it.each([
    ['.. as the day', { day: '..', dir: '', full: 'passwd.jpg' }],
    ['.. in the folder', { day: '2024-03-30', dir: '../..', full: 'secret.jpg' }],
    ['.. in the name', { day: '2024-03-30', dir: '', full: '../../../outside/secret.jpg' }],
    ['an absolute name', { day: '2024-03-30', dir: '', full: '/etc/passwd' }],
    ['backslashes', { day: '2024-03-30', dir: '', full: '..\\..\\outside\\secret.jpg' }],
    ['percent-encoding', { day: '2024-03-30', dir: '', full: '%2e%2e%2f%2e%2e%2foutside%2fsecret.jpg' }],
    ['double encoding', { day: '%252e%252e', dir: '', full: 'secret.jpg' }],
    ['a NUL byte', { day: '2024-03-30', dir: '', full: 'a.jpg\0.txt' }],
    ['a stream suffix', { day: '2024-03-30', dir: '', full: 'a.jpg:evil' }],
    ['a non-image file', { day: '2024-03-30', dir: '', full: 'notes.txt' }],
    ['desktop.ini', { day: '2024-03-30', dir: '', full: 'desktop.ini' }],
    ['a symlinked folder out of the root', { day: '2024-03-30', dir: 'linked', full: '2024-03-30_10-50-00_01-00_320_200_1999_0.jpg' }],
    ['a day that is a number', { day: 42, dir: '', full: 'a.jpg' }],
  ])('refuses %s', async (_label, state) => {
    const { source } = open();
    await source.history.refresh({ signal });
    await expectCode(source.history.read(rec(state), 'full'), 'PATH_REFUSED');
  });

  it('refuses a record of another source', async () => {
    const { source } = open();
    await expectCode(source.history.read(rec({ day: '2024-04-01', dir: '', full: name(shotAt('2024-04-01', '09:00:00', 0)) }, 'desktop'), 'full'), 'PATH_REFUSED');
  });

  it('refuses crafted catalog rows (a tampered catalog), whatever their absolute paths say', async () => {
    const { source, catalog } = open();
    await source.history.refresh({ signal });
    catalog.archive.upsertArchiveFrames([
      {
        ref: 'mt_evil',
        source: 'manictime',
        target: 'manictime:monitor:0',
        capturedAt: '2024-03-30T10:00:00+01:00',
        image: { width: 320, height: 200 },
        format: 'jpeg',
        imagePath: join(fx.outsideDir, 'secret.jpg'),
        state: { day: '2024-03-30', dir: 'linked', full: '2024-03-30_10-50-00_01-00_320_200_1999_0.jpg' },
      },
    ]);
    await expectCode(catalog.frames.read('mt_evil', 'full'), 'PATH_REFUSED');
  });

  it('follows a symlinked screenshots folder set in settings, but nothing beyond it', async () => {
    const link = join(base, 'shots-link');
    symlinkSync(fx.screenshotsDir, link);
    const { source, catalog } = open({ settings: { dataDir: fx.dataDir, screenshotsDir: link } });
    const list = await source.history.listScreenshots(q({ from: new Date('2024-04-01T09:00:00+02:00'), to: new Date('2024-04-01T09:00:01+02:00') }), signal);
    expect((await catalog.frames.read(list.screenshots[0]!.ref, 'full')).format).toBe('jpeg');
    const all = (await source.history.listScreenshots(q(), signal)).screenshots;
    const out = entryFor(all, shotAt('2024-03-30', '10:33:30', 0, 'symlinkOut'))!;
    await expectCode(catalog.frames.read(out.ref, 'full'), 'PATH_REFUSED');
  });
});

describe('health', () => {
  it('reports the onboarding checks on a healthy archive', async () => {
    const { source } = open();
    const h = await source.health();
    expect(h).toMatchObject({ source: 'manictime', available: true });
    const byId = Object.fromEntries((h.checks ?? []).map((c) => [c.id, c.status]));
    expect(byId).toEqual({
      'manictime.folder': 'ok',
      'manictime.screenshots': 'ok',
      'manictime.capture': 'ok',
      'manictime.retention': 'ok',
      'manictime.activity': 'ok',
      'manictime.names': 'ok',
    });
    expect(h.degraded).toBe(false);
  });

  it('is degraded, with a reason, when the database is unreadable; listing still works', async () => {
    const dir = mkdtempSync(join(base, 'baddb-'));
    const { cpSync } = await import('node:fs');
    cpSync(fx.screenshotsDir, join(dir, 'Screenshots'), { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(dir, 'ManicTimeReports.db'), 'this is not a database');
    const { source } = open({ settings: { dataDir: dir } });
    const h = await source.health();
    expect(h.degraded).toBe(true);
    expect(h.checks?.find((c) => c.id === 'manictime.activity')?.status).toBe('warning');
    const list = await source.history.listScreenshots(q({ from: new Date('2024-04-01T00:00:00+02:00'), to: new Date('2024-04-02T00:00:00+02:00'), sampling: 'activity', max: 20 }), signal);
    expect(list.screenshots.length).toBeGreaterThan(0);
    expect(list.warnings?.join(' ')).toMatch(/fell back/);
    expect(list.warnings?.join(' ')).toMatch(/activity data unavailable|not a database|cannot read/);
  });

  it('keeps listing while ManicTime holds the database (SQLITE_BUSY), then recovers', async () => {
    const Database = (await import('better-sqlite3')).default;
    const { source } = open();
    const day = { from: new Date('2024-04-01T00:00:00+02:00'), to: new Date('2024-04-02T00:00:00+02:00'), sampling: 'activity' as const, max: 20 };
    const writer = new Database(fx.dbPath);
    try {
      writer.exec('BEGIN EXCLUSIVE');
      const busy = await source.history.listScreenshots(q(day), signal);
      expect(busy.screenshots.length).toBeGreaterThan(0);
      expect(busy.warnings?.join(' ')).toMatch(/SQLITE_BUSY/);
      writer.exec('COMMIT');
      const ok = await source.history.listScreenshots(q(day), signal);
      expect(ok.warnings).toBeUndefined();
      expect(ok.screenshots).toHaveLength(10);
    } finally {
      if (writer.inTransaction) writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('is degraded when most names are not recognised (a new ManicTime naming)', async () => {
    const dir = mkdtempSync(join(base, 'newnames-'));
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'Screenshots', '2024-04-01'), { recursive: true });
    for (let i = 0; i < 30; i++) writeFileSync(join(dir, 'Screenshots', '2024-04-01', `2024-04-01T09-00-${String(i).padStart(2, '0')}Z_m0_${i}.webp`), 'x');
    const { source } = open({ settings: { dataDir: dir } });
    const h = await source.health();
    expect(h.degraded).toBe(true);
    expect(h.checks?.find((c) => c.id === 'manictime.names')).toMatchObject({ status: 'warning' });
    const list = await source.history.listScreenshots(q(), signal);
    expect(list.reason).toBe('CAPTURE_DISABLED');
    expect(list.warnings?.join(' ')).toMatch(/30 of 30 files/);
  });

  it('warns when retention is the 3-day default', async () => {
    const dir = mkdtempSync(join(base, 'short-'));
    await addScreenshot(join(dir, 'Screenshots'), { date: '2024-04-01', time: '09:00:00', offsetMinutes: 120, width: 64, height: 40, id: 1, monitor: 0 });
    await addScreenshot(join(dir, 'Screenshots'), { date: '2024-04-02', time: '09:00:00', offsetMinutes: 120, width: 64, height: 40, id: 2, monitor: 0 });
    const { source } = open({ settings: { dataDir: dir } });
    const h = await source.health();
    expect(h.checks?.find((c) => c.id === 'manictime.retention')).toMatchObject({ status: 'warning' });
    expect(h.checks?.find((c) => c.id === 'manictime.retention')?.fix).toMatch(/3 days by default/);
  });
});
