/**
 * Builds realistic ManicTime archives on disk, for the tests and the benchmark.
 *
 * `createManicTimeFixture` writes a small archive that exercises every case the
 * source must handle: real JPEG/PNG files with thumbnails, day folders across the
 * Europe/Berlin spring-forward (offsets `01-00` → `02-00`), a day at `-05-00`, two
 * monitors, same-second collisions, old v0 `.png` names, junk, a nested folder,
 * files still being written (zero-length, a JPEG without its FFD9 end marker), a
 * FIFO where a screenshot should be, symlinks out of the root, and a
 * `ManicTimeReports.db` with ManicTime's table and column names.
 *
 * Locked files: on Windows ManicTime (or an antivirus) holding a file open makes
 * reads fail with EBUSY/EPERM; Linux has no mandatory locks and root ignores
 * `chmod 000`, so the tests inject an `io.open` that fails for chosen paths (see
 * `lockingIo`) and use a FIFO for a path that is not a regular file.
 *
 * `writeBenchArchive` writes N empty files over a span of days (the scanner reads
 * names only), reusing a finished tree when the parameters match.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';

// ── names ────────────────────────────────────────────────────────────────────

/** ManicTime's offset field: `01-00`, `-05-00` (no `+` on positive offsets). */
export function offsetField(offsetMinutes: number): string {
  const abs = Math.abs(offsetMinutes);
  const s = `${String(Math.floor(abs / 60)).padStart(2, '0')}-${String(abs % 60).padStart(2, '0')}`;
  return offsetMinutes < 0 ? `-${s}` : s;
}

export interface NameSpec {
  date: string; // YYYY-MM-DD
  time: string; // HH:mm:ss
  offsetMinutes: number;
  width: number;
  height: number;
  id: number;
  monitor?: number; // absent → v0
  thumbnail?: boolean;
}

export function screenshotName(s: NameSpec): string {
  const base = `${s.date}_${s.time.replaceAll(':', '-')}_${offsetField(s.offsetMinutes)}_${s.width}_${s.height}_${s.id}`;
  const ext = s.monitor === undefined ? 'png' : 'jpg';
  return `${base}${s.monitor === undefined ? '' : `_${s.monitor}`}${s.thumbnail ? '.thumbnail' : ''}.${ext}`;
}

/** Europe/Berlin offset (minutes) at a UTC instant: CET +60, CEST +120 (EU rule, last Sundays 01:00 UTC). */
export function berlinOffset(utcMs: number): number {
  const y = new Date(utcMs).getUTCFullYear();
  const lastSunday = (month: number): number => {
    const d = new Date(Date.UTC(y, month + 1, 0, 1));
    return d.getTime() - d.getUTCDay() * 86_400_000;
  };
  return utcMs >= lastSunday(2) && utcMs < lastSunday(9) ? 120 : 60;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** Wall clock at a UTC instant with a given offset. */
export function wallClock(utcMs: number, offsetMinutes: number): { date: string; time: string } {
  const d = new Date(utcMs + offsetMinutes * 60_000);
  return {
    date: `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
    time: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`,
  };
}

/** UTC ms of a wall clock with an offset. */
export function utcOf(date: string, time: string, offsetMinutes: number): number {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi, s] = time.split(':').map(Number) as [number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s) - offsetMinutes * 60_000;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, ManicTime's TEXT time format. */
export function sqlTime(utcMs: number, offsetMinutes = 0): string {
  const w = wallClock(utcMs, offsetMinutes);
  return `${w.date} ${w.time}`;
}

// ── images ───────────────────────────────────────────────────────────────────

/** A picture with four coloured quadrants (so crops are checkable) and a per-id tint. */
export async function quadrantImage(width: number, height: number, id: number, format: 'jpeg' | 'png'): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  const colours: Array<[number, number, number]> = [
    [220, 30, 30],
    [30, 180, 30],
    [30, 30, 220],
    [230, 230, 40],
  ];
  const tint = id % 40;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const q = (y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1);
      const c = colours[q] as [number, number, number];
      const o = (y * width + x) * 3;
      raw[o] = Math.min(255, c[0] + tint);
      raw[o + 1] = c[1];
      raw[o + 2] = c[2];
    }
  }
  const img = sharp(raw, { raw: { width, height, channels: 3 } });
  return format === 'jpeg' ? img.jpeg({ quality: 80 }).toBuffer() : img.png().toBuffer();
}

