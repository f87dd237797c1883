/**
 * Walks `Screenshots/YYYY-MM-DD/` into day records. Names carry everything the
 * index needs, so files are never stat'ed: a day folder costs one stat (its
 * fingerprint) when unchanged, and one recursive readdir when new or changed.
 *
 * A day's fingerprint is its folder's mtime plus those of the folders inside it
 * (creating, renaming or deleting a file changes its folder's mtime). The stat is
 * taken before the readdir, so a file added during the scan changes the mtime
 * again; a folder modified within the last seconds is marked hot and rescanned
 * next time whatever its fingerprint (coarse mtime ticks). Symlinks are never
 * followed and never indexed.
 */
import { lstatSync, promises as fsp, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SightlineError } from '../../../../shared/errors.ts';
import type { ProgressReport } from '../source.ts';
import { DayBuilder, type DayRecord, type DaySummary } from './dayRecord.ts';
import { isDayFolderName, newNameFields, parseNameInto } from './filename.ts';
import type { IndexStore } from './indexStore.ts';

/** A folder changed this recently may still receive files within the same mtime tick. */
export const HOT_MS = 2_000;
const WRITE_BATCH_DAYS = 64;
const PROGRESS_EVERY_MS = 250;

export interface ScanStats {
  dayFolders: number;
  scannedDays: number;
  removedDays: number;
  /** Files seen in the folders scanned this time. */
  files: number;
  unknown: number;
  symlinksSkipped: number;
  otherSkipped: number;
  unknownSamples: string[];
  durationMs: number;
  /** Names of the day folders read and dropped this time. */
  scanned: string[];
  removed: string[];
}

/** Current fingerprint of a day folder, or null when it is gone. */
export function dayFingerprint(dayDir: string, subdirs: readonly string[]): string | null {
  const st = statSync(dayDir, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return null;
  let fp = String(st.mtimeMs);
  for (const sub of subdirs) {
    const s = statSync(join(dayDir, sub), { throwIfNoEntry: false });
    fp += `;${sub}=${s ? s.mtimeMs : 'gone'}`;
  }
  return fp;
}

interface DayScan {
  record: DayRecord;
  symlinks: number;
  other: number;
}

/** A day folder's own stat and listing, read ahead on the thread pool. */
export interface DayListing {
  mtimeMs: number;
  names: string[];
}

/** Read one day folder (recursively) into a record; `top` is its listing when already read. */
export function scanDay(dayDir: string, day: string, nowMs: number, top?: DayListing): DayScan {
  const builder = new DayBuilder();
  const fields = newNameFields();
  const subdirs: string[] = [];
  const mtimes: string[] = [];
  let newest = 0;
  let symlinks = 0;
  let other = 0;
  const walk = (dir: string, rel: string, listing?: DayListing): void => {
    let names: string[];
    let mtimeMs: number;
    if (listing) ({ names, mtimeMs } = listing);
    else {
      // stat before readdir: a file created in between changes the mtime we record.
      const st = statSync(dir, { throwIfNoEntry: false });
      if (!st) return;
      mtimeMs = st.mtimeMs;
      try {
        names = readdirSync(dir);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw e;
      }
    }
    if (mtimeMs > newest) newest = mtimeMs;
    mtimes.push(rel ? `;${rel}=${mtimeMs}` : String(mtimeMs));
    for (const name of names) {
      // A screenshot name is taken as a file without a stat (the reader checks what it
      // really is before opening); only the rest is looked at, to find folders.
      if (parseNameInto(name, fields)) {
        builder.add(name, fields, rel);
        continue;
      }
      const st2 = lstatSync(join(dir, name), { throwIfNoEntry: false });
      if (st2?.isDirectory()) {
        const childRel = rel ? `${rel}/${name}` : name;
        subdirs.push(childRel);
        walk(join(dir, name), childRel);
      } else if (st2?.isSymbolicLink()) symlinks++;
      else if (st2?.isFile()) builder.addUnknown(name, rel);
      else other++;
    }
  };
  walk(dayDir, '', top);
  // mtimes[0] is the day folder itself; the rest follow `subdirs` order.
  const fingerprint = mtimes.join('');
  const hot = nowMs - newest < HOT_MS;
  return { record: builder.build(day, fingerprint, subdirs, hot), symlinks, other };
}

/** Day folders listed ahead: the thread pool reads the next folders while this thread parses. */
const READ_AHEAD = 4;

type Prefetched = { ok: true; listing: DayListing | undefined } | { ok: false; error: unknown };

/** stat then readdir (in that order, see scanDay); never rejects, so an abandoned read-ahead is harmless. */
async function listDay(dir: string): Promise<Prefetched> {
  try {
    const st = await fsp.stat(dir);
    return { ok: true, listing: { mtimeMs: st.mtimeMs, names: await fsp.readdir(dir) } };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, listing: undefined };
    return { ok: false, error: e };
  }
}

