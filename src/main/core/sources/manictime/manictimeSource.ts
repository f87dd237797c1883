/**
 * The ManicTime archive as a read-only history source.
 *
 * Index: day folders → packed day records in a table of our own (see indexStore.ts),
 * rescanned only when their fingerprint changes. Listing: window → candidates from
 * the day records → sampling (activity transitions, interval, all) → entries. Only
 * the screenshots a listing returns are written to the shared catalog (deterministic
 * refs, so the same file always gets the same ref); get_screenshot and
 * crop_screenshot then read them through `readFrame`, which resolves the file from
 * the row's relative parts against the configured root and refuses anything else.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { homedir as osHomedir } from 'node:os';
import { join } from 'node:path';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import type { HealthCheck, ScreenshotEntry, ScreenshotList, SourceHealth } from '../../../../shared/frame.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import { deterministicRef } from '../../catalog/refs.ts';
import type { ArchiveFrame, FrameRecord, FrameVariant } from '../../catalog/types.ts';
import type { Settings } from '../../settings.ts';
import type { ArchivePageQuery, ArchiveProvider, ProgressReport, ScreenshotQuery } from '../source.ts';
import { createReportsDbProvider, noActivities, type ActivityProvider } from './activities.ts';
import { locateManicTime, type ManicTimeLocation } from './dataDir.ts';
import { decodeColumns, fileNamesOf, shotAt, wallClockOf, type DayColumns, type DaySummary, type IndexedShot } from './dayRecord.ts';
import { capturedAtIso, isDayFolderName, parseScreenshotName } from './filename.ts';
import { createSqliteStore, type IndexStore } from './indexStore.ts';
import { defaultIo, readArchiveFile, type ArchiveIo, type ArchiveRoot, type RetryPolicy } from './reader.ts';
import { DEFAULT_RETENTION_DAYS, REMEDIATION_CAPTURE, REMEDIATION_RETENTION, SETTINGS_PATH, explainEmpty } from './reasons.ts';
import { capMoments, sampleAll, sampleInterval, sampleTransitions, segmentAt, toMoments, type ActivitySegment } from './sampling.ts';
import { refreshIndex, type ScanStats } from './scanner.ts';

export const SOURCE = 'manictime' as const;
const REF_PREFIX = 'mt';
/** A full fingerprint pass over every day folder at most this often; lighter checks in between. */
const FULL_CHECK_MS = 60_000;
/** A listing re-checks the folders it reads at most this often. */
const LIGHT_CHECK_MS = 2_000;
const DAY_CACHE = 32;
/** Above this share of unrecognised names (and at least UNKNOWN_MIN), the name format is probably new. */
const UNKNOWN_RATIO = 0.1;
const UNKNOWN_MIN = 20;

export interface ManicTimeSourceOptions {
  /** The `manictime` settings, or a getter so changes made in the dashboard apply without a restart. */
  settings: Settings['manictime'] | (() => Settings['manictime']);
  catalog: Catalog;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  now?: () => Date;
  /** Tests: home directory and existence check for locating the data dir. */
  homedir?: string;
  exists?: (path: string) => boolean;
  /** Tests: file access for the reader (e.g. an open that fails like a locked file). */
  io?: Partial<ArchiveIo>;
  retry?: RetryPolicy;
  /** Replace the ManicTimeReports.db reader (tests, or no database at all). */
  activities?: ActivityProvider;
  /** Where day records live; default `manictime-index.sqlite` beside the catalog. */
  store?: IndexStore;
}

/** What the catalog row of an archive frame keeps so the reader can find its files again. */
interface FrameState {
  [key: string]: unknown;
  day: string;
  /** Folder inside the day folder ('' = the day folder). */
  dir: string;
  full?: string;
  thumb?: string;
  local: string;
}

interface Candidate {
  utcMs: number;
  day: string;
  i: number;
  cols: DayColumns;
}

export interface ManicTimeSource extends ArchiveProvider {
  /** Figures of the last scan, full or light (tests, health). */
  lastScan(): ScanStats | undefined;
  location(): ManicTimeLocation;
  /** The catalog's external reader for this source. */
  readFrame(rec: FrameRecord, variant: FrameVariant, signal?: AbortSignal): Promise<{ data: Buffer; format: 'jpeg' | 'png' }>;
}

