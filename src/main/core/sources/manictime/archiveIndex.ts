/**
 * The archive's index and its freshness: day folders → packed day records (indexStore.ts),
 * rescanned only when their fingerprint changes. A full pass fingerprints every day folder at
 * most once a minute; lighter passes in between look only at new, removed and "hot" folders and
 * the days a listing reads. Catalog rows of screenshots whose files ManicTime deleted since go.
 */
import { realpathSync, statSync } from 'node:fs';
import type { ArchiveFrame } from '../../catalog/types.ts';
import type { ArchiveStore, ProgressReport } from '../source.ts';
import type { ManicTimeLocation } from './dataDir.ts';
import { decodeColumns, shotAt, type DayColumns, type DaySummary } from './dayRecord.ts';
import type { IndexStore } from './indexStore.ts';
import type { ArchiveRoot } from './reader.ts';
import { SOURCE, refOf, toCatalogRow } from './rows.ts';
import { refreshIndex, type ScanStats } from './scanner.ts';

/** A full fingerprint pass over every day folder at most this often; lighter checks in between. */
const FULL_CHECK_MS = 60_000;
/** A listing re-checks the folders it reads at most this often. */
const LIGHT_CHECK_MS = 2_000;
const DAY_CACHE = 32;
/** Above this share of unrecognised names (and at least UNKNOWN_MIN), the name format is probably new. */
const UNKNOWN_RATIO = 0.1;
const UNKNOWN_MIN = 20;

export interface ArchiveIndexOptions {
  locate: () => ManicTimeLocation;
  store: IndexStore;
  archive: ArchiveStore;
  now: () => Date;
}

export class ArchiveIndex {
  readonly #o: ArchiveIndexOptions;
  readonly #summaries = new Map<string, DaySummary>();
  readonly #dayCache = new Map<string, { fingerprint: string; cols: DayColumns }>();
  #loaded = false;
  #lastFullCheck = 0;
  #lastCheck = 0;
  #lastStats: ScanStats | undefined;
  #unknownSamples: string[] = [];
  #inflight: Promise<void> | undefined;
  #roots: ArchiveRoot[] = [];
  #folderFound = false;
  #indexedRoot: string | undefined;

  constructor(options: ArchiveIndexOptions) {
    this.#o = options;
  }

  get roots(): readonly ArchiveRoot[] {
    return this.#roots;
  }

  get folderFound(): boolean {
    return this.#folderFound;
  }

  /** Whether a full pass has run since this index was opened. */
  get checked(): boolean {
    return this.#loaded && this.#lastFullCheck !== 0;
  }

  lastScan(): ScanStats | undefined {
    return this.#lastStats;
  }

  get unknownSamples(): readonly string[] {
    return this.#unknownSamples;
  }

  /** The Screenshots folder of `loc`, resolved; no folder, no roots. Returns the real path. */
  updateRoots(loc: ManicTimeLocation = this.#o.locate()): string | undefined {
    const dir = loc.screenshotsDir;
    this.#folderFound = Boolean(dir && statSync(dir, { throwIfNoEntry: false })?.isDirectory());
    if (!dir || !this.#folderFound) {
      this.#roots = [];
      return undefined;
    }
    let real = dir;
    try {
      real = realpathSync(dir);
    } catch {
      // Unresolvable: keep the lexical path; reads then fail the realpath check.
    }
    this.#roots = [{ path: dir, real }];
    return real;
  }

  /** Bring the index up to date: a full pass when one is due, else a light one. */
  refresh(signal: AbortSignal, onProgress?: (p: ProgressReport) => void): Promise<void> {
    const t = this.#o.now().getTime();
    const full = !this.checked || t - this.#lastFullCheck >= FULL_CHECK_MS;
    return this.#run(full ? 'full' : 'light', signal, onProgress);
  }