export interface RefreshInput {
  root: string;
  store: IndexStore;
  /** In-memory copy of the store's summaries; updated in place. */
  summaries: Map<string, DaySummary>;
  now: () => number;
  signal: AbortSignal;
  onProgress?: ((p: ProgressReport) => void) | undefined;
  /** Only look at these day folders (a listing's window); new folders are still found. */
  onlyDays?: ReadonlySet<string> | undefined;
}

/** Incremental scan of the whole archive (or of `onlyDays`). Throws CANCELLED when aborted (finished days are kept). */
export async function refreshIndex(input: RefreshInput): Promise<ScanStats> {
  const started = performance.now();
  const stats: ScanStats = {
    dayFolders: 0,
    scannedDays: 0,
    removedDays: 0,
    files: 0,
    unknown: 0,
    symlinksSkipped: 0,
    otherSkipped: 0,
    unknownSamples: [],
    durationMs: 0,
    scanned: [],
    removed: [],
  };
  const onDisk = new Set<string>();
  const toScan: string[] = [];
  for (const e of readdirSync(input.root, { withFileTypes: true })) {
    if (e.isSymbolicLink()) {
      stats.symlinksSkipped++;
      continue;
    }
    if (!e.isDirectory() || !isDayFolderName(e.name)) continue;
    onDisk.add(e.name);
    const prev = input.summaries.get(e.name);
    if (!prev) toScan.push(e.name);
    else if (!input.onlyDays || input.onlyDays.has(e.name)) {
      if (prev.hot || dayFingerprint(join(input.root, e.name), prev.subdirs) !== prev.fingerprint) toScan.push(e.name);
    }
  }
  stats.dayFolders = onDisk.size;
  const removed = [...input.summaries.keys()].filter((d) => !onDisk.has(d));
  toScan.sort();

  let batch: DayRecord[] = [];
  const flush = (removedDays: readonly string[]): void => {
    input.store.write(batch, removedDays);
    for (const r of batch) {
      const { data: _data, unknownSamples: _samples, ...summary } = r;
      input.summaries.set(r.day, summary);
    }
    for (const d of removedDays) input.summaries.delete(d);
    batch = [];
  };
  let lastProgress = 0;
  const ahead: Array<Promise<Prefetched>> = [];
  let nextAhead = 0;
  const label = 'Indexing ManicTime screenshots';
  input.onProgress?.({ label, done: 0, total: toScan.length });
  for (let i = 0; i < toScan.length; i++) {
    if (input.signal.aborted) {
      flush([]);
      throw new SightlineError('CANCELLED', 'The ManicTime scan was cancelled; finished day folders are kept.', 'Refresh again to continue.');
    }
    while (ahead.length < READ_AHEAD && nextAhead < toScan.length) ahead.push(listDay(join(input.root, toScan[nextAhead++] as string)));
    const pre = await (ahead.shift() as Promise<Prefetched>);
    if (!pre.ok) throw pre.error;
    const day = toScan[i] as string;
    if (!pre.listing) continue; // deleted since the root was listed: the next refresh drops it
    const scan = scanDay(join(input.root, day), day, input.now(), pre.listing);
    batch.push(scan.record);
    stats.scannedDays++;
    stats.scanned.push(day);
    stats.files += scan.record.files;
    stats.unknown += scan.record.unknown;
    stats.symlinksSkipped += scan.symlinks;
    stats.otherSkipped += scan.other;
    for (const s of scan.record.unknownSamples) if (stats.unknownSamples.length < 5) stats.unknownSamples.push(`${day}/${s}`);
    if (batch.length >= WRITE_BATCH_DAYS) flush([]);
    const t = performance.now();
    if (input.onProgress && t - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = t;
      input.onProgress({ label, done: i + 1, total: toScan.length });
    }
  }
  flush(removed);
  stats.removedDays = removed.length;
  stats.removed = removed;
  input.onProgress?.({ label, done: toScan.length, total: toScan.length });
  stats.durationMs = performance.now() - started;
  return stats;
}
