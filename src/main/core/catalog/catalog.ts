/**
 * The catalog: a better-sqlite3 index of every frame (Sightline's own and the ManicTime
 * archive's), the files of Sightline's own frames under `<dataDir>/frames/`, retention, and
 * the activity log. Writes are atomic: files go to a temp name in their final directory, are
 * renamed, and only then is the row inserted; any failure removes what was written.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdirSync, rmSync, rmdirSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import Database from 'better-sqlite3';
import type { ActivityEntry, ActivityQuery } from '../../../shared/api.ts';
import { SightlineError, isSightlineError } from '../../../shared/errors.ts';
import type { ErrorCode } from '../../../shared/errors.ts';
import { IMAGE_FORMATS, SOURCE_NAMES } from '../../../shared/frame.ts';
import type { ImageFormat, SourceName } from '../../../shared/frame.ts';
import { thumbnail } from '../image/pipeline.ts';
import { migrate } from './migrations.ts';
import { REF_PATTERN, newRef } from './refs.ts';
import type {
  ArchiveFrame,
  CatalogEvents,
  ExternalReader,
  FrameListQuery,
  FrameQuery,
  FrameRecord,
  FrameVariant,
  NewFrame,
  RetentionPolicy,
  RetentionResult,
} from './types.ts';

export const CATALOG_FILE = 'catalog.sqlite';
export const FRAMES_DIR = 'frames';
/** Generated thumbnails of archive frames (the archive's own folders are never written to). */
const ARCHIVE_THUMBS_DIR = join(FRAMES_DIR, 'archive');
const TMP_SUFFIX = '.tmp';
/** Files younger than this are left alone by sweep(): another process may be mid-insert. */
const SWEEP_GRACE_MS = 10 * 60_000;
const MAX_LIST_LIMIT = 100_000;
const ISO_WITH_OFFSET = /^(\d{4}-\d{2}-\d{2})T.*(Z|[+-]\d{2}:?\d{2})$/;

/** What the `files` column holds. Own frames: paths relative to the data dir; archive: absolute. */
interface FileSet {
  image: string;
  full?: string;
  fullFormat?: ImageFormat;
  /** The archive's own thumbnail (archive frames only). */
  thumbnail?: string;
}

interface FrameRow {
  ref: string;
  source: string;
  target: string;
  captured_at: number;
  captured_at_iso: string;
  image_w: number;
  image_h: number;
  source_w: number;
  source_h: number;
  origin_x: number;
  origin_y: number;
  scale: number;
  dpi: number | null;
  monitor: number | null;
  parent_ref: string | null;
  format: string;
  bytes: number;
  files: string;
  pinned: number;
  annotation: string | null;
  state: string;
  external: number;
  archive_day: string | null;
  thumb: string | null;
  disk_bytes: number;
}

interface ActivityRow {
  id: number;
  at: string;
  tool: string;
  source: string | null;
  target: string | null;
  result: string;
  message: string | null;
  image_x: number | null;
  image_y: number | null;
  source_x: number | null;
  source_y: number | null;
  frame_ref: string | null;
  after_ref: string | null;
  duration_ms: number;
  params: string | null;
  client: string | null;
}

type Params = Record<string, unknown>;

const FRAME_COLUMNS =
  'ref, source, target, captured_at, captured_at_iso, image_w, image_h, source_w, source_h, origin_x, origin_y, scale, dpi, monitor, parent_ref, format, bytes, files, pinned, annotation, state, external, archive_day, thumb, disk_bytes';

export class Catalog extends EventEmitter<CatalogEvents> {
  readonly dataDir: string;
  readonly framesDir: string;
  private readonly db: Database.Database;
  private readonly stmt: ReturnType<typeof prepareStatements>;
  private readonly queryCache = new Map<string, Database.Statement<Params[]>>();
  /** Refs being inserted now: no second insert may reuse them, no sweep may take their files. */
  private readonly pending = new Set<string>();
  private readonly thumbJobs = new Map<string, Promise<{ data: Buffer; format: ImageFormat }>>();
  private readonly knownDirs = new Set<string>();
  private externalReader: ExternalReader | undefined;
  private closed = false;

