/**
 * Rows of the catalog's tables and the pure rules around them: how a row becomes a record,
 * how a query becomes a WHERE clause, what a valid frame is. No I/O here.
 */
import { isAbsolute } from 'node:path';
import type { ActivityEntry, ActivityOutcome, TargetLabel } from '../../../shared/activity.ts';
import { SightlineError, isSightlineError, type ErrorCode } from '../../../shared/errors.ts';
import { IMAGE_FORMATS, type ImageFormat } from '../../../shared/frame.ts';
import { REF_PATTERN } from './refs.ts';
import type { ArchiveFrame, FrameLabel, FrameQuery, FrameRecord, NewFrame } from './types.ts';
import { storageError } from '../util/storageError.ts';

const ISO_WITH_OFFSET = /^(\d{4}-\d{2}-\d{2})T.*(Z|[+-]\d{2}:?\d{2})$/;
/** Source names are target-id prefixes: lowercase words (see src/main/core/sources/module.ts). */
const SOURCE_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** What the `files` column holds. Own frames: paths relative to the data dir; archive: absolute. */
export interface FileSet {
  image: string;
  full?: string;
  fullFormat?: ImageFormat;
  /** The archive's own thumbnail (archive frames only). */
  thumbnail?: string;
}

export interface FrameRow {
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
  archive_group: string | null;
  thumb: string | null;
  disk_bytes: number;
  label: string | null;
}

export interface ActivityRow {
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
  run_id: string | null;
  run_dir: string | null;
  target_label: string | null;
  outcome: string | null;
  session: string | null;
  /** The before-frame's image size (joined; null when it is gone). */
  frame_w?: number | null;
  frame_h?: number | null;
}

export type Params = Record<string, unknown>;

export const FRAME_COLUMNS =
  'ref, source, target, captured_at, captured_at_iso, image_w, image_h, source_w, source_h, origin_x, origin_y, scale, dpi, monitor, parent_ref, format, bytes, files, pinned, annotation, state, external, archive_group, thumb, disk_bytes, label';

export function whereClause(q: FrameQuery): { where: string; params: Params } {
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

export function dateMs(d: Date, name: string): number {
  const ms = d.getTime();
  if (!Number.isFinite(ms)) throw bad(`${name} is not a valid date.`);
  return ms;
}

export function toRecord(r: FrameRow): FrameRecord {
  const files = JSON.parse(r.files) as FileSet;
  const rec: FrameRecord = {
    ref: r.ref,
    source: r.source,
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
  if (r.label !== null) rec.label = JSON.parse(r.label) as FrameLabel;
  return rec;
}

export function toActivity(r: ActivityRow): ActivityEntry {
  const e: ActivityEntry = { id: r.id, at: r.at, tool: r.tool, result: r.result as ActivityEntry['result'], durationMs: r.duration_ms };
  if (r.source !== null) e.source = r.source;
  if (r.target !== null) e.target = r.target;
  if (r.message !== null) e.message = r.message;
  if (r.image_x !== null && r.image_y !== null) e.imagePoint = { x: r.image_x, y: r.image_y };
  if (r.source_x !== null && r.source_y !== null) e.sourcePoint = { x: r.source_x, y: r.source_y };
  if (r.frame_ref !== null) e.frameRef = r.frame_ref;
  if (r.after_ref !== null) e.afterRef = r.after_ref;
  if (r.params !== null) e.params = JSON.parse(r.params) as Record<string, unknown>;
  if (r.client !== null) e.client = r.client;
  if (r.frame_w && r.frame_h) e.frameImage = { width: r.frame_w, height: r.frame_h };
  if (r.target_label) e.targetLabel = JSON.parse(r.target_label) as TargetLabel;
  if (r.outcome) e.outcome = JSON.parse(r.outcome) as ActivityOutcome;
  if (r.run_id !== null) e.run = r.run_dir !== null ? { id: r.run_id, artifacts: r.run_dir } : { id: r.run_id };
  if (r.session) e.session = r.session;
  return e;
}

export function archiveParams(r: ArchiveFrame, group: string | null): Params {
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
    source: r.source,
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
    archive_group: group,
  };
}

/** A label as stored: its non-empty fields, each cut to 1,000 characters; null when there are none. */
export function labelJson(label: FrameLabel | undefined): string | null {
  if (!label) return null;
  const out: FrameLabel = {};
  for (const k of ['title', 'app', 'document'] as const) {
    const v = label[k]?.trim();
    if (v) out[k] = v.slice(0, 1000);
  }
  return Object.keys(out).length ? JSON.stringify(out) : null;
}

export function validateFrame(f: NewFrame): void {
  if (!SOURCE_NAME.test(f.source)) throw bad(`Unknown source ${String(f.source)}.`);
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

export function checkSize(s: { width: number; height: number }, name: string): void {
  if (!Number.isSafeInteger(s.width) || !Number.isSafeInteger(s.height) || s.width < 1 || s.height < 1) {
    throw bad(`${name} size ${s.width}x${s.height} is not a positive integer size.`);
  }
}

export function parseCapturedAt(iso: string): number {
  const ms = ISO_WITH_OFFSET.test(iso) ? Date.parse(iso) : Number.NaN;
  if (!Number.isFinite(ms)) throw bad(`capturedAt "${iso}" is not an ISO-8601 date-time with a UTC offset.`);
  return ms;
}

/** The capture's own calendar day (local to where it was taken), for the folder name. */
export function dayOf(iso: string): string {
  return ISO_WITH_OFFSET.exec(iso)?.[1] ?? 'undated';
}

export function ext(format: ImageFormat): string {
  return format === 'jpeg' ? 'jpg' : format;
}

export function dirOf(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i < 0 ? '.' : path.slice(0, i);
}

export function bad(message: string): SightlineError {
  return new SightlineError('INVALID_ARGUMENT', message, 'Correct the value the message names.');
}

export function notFound(ref: string): SightlineError {
  return new SightlineError('FRAME_NOT_FOUND', `No frame ${ref}.`, 'list_screenshots shows the frames that exist; capture again for a fresh one');
}

/**
 * A failure to write the data directory, named for what it is: a full disk or quota is
 * STORAGE_FULL, a read-only or unwritable folder STORAGE_READ_ONLY (both with the folder in the
 * hint); anything else INTERNAL. SQLite reports the same conditions with its own codes.
 */
export function wrap(e: unknown, code: ErrorCode, what: string, dataDir?: string): SightlineError {
  if (isSightlineError(e)) return e;
  const storage = storageError(e, what, dataDir);
  if (storage) return storage;
  return new SightlineError(code, `${what}: ${e instanceof Error ? e.message : String(e)}`, 'This is a Sightline bug; the log has details.', undefined, { cause: e });
}
