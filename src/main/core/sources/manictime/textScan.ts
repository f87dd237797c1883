/**
 * The archive as the text indexer walks it: screenshots newest first in batches, each given its
 * catalog row (so its text can be keyed to a ref agents can use) and labelled with what was
 * active then: the application, its window title and the document, from ManicTimeReports.db.
 */
import { SightlineError } from '../../../../shared/errors.ts';
import type { FrameLabel } from '../../catalog/types.ts';
import type { ArchiveExtent, ArchiveStore, ArchiveTextFrame, TextBatchQuery } from '../source.ts';
import type { ActivityProvider } from './activities.ts';
import type { ArchiveIndex } from './archiveIndex.ts';
import type { ManicTimeLocation } from './dataDir.ts';
import type { DayColumns } from './dayRecord.ts';
import { covering, segmentAt } from './sampling.ts';

export interface ArchiveTextOptions {
  index: ArchiveIndex;
  archive: ArchiveStore;
  locate: () => ManicTimeLocation;
  activities: (loc: ManicTimeLocation) => ActivityProvider;
}

interface Pick {
  utcMs: number;
  monitor: number;
  id: number;
  day: string;
  i: number;
  cols: DayColumns;
}

const newestFirst = (a: Pick, b: Pick): number => b.utcMs - a.utcMs || a.monitor - b.monitor || b.id - a.id;

/**
 * The newest `limit` of `picks` (sorted newest first), plus those sharing the last one's second:
 * a batch never splits an instant, so "everything before this second" is a safe cursor.
 */
export function cutAtInstant<T extends { utcMs: number }>(sorted: readonly T[], limit: number): T[] {
  if (sorted.length <= limit) return [...sorted];
  let end = Math.max(1, limit);
  const last = (sorted[end - 1] as T).utcMs;
  while (end < sorted.length && (sorted[end] as T).utcMs === last) end++;
  return sorted.slice(0, end);
}

export class ArchiveText {
  readonly #o: ArchiveTextOptions;

  constructor(options: ArchiveTextOptions) {
    this.#o = options;
  }

  async batch(q: TextBatchQuery, signal: AbortSignal): Promise<ArchiveTextFrame[]> {
    const { index } = this.#o;
    const after = q.after ?? Number.NEGATIVE_INFINITY;
    const before = q.before ?? Number.POSITIVE_INFINITY;
    // The walker refreshes the index itself now and then; a batch only needs one to exist.
    if (!index.checked) await index.refresh(signal);
    const limit = Math.max(1, Math.floor(q.limit));
    // Newest days first; a day older than the limit-th newest screenshot found so far adds nothing.
    const days = index.daysOverlapping(after, before).sort((a, b) => b.lastMs - a.lastMs);
    let picks: Pick[] = [];
    for (const d of days) {
      if (picks.length >= limit && d.lastMs < (picks[limit - 1] as Pick).utcMs) break;
      const cols = index.columns(d.day);
      if (!cols) continue;
      for (let i = 0; i < cols.n; i++) {
        const utcMs = (cols.utcSec[i] as number) * 1000;
        if (utcMs <= after || utcMs >= before) continue;
        picks.push({ utcMs, monitor: cols.monitor[i] as number, id: cols.id[i] as number, day: d.day, i, cols });
      }
      picks.sort(newestFirst);
    }
    picks = cutAtInstant(picks, limit);
    if (picks.length === 0) return [];
    const labels = await this.#labels(picks[picks.length - 1]!.utcMs, picks[0]!.utcMs);
    const rows = picks.map((p) => index.row(p.cols, p.i, p.day));
    // Rows first: the text is keyed to a frame agents can get_screenshot.
    this.#o.archive.upsertArchiveFrames(rows);
    return picks.map((p, k) => ({ ref: rows[k]!.ref, capturedMs: p.utcMs, label: labels(p.utcMs) }));
  }

  extent(q: { from?: number; to?: number } = {}): ArchiveExtent {
    const { index } = this.#o;
    if (q.from === undefined && q.to === undefined) {
      const r = index.range();
      return r.total ? { count: r.total, newestMs: r.lastMs, oldestMs: r.firstMs } : { count: 0 };
    }
    const from = q.from ?? Number.NEGATIVE_INFINITY;
    const to = q.to ?? Number.POSITIVE_INFINITY;
    let count = 0;
    let newestMs: number | undefined;
    let oldestMs: number | undefined;
    for (const d of index.daysOverlapping(from, to)) {
      const whole = d.firstMs >= from && d.lastMs < to;
      if (whole) {
        count += d.count;
        newestMs = Math.max(newestMs ?? d.lastMs, d.lastMs);
        oldestMs = Math.min(oldestMs ?? d.firstMs, d.firstMs);
        continue;
      }
      const cols = index.columns(d.day);
      for (let i = 0; cols && i < cols.n; i++) {
        const ms = (cols.utcSec[i] as number) * 1000;
        if (ms < from || ms >= to) continue;
        count++;
        newestMs = Math.max(newestMs ?? ms, ms);
        oldestMs = Math.min(oldestMs ?? ms, ms);
      }
    }
    return { count, ...(newestMs !== undefined ? { newestMs } : {}), ...(oldestMs !== undefined ? { oldestMs } : {}) };
  }

  /**
   * What was active at an instant of [fromMs, toMs]. Busy or unreadable now: the batch waits.
   * Missing, of an unknown schema, or no activity at that instant: an empty label, which the
   * indexer never indexes while ocr.excludeApps is set (the app cannot be known; never guessed).
   */
  async #labels(fromMs: number, toMs: number): Promise<(t: number) => FrameLabel> {
    const act = this.#o.activities(this.#o.locate());
    const timeline = await act.segments(fromMs, toMs);
    const state = act.status().state;
    if (timeline === null && (state === 'busy' || state === 'unreadable')) {
      // Without the apps an excluded app's screenshots could not be told apart: wait, never guess.
      throw new SightlineError('SOURCE_UNAVAILABLE', `ManicTime's activity database cannot be read now (${act.status().detail ?? state}).`, 'The text indexer tries again in a minute; nothing to do unless it persists (see sightline://health).');
    }
    const segments = timeline?.segments ?? [];
    const titles = timeline?.titles ?? [];
    return (t) => {
      const seg = segmentAt(segments, t);
      const title = covering(titles, t);
      const label: FrameLabel = {};
      if (seg?.app !== undefined) label.app = seg.app;
      if (title !== undefined) label.title = title;
      if (seg?.document !== undefined) label.document = seg.document;
      return label;
    };
  }
}