  /** Open (creating if needed) `dataDir/catalog.sqlite` and `dataDir/frames/`, migrating the schema. */
  static open(dataDir: string): Catalog {
    mkdirSync(join(dataDir, FRAMES_DIR), { recursive: true });
    const db = new Database(join(dataDir, CATALOG_FILE));
    try {
      db.pragma('journal_mode = WAL');
      // WAL + NORMAL survives a process crash; a power cut may lose the last frames, never the index.
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      migrate(db);
      return new Catalog(dataDir, db);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  private constructor(dataDir: string, db: Database.Database) {
    super();
    this.dataDir = dataDir;
    this.framesDir = join(dataDir, FRAMES_DIR);
    this.db = db;
    this.stmt = prepareStatements(db);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db.pragma('optimize');
    } finally {
      this.db.close();
    }
  }

  /** The archive source registers how its files are read (they may live on a share, or in a zip). */
  setExternalReader(reader: ExternalReader | undefined): void {
    this.externalReader = reader;
  }

  // ---- frames -------------------------------------------------------------------------------

  async insertFrame(f: NewFrame): Promise<FrameRecord> {
    const capturedMs = parseCapturedAt(f.capturedAt);
    validateFrame(f);
    const ref = f.ref ?? newRef();
    if (!REF_PATTERN.test(ref)) throw bad(`Ref "${ref}" may hold only letters, digits, "_" and "-".`);
    if (this.pending.has(ref) || this.stmt.exists.get(ref)) throw bad(`A frame with ref ${ref} already exists.`);
    this.pending.add(ref);
    const dayRel = join(FRAMES_DIR, dayOf(f.capturedAt));
    const files: FileSet = { image: join(dayRel, `${ref}.${ext(f.format)}`) };
    if (f.full) {
      files.full = join(dayRel, `${ref}.full.${ext(f.full.format)}`);
      files.fullFormat = f.full.format;
    }
    const writes: [string, Buffer][] = [[files.image, f.data]];
    if (f.full && files.full) writes.push([files.full, f.full.data]);
    const temps = new Set<string>();
    const placed: string[] = [];
    try {
      await this.ensureDir(join(this.dataDir, dayRel));
      // allSettled: cleanup must not start while a sibling write is still creating its file.
      const staged = await Promise.allSettled(
        writes.map(async ([rel, data]) => {
          const tmp = join(this.dataDir, `${rel}.${randomBytes(4).toString('hex')}${TMP_SUFFIX}`);
          temps.add(tmp);
          await writeFile(tmp, data, { flag: 'wx' });
          return [tmp, join(this.dataDir, rel)] as const;
        }),
      );
      for (const r of staged) if (r.status === 'rejected') throw r.reason;
      for (const r of staged) {
        if (r.status !== 'fulfilled') continue;
        const [tmp, final] = r.value;
        await rename(tmp, final);
        temps.delete(tmp);
        placed.push(final);
      }
      const diskBytes = f.data.length + (f.full?.data.length ?? 0);
      this.stmt.insert.run({
        ref,
        source: f.source,
        target: f.target,
        captured_at: capturedMs,
        captured_at_iso: f.capturedAt,
        image_w: f.image.width,
        image_h: f.image.height,
        source_w: f.sourceSize.width,
        source_h: f.sourceSize.height,
        origin_x: f.origin.x,
        origin_y: f.origin.y,
        scale: f.scale,
        dpi: f.dpi ?? null,
        monitor: f.monitor ?? null,
        parent_ref: f.parentRef ?? null,
        format: f.format,
        bytes: f.data.length,
        files: JSON.stringify(files),
        state: JSON.stringify(f.state ?? {}),
        external: 0,
        archive_day: null,
        disk_bytes: diskBytes,
      });
    } catch (e) {
      await Promise.all([...temps, ...placed].map((p) => rm(p, { force: true })));
      throw wrap(e, 'INTERNAL', `Could not store frame ${ref}`);
    } finally {
      this.pending.delete(ref);
    }
    const rec = this.getFrame(ref);
    if (!rec) throw new SightlineError('INTERNAL', `Frame ${ref} vanished right after it was stored.`);
    this.emit('frame', rec);
    return rec;
  }

  /**
   * Store a frame's native-resolution original after the frame itself (captures write it
   * behind their response). Atomic like insertFrame; a frame deleted meanwhile keeps no file.
   */
  async attachFull(ref: string, full: { data: Buffer; format: ImageFormat }): Promise<FrameRecord | undefined> {
    const row = this.stmt.get.get(ref);
    if (!row || row.external) return undefined;
    const files = JSON.parse(row.files) as FileSet;
    if (files.full) return toRecord(row);
    const rel = join(dirOf(files.image), `${ref}.full.${ext(full.format)}`);
    const final = join(this.dataDir, rel);
    const tmp = `${final}.${randomBytes(4).toString('hex')}${TMP_SUFFIX}`;
    try {
      await writeFile(tmp, full.data, { flag: 'wx' });
      await rename(tmp, final);
    } catch (e) {
      await rm(tmp, { force: true });
      throw wrap(e, 'INTERNAL', `Could not store the original of frame ${ref}`);
    }
    const next = JSON.stringify({ ...files, full: rel, fullFormat: full.format });
    if (this.closed || this.stmt.setFull.run(next, full.data.length, ref, row.files).changes === 0) {
      await rm(final, { force: true });
      return undefined;
    }
    const rec = this.getFrame(ref);
    if (rec) this.emit('frame-updated', rec);
    return rec;
  }

  getFrame(ref: string): FrameRecord | undefined {
    const row = this.stmt.get.get(ref);
    return row ? toRecord(row) : undefined;
  }

  /** The newest frame of a target; crops are skipped unless `rootOnly: false`. */
  latestFrame(source: SourceName, target: string, opts: { rootOnly?: boolean } = {}): FrameRecord | undefined {
    const rootOnly = opts.rootOnly ?? true;
    const row = (rootOnly ? this.stmt.latestRoot : this.stmt.latestAny).get(target, source);
    return row ? toRecord(row) : undefined;
  }

  listFrames(q: FrameListQuery): FrameRecord[] {
    if (!Number.isSafeInteger(q.limit) || q.limit < 1 || q.limit > MAX_LIST_LIMIT) throw bad(`limit must be an integer in 1..${MAX_LIST_LIMIT} (got ${q.limit}).`);
    const offset = q.offset ?? 0;
    if (!Number.isSafeInteger(offset) || offset < 0) throw bad(`offset must be a non-negative integer (got ${offset}).`);
    const { where, params } = whereClause(q);
    const dir = q.order === 'asc' ? 'ASC' : 'DESC';
    // rowid breaks ties in index order (every time index ends with it), so no sort step is needed.
    const sql = `SELECT ${FRAME_COLUMNS} FROM frames ${where} ORDER BY captured_at ${dir}, rowid ${dir} LIMIT @limit OFFSET @offset`;
    const rows = this.query(sql).all({ ...params, limit: q.limit, offset }) as FrameRow[];
    return rows.map(toRecord);
  }

  /**
   * The first frame of each `bucketMs` slice of time that has frames, oldest first, over the
   * whole window (the database groups them: nothing is read row by row).
   */
  firstPerInterval(q: FrameQuery, bucketMs: number): FrameRecord[] {
    if (!Number.isSafeInteger(bucketMs) || bucketMs < 1) throw bad(`bucketMs must be a positive integer (got ${bucketMs}).`);
    const { where, params } = whereClause(q);
    const sql = `SELECT ${FRAME_COLUMNS} FROM frames WHERE rowid IN (
        SELECT rowid FROM (
          SELECT rowid, row_number() OVER (PARTITION BY captured_at / CAST(@bucket AS INTEGER) ORDER BY captured_at, rowid) AS n FROM frames ${where}
        ) WHERE n = 1
      ) ORDER BY captured_at ASC, rowid ASC`;
    return (this.query(sql).all({ ...params, bucket: bucketMs }) as FrameRow[]).map(toRecord);
  }

  countFrames(q: FrameQuery = {}): number {
    const { where, params } = whereClause(q);
    return (this.query(`SELECT count(*) AS n FROM frames ${where}`).get(params) as { n: number }).n;
  }

  /** Absolute path of a frame's file, if it has one (a thumbnail only once generated or archived). */
  frameFilePath(rec: FrameRecord, variant: FrameVariant): string | undefined {
    const row = this.stmt.get.get(rec.ref);
    if (!row) return undefined;
    const files = JSON.parse(row.files) as FileSet;
    const own = (rel: string | undefined | null): string | undefined => (rel ? join(this.dataDir, rel) : undefined);
    if (variant === 'thumbnail') return own(row.thumb) ?? (row.external ? files.thumbnail : undefined);
    if (row.external) return files.image;
    return own(variant === 'full' ? (files.full ?? files.image) : files.image);
  }

  /** A frame's bytes. 'full' falls back to 'image'; 'thumbnail' is made on first use and kept. */
  async readImage(ref: string, variant: FrameVariant): Promise<{ data: Buffer; format: ImageFormat }> {
    const row = this.stmt.get.get(ref);
    if (!row) throw notFound(ref);
    if (variant === 'thumbnail') return this.readThumbnail(row);
    const rec = toRecord(row);
    if (row.external) return this.readExternal(rec, 'image');
    const files = JSON.parse(row.files) as FileSet;
    const useFull = variant === 'full' && files.full !== undefined;
    const rel = useFull && files.full ? files.full : files.image;
    const format = useFull ? (files.fullFormat ?? rec.format) : rec.format;
    return { data: await this.readOwn(ref, rel), format };
  }

  setPinned(ref: string, pinned: boolean): FrameRecord {
    return this.update(ref, this.stmt.setPinned.run(pinned ? 1 : 0, ref).changes);
  }

  setAnnotation(ref: string, text: string | null): FrameRecord {
    return this.update(ref, this.stmt.setAnnotation.run(text === null || text === '' ? null : text, ref).changes);
  }

  // ---- the archive ------------------------------------------------------------------------

  /** Index archive files in place (no copy), in one transaction. Idempotent; returns rows inserted or changed. */
  upsertArchiveFrames(rows: readonly ArchiveFrame[]): number {
    const params = rows.map((r) => archiveParams(r, r.day ?? null));
    return this.db.transaction(() => {
      let changed = 0;
      for (const p of params) changed += this.stmt.upsertArchive.run(p).changes;
      return changed;
    })();
  }

  /**
   * Make the rows of archive day `day` exactly `rows`: upsert them and remove the day's rows
   * whose files are gone (pinned or not: there is nothing left to show). One transaction.
   */
  replaceArchiveDay(day: string, rows: readonly ArchiveFrame[]): { changed: number; deleted: number } {
    const params = rows.map((r) => archiveParams(r, day));
    const keep = JSON.stringify(params.map((p) => p.ref));
    const { changed, gone } = this.db.transaction(() => {
      let n = 0;
      for (const p of params) n += this.stmt.upsertArchive.run(p).changes;
      const doomed = this.stmt.archiveDayGone.all(day, keep);
      for (const d of doomed) this.stmt.deleteFrame.run(d.ref);
      return { changed: n, gone: doomed };
    })();
    removeFiles(gone.flatMap((g) => (g.thumb ? [join(this.dataDir, g.thumb)] : [])));
    if (gone.length) this.emit('frames-deleted', gone.map((g) => g.ref));
    return { changed, deleted: gone.length };
  }

  // ---- retention ----------------------------------------------------------------------------

  /**
   * Delete Sightline's own frames older than `maxAgeDays`, then the oldest until the files
   * take at most `maxBytes`. Pinned frames stay; a deleted frame's unpinned crops go with it;
   * archive rows and files are never touched (the archive keeps its own retention).
   */
  applyRetention(p: RetentionPolicy): RetentionResult {
    if (!(p.maxAgeDays > 0) || !(p.maxBytes >= 0)) {
      throw bad(`Retention needs maxAgeDays > 0 and maxBytes ≥ 0 (got ${p.maxAgeDays} days, ${p.maxBytes} bytes).`);
    }
    const now = (p.now ?? new Date()).getTime();
    const cutoff = now - p.maxAgeDays * 86_400_000;
    const doomed = new Map<string, { thumb: string | null; files: string; disk_bytes: number }>();
    const take = (rows: RetentionRow[]): number => {
      let freed = 0;
      for (const r of rows) {
        if (doomed.has(r.ref)) continue;
        doomed.set(r.ref, r);
        freed += r.disk_bytes;
      }
      return freed;
    };
    const deleted = this.db.transaction(() => {
      take(this.stmt.expiredWithCrops.all(cutoff));
      const total = (this.stmt.totalBytes.get() as { n: number | null }).n ?? 0;
      let excess = total - [...doomed.values()].reduce((s, r) => s + r.disk_bytes, 0) - p.maxBytes;
      if (excess > 0) {
        for (const oldest of this.stmt.oldestOwn.iterate()) {
          if (excess <= 0) break;
          if (doomed.has(oldest.ref)) continue;
          excess -= take(this.stmt.withCrops.all(oldest.ref));
        }
      }
      for (const ref of doomed.keys()) this.stmt.deleteFrame.run(ref);
      return doomed;
    })();
    const paths: string[] = [];
    let freedBytes = 0;
    for (const r of deleted.values()) {
      freedBytes += r.disk_bytes;
      const files = JSON.parse(r.files) as FileSet;
      paths.push(join(this.dataDir, files.image));
      if (files.full) paths.push(join(this.dataDir, files.full));
      if (r.thumb) paths.push(join(this.dataDir, r.thumb));
    }
    removeFiles(paths, true);
    if (deleted.size) this.emit('frames-deleted', [...deleted.keys()]);
    return { deletedFrames: deleted.size, freedBytes };
  }

  /**
   * Remove what an interrupted write left behind: temp files, and files no row names (a crash
   * between rename and insert). Files younger than `olderThanMs` are spared, since another
   * process sharing the data dir may be mid-insert.
   */
  async sweep(opts: { olderThanMs?: number } = {}): Promise<{ removed: number }> {
    const grace = opts.olderThanMs ?? SWEEP_GRACE_MS;
    const before = Date.now() - grace;
    let removed = 0;
    const dirs = await listDirs(this.framesDir);
    const archive = join(this.dataDir, ARCHIVE_THUMBS_DIR);
    dirs.push(...(await listDirs(archive)));
    for (const dir of dirs) {
      if (dir === archive) continue;
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        if (this.closed) return { removed };
        const path = join(dir, name);
        const ref = name.split('.')[0] ?? '';
        try {
          if (!name.endsWith(TMP_SUFFIX) && (this.pending.has(ref) || this.isReferenced(ref, path))) continue;
          const st = await stat(path);
          if (!st.isFile() || st.mtimeMs > before) continue;
          await rm(path, { force: true });
          removed++;
        } catch {
          // Gone already, or the catalog closed under us.
        }
      }
    }
    return { removed };
  }