  /** Before a listing of [fromMs, toMs): a full pass if none ran yet, else re-check its days now and then. */
  async freshen(fromMs: number, toMs: number, signal: AbortSignal): Promise<void> {
    if (!this.checked) return this.#run('full', signal);
    if (this.#o.now().getTime() - this.#lastCheck < LIGHT_CHECK_MS) return;
    const days = new Set(this.daysOverlapping(fromMs, toMs).map((s) => s.day));
    return this.#run('light', signal, undefined, days);
  }

  /** A day's screenshots, decoded (the most recently used days are kept). */
  columns(day: string): DayColumns | undefined {
    const s = this.#summaries.get(day);
    if (!s) return undefined;
    const cache = this.#dayCache;
    const cached = cache.get(day);
    if (cached && cached.fingerprint === s.fingerprint) {
      // Most recently used last.
      cache.delete(day);
      cache.set(day, cached);
      return cached.cols;
    }
    const buf = this.#o.store.load(day);
    if (!buf) return undefined;
    const cols = decodeColumns(buf);
    cache.set(day, { fingerprint: s.fingerprint, cols });
    while (cache.size > DAY_CACHE) cache.delete(cache.keys().next().value as string);
    return cols;
  }

  daysOverlapping(fromMs: number, toMs: number): DaySummary[] {
    return [...this.#summaries.values()].filter((s) => s.count > 0 && s.lastMs >= fromMs && s.firstMs < toMs).sort((a, b) => a.firstMs - b.firstMs);
  }

  /** Days with screenshots before `beforeMs`, newest first. */
  daysBefore(beforeMs: number): DaySummary[] {
    return [...this.#summaries.values()].filter((d) => d.count > 0 && d.firstMs < beforeMs).sort((a, b) => b.lastMs - a.lastMs);
  }

  range(): { total: number; firstMs: number; lastMs: number } {
    let total = 0;
    let firstMs = Number.POSITIVE_INFINITY;
    let lastMs = Number.NEGATIVE_INFINITY;
    for (const s of this.#summaries.values()) {
      if (s.count === 0) continue;
      total += s.count;
      if (s.firstMs < firstMs) firstMs = s.firstMs;
      if (s.lastMs > lastMs) lastMs = s.lastMs;
    }
    return { total, firstMs, lastMs };
  }

  names(): { unknown: number; files: number; unfamiliar: boolean } {
    let unknown = 0;
    let files = 0;
    for (const s of this.#summaries.values()) {
      unknown += s.unknown;
      files += s.files;
    }
    return { unknown, files, unfamiliar: unknown >= UNKNOWN_MIN && unknown / Math.max(1, files) > UNKNOWN_RATIO };
  }

  /** The catalog row of a day's i-th screenshot. */
  row(cols: DayColumns, i: number, day: string): ReturnType<typeof toCatalogRow> {
    return toCatalogRow(shotAt(cols, i), day, this.#roots[0]?.path ?? '');
  }

  #run(mode: 'full' | 'light', signal: AbortSignal, onProgress?: (p: ProgressReport) => void, days?: Set<string>): Promise<void> {
    // One scan at a time; a caller arriving during a scan waits for it.
    if (this.#inflight) return this.#inflight;
    const p = this.#scan(mode, signal, onProgress, days).finally(() => {
      this.#inflight = undefined;
    });
    this.#inflight = p;
    return p;
  }

  async idle(): Promise<void> {
    await this.#inflight?.catch(() => undefined);
  }

  /** full: fingerprint every day folder; light: only new/removed folders, hot ones and `days`. */
  async #scan(mode: 'full' | 'light', signal: AbortSignal, onProgress?: (p: ProgressReport) => void, days?: Set<string>): Promise<void> {
    const root = this.updateRoots();
    if (!this.#loaded) {
      for (const s of this.#o.store.summaries()) this.#summaries.set(s.day, s);
      this.#loaded = true;
    }
    const t = this.#o.now().getTime();
    if (!root) {
      this.#lastCheck = t;
      return;
    }
    // Another folder (a settings change): every day must be compared, not just the recent ones.
    if (root !== this.#indexedRoot) mode = 'full';
    this.#indexedRoot = root;
    let onlyDays: Set<string> | undefined;
    if (mode === 'light') {
      onlyDays = new Set(days ?? []);
      for (const s of this.#summaries.values()) if (s.hot) onlyDays.add(s.day);
      // ManicTime writes into the newest folders; check the last two whatever the window.
      for (const d of [...this.#summaries.keys()].sort().slice(-2)) onlyDays.add(d);
    }
    const before = new Map(this.#summaries);
    // Hot folders are judged against the real clock: mtimes are real, `now` may be injected.
    const stats = await refreshIndex({ root, store: this.#o.store, summaries: this.#summaries, now: () => Date.now(), signal, onProgress, onlyDays });
    if (stats.scannedDays > 0 || stats.removedDays > 0) {
      for (const d of this.#dayCache.keys()) if (this.#summaries.get(d)?.fingerprint !== this.#dayCache.get(d)?.fingerprint) this.#dayCache.delete(d);
      this.#syncCatalog(before, stats.scanned, stats.removed);
    }
    this.#lastStats = stats;
    if (stats.unknownSamples.length) this.#unknownSamples = stats.unknownSamples;
    this.#lastCheck = t;
    if (mode === 'full') this.#lastFullCheck = t;
  }

  /**
   * Catalog rows (the screenshots clients were given) whose files ManicTime has deleted since go
   * too: a removed day folder drops all of its rows, a rescanned one those no longer in it.
   */
  #syncCatalog(before: Map<string, DaySummary>, scanned: readonly string[], removed: readonly string[]): void {
    const archive = this.#o.archive;
    if (archive.countFrames({ source: SOURCE, external: true }) === 0) return;
    for (const day of removed) archive.replaceArchiveGroup(SOURCE, day, []);
    for (const day of scanned) {
      const prev = before.get(day);
      if (!prev || prev.count === 0) continue;
      const cur = this.#summaries.get(day);
      const fromMs = Math.min(prev.firstMs, cur?.count ? cur.firstMs : prev.firstMs);
      const toMs = Math.max(prev.lastMs, cur?.count ? cur.lastMs : prev.lastMs) + 1000;
      const rows = archive
        .listFrames({ source: SOURCE, external: true, from: new Date(fromMs), to: new Date(toMs), limit: 100_000, order: 'asc' })
        .filter((f) => (f.state as { day?: unknown }).day === day);
      if (rows.length === 0) continue;
      const cols = this.columns(day);
      const present = new Map<string, number>();
      for (let i = 0; cols && i < cols.n; i++) present.set(refOf(shotAt(cols, i)), i);
      const keep: ArchiveFrame[] = [];
      for (const r of rows) {
        const i = present.get(r.ref);
        if (cols && i !== undefined) keep.push(this.row(cols, i, day));
      }
      if (keep.length !== rows.length) archive.replaceArchiveGroup(SOURCE, day, keep);
    }
  }
}
