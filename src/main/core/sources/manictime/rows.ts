/**
 * What an archive screenshot is in the shared catalog: a row with a deterministic ref (the same
 * file always gets the same ref), its target (the monitor), and a state that names the file by
 * its day folder and file names only. Reading goes back through the configured root and refuses
 * anything that is not a ManicTime screenshot inside it, whatever a (tampered) row says.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import { deterministicRef } from '../../catalog/refs.ts';
import type { ArchiveFrame, FrameRecord, FrameVariant } from '../../catalog/types.ts';
import { fileNamesOf, wallClockOf, type IndexedShot } from './dayRecord.ts';
import { capturedAtIso, isDayFolderName, parseScreenshotName } from './filename.ts';
import { readArchiveFile, type ArchiveIo, type ArchiveRoot, type RetryPolicy } from './reader.ts';

export const SOURCE = 'manictime';
const REF_PREFIX = 'mt';

/** What the catalog row of an archive frame keeps so the reader can find its files again. */
export const archiveFrameState = z.object({
  day: z.string(),
  /** Folder inside the day folder ('' = the day folder). */
  dir: z.string().default(''),
  full: z.string().optional(),
  thumb: z.string().optional(),
  /** Wall-clock time where it was taken, for display. */
  local: z.string().optional(),
});
export type ArchiveFrameState = z.output<typeof archiveFrameState>;

export function targetOf(monitor: number | undefined): string {
  return monitor === undefined ? `${SOURCE}:desktop` : `${SOURCE}:monitor:${monitor}`;
}

/** A capture's identity (date, time, offset, id, monitor) → its ref, the same on every run. */
export function refOf(shot: Pick<IndexedShot, 'utcMs' | 'offsetMinutes' | 'id' | 'monitor'>): string {
  const w = wallClockOf(shot);
  return deterministicRef(REF_PREFIX, `${w.date}_${w.time}_${shot.offsetMinutes}_${shot.id}_${shot.monitor ?? ''}`);
}

/** The catalog row of one indexed screenshot, its files under `root`. */
export function toCatalogRow(shot: IndexedShot, day: string, root: string): ArchiveFrame & { state: ArchiveFrameState & { local: string } } {
  const names = fileNamesOf(shot);
  const dirParts = shot.subdir ? shot.subdir.split('/') : [];
  const w = wallClockOf(shot);
  const state: ArchiveFrameState & { local: string } = { day, dir: shot.subdir, local: `${w.date} ${w.time}` };
  if (names.full) state.full = names.full;
  if (names.thumb) state.thumb = names.thumb;
  const row: ArchiveFrame & { state: ArchiveFrameState & { local: string } } = {
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
    group: day,
  };
  if (shot.monitor !== undefined) row.monitor = shot.monitor;
  if (names.thumb) row.thumbnailPath = join(root, day, ...dirParts, names.thumb);
  return row;
}

/** A file name as stored in a frame's state: one plain path segment, nothing else. */
function plainSegment(s: unknown): s is string {
  return typeof s === 'string' && s.length > 0 && s.length < 256 && !/[\\/\0%:]/.test(s) && s !== '.' && s !== '..';
}

function plainDir(s: unknown): s is string {
  return s === '' || (typeof s === 'string' && s.split('/').every(plainSegment));
}

export interface ReadOptions {
  roots: readonly ArchiveRoot[];
  io: ArchiveIo;
  retry?: RetryPolicy;
  signal?: AbortSignal;
}

/** The bytes of an archive frame: the full image, or its thumbnail (falling back to the full image). */
export async function readArchiveFrame(rec: FrameRecord, variant: FrameVariant, o: ReadOptions): Promise<{ data: Buffer; format: 'jpeg' | 'png' }> {
  const parsed = archiveFrameState.safeParse(rec.state);
  const st = parsed.success ? parsed.data : undefined;
  if (rec.source !== SOURCE || !st || !plainSegment(st.day) || !isDayFolderName(st.day) || !plainDir(st.dir)) {
    throw new SightlineError('PATH_REFUSED', 'This frame does not name a ManicTime archive file.', 'Use a ref from list_screenshots with source "manictime".');
  }
  // Only files named like ManicTime screenshots are ever opened, whatever a (tampered) catalog row says.
  for (const n of [st.full, st.thumb]) {
    if (n !== undefined && (!plainSegment(n) || !parseScreenshotName(n))) {
      throw new SightlineError('PATH_REFUSED', 'Refused to read an archive path (not a ManicTime screenshot file name).', 'Use a ref from list_screenshots.');
    }
  }
  const root = o.roots[0];
  if (!root) {
    throw new SightlineError('SOURCE_UNAVAILABLE', 'The ManicTime Screenshots folder is not available.', 'Check manictime.dataDir / manictime.screenshotsDir and sightline://health.');
  }
  const dirParts = st.dir ? st.dir.split('/') : [];
  const order = variant === 'thumbnail' ? [st.thumb, st.full] : [st.full, st.thumb];
  let lastError: unknown;
  for (const name of order) {
    if (!name) continue;
    try {
      return await readArchiveFile(join(root.path, st.day, ...dirParts, name), o.roots, { io: o.io, retry: o.retry, signal: o.signal });
    } catch (e) {
      // A refused path is never retried with the other variant; an unavailable thumbnail falls back to the full image.
      if (!isSightlineError(e) || e.code !== 'FILE_UNAVAILABLE' || variant !== 'thumbnail') throw e;
      lastError = e;
    }
  }
  throw lastError ?? new SightlineError('FILE_UNAVAILABLE', 'This archive frame has no file.', 'List the window again with list_screenshots.');
}