  // ---- activity log -------------------------------------------------------------------------

  appendActivity(e: Omit<ActivityEntry, 'id'>): ActivityEntry {
    const info = this.stmt.insertActivity.run({
      at: e.at,
      tool: e.tool,
      source: e.source ?? null,
      target: e.target ?? null,
      result: e.result,
      message: e.message ?? null,
      image_x: e.imagePoint?.x ?? null,
      image_y: e.imagePoint?.y ?? null,
      source_x: e.sourcePoint?.x ?? null,
      source_y: e.sourcePoint?.y ?? null,
      frame_ref: e.frameRef ?? null,
      after_ref: e.afterRef ?? null,
      duration_ms: e.durationMs,
      params: e.params ? JSON.stringify(e.params) : null,
      client: e.client ?? null,
    });
    const entry: ActivityEntry = { ...e, id: Number(info.lastInsertRowid) };
    this.emit('activity', entry);
    return entry;
  }

  /**
   * Name `ref` as the "after" frame of the target's successful actions logged since `sinceIso`
   * (the target's previous capture) that have none yet. Returns how many entries it linked.
   */
  linkAfterFrame(target: string, ref: string, sinceIso: string): number {
    return this.stmt.linkAfter.run(ref, target, sinceIso).changes;
  }

  /** Newest first; `before` is an entry id (paging). Default limit 100, at most 1000. */
  listActivity(q: ActivityQuery = {}): ActivityEntry[] {
    const conds: string[] = [];
    const params: Params = { limit: Math.min(Math.max(1, Math.floor(q.limit ?? 100)), 1000) };
    if (q.tool !== undefined) {
      conds.push('tool = @tool');
      params.tool = q.tool;
    }
    if (q.target !== undefined) {
      conds.push('target = @target');
      params.target = q.target;
    }
    if (q.result === 'ok') conds.push("result = 'ok'");
    else if (q.result === 'error') conds.push("result <> 'ok'");
    if (q.before !== undefined) {
      conds.push('id < @before');
      params.before = q.before;
    }
    const where = conds.length ? `WHERE ${conds.join(' AND ')}` : '';
    const rows = this.query(`SELECT * FROM activity ${where} ORDER BY id DESC LIMIT @limit`).all(params) as ActivityRow[];
    return rows.map(toActivity);
  }