export function targetOf(monitor: number | undefined): string {
  return monitor === undefined ? `${SOURCE}:desktop` : `${SOURCE}:monitor:${monitor}`;
}

/** A capture's identity (date, time, offset, id, monitor) → its ref, the same on every run. */
export function refOf(shot: Pick<IndexedShot, 'utcMs' | 'offsetMinutes' | 'id' | 'monitor'>): string {
  const w = wallClockOf(shot);
  return deterministicRef(REF_PREFIX, `${w.date}_${w.time}_${shot.offsetMinutes}_${shot.id}_${shot.monitor ?? ''}`);
}

/** A file name as stored in a frame's state: one plain path segment, nothing else. */
function plainSegment(s: unknown): s is string {
  return typeof s === 'string' && s.length > 0 && s.length < 256 && !/[\\/\0%:]/.test(s) && s !== '.' && s !== '..';
}

function plainDir(s: unknown): s is string {
  return s === '' || (typeof s === 'string' && s.split('/').every(plainSegment));
}

export function createManicTimeSource(options: ManicTimeSourceOptions): ManicTimeSource {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const now = options.now ?? (() => new Date());
  const exists = options.exists ?? ((p: string) => existsSync(p));
  const io: ArchiveIo = { ...defaultIo, ...options.io };
  const catalog = options.catalog;

  const opened = options.store ? { store: options.store, close: () => undefined } : openStore(catalog);
  const store = opened.store;
  const summaries = new Map<string, DaySummary>();
  let loaded = false;
  let lastFullCheck = 0;
  let lastCheck = 0;
  let lastStats: ScanStats | undefined;
  let unknownSamples: string[] = [];
  let inflight: Promise<void> | undefined;
  let roots: ArchiveRoot[] = [];
  let folderFound = false;
  let indexedRoot: string | undefined;
  const dayCache = new Map<string, { fingerprint: string; cols: DayColumns }>();

  let activityProvider: ActivityProvider | undefined = options.activities;
  let activityPath: string | undefined;

  const settings = typeof options.settings === 'function' ? options.settings : () => options.settings as Settings['manictime'];
  const locate = (): ManicTimeLocation => locateManicTime({ settings: settings(), env, platform, homedir: options.homedir ?? osHomedir(), exists });

  const activities = (loc: ManicTimeLocation): ActivityProvider => {
    if (options.activities) return options.activities;
    if (!loc.dbPath || !exists(loc.dbPath)) {
      activityProvider?.close();
      activityProvider = undefined;
      activityPath = undefined;
      return noActivities(loc.dbPath ? `${loc.dbPath} not found` : 'ManicTime data folder not found');
    }
    if (!activityProvider || activityPath !== loc.dbPath) {
      activityProvider?.close();
      activityProvider = createReportsDbProvider(loc.dbPath);
      activityPath = loc.dbPath;
    }
    return activityProvider;
  };

  const updateRoots = (loc: ManicTimeLocation): string | undefined => {
    const dir = loc.screenshotsDir;
    folderFound = Boolean(dir && statSync(dir, { throwIfNoEntry: false })?.isDirectory());
    if (!dir || !folderFound) {
      roots = [];
      return undefined;
    }
    let real = dir;
    try {
      real = realpathSync(dir);
    } catch {
      // Unresolvable: keep the lexical path; reads then fail the realpath check.
    }
    roots = [{ path: dir, real }];
    return real;
  };

  const loadSummaries = (): void => {
    if (loaded) return;
    for (const s of store.summaries()) summaries.set(s.day, s);
    loaded = true;
  };

  /** full: fingerprint every day folder; light: only new/removed folders, hot ones and `days`. */
  const doRefresh = async (mode: 'full' | 'light', signal: AbortSignal, onProgress?: (p: ProgressReport) => void, days?: Set<string>): Promise<void> => {
    const loc = locate();
    const root = updateRoots(loc);
    loadSummaries();
    const t = now().getTime();
    if (!root) {
      lastCheck = t;
      return;
    }
    // Another folder (a settings change): every day must be compared, not just the recent ones.
    if (root !== indexedRoot) mode = 'full';
    indexedRoot = root;
    let onlyDays: Set<string> | undefined;
    if (mode === 'light') {
      onlyDays = new Set(days ?? []);
      for (const s of summaries.values()) if (s.hot) onlyDays.add(s.day);
      // ManicTime writes into the newest folders; check the last two whatever the window.
      const newest = [...summaries.keys()].sort().slice(-2);
      for (const d of newest) onlyDays.add(d);
    }
    const before = new Map(summaries);
    // Hot folders are judged against the real clock: mtimes are real, `now` may be injected.
    const stats = await refreshIndex({ root, store, summaries, now: () => Date.now(), signal, onProgress, onlyDays });
    if (stats.scannedDays > 0 || stats.removedDays > 0) {
      for (const d of dayCache.keys()) if (summaries.get(d)?.fingerprint !== dayCache.get(d)?.fingerprint) dayCache.delete(d);
      syncCatalog(before, stats.scanned, stats.removed);
    }
    lastStats = stats;
    if (stats.unknownSamples.length) unknownSamples = stats.unknownSamples;
    lastCheck = t;
    if (mode === 'full') lastFullCheck = t;
  };

  /**
   * Catalog rows (the screenshots clients were given) whose files ManicTime has
   * deleted since go too: a removed day folder drops all of its rows, a rescanned
   * one those no longer in it.
   */
  const syncCatalog = (before: Map<string, DaySummary>, scanned: readonly string[], removed: readonly string[]): void => {
    if (catalog.countFrames({ source: SOURCE, external: true }) === 0) return;
    for (const day of removed) catalog.replaceArchiveDay(day, []);
    for (const day of scanned) {
      const prev = before.get(day);
      if (!prev || prev.count === 0) continue;
      const cur = summaries.get(day);
      const fromMs = Math.min(prev.firstMs, cur?.count ? cur.firstMs : prev.firstMs);
      const toMs = Math.max(prev.lastMs, cur?.count ? cur.lastMs : prev.lastMs) + 1000;
      const rows = catalog
        .listFrames({ source: SOURCE, external: true, from: new Date(fromMs), to: new Date(toMs), limit: 100_000, order: 'asc' })
        .filter((f) => f.state.day === day);
      if (rows.length === 0) continue;
      const cols = columns(day);
      const present = new Map<string, number>();
      for (let i = 0; cols && i < cols.n; i++) present.set(refOf(shotAt(cols, i)), i);
      const keep: ArchiveFrame[] = [];
      for (const r of rows) {
        const i = present.get(r.ref);
        if (cols && i !== undefined) keep.push(toCatalogRow(shotAt(cols, i), day));
      }
      if (keep.length !== rows.length) catalog.replaceArchiveDay(day, keep);
    }
  };

  const totalUnknown = (): number => [...summaries.values()].reduce((a, s) => a + s.unknown, 0);
  const totalFiles = (): number => [...summaries.values()].reduce((a, s) => a + s.files, 0);

  const run = (mode: 'full' | 'light', signal: AbortSignal, onProgress?: (p: ProgressReport) => void, days?: Set<string>): Promise<void> => {
    // One scan at a time; a caller arriving during a scan waits for it.
    if (inflight) return inflight;
    const p = doRefresh(mode, signal, onProgress, days).finally(() => {
      inflight = undefined;
    });
    inflight = p;
    return p;
  };

  const refresh: ArchiveProvider['refresh'] = async ({ signal, onProgress }) => {
    const t = now().getTime();
    const mode = !loaded || lastFullCheck === 0 || t - lastFullCheck >= FULL_CHECK_MS ? 'full' : 'light';
    await run(mode, signal, onProgress);
  };

  const columns = (day: string): DayColumns | undefined => {
    const s = summaries.get(day);
    if (!s) return undefined;
    const cached = dayCache.get(day);
    if (cached && cached.fingerprint === s.fingerprint) {
      // Most recently used last.
      dayCache.delete(day);
      dayCache.set(day, cached);
      return cached.cols;
    }
    const buf = store.load(day);
    if (!buf) return undefined;
    const cols = decodeColumns(buf);
    dayCache.set(day, { fingerprint: s.fingerprint, cols });
    while (dayCache.size > DAY_CACHE) dayCache.delete(dayCache.keys().next().value as string);
    return cols;
  };

  const daysOverlapping = (fromMs: number, toMs: number): DaySummary[] =>
    [...summaries.values()].filter((s) => s.count > 0 && s.lastMs >= fromMs && s.firstMs < toMs).sort((a, b) => a.firstMs - b.firstMs);

  const archiveRange = (): { total: number; firstMs: number; lastMs: number } => {
    let total = 0;
    let firstMs = Number.POSITIVE_INFINITY;
    let lastMs = Number.NEGATIVE_INFINITY;
    for (const s of summaries.values()) {
      if (s.count === 0) continue;
      total += s.count;
      if (s.firstMs < firstMs) firstMs = s.firstMs;
      if (s.lastMs > lastMs) lastMs = s.lastMs;
    }
    return { total, firstMs, lastMs };
  };

  const monitorFilter = (target: string | undefined): number | null | undefined => {
    // undefined: no filter; null: matches nothing; -1: the v0 whole-desktop target.
    if (!target) return undefined;
    if (target === `${SOURCE}:desktop`) return -1;
    const m = /^manictime:monitor:(\d{1,4})$/.exec(target);
    return m ? Number(m[1]) : null;
  };

  const toCatalogRow = (shot: IndexedShot, day: string): ArchiveFrame & { state: FrameState } => {
    const names = fileNamesOf(shot);
    const root = roots[0]?.path ?? '';
    const dirParts = shot.subdir ? shot.subdir.split('/') : [];
    const w = wallClockOf(shot);
    const state: FrameState = { day, dir: shot.subdir, local: `${w.date} ${w.time}` };
    if (names.full) state.full = names.full;
    if (names.thumb) state.thumb = names.thumb;
    const row: ArchiveFrame & { state: FrameState } = {
      ref: refOf(shot),
      source: SOURCE,
      target: targetOf(shot.monitor),
      capturedAt: capturedAtIso({ ...w, offsetMinutes: shot.offsetMinutes }),
      image: { width: shot.width, height: shot.height },
      sourceSize: { width: shot.width, height: shot.height },
      origin: { x: 0, y: 0 },
      scale: 1,
      format: shot.version === 'v0' ? 'png' : 'jpeg',
      imagePath: join(root, day, ...dirParts, (names.full ?? names.thumb) as string),
      state,
      day,
    };
    if (shot.monitor !== undefined) row.monitor = shot.monitor;
    if (names.thumb) row.thumbnailPath = join(root, day, ...dirParts, names.thumb);
    return row;
  };

  const readFrame: ManicTimeSource['readFrame'] = async (rec, variant, signal) => {
    const st = rec.state as Partial<FrameState>;
    if (rec.source !== SOURCE || !plainSegment(st.day) || !isDayFolderName(st.day) || !plainDir(st.dir ?? '')) {
      throw new SightlineError('PATH_REFUSED', 'This frame does not name a ManicTime archive file.', 'Use a ref from list_screenshots with source "manictime".');
    }
    // Only files named like ManicTime screenshots are ever opened, whatever a (tampered) catalog row says.
    for (const n of [st.full, st.thumb]) {
      if (n !== undefined && (!plainSegment(n) || !parseScreenshotName(n))) {
        throw new SightlineError('PATH_REFUSED', 'Refused to read an archive path (not a ManicTime screenshot file name).', 'Use a ref from list_screenshots.');
      }
    }
    if (roots.length === 0) updateRoots(locate());
    const root = roots[0];
    if (!root) {
      throw new SightlineError('SOURCE_UNAVAILABLE', 'The ManicTime Screenshots folder is not available.', 'Check manictime.dataDir / manictime.screenshotsDir and sightline://health.');
    }
    const dirParts = st.dir ? st.dir.split('/') : [];
    const order = variant === 'thumbnail' ? [st.thumb, st.full] : [st.full, st.thumb];
    let lastError: unknown;
    for (const name of order) {
      if (!name) continue;
      try {
        return await readArchiveFile(join(root.path, st.day, ...dirParts, name), roots, { io, retry: options.retry, signal });
      } catch (e) {
        // A refused path is never retried with the other variant; an unavailable thumbnail falls back to the full image.
        if (!isSightlineError(e) || e.code !== 'FILE_UNAVAILABLE' || variant !== 'thumbnail') throw e;
        lastError = e;
      }
    }
    throw lastError ?? new SightlineError('FILE_UNAVAILABLE', 'This archive frame has no file.', 'List the window again with list_screenshots.');
  };

  const nameWarnings = (): string[] => {
    const unknown = totalUnknown();
    const files = totalFiles();
    if (unknown >= UNKNOWN_MIN && unknown / Math.max(1, files) > UNKNOWN_RATIO) {
      return [`${unknown} of ${files} files in the ManicTime Screenshots folder have names Sightline does not recognise (a newer ManicTime naming?): they are not listed.`];
    }
    return [];
  };

  const listScreenshots: ArchiveProvider['listScreenshots'] = async (q, signal) => {
    const loc = locate();
    const fromMs = q.from ? q.from.getTime() : Number.NEGATIVE_INFINITY;
    const toMs = q.to ? q.to.getTime() : Number.POSITIVE_INFINITY;
    const max = Math.max(0, Math.floor(q.max));
    if (q.pinned) return listPinned(q);
    const t = now().getTime();
    if (!loaded || lastFullCheck === 0) await run('full', signal);
    else if (t - lastCheck >= LIGHT_CHECK_MS) {
      const days = new Set(daysOverlapping(fromMs, toMs).map((s) => s.day));
      await run('light', signal, undefined, days);
    }
    if (!folderFound) {
      // The folder went away (an unplugged drive, a changed setting): list nothing rather than files that cannot be read.
      return { screenshots: [], matched: 0, ...explainEmpty({ folderFound, folder: loc.screenshotsDir, total: 0, firstMs: 0, lastMs: 0, inWindowAnyTarget: 0, target: q.target, targetsInWindow: [] }, { fromMs, toMs }, t) };
    }
    const act = activities(loc);
    const warnings = nameWarnings();
    const monitor = monitorFilter(q.target);

    // Candidates in [from, to), any target (for the NO_MATCH explanation) counted on the side.
    const candidates: Candidate[] = [];
    let anyTarget = 0;
    const targetsInWindow = new Set<string>();
    const overlapping = daysOverlapping(fromMs, toMs);
    for (const s of overlapping) {
      const cols = columns(s.day);
      if (!cols) continue;
      for (let i = 0; i < cols.n; i++) {
        const utcMs = (cols.utcSec[i] as number) * 1000;
        if (utcMs < fromMs || utcMs >= toMs) continue;
        anyTarget++;
        const m = cols.monitor[i] as number;
        if (monitor !== undefined && m !== monitor) {
          if (targetsInWindow.size < 16) targetsInWindow.add(targetOf(m < 0 ? undefined : m));
          continue;
        }
        candidates.push({ utcMs, day: s.day, i, cols });
      }
    }
    if (overlapping.length > 1) {
      candidates.sort((a, b) => a.utcMs - b.utcMs || (a.cols.monitor[a.i] as number) - (b.cols.monitor[b.i] as number) || (a.cols.id[a.i] as number) - (b.cols.id[b.i] as number));
    }

    if (candidates.length === 0 || max === 0) {
      const range = archiveRange();
      const out: ScreenshotList = { screenshots: [], matched: candidates.length };
      if (candidates.length === 0) {
        Object.assign(
          out,
          explainEmpty(
            { folderFound, folder: loc.screenshotsDir, ...range, inWindowAnyTarget: anyTarget, target: q.target, targetsInWindow: [...targetsInWindow] },
            { fromMs, toMs },
            t,
          ),
        );
      }
      if (warnings.length) out.warnings = warnings;
      return out;
    }

    const moments = toMoments(candidates);
    const first = candidates[0] as Candidate;
    const last = candidates[candidates.length - 1] as Candidate;
    let picked: Candidate[];
    let segments: ActivitySegment[] | null = null;
    if (q.sampling === 'all') picked = sampleAll(moments, max);
    else if (q.sampling === 'interval') picked = sampleInterval(moments, q.intervalSeconds * 1000, Number.isFinite(fromMs) ? fromMs : first.utcMs, max);
    else {
      const timeline = await act.segments(first.utcMs, last.utcMs);
      segments = timeline?.segments ?? null;
      const transitions = timeline?.complete && segments?.length ? sampleTransitions(moments, segments, max) : [];
      if (transitions.length) picked = transitions;
      else {
        const why =
          timeline === null
            ? (act.status().detail ?? 'no ManicTimeReports.db')
            : !timeline.complete
              ? 'the window holds too many activities; narrow from/to'
              : 'no activity recorded in this window';
        warnings.push(`activity sampling fell back to one screenshot per ${q.intervalSeconds} s: ${why}.`);
        picked = sampleInterval(moments, q.intervalSeconds * 1000, Number.isFinite(fromMs) ? fromMs : first.utcMs, max);
      }
    }
    if (picked.length > max) picked = capMoments([picked], max);

    // Activity labels for what is returned (one query when sampling did not already read them).
    if (segments === null && picked.length && act.status().state !== 'none') {
      segments = (await act.segments((picked[0] as Candidate).utcMs, (picked[picked.length - 1] as Candidate).utcMs))?.segments ?? null;
    }
    const rows: Array<ArchiveFrame & { state: FrameState }> = [];
    const screenshots: ScreenshotEntry[] = [];
    for (const c of picked) {
      const shot = shotAt(c.cols, c.i);
      const row = toCatalogRow(shot, c.day);
      rows.push(row);
      const e: ScreenshotEntry = {
        ref: row.ref,
        source: SOURCE,
        target: row.target,
        capturedAt: row.capturedAt,
        displayLocalTime: row.state.local,
        width: shot.width,
        height: shot.height,
        hasThumbnail: shot.hasThumb,
      };
      if (shot.monitor !== undefined) e.monitor = shot.monitor;
      const seg = segments ? segmentAt(segments, shot.utcMs) : undefined;
      if (seg?.app !== undefined) e.activity = seg.document !== undefined ? { app: seg.app, document: seg.document } : { app: seg.app };
      else if (seg?.document !== undefined) e.activity = { app: 'unknown', document: seg.document };
      screenshots.push(e);
    }
    const as = act.status();
    if (as.state !== 'ok' && as.state !== 'none') warnings.push(`activity data unavailable (${as.detail ?? as.state}).`);
    // Only what a client is given becomes a catalog row (and so a ref it can use).
    catalog.upsertArchiveFrames(rows);
    for (const e of screenshots) {
      if (catalog.getFrame(e.ref)?.pinned) e.pinned = true;
    }
    const out: ScreenshotList = { screenshots, matched: candidates.length };
    if (warnings.length) out.warnings = warnings;
    return out;
  };

  /** Newest first through the packed day records: whole days are skipped by their counts. */
  const page = (q: ArchivePageQuery): { refs: string[]; total: number } => {
    const beforeMs = q.before?.getTime() ?? Number.POSITIVE_INFINITY;
    const monitor = monitorFilter(q.target);
    if (monitor === null) return { refs: [], total: 0 };
    const days = [...summaries.values()].filter((d) => d.count > 0 && d.firstMs < beforeMs).sort((a, b) => b.lastMs - a.lastMs);
    // Indices of a day's screenshots before the anchor (and on the monitor), newest first.
    const pick = (d: DaySummary): { cols: DayColumns; idx: number[] } | undefined => {
      const cols = columns(d.day);
      if (!cols) return undefined;
      const idx: number[] = [];
      for (let i = 0; i < cols.n; i++) {
        if ((cols.utcSec[i] as number) * 1000 >= beforeMs) continue;
        if (monitor !== undefined && (cols.monitor[i] as number) !== monitor) continue;
        idx.push(i);
      }
      idx.sort((a, b) => (cols.utcSec[b] as number) - (cols.utcSec[a] as number) || (cols.id[b] as number) - (cols.id[a] as number));
      return { cols, idx };
    };
    // Whole days need no decoding to be counted unless a monitor filter or the anchor cuts them.
    const exact = (d: DaySummary): boolean => monitor !== undefined || d.lastMs >= beforeMs;
    let total = 0;
    for (const d of days) total += exact(d) ? (pick(d)?.idx.length ?? 0) : d.count;
    const rows: ArchiveFrame[] = [];
    let skip = q.offset;
    for (const d of days) {
      if (rows.length >= q.limit) break;
      if (!exact(d) && skip >= d.count) {
        skip -= d.count;
        continue;
      }
      const got = pick(d);
      if (!got) continue;
      for (const i of got.idx) {
        if (skip > 0) {
          skip--;
          continue;
        }
        if (rows.length >= q.limit) break;
        rows.push(toCatalogRow(shotAt(got.cols, i), d.day));
      }
    }
    catalog.upsertArchiveFrames(rows);
    return { refs: rows.map((r) => r.ref), total };
  };

  const listPinned = (q: ScreenshotQuery): ScreenshotList => {
    const max = Math.max(0, Math.floor(q.max));
    const frames = catalog.listFrames({ source: SOURCE, target: q.target, from: q.from, to: q.to, pinned: true, limit: Math.max(1, max), order: 'asc' }).slice(0, max);
    const screenshots = frames.map((f): ScreenshotEntry => {
      const st = f.state as Partial<FrameState>;
      const e: ScreenshotEntry = {
        ref: f.ref,
        source: SOURCE,
        target: f.target,
        capturedAt: f.capturedAt,
        displayLocalTime: typeof st.local === 'string' ? st.local : f.capturedAt.slice(0, 19).replace('T', ' '),
        width: f.image.width,
        height: f.image.height,
        hasThumbnail: typeof st.thumb === 'string',
        pinned: true,
      };
      if (f.monitor !== undefined && f.monitor !== null) e.monitor = f.monitor;
      return e;
    });
    if (screenshots.length) return { screenshots, matched: screenshots.length };
    return { screenshots, matched: 0, reason: 'NO_MATCH', remediation: 'No ManicTime screenshot is pinned in this window. The user pins frames in the dashboard ("Pin for agent").' };
  };

  const health = async (): Promise<SourceHealth> => {
    try {
      if (!loaded || lastFullCheck === 0) await run('full', new AbortController().signal);
    } catch {
      // Reported below from what is known.
    }
    const loc = locate();
    if (!folderFound) updateRoots(loc);
    const act = activities(loc);
    const range = archiveRange();
    const nowMs = now().getTime();
    const checks: HealthCheck[] = [];
    const looked = loc.candidates.map((c) => c.path).join(', ');

    checks.push(
      loc.dataDirExists
        ? { id: 'manictime.folder', label: 'ManicTime data folder found', status: 'ok', detail: `${loc.dataDir} (${loc.origin})` }
        : {
            id: 'manictime.folder',
            label: 'ManicTime data folder found',
            status: loc.screenshotsDirFromSettings && folderFound ? 'warning' : 'error',
            detail: `not found (looked in ${looked || 'no candidate'})`,
            fix: 'Install ManicTime, or set manictime.dataDir (or the MANICTIME_DATA_DIR environment variable) to its data folder.',
          },
    );
    checks.push(
      folderFound
        ? { id: 'manictime.screenshots', label: 'Screenshots folder found', status: 'ok', detail: loc.screenshotsDir }
        : {
            id: 'manictime.screenshots',
            label: 'Screenshots folder found',
            status: 'error',
            detail: `${loc.screenshotsDir ?? 'no data folder'} does not exist`,
            fix: `${REMEDIATION_CAPTURE} If ManicTime keeps screenshots elsewhere, set manictime.screenshotsDir.`,
          },
    );
    const ageH = range.total ? (nowMs - range.lastMs) / 3_600_000 : Number.POSITIVE_INFINITY;
    checks.push(
      range.total === 0
        ? { id: 'manictime.capture', label: 'Screenshots are being captured', status: 'error', detail: 'no screenshots found', fix: REMEDIATION_CAPTURE }
        : ageH > 24
          ? {
              id: 'manictime.capture',
              label: 'Screenshots are being captured',
              status: 'warning',
              detail: `newest screenshot is ${Math.round(ageH)} h old`,
              fix: `${REMEDIATION_CAPTURE} Is ManicTime running?`,
            }
          : { id: 'manictime.capture', label: 'Screenshots are being captured', status: 'ok', detail: `${range.total} screenshots; newest ${Math.max(0, Math.round(ageH * 60))} min ago` },
    );
    const spanDays = range.total ? (range.lastMs - range.firstMs) / 86_400_000 : 0;
    checks.push(
      range.total === 0
        ? { id: 'manictime.retention', label: 'Screenshot retention', status: 'unknown', detail: 'no screenshots yet' }
        : spanDays <= DEFAULT_RETENTION_DAYS + 0.5
          ? {
              id: 'manictime.retention',
              label: 'Screenshot retention',
              status: 'warning',
              detail: `screenshots span ${spanDays.toFixed(1)} days (ManicTime keeps ${DEFAULT_RETENTION_DAYS} by default)`,
              fix: REMEDIATION_RETENTION,
            }
          : { id: 'manictime.retention', label: 'Screenshot retention', status: 'ok', detail: `screenshots span ${spanDays.toFixed(1)} days` },
    );
    // Probe the database once so health reflects it even before any listing.
    if (act.status().state === 'ok' && loc.dbPath && exists(loc.dbPath)) await act.segments(nowMs - 60_000, nowMs);
    const as = act.status();
    checks.push(
      as.state === 'ok'
        ? { id: 'manictime.activity', label: 'Activity database readable', status: 'ok', detail: loc.dbPath }
        : {
            id: 'manictime.activity',
            label: 'Activity database readable',
            status: 'warning',
            detail: as.detail ?? as.state,
            fix: 'Without ManicTimeReports.db, activity sampling falls back to intervals and entries carry no app/document. Check manictime.dataDir.',
          },
    );
    const unknown = totalUnknown();
    const files = totalFiles();
    const namesBad = unknown >= UNKNOWN_MIN && unknown / Math.max(1, files) > UNKNOWN_RATIO;
    checks.push(
      namesBad
        ? {
            id: 'manictime.names',
            label: 'Screenshot file names recognised',
            status: 'warning',
            detail: `${unknown} of ${files} names not recognised${unknownSamples.length ? ` (e.g. ${unknownSamples.slice(0, 2).join(', ')})` : ''}`,
            fix: 'A newer ManicTime may name screenshots differently: update Sightline. Recognised screenshots keep working.',
          }
        : { id: 'manictime.names', label: 'Screenshot file names recognised', status: 'ok', detail: `${files - unknown} of ${files}` },
    );

    const problem = checks.find((c) => c.status === 'error') ?? checks.find((c) => c.status === 'warning');
    return {
      source: SOURCE,
      enabled: true,
      available: folderFound,
      degraded: Boolean(problem),
      ...(problem ? { reason: `${problem.label}: ${problem.detail ?? problem.status}`, remediation: problem.fix ?? `Check ${SETTINGS_PATH}.` } : {}),
      checks,
    };
  };

  const source: ManicTimeSource = {
    name: SOURCE,
    health,
    refresh,
    listScreenshots,
    page,
    readFrame,
    lastScan: () => lastStats,
    location: locate,
    async dispose() {
      if (inflight) await inflight.catch(() => undefined);
      activityProvider?.close();
      activityProvider = undefined;
      catalog.setExternalReader(undefined);
      opened.close();
    },
  };
  catalog.setExternalReader((rec, variant) => readFrame(rec, variant));
  return source;
}

/** The day records live in a SQLite file of our own beside the catalog (the catalog's handle is private). */
export const INDEX_FILE = 'manictime-index.sqlite';

function openStore(catalog: Catalog): { store: IndexStore; close: () => void } {
  const db = new Database(join(catalog.dataDir, INDEX_FILE));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 2000');
    return { store: createSqliteStore(db), close: () => db.close() };
  } catch (e) {
    db.close();
    throw e;
  }
}
