/**
 * The frame index: every frame's row (Sightline's own and the archive's), their files and
 * thumbnails. A frame is inserted only after its files are in place, so a row never names a
 * file that is not there; any failure removes what was written.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SightlineError } from '../../../shared/errors.ts';
import type { ImageFormat, SourceName } from '../../../shared/frame.ts';
import { thumbnail } from '../image/pipeline.ts';
import type { CatalogContext } from './context.ts';
import { ARCHIVE_THUMBS_DIR, FRAMES_DIR } from './files.ts';
import { newRef, REF_PATTERN } from './refs.ts';
import { bad, dayOf, dirOf, ext, FRAME_COLUMNS, labelJson, notFound, parseCapturedAt, toRecord, validateFrame, whereClause, wrap, type FileSet, type FrameRow } from './rows.ts';
import type { ExternalReader, FrameListQuery, FrameQuery, FrameRecord, FrameVariant, NewFrame } from './types.ts';

const MAX_LIST_LIMIT = 100_000;

export class FrameStore {
  readonly #c: CatalogContext;
  readonly #thumbJobs = new Map<string, Promise<{ data: Buffer; format: ImageFormat }>>();
  #externalReader: ExternalReader | undefined;

  constructor(context: CatalogContext) {
    this.#c = context;
  }

  /** How archive frames' files are read (they may live on a share, or in a zip). */
  setExternalReader(reader: ExternalReader | undefined): void {
    this.#externalReader = reader;
  }

  async insert(f: NewFrame): Promise<FrameRecord> {
    const c = this.#c;
    const capturedMs = parseCapturedAt(f.capturedAt);
    validateFrame(f);
    const ref = f.ref ?? newRef();
    if (!REF_PATTERN.test(ref)) throw bad(`Ref "${ref}" may hold only letters, digits, "_" and "-".`);
    if (c.pending.has(ref) || c.stmt.exists.get(ref)) throw bad(`A frame with ref ${ref} already exists.`);
    c.pending.add(ref);
    const dayRel = join(FRAMES_DIR, dayOf(f.capturedAt));
    const files: FileSet = { image: join(dayRel, `${ref}.${ext(f.format)}`) };
    if (f.full) {
      files.full = join(dayRel, `${ref}.full.${ext(f.full.format)}`);
      files.fullFormat = f.full.format;
    }
    const writes: [string, Buffer][] = [[files.image, f.data]];
    if (f.full && files.full) writes.push([files.full, f.full.data]);
    let placed: string[] = [];
    try {
      placed = await c.files.writeAll(writes);
      c.stmt.insert.run({
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
        archive_group: null,
        disk_bytes: f.data.length + (f.full?.data.length ?? 0),
        label: labelJson(f.label),
      });
    } catch (e) {
      await Promise.all(placed.map((p) => rm(p, { force: true })));
      throw wrap(e, 'INTERNAL', `Could not store frame ${ref}`, c.dataDir);
    } finally {
      c.pending.delete(ref);
    }
    const rec = this.get(ref);
    if (!rec) throw new SightlineError('INTERNAL', `Frame ${ref} vanished right after it was stored.`, 'Capture again; if it keeps happening, another process is deleting frames from this data directory.');
    c.events.emit('frame', rec);
    return rec;
  }

  /**
   * Store a frame's native-resolution original after the frame itself (captures write it
   * behind their response). Atomic like insert; a frame deleted meanwhile keeps no file.
   */
  async attachFull(ref: string, full: { data: Buffer; format: ImageFormat }): Promise<FrameRecord | undefined> {
    const c = this.#c;
    const row = c.stmt.get.get(ref);
    if (!row || row.external) return undefined;
    const files = JSON.parse(row.files) as FileSet;
    if (files.full) return toRecord(row);
    const rel = join(dirOf(files.image), `${ref}.full.${ext(full.format)}`);
    const final = c.files.abs(rel);
    try {
      await c.files.writeOne(final, full.data);
    } catch (e) {
      throw wrap(e, 'INTERNAL', `Could not store the original of frame ${ref}`, c.dataDir);
    }
    const next = JSON.stringify({ ...files, full: rel, fullFormat: full.format });
    if (c.closed() || c.stmt.setFull.run(next, full.data.length, ref, row.files).changes === 0) {
      await rm(final, { force: true });
      return undefined;
    }
    const rec = this.get(ref);
    if (rec) c.events.emit('frame-updated', rec);
    return rec;
  }

  get(ref: string): FrameRecord | undefined {
    const row = this.#c.stmt.get.get(ref);
    return row ? toRecord(row) : undefined;
  }

  /** The newest frame of a target; crops are skipped unless `rootOnly: false`. */
  latest(source: SourceName, target: string, opts: { rootOnly?: boolean } = {}): FrameRecord | undefined {
    const rootOnly = opts.rootOnly ?? true;
    const row = (rootOnly ? this.#c.stmt.latestRoot : this.#c.stmt.latestAny).get(target, source);
    return row ? toRecord(row) : undefined;
  }

  list(q: FrameListQuery): FrameRecord[] {
    if (!Number.isSafeInteger(q.limit) || q.limit < 1 || q.limit > MAX_LIST_LIMIT) throw bad(`limit must be an integer in 1..${MAX_LIST_LIMIT} (got ${q.limit}).`);
    const offset = q.offset ?? 0;
    if (!Number.isSafeInteger(offset) || offset < 0) throw bad(`offset must be a non-negative integer (got ${offset}).`);
    const { where, params } = whereClause(q);
    const dir = q.order === 'asc' ? 'ASC' : 'DESC';
    // rowid breaks ties in index order (every time index ends with it), so no sort step is needed.
    const sql = `SELECT ${FRAME_COLUMNS} FROM frames ${where} ORDER BY captured_at ${dir}, rowid ${dir} LIMIT @limit OFFSET @offset`;
    const rows = this.#c.query(sql).all({ ...params, limit: q.limit, offset }) as FrameRow[];
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
    return (this.#c.query(sql).all({ ...params, bucket: bucketMs }) as FrameRow[]).map(toRecord);
  }

  count(q: FrameQuery = {}): number {
    const { where, params } = whereClause(q);
    return (this.#c.query(`SELECT count(*) AS n FROM frames ${where}`).get(params) as { n: number }).n;
  }

  /**
   * Start making the thumbnails of `refs` that have none yet, without waiting (a list's first
   * screen: the browser asks for them only after the page has arrived and been drawn, and by then
   * they are under way). Failures are left for the request that asks, which reports them.
   */
  prepareThumbnails(refs: readonly string[]): void {
    for (const ref of refs) {
      const row = this.#c.stmt.get.get(ref);
      if (!row || row.thumb || (row.external && (JSON.parse(row.files) as FileSet).thumbnail)) continue;
      void this.#readThumbnail(row).catch(() => {});
    }
  }

  /** Absolute path of a frame's file, if it has one (a thumbnail only once generated or archived). */
  filePath(rec: FrameRecord, variant: FrameVariant): string | undefined {
    const row = this.#c.stmt.get.get(rec.ref);
    if (!row) return undefined;
    const files = JSON.parse(row.files) as FileSet;
    const own = (rel: string | undefined | null): string | undefined => (rel ? this.#c.files.abs(rel) : undefined);
    if (variant === 'thumbnail') return own(row.thumb) ?? (row.external ? files.thumbnail : undefined);
    if (row.external) return files.image;
    return own(variant === 'full' ? (files.full ?? files.image) : files.image);
  }

  /** A frame's bytes. 'full' falls back to 'image'; 'thumbnail' is made on first use and kept. */
  async read(ref: string, variant: FrameVariant): Promise<{ data: Buffer; format: ImageFormat }> {
    const row = this.#c.stmt.get.get(ref);
    if (!row) throw notFound(ref);
    if (variant === 'thumbnail') return this.#readThumbnail(row);
    const rec = toRecord(row);
    if (row.external) return this.#readExternal(rec, 'image');
    const files = JSON.parse(row.files) as FileSet;
    const useFull = variant === 'full' && files.full !== undefined;
    const rel = useFull && files.full ? files.full : files.image;
    const format = useFull ? (files.fullFormat ?? rec.format) : rec.format;
    return { data: await this.#c.files.readOwn(ref, rel), format };
  }

  setPinned(ref: string, pinned: boolean): FrameRecord {
    return this.#updated(ref, this.#c.stmt.setPinned.run(pinned ? 1 : 0, ref).changes);
  }

  setAnnotation(ref: string, text: string | null): FrameRecord {
    return this.#updated(ref, this.#c.stmt.setAnnotation.run(text === null || text === '' ? null : text, ref).changes);
  }

  /** Whether `path` is one of the files the row of `ref` names (sweep spares those). */
  isReferenced(ref: string, path: string): boolean {
    const row = this.#c.stmt.get.get(ref);
    if (!row) return false;
    const files = JSON.parse(row.files) as FileSet;
    return [files.image, files.full, row.thumb].some((rel) => rel && this.#c.files.abs(rel) === path);
  }

  #updated(ref: string, changes: number): FrameRecord {
    const rec = changes ? this.get(ref) : undefined;
    if (!rec) throw notFound(ref);
    this.#c.events.emit('frame-updated', rec);
    return rec;
  }

  async #readExternal(rec: FrameRecord, variant: FrameVariant): Promise<{ data: Buffer; format: ImageFormat }> {
    if (!this.#externalReader) {
      throw new SightlineError('SOURCE_UNAVAILABLE', `Frame ${rec.ref} belongs to the ${rec.source} archive, which is not loaded.`, `enable the ${rec.source} source`);
    }
    return this.#externalReader(rec, variant);
  }

  #readThumbnail(row: FrameRow): Promise<{ data: Buffer; format: ImageFormat }> {
    const running = this.#thumbJobs.get(row.ref);
    if (running) return running;
    const job = this.#makeThumbnail(row).finally(() => this.#thumbJobs.delete(row.ref));
    this.#thumbJobs.set(row.ref, job);
    return job;
  }

  async #makeThumbnail(row: FrameRow): Promise<{ data: Buffer; format: ImageFormat }> {
    const c = this.#c;
    if (row.thumb) {
      try {
        return { data: await readFile(c.files.abs(row.thumb)), format: 'jpeg' };
      } catch {
        // Removed behind our back: make it again.
      }
    }
    const rec = toRecord(row);
    const files = JSON.parse(row.files) as FileSet;
    if (row.external && files.thumbnail) return this.#readExternal(rec, 'thumbnail');
    // The fitted image is plenty for 320 px and far cheaper to decode than the original.
    const source = row.external ? await this.#readExternal(rec, 'image') : { data: await c.files.readOwn(row.ref, files.image) };
    const thumb = await thumbnail({ kind: 'encoded', data: source.data });
    const rel = row.external ? join(ARCHIVE_THUMBS_DIR, (row.archive_group ?? 'other').replace(/[^\w-]/g, '_'), `${row.ref}.thumb.jpg`) : join(dirOf(files.image), `${row.ref}.thumb.jpg`);
    const final = c.files.abs(rel);
    try {
      await c.files.writeOne(final, thumb.data);
    } catch {
      // Caching is an optimisation: serve the thumbnail anyway.
      return { data: thumb.data, format: 'jpeg' };
    }
    if (c.closed() || c.stmt.setThumb.run(rel, thumb.data.length, row.ref).changes === 0) {
      // The frame was deleted meanwhile, or another process cached the same path first.
      const now = c.closed() ? undefined : c.stmt.get.get(row.ref);
      if (now?.thumb !== rel) await rm(final, { force: true });
    }
    return { data: thumb.data, format: 'jpeg' };
  }
}