  // ---- internals ----------------------------------------------------------------------------

  private query(sql: string): Database.Statement<Params[]> {
    let s = this.queryCache.get(sql);
    if (!s) {
      s = this.db.prepare<Params[]>(sql);
      this.queryCache.set(sql, s);
    }
    return s;
  }

  private update(ref: string, changes: number): FrameRecord {
    const rec = changes ? this.getFrame(ref) : undefined;
    if (!rec) throw notFound(ref);
    this.emit('frame-updated', rec);
    return rec;
  }

  private async ensureDir(dir: string): Promise<void> {
    if (this.knownDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    this.knownDirs.add(dir);
  }

  private async readOwn(ref: string, rel: string): Promise<Buffer> {
    try {
      return await readFile(join(this.dataDir, rel));
    } catch (e) {
      throw new SightlineError('FILE_UNAVAILABLE', `The file of frame ${ref} is missing (${rel}).`, 'capture again; the file was removed outside Sightline', undefined, {
        cause: e,
      });
    }
  }

  private async readExternal(rec: FrameRecord, variant: FrameVariant): Promise<{ data: Buffer; format: ImageFormat }> {
    if (!this.externalReader) {
      throw new SightlineError('SOURCE_UNAVAILABLE', `Frame ${rec.ref} belongs to the ${rec.source} archive, which is not loaded.`, `enable the ${rec.source} source`);
    }
    return this.externalReader(rec, variant);
  }

  private readThumbnail(row: FrameRow): Promise<{ data: Buffer; format: ImageFormat }> {
    const running = this.thumbJobs.get(row.ref);
    if (running) return running;
    const job = this.makeThumbnail(row).finally(() => this.thumbJobs.delete(row.ref));
    this.thumbJobs.set(row.ref, job);
    return job;
  }

  private async makeThumbnail(row: FrameRow): Promise<{ data: Buffer; format: ImageFormat }> {
    if (row.thumb) {
      try {
        return { data: await readFile(join(this.dataDir, row.thumb)), format: 'jpeg' };
      } catch {
        // Removed behind our back: make it again.
      }
    }
    const rec = toRecord(row);
    const files = JSON.parse(row.files) as FileSet;
    if (row.external && files.thumbnail) return this.readExternal(rec, 'thumbnail');
    // The fitted image is plenty for 320 px and far cheaper to decode than the original.
    const source = row.external ? await this.readExternal(rec, 'image') : { data: await this.readOwn(row.ref, files.image) };
    const thumb = await thumbnail({ kind: 'encoded', data: source.data });
    const rel = row.external ? join(ARCHIVE_THUMBS_DIR, (row.archive_day ?? 'other').replace(/[^\w-]/g, '_'), `${row.ref}.thumb.jpg`) : join(dirOf(files.image), `${row.ref}.thumb.jpg`);
    const final = join(this.dataDir, rel);
    const tmp = `${final}.${randomBytes(4).toString('hex')}${TMP_SUFFIX}`;
    try {
      await this.ensureDir(dirOf(final));
      await writeFile(tmp, thumb.data, { flag: 'wx' });
      await rename(tmp, final);
    } catch {
      // Caching is an optimisation: serve the thumbnail anyway.
      await rm(tmp, { force: true });
      return { data: thumb.data, format: 'jpeg' };
    }
    if (this.closed || this.stmt.setThumb.run(rel, thumb.data.length, row.ref).changes === 0) {
      // The frame was deleted meanwhile, or another process cached the same path first.
      const now = this.closed ? undefined : this.stmt.get.get(row.ref);
      if (now?.thumb !== rel) await rm(final, { force: true });
    }
    return { data: thumb.data, format: 'jpeg' };
  }

  private isReferenced(ref: string, path: string): boolean {
    const row = this.stmt.get.get(ref);
    if (!row) return false;
    const files = JSON.parse(row.files) as FileSet;
    return [files.image, files.full, row.thumb].some((rel) => rel && join(this.dataDir, rel) === path);
  }

}

// ---- statements -----------------------------------------------------------------------------

interface RetentionRow {
  ref: string;
  files: string;
  thumb: string | null;
  disk_bytes: number;
}

function prepareStatements(db: Database.Database) {
  const subtree = (seed: string) => `
    WITH RECURSIVE doomed(ref) AS (
      ${seed}
      UNION
      SELECT f.ref FROM frames f JOIN doomed d ON f.parent_ref = d.ref WHERE f.pinned = 0 AND f.external = 0
    )
    SELECT f.ref, f.files, f.thumb, f.disk_bytes FROM frames f JOIN doomed USING (ref)`;
  return {
    exists: db.prepare<[string], { 1: number }>('SELECT 1 FROM frames WHERE ref = ?'),
    get: db.prepare<[string], FrameRow>(`SELECT ${FRAME_COLUMNS} FROM frames WHERE ref = ?`),
    latestRoot: db.prepare<[string, string], FrameRow>(
      `SELECT ${FRAME_COLUMNS} FROM frames WHERE target = ? AND source = ? AND parent_ref IS NULL ORDER BY captured_at DESC, rowid DESC LIMIT 1`,
    ),
    latestAny: db.prepare<[string, string], FrameRow>(`SELECT ${FRAME_COLUMNS} FROM frames WHERE target = ? AND source = ? ORDER BY captured_at DESC, rowid DESC LIMIT 1`),
    insert: db.prepare<[Params]>(`
      INSERT INTO frames (ref, source, target, captured_at, captured_at_iso, image_w, image_h, source_w, source_h, origin_x, origin_y, scale, dpi, monitor,
                          parent_ref, format, bytes, files, state, external, archive_day, disk_bytes)
      VALUES (@ref, @source, @target, @captured_at, @captured_at_iso, @image_w, @image_h, @source_w, @source_h, @origin_x, @origin_y, @scale, @dpi, @monitor,
              @parent_ref, @format, @bytes, @files, @state, @external, @archive_day, @disk_bytes)`),
    // An unchanged row is not rewritten (changes() stays 0), so a rescan reports only what moved.
    // A ref already used by one of Sightline's own frames is left alone.
    upsertArchive: db.prepare<[Params]>(`
      INSERT INTO frames (ref, source, target, captured_at, captured_at_iso, image_w, image_h, source_w, source_h, origin_x, origin_y, scale, dpi, monitor,
                          parent_ref, format, bytes, files, state, external, archive_day, disk_bytes)
      VALUES (@ref, @source, @target, @captured_at, @captured_at_iso, @image_w, @image_h, @source_w, @source_h, @origin_x, @origin_y, @scale, @dpi, @monitor,
              NULL, @format, @bytes, @files, @state, 1, @archive_day, 0)
      ON CONFLICT (ref) DO UPDATE SET
        source = excluded.source, target = excluded.target, captured_at = excluded.captured_at, captured_at_iso = excluded.captured_at_iso,
        image_w = excluded.image_w, image_h = excluded.image_h, source_w = excluded.source_w, source_h = excluded.source_h,
        origin_x = excluded.origin_x, origin_y = excluded.origin_y, scale = excluded.scale, dpi = excluded.dpi, monitor = excluded.monitor,
        format = excluded.format, bytes = excluded.bytes, files = excluded.files, state = excluded.state, archive_day = excluded.archive_day,
        -- a cached thumbnail of another file is stale; sweep() removes its orphaned file
        thumb = CASE WHEN frames.files = excluded.files THEN frames.thumb ELSE NULL END,
        disk_bytes = CASE WHEN frames.files = excluded.files THEN frames.disk_bytes ELSE 0 END
      WHERE frames.external = 1 AND (
        frames.source, frames.target, frames.captured_at, frames.captured_at_iso, frames.image_w, frames.image_h, frames.source_w, frames.source_h,
        frames.origin_x, frames.origin_y, frames.scale, frames.dpi, frames.monitor, frames.format, frames.bytes, frames.files, frames.state, frames.archive_day
      ) IS NOT (
        excluded.source, excluded.target, excluded.captured_at, excluded.captured_at_iso, excluded.image_w, excluded.image_h, excluded.source_w, excluded.source_h,
        excluded.origin_x, excluded.origin_y, excluded.scale, excluded.dpi, excluded.monitor, excluded.format, excluded.bytes, excluded.files, excluded.state, excluded.archive_day
      )`),
    archiveDayGone: db.prepare<[string, string], { ref: string; thumb: string | null }>(
      'SELECT ref, thumb FROM frames WHERE archive_day = ? AND external = 1 AND ref NOT IN (SELECT value FROM json_each(?))',
    ),
    deleteFrame: db.prepare<[string]>('DELETE FROM frames WHERE ref = ?'),
    setPinned: db.prepare<[number, string]>('UPDATE frames SET pinned = ? WHERE ref = ?'),
    setAnnotation: db.prepare<[string | null, string]>('UPDATE frames SET annotation = ? WHERE ref = ?'),
    setFull: db.prepare<[string, number, string, string]>('UPDATE frames SET files = ?, disk_bytes = disk_bytes + ? WHERE ref = ? AND files = ?'),
    setThumb: db.prepare<[string, number, string]>('UPDATE frames SET thumb = ?, disk_bytes = disk_bytes + ? WHERE ref = ? AND thumb IS NULL'),
    expiredWithCrops: db.prepare<[number], RetentionRow>(subtree('SELECT ref FROM frames WHERE external = 0 AND pinned = 0 AND captured_at < ?')),
    withCrops: db.prepare<[string], RetentionRow>(subtree('SELECT ?')),
    // Own frames only: archive rows cannot be deleted to make room.
    totalBytes: db.prepare('SELECT sum(disk_bytes) AS n FROM frames WHERE external = 0'),
    oldestOwn: db.prepare<[], { ref: string }>('SELECT ref FROM frames WHERE external = 0 AND pinned = 0 ORDER BY captured_at ASC, rowid ASC'),
    linkAfter: db.prepare<[string, string, string]>("UPDATE activity SET after_ref = ? WHERE target = ? AND after_ref IS NULL AND result = 'ok' AND at > ?"),
    insertActivity: db.prepare<[Params]>(`
      INSERT INTO activity (at, tool, source, target, result, message, image_x, image_y, source_x, source_y, frame_ref, after_ref, duration_ms, params, client)
      VALUES (@at, @tool, @source, @target, @result, @message, @image_x, @image_y, @source_x, @source_y, @frame_ref, @after_ref, @duration_ms, @params, @client)`),
  };
}

// ---- helpers --------------------------------------------------------------------------------

/**
 * Synchronous so that a caller sees the files gone when the call returns; retention deletes a
 * few frames per run. Best effort: a file that cannot be removed is an orphan for sweep().
 */
function removeFiles(paths: string[], pruneDirs = false): void {
  for (const p of paths) {
    try {
      rmSync(p, { force: true });
    } catch {
      // Left for sweep().
    }
  }
  if (!pruneDirs) return;
  for (const dir of new Set(paths.map(dirOf))) {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty: other frames of that day remain.
    }
  }
}

