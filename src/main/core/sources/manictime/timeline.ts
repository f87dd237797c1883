/**
 * The archive as the dashboard's timeline reads it: every screenshot before an anchor, newest
 * first, addressed by position. Positions are found through the day records' counts (a prefix
 * sum over days, then one day decoded), so reading position 250,000 of a three-year archive
 * decodes one day, not the days before it; and only a page's screenshots become catalog rows.
 */
import type { ArchiveList, ArchiveStore } from '../source.ts';
import type { ArchiveIndex } from './archiveIndex.ts';
import type { DayColumns, DaySummary } from './dayRecord.ts';
import { SOURCE } from './rows.ts';

/** undefined: no filter; null: matches nothing; -1: the v0 whole-desktop target. */
export function monitorFilter(target: string | undefined): number | null | undefined {
  if (!target) return undefined;
  if (target === `${SOURCE}:desktop`) return -1;
  const m = /^manictime:monitor:(\d{1,4})$/.exec(target);
  return m ? Number(m[1]) : null;
}

const EMPTY: ArchiveList = {
  total: 0,
  timeAt: (i) => {
    throw new RangeError(`index ${i} of an empty archive list`);
  },
  page: () => [],
};

/** The index of the last start ≤ `index` (starts ascending, starts[0] = 0). */
export function dayFor(starts: readonly number[], index: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as number) <= index) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

export function archiveTimeline(index: ArchiveIndex, archive: ArchiveStore, q: { before?: Date; target?: string }): ArchiveList {
  const beforeMs = q.before?.getTime() ?? Number.POSITIVE_INFINITY;
  const monitor = monitorFilter(q.target);
  if (monitor === null) return EMPTY;
  const days = index.daysBefore(beforeMs);
  // A day's screenshots before the anchor (and on the monitor), newest first; kept for this list's life.
  const picks = new Map<string, { cols: DayColumns; idx: number[] } | null>();
  const pick = (d: DaySummary): { cols: DayColumns; idx: number[] } | null => {
    let got = picks.get(d.day);
    if (got !== undefined) return got;
    const cols = index.columns(d.day);
    got = null;
    if (cols) {
      const idx: number[] = [];
      for (let i = 0; i < cols.n; i++) {
        if ((cols.utcSec[i] as number) * 1000 >= beforeMs) continue;
        if (monitor !== undefined && (cols.monitor[i] as number) !== monitor) continue;
        idx.push(i);
      }
      idx.sort((a, b) => (cols.utcSec[b] as number) - (cols.utcSec[a] as number) || (cols.id[b] as number) - (cols.id[a] as number));
      got = { cols, idx };
    }
    picks.set(d.day, got);
    return got;
  };
  // Whole days are counted from their summaries; only a monitor filter or the anchor makes a day be decoded.
  const exact = (d: DaySummary): boolean => monitor !== undefined || d.lastMs >= beforeMs;
  const starts: number[] = [];
  let total = 0;
  for (const d of days) {
    starts.push(total);
    total += exact(d) ? (pick(d)?.idx.length ?? 0) : d.count;
  }
  if (total === 0) return EMPTY;

  return {
    total,
    timeAt(i) {
      if (!(i >= 0 && i < total)) throw new RangeError(`index ${i} outside 0..${total - 1}`);
      const k = dayFor(starts, i);
      const d = days[k] as DaySummary;
      const got = pick(d);
      const at = got?.idx[i - (starts[k] as number)];
      // A day whose record vanished or shrank since it was counted (a rescan): its summary still dates it.
      return got && at !== undefined ? (got.cols.utcSec[at] as number) * 1000 : d.firstMs;
    },
    page(offset, limit) {
      const end = Math.min(total, offset + limit);
      if (!(offset >= 0) || end <= offset) return [];
      const rows = [];
      for (let k = dayFor(starts, offset); k < days.length && (starts[k] as number) < end; k++) {
        const d = days[k] as DaySummary;
        const got = pick(d);
        if (!got) continue;
        const start = starts[k] as number;
        const to = Math.min(end - start, got.idx.length);
        for (let p = Math.max(offset, start) - start; p < to; p++) rows.push(index.row(got.cols, got.idx[p] as number, d.day));
      }
      archive.upsertArchiveFrames(rows);
      return rows.map((r) => r.ref);
    },
  };
}