// ── reports database ─────────────────────────────────────────────────────────

export interface FixtureActivity {
  timeline: 'applications' | 'documents';
  /** Ar_Group.Name: the application (applications) or the document's group (documents). */
  group: string;
  /** Ar_Activity.Name: the window title (applications) or the document (documents). */
  name: string;
  startUtcMs: number;
  endUtcMs: number;
  /** Wall-clock offset for the Local columns. */
  offsetMinutes: number;
}

export const SCHEMA_APPLICATIONS = 'ManicTime/Applications';
export const SCHEMA_DOCUMENTS = 'ManicTime/Documents';

/** ManicTimeReports.db with ManicTime's table and column names (a subset of its columns). */
export function createReportsDb(path: string, activities: FixtureActivity[]): void {
  for (const f of [path, `${path}-journal`, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  const db = new Database(path);
  try {
    db.exec(`
      CREATE TABLE Ar_Timeline (ReportId INTEGER PRIMARY KEY, SchemaName TEXT NOT NULL, BaseSchemaName TEXT NOT NULL);
      CREATE TABLE Ar_CommonGroup (CommonGroupId INTEGER PRIMARY KEY, Name TEXT NOT NULL, Color TEXT, Key TEXT);
      CREATE TABLE Ar_Group (GroupId INTEGER NOT NULL, ReportId INTEGER NOT NULL, Name TEXT NOT NULL, Color TEXT, Key TEXT,
        CommonId INTEGER, PRIMARY KEY (GroupId, ReportId));
      CREATE TABLE Ar_Activity (ActivityId INTEGER PRIMARY KEY, ReportId INTEGER NOT NULL, StartLocalTime TEXT NOT NULL,
        EndLocalTime TEXT NOT NULL, Name TEXT, GroupId INTEGER, Notes TEXT, IsActive INTEGER DEFAULT 1,
        CommonGroupId INTEGER, StartUtcTime TEXT, EndUtcTime TEXT);
      INSERT INTO Ar_Timeline VALUES (1, '${SCHEMA_APPLICATIONS}', '${SCHEMA_APPLICATIONS}');
      INSERT INTO Ar_Timeline VALUES (2, '${SCHEMA_DOCUMENTS}', '${SCHEMA_DOCUMENTS}');
      INSERT INTO Ar_Timeline VALUES (3, 'ManicTime/ComputerUsage', 'ManicTime/ComputerUsage');
    `);
    // Group ids deliberately overlap across timelines: only ReportId + GroupId identify a group.
    const groups = new Map<string, number>();
    const insGroup = db.prepare('INSERT INTO Ar_Group (GroupId, ReportId, Name, Key) VALUES (?, ?, ?, ?)');
    const insAct = db.prepare(
      'INSERT INTO Ar_Activity (ReportId, StartLocalTime, EndLocalTime, Name, GroupId, StartUtcTime, EndUtcTime) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const perTimeline = new Map<number, number>();
    db.transaction(() => {
      for (const a of activities) {
        const reportId = a.timeline === 'applications' ? 1 : 2;
        const key = `${reportId}|${a.group}`;
        let gid = groups.get(key);
        if (gid === undefined) {
          gid = (perTimeline.get(reportId) ?? 0) + 1;
          perTimeline.set(reportId, gid);
          groups.set(key, gid);
          insGroup.run(gid, reportId, a.group, a.group.toLowerCase());
        }
        insAct.run(
          reportId,
          sqlTime(a.startUtcMs, a.offsetMinutes),
          sqlTime(a.endUtcMs, a.offsetMinutes),
          a.name,
          gid,
          sqlTime(a.startUtcMs),
          sqlTime(a.endUtcMs),
        );
      }
      // A computer-usage row in the same time range that must be ignored.
      insGroup.run(1, 3, 'Active', 'active');
      if (activities[0]) insAct.run(3, '2000-01-01 00:00:00', '2100-01-01 00:00:00', 'Active', 1, '2000-01-01 00:00:00', '2100-01-01 00:00:00');
    })();
  } finally {
    db.close();
  }
}

// ── the realistic archive ────────────────────────────────────────────────────

export type ShotKind = 'ok' | 'zero' | 'truncated' | 'fifo' | 'symlinkOut';

export interface FixtureShot {
  kind: ShotKind;
  date: string;
  time: string;
  offsetMinutes: number;
  id: number;
  monitor: number | undefined;
  width: number;
  height: number;
  utcMs: number;
  /** Absolute path of the full image (absent when only a thumbnail exists). */
  full?: string;
  thumb?: string;
  /** Size written into the thumbnail's name. */
  thumbNameSize?: { width: number; height: number };
}

export interface ManicTimeFixture {
  base: string;
  dataDir: string;
  screenshotsDir: string;
  dbPath: string;
  /** A folder next to the data dir that symlinks point into. */
  outsideDir: string;
  shots: FixtureShot[];
  /** Files in day folders whose names are not ManicTime screenshot names. */
  junkNames: string[];
  activities: FixtureActivity[];
  cleanup(): void;
}

export interface FixtureOptions {
  /** Write ManicTimeReports.db (default true). */
  db?: boolean;
}

const M0 = { width: 320, height: 200 };
const M1 = { width: 200, height: 320 };
const THUMB_SCALE = 2;

/**
 * Day plan: date, offset (or Berlin), captures as [time, monitor, id] tuples.
 * Ids grow globally, as ManicTime's do.
 */
function plan(): Array<Omit<FixtureShot, 'full' | 'thumb' | 'utcMs'> & { withThumb: boolean; thumbOwnSize: boolean }> {
  const out: Array<Omit<FixtureShot, 'full' | 'thumb' | 'utcMs'> & { withThumb: boolean; thumbOwnSize: boolean }> = [];
  let id = 100;
  const add = (
    date: string,
    time: string,
    offsetMinutes: number,
    monitor: number | undefined,
    extra: Partial<{ kind: ShotKind; withThumb: boolean; thumbOwnSize: boolean; id: number }> = {},
  ): void => {
    const size = monitor === 1 ? M1 : M0;
    out.push({
      kind: extra.kind ?? 'ok',
      date,
      time,
      offsetMinutes,
      id: extra.id ?? id++,
      monitor,
      width: size.width,
      height: size.height,
      withThumb: extra.withThumb ?? true,
      thumbOwnSize: extra.thumbOwnSize ?? monitor === 0,
    });
  };
  // 2024-03-29: an old ManicTime, v0 .png names (no monitor).
  add('2024-03-29', '09:00:00', 60, undefined);
  add('2024-03-29', '09:05:00', 60, undefined, { withThumb: false });

  id = 1000;
  // 2024-03-30 (CET, `01-00`): both monitors every 5 minutes 10:00–11:00, collisions at 10:00:00.
  for (let m = 0; m <= 60; m += 5) {
    const time = m === 60 ? '11:00:00' : `10:${pad(m)}:00`;
    add('2024-03-30', time, 60, 0);
    add('2024-03-30', time, 60, 1);
    if (m === 0) add('2024-03-30', time, 60, 0); // same second, same monitor, next id
  }
  add('2024-03-30', '10:30:30', 60, 0, { kind: 'zero', withThumb: false });
  add('2024-03-30', '10:31:30', 60, 0, { kind: 'truncated', withThumb: false });
  add('2024-03-30', '10:32:30', 60, 0, { kind: 'fifo', withThumb: false });
  add('2024-03-30', '10:33:30', 60, 0, { kind: 'symlinkOut', withThumb: false });
  add('2024-03-30', '10:34:30', 60, 1, { withThumb: true }); // a thumbnail without its full image: see below

  // 2024-03-31, the spring-forward day: 02:00 CET becomes 03:00 CEST.
  add('2024-03-31', '01:30:00', 60, 0);
  add('2024-03-31', '01:59:00', 60, 0);
  add('2024-03-31', '03:00:00', 120, 0);
  add('2024-03-31', '03:30:00', 120, 0);

  // 2024-04-01 (CEST, `02-00`): both monitors every 10 minutes 09:00–12:00; activities below.
  for (let m = 0; m <= 180; m += 10) {
    const time = `${pad(9 + Math.floor(m / 60))}:${pad(m % 60)}:00`;
    add('2024-04-01', time, 120, 0);
    add('2024-04-01', time, 120, 1);
  }

  // 2024-04-02: a trip at UTC-5.
  for (let m = 0; m <= 60; m += 15) add('2024-04-02', m === 60 ? '09:00:00' : `08:${pad(m)}:00`, -300, 0);
  return out;
}

/** Activities on 2024-04-01 (CEST): app/document changes at 09:25, 10:10 (document only at 09:45), 10:40. */
function fixtureActivities(): FixtureActivity[] {
  const o = 120;
  const at = (time: string): number => utcOf('2024-04-01', time, o);
  return [
    { timeline: 'applications', group: 'Google Chrome', name: 'Example A - Chrome', startUtcMs: at('09:00:00'), endUtcMs: at('09:25:00'), offsetMinutes: o },
    { timeline: 'applications', group: 'Visual Studio Code', name: 'report.ts - Code', startUtcMs: at('09:25:00'), endUtcMs: at('10:10:00'), offsetMinutes: o },
    { timeline: 'applications', group: 'Google Chrome', name: 'Example B - Chrome', startUtcMs: at('10:10:00'), endUtcMs: at('10:40:00'), offsetMinutes: o },
    { timeline: 'applications', group: 'Outlook', name: 'Inbox - Outlook', startUtcMs: at('10:40:00'), endUtcMs: at('12:05:00'), offsetMinutes: o },
    { timeline: 'documents', group: 'example.com', name: 'https://example.com/a', startUtcMs: at('09:00:00'), endUtcMs: at('09:25:00'), offsetMinutes: o },
    { timeline: 'documents', group: 'C:\\work', name: 'report.ts', startUtcMs: at('09:25:00'), endUtcMs: at('09:45:00'), offsetMinutes: o },
    { timeline: 'documents', group: 'C:\\work', name: 'notes.md', startUtcMs: at('09:45:00'), endUtcMs: at('10:10:00'), offsetMinutes: o },
    { timeline: 'documents', group: 'example.com', name: 'https://example.com/b', startUtcMs: at('10:10:00'), endUtcMs: at('10:40:00'), offsetMinutes: o },
  ];
}

export async function createManicTimeFixture(base: string, options: FixtureOptions = {}): Promise<ManicTimeFixture> {
  const dataDir = join(base, 'ManicTime');
  const screenshotsDir = join(dataDir, 'Screenshots');
  const outsideDir = join(base, 'outside');
  const dbPath = join(dataDir, 'ManicTimeReports.db');
  mkdirSync(screenshotsDir, { recursive: true });
  mkdirSync(outsideDir, { recursive: true });

  const shots: FixtureShot[] = [];
  const junkNames: string[] = [];
  const imageCache = new Map<string, Promise<Buffer>>();
  const image = (w: number, h: number, id: number, format: 'jpeg' | 'png'): Promise<Buffer> => {
    const k = `${w}x${h}:${id % 40}:${format}`;
    let p = imageCache.get(k);
    if (!p) imageCache.set(k, (p = quadrantImage(w, h, id, format)));
    return p;
  };

  for (const p of plan()) {
    const dayDir = join(screenshotsDir, p.date);
    mkdirSync(dayDir, { recursive: true });
    const format = p.monitor === undefined ? 'png' : 'jpeg';
    const spec: NameSpec = { date: p.date, time: p.time, offsetMinutes: p.offsetMinutes, width: p.width, height: p.height, id: p.id };
    if (p.monitor !== undefined) spec.monitor = p.monitor;
    const full = join(dayDir, screenshotName(spec));
    const shot: FixtureShot = {
      kind: p.kind,
      date: p.date,
      time: p.time,
      offsetMinutes: p.offsetMinutes,
      id: p.id,
      monitor: p.monitor,
      width: p.width,
      height: p.height,
      utcMs: utcOf(p.date, p.time, p.offsetMinutes),
    };
    const thumbOnly = p.date === '2024-03-30' && p.time === '10:34:30';
    switch (p.kind) {
      case 'ok':
        if (!thumbOnly) {
          writeFileSync(full, await image(p.width, p.height, p.id, format));
          shot.full = full;
        }
        break;
      case 'zero':
        writeFileSync(full, '');
        shot.full = full;
        break;
      case 'truncated': {
        const jpg = await image(p.width, p.height, p.id, 'jpeg');
        writeFileSync(full, jpg.subarray(0, Math.floor(jpg.length * 0.6)));
        shot.full = full;
        break;
      }
      case 'fifo':
        execFileSync('mkfifo', [full]);
        shot.full = full;
        break;
      case 'symlinkOut': {
        const secret = join(outsideDir, 'secret.jpg');
        if (!existsSync(secret)) writeFileSync(secret, await image(p.width, p.height, 7, 'jpeg'));
        symlinkSync(secret, full);
        shot.full = full;
        break;
      }
    }
    if (p.withThumb) {
      const tw = Math.round(p.width / THUMB_SCALE);
      const th = Math.round(p.height / THUMB_SCALE);
      const nameSize = p.thumbOwnSize ? { width: tw, height: th } : { width: p.width, height: p.height };
      const thumb = join(dayDir, screenshotName({ ...spec, ...nameSize, thumbnail: true }));
      writeFileSync(thumb, await image(tw, th, p.id, format));
      shot.thumb = thumb;
      shot.thumbNameSize = nameSize;
    }
    shots.push(shot);
  }

  // A nested folder inside a day folder (scanned recursively).
  {
    const nested = join(screenshotsDir, '2024-03-30', 'extra');
    mkdirSync(nested, { recursive: true });
    const spec: NameSpec = { date: '2024-03-30', time: '10:40:30', offsetMinutes: 60, ...M0, id: 1900, monitor: 0 };
    const full = join(nested, screenshotName(spec));
    const thumb = join(nested, screenshotName({ ...spec, width: 160, height: 100, thumbnail: true }));
    writeFileSync(full, await image(M0.width, M0.height, 1900, 'jpeg'));
    writeFileSync(thumb, await image(160, 100, 1900, 'jpeg'));
    shots.push({ kind: 'ok', ...spec, monitor: 0, utcMs: utcOf(spec.date, spec.time, 60), full, thumb, thumbNameSize: { width: 160, height: 100 } });
  }

  // Outside the root: a valid-looking name reachable only through a symlinked folder (never followed).
  {
    const spec: NameSpec = { date: '2024-03-30', time: '10:50:00', offsetMinutes: 60, ...M0, id: 1999, monitor: 0 };
    writeFileSync(join(outsideDir, screenshotName(spec)), await image(M0.width, M0.height, 1999, 'jpeg'));
    symlinkSync(outsideDir, join(screenshotsDir, '2024-03-30', 'linked'));
  }

  // Junk ManicTime or Windows leave around, and names that only look right.
  const junk: Array<[string, string | Buffer]> = [
    ['desktop.ini', '[.ShellClassInfo]'],
    ['Thumbs.db', Buffer.alloc(16)],
    ['notes.txt', 'hello'],
    ['2024-03-30_10-00-00_bad.jpg', 'x'],
    ['2024-13-30_10-00-00_01-00_320_200_5_0.jpg', 'x'],
    ['2024-03-30_10-00-00_01-00_320_200_5_0.jpg.tmp', 'x'],
    ['2024-03-30_10-00-00_01-00_320_200_5_0.gif', 'x'],
  ];
  for (const [name, content] of junk) {
    writeFileSync(join(screenshotsDir, '2024-03-30', name), content);
    junkNames.push(name);
  }
  mkdirSync(join(screenshotsDir, 'Temp'), { recursive: true });
  writeFileSync(join(screenshotsDir, 'Temp', screenshotName({ date: '2024-03-30', time: '12:00:00', offsetMinutes: 60, ...M0, id: 5000, monitor: 0 })), 'x');
  writeFileSync(join(screenshotsDir, 'readme.txt'), 'not a day folder');

  const activities = fixtureActivities();
  if (options.db !== false) createReportsDb(dbPath, activities);

  // Old day folders were last modified when their last screenshot was written, not now.
  const lastPerDay = new Map<string, number>();
  for (const s of shots) lastPerDay.set(s.date, Math.max(lastPerDay.get(s.date) ?? 0, s.utcMs));
  for (const [day, ms] of lastPerDay) {
    const t = new Date(ms + 60_000);
    for (const dir of [join(screenshotsDir, day), ...(day === '2024-03-30' ? [join(screenshotsDir, day, 'extra')] : [])]) utimesSync(dir, t, t);
  }

  return {
    base,
    dataDir,
    screenshotsDir,
    dbPath,
    outsideDir,
    shots,
    junkNames,
    activities,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** Write one more screenshot (full + thumbnail) into the archive, as ManicTime does during the day. */
export async function addScreenshot(screenshotsDir: string, spec: NameSpec & { monitor: number }): Promise<{ full: string; thumb: string }> {
  const dayDir = join(screenshotsDir, spec.date);
  mkdirSync(dayDir, { recursive: true });
  const full = join(dayDir, screenshotName(spec));
  const thumb = join(dayDir, screenshotName({ ...spec, width: Math.round(spec.width / 2), height: Math.round(spec.height / 2), thumbnail: true }));
  writeFileSync(full, await quadrantImage(spec.width, spec.height, spec.id, 'jpeg'));
  writeFileSync(thumb, await quadrantImage(Math.round(spec.width / 2), Math.round(spec.height / 2), spec.id, 'jpeg'));
  return { full, thumb };
}

/**
 * An `io.open` for the source's reader that fails with `code` for the given paths,
 * `times` times each (Infinity = always): how a file ManicTime or an antivirus
 * holds open looks on Windows.
 */
export function lockingIo(locked: Map<string, number>, code = 'EBUSY'): { open: (path: string, flags: number) => Promise<fsp.FileHandle> } {
  return {
    open: async (path: string, flags: number) => {
      const left = locked.get(path);
      if (left !== undefined && left > 0) {
        locked.set(path, left - 1);
        throw Object.assign(new Error(`${code}: resource busy or locked, open '${path}'`), { code, path });
      }
      return fsp.open(path, flags);
    },
  };
}

// ── the benchmark archive ────────────────────────────────────────────────────

export interface BenchArchiveOptions {
  files: number;
  /** First day (UTC date), e.g. 2022-01-01. */
  startDate: string;
  days: number;
}

export interface BenchArchive {
  screenshotsDir: string;
  files: number;
  days: number;
  /** Day folder names, oldest first. */
  dayNames: string[];
  reused: boolean;
}

/**
 * `files` empty screenshot files over `days` day folders: each capture instant is
 * two monitors × (full + thumbnail), 2.5 minutes apart from 08:00 Berlin time,
 * offsets following the DST rule. A `.complete` marker holds the parameters; a
 * matching tree is reused.
 */
export function writeBenchArchive(root: string, options: BenchArchiveOptions): BenchArchive {
  const screenshotsDir = join(root, 'Screenshots');
  const marker = join(root, '.complete');
  const params = JSON.stringify(options);
  const [sy, sm, sd] = options.startDate.split('-').map(Number) as [number, number, number];
  const dayNames: string[] = [];
  for (let i = 0; i < options.days; i++) dayNames.push(wallClock(Date.UTC(sy, sm - 1, sd) + i * 86_400_000, 0).date);
  if (existsSync(marker) && readFileSync(marker, 'utf8') === params) {
    return { screenshotsDir, files: options.files, days: options.days, dayNames, reused: true };
  }
  rmSync(root, { recursive: true, force: true });
  mkdirSync(screenshotsDir, { recursive: true });
  const instants = Math.floor(options.files / 4);
  let id = 1;
  let written = 0;
  for (let i = 0; i < options.days; i++) {
    const day = dayNames[i] as string;
    const dayDir = join(screenshotsDir, day);
    mkdirSync(dayDir);
    const n = Math.floor(((i + 1) * instants) / options.days) - Math.floor((i * instants) / options.days);
    const dayStartUtc = utcOf(day, '08:00:00', 60);
    for (let k = 0; k < n; k++) {
      const utc = dayStartUtc + k * 150_000;
      const off = berlinOffset(utc);
      const w = wallClock(utc, off);
      const instantId = id++;
      for (let m = 0; m < 2; m++) {
        const spec: NameSpec = { date: w.date, time: w.time, offsetMinutes: off, width: 1920, height: 1080, id: instantId * 2 + m, monitor: m };
        closeSync(openSync(join(dayDir, screenshotName(spec)), 'w'));
        closeSync(openSync(join(dayDir, screenshotName({ ...spec, width: 400, height: 225, thumbnail: true })), 'w'));
        written += 2;
      }
    }
  }
  // Top up to the exact count with extra captures on the last day.
  const lastDay = dayNames[dayNames.length - 1] as string;
  while (written < options.files) {
    const utc = utcOf(lastDay, '23:00:00', 60) + (options.files - written) * 1000;
    const spec: NameSpec = { date: lastDay, time: wallClock(utc, 60).time, offsetMinutes: 60, width: 1920, height: 1080, id: id++ * 2, monitor: 0 };
    closeSync(openSync(join(screenshotsDir, lastDay, screenshotName(spec)), 'w'));
    written++;
  }
  writeFileSync(marker, params);
  return { screenshotsDir, files: written, days: options.days, dayNames, reused: false };
}