function whereClause(q: FrameQuery): { where: string; params: Params } {
  const conds: string[] = [];
  const params: Params = {};
  if (q.source !== undefined) {
    conds.push('source = @source');
    params.source = q.source;
  }
  if (q.target !== undefined) {
    conds.push('target = @target');
    params.target = q.target;
  }
  if (q.from !== undefined) {
    conds.push('captured_at >= @from');
    params.from = dateMs(q.from, 'from');
  }
  if (q.to !== undefined) {
    conds.push('captured_at < @to');
    params.to = dateMs(q.to, 'to');
  }
  // Literals, not parameters: the partial index on pinned frames only matches `pinned = 1`.
  if (q.pinned !== undefined) conds.push(q.pinned ? 'pinned = 1' : 'pinned = 0');
  if (q.external !== undefined) conds.push(q.external ? 'external = 1' : 'external = 0');
  if (q.parentRef !== undefined) {
    conds.push('parent_ref = @parentRef');
    params.parentRef = q.parentRef;
  }
  if (q.rootOnly) conds.push('parent_ref IS NULL');
  return { where: conds.length ? `WHERE ${conds.join(' AND ')}` : '', params };
}

function dateMs(d: Date, name: string): number {
  const ms = d.getTime();
  if (!Number.isFinite(ms)) throw bad(`${name} is not a valid date.`);
  return ms;
}

function toRecord(r: FrameRow): FrameRecord {
  const files = JSON.parse(r.files) as FileSet;
  const rec: FrameRecord = {
    ref: r.ref,
    source: r.source as SourceName,
    target: r.target,
    capturedAt: r.captured_at_iso,
    image: { width: r.image_w, height: r.image_h },
    sourceSize: { width: r.source_w, height: r.source_h },
    origin: { x: r.origin_x, y: r.origin_y },
    scale: r.scale,
    state: JSON.parse(r.state) as Record<string, unknown>,
    format: r.format as ImageFormat,
    bytes: r.bytes,
    pinned: r.pinned === 1,
    hasFull: !r.external && files.full !== undefined,
    external: r.external === 1,
  };
  if (r.dpi !== null) rec.dpi = r.dpi;
  if (r.monitor !== null) rec.monitor = r.monitor;
  if (r.parent_ref !== null) rec.parentRef = r.parent_ref;
  if (r.annotation !== null) rec.annotation = r.annotation;
  return rec;
}

function toActivity(r: ActivityRow): ActivityEntry {
  const e: ActivityEntry = { id: r.id, at: r.at, tool: r.tool, result: r.result as ActivityEntry['result'], durationMs: r.duration_ms };
  if (r.source !== null) e.source = r.source as SourceName;
  if (r.target !== null) e.target = r.target;
  if (r.message !== null) e.message = r.message;
  if (r.image_x !== null && r.image_y !== null) e.imagePoint = { x: r.image_x, y: r.image_y };
  if (r.source_x !== null && r.source_y !== null) e.sourcePoint = { x: r.source_x, y: r.source_y };
  if (r.frame_ref !== null) e.frameRef = r.frame_ref;
  if (r.after_ref !== null) e.afterRef = r.after_ref;
  if (r.params !== null) e.params = JSON.parse(r.params) as Record<string, unknown>;
  if (r.client !== null) e.client = r.client;
  return e;
}

function archiveParams(r: ArchiveFrame, day: string | null): Params {
  if (!REF_PATTERN.test(r.ref)) throw bad(`Archive ref "${r.ref}" may hold only letters, digits, "_" and "-".`);
  const capturedMs = parseCapturedAt(r.capturedAt);
  if (!isAbsolute(r.imagePath) || (r.thumbnailPath !== undefined && !isAbsolute(r.thumbnailPath))) {
    throw bad(`Archive frame ${r.ref}: file paths must be absolute.`);
  }
  checkSize(r.image, 'image');
  if (!IMAGE_FORMATS.includes(r.format)) throw bad(`Archive frame ${r.ref}: unknown format ${String(r.format)}.`);
  const files: FileSet = { image: r.imagePath };
  if (r.thumbnailPath) files.thumbnail = r.thumbnailPath;
  const sourceSize = r.sourceSize ?? r.image;
  return {
    ref: r.ref,
    source: r.source ?? 'manictime',
    target: r.target,
    captured_at: capturedMs,
    captured_at_iso: r.capturedAt,
    image_w: r.image.width,
    image_h: r.image.height,
    source_w: sourceSize.width,
    source_h: sourceSize.height,
    origin_x: r.origin?.x ?? 0,
    origin_y: r.origin?.y ?? 0,
    scale: r.scale ?? 1,
    dpi: r.dpi ?? null,
    monitor: r.monitor ?? null,
    format: r.format,
    bytes: r.bytes ?? 0,
    files: JSON.stringify(files),
    state: JSON.stringify(r.state ?? {}),
    archive_day: day,
  };
}

function validateFrame(f: NewFrame): void {
  if (!SOURCE_NAMES.includes(f.source)) throw bad(`Unknown source ${String(f.source)}.`);
  if (typeof f.target !== 'string' || f.target === '') throw bad('A frame needs a target.');
  checkSize(f.image, 'image');
  if (!(f.sourceSize.width > 0 && f.sourceSize.height > 0)) throw bad(`sourceSize ${f.sourceSize.width}x${f.sourceSize.height} is not a positive size.`);
  if (!Number.isFinite(f.origin.x) || !Number.isFinite(f.origin.y)) throw bad('origin must be finite.');
  if (!(f.scale > 0) || !Number.isFinite(f.scale)) throw bad(`scale must be a positive number (got ${f.scale}).`);
  if (!IMAGE_FORMATS.includes(f.format)) throw bad(`Unknown image format ${String(f.format)}.`);
  if (!Buffer.isBuffer(f.data) || f.data.length === 0) throw new SightlineError('IMAGE_INVALID', 'The frame image is empty.', 'capture again');
  if (f.full && (!Buffer.isBuffer(f.full.data) || f.full.data.length === 0 || !IMAGE_FORMATS.includes(f.full.format))) {
    throw new SightlineError('IMAGE_INVALID', 'The full-resolution image is empty or of an unknown format.', 'capture again');
  }
}

function checkSize(s: { width: number; height: number }, name: string): void {
  if (!Number.isSafeInteger(s.width) || !Number.isSafeInteger(s.height) || s.width < 1 || s.height < 1) {
    throw bad(`${name} size ${s.width}x${s.height} is not a positive integer size.`);
  }
}

function parseCapturedAt(iso: string): number {
  const ms = ISO_WITH_OFFSET.test(iso) ? Date.parse(iso) : Number.NaN;
  if (!Number.isFinite(ms)) throw bad(`capturedAt "${iso}" is not an ISO-8601 date-time with a UTC offset.`);
  return ms;
}

/** The capture's own calendar day (local to where it was taken), for the folder name. */
function dayOf(iso: string): string {
  return ISO_WITH_OFFSET.exec(iso)?.[1] ?? 'undated';
}

function ext(format: ImageFormat): string {
  return format === 'jpeg' ? 'jpg' : format;
}

function dirOf(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i < 0 ? '.' : path.slice(0, i);
}

async function listDirs(root: string): Promise<string[]> {
  try {
    const entries = await readdir(root, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => join(root, e.name));
  } catch {
    return [];
  }
}

function bad(message: string): SightlineError {
  return new SightlineError('INVALID_ARGUMENT', message);
}

function notFound(ref: string): SightlineError {
  return new SightlineError('FRAME_NOT_FOUND', `No frame ${ref}.`, 'list_screenshots shows the frames that exist; capture again for a fresh one');
}

function wrap(e: unknown, code: ErrorCode, what: string): SightlineError {
  if (isSightlineError(e)) return e;
  return new SightlineError(code, `${what}: ${e instanceof Error ? e.message : String(e)}`, undefined, undefined, { cause: e });
}
