/**
 * The dashboard's timeline: Sightline's own frames and the screenshots of every enabled archive
 * (ManicTime) as one newest-first list, paged by offset from the first request on. The catalog
 * holds an archive only as far as it was listed, so the archive answers for itself through its
 * own index (`HistoryPort.timeline`) and the two lists are merged by time
 * (util/mergedPages.ts): a page deep in a years-long archive reads only its own screenshots.
 *
 * And the titles: an archive frame is named by what the user was doing then (app and document,
 * as `list_screenshots` labels it), asked of its archive for a whole page at once.
 */
import type { FrameSummary } from '../../../shared/api.ts';
import type { ScreenActivity, SourceName } from '../../../shared/frame.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { FrameQuery, FrameRecord } from '../catalog/types.ts';
import type { ArchiveList, HistoryPort } from '../sources/source.ts';
import { memoTimes, mergeAll, type PagedList } from '../util/mergedPages.ts';
import { frameSummary } from './descriptors.ts';

export interface TimelineQuery {
  source?: SourceName;
  target?: string;
  /** The anchor: frames captured strictly before it. */
  before?: Date;
  offset: number;
  limit: number;
}

export interface TimelinePage {
  frames: FrameRecord[];
  total: number;
}

const timeOf = (f: FrameRecord): number => Date.parse(f.capturedAt);

/** Sightline's own frames (crops of archive frames included) matching the filter, newest first. */
export function ownFrames(catalog: Catalog, q: Omit<TimelineQuery, 'offset' | 'limit'>): PagedList<FrameRecord> {
  const filter: FrameQuery = { source: q.source, target: q.target, to: q.before, external: false };
  return {
    total: catalog.frames.count(filter),
    timeAt: (i) => {
      const [f] = catalog.frames.list({ ...filter, limit: 1, offset: i, order: 'desc' });
      if (!f) throw new RangeError(`no frame at ${i}`);
      return timeOf(f);
    },
    page: (offset, limit) => (limit > 0 ? catalog.frames.list({ ...filter, limit, offset, order: 'desc' }) : []),
  };
}

/** An archive's list, its refs read back as the catalog rows its page just made. */
export function archiveFrames(catalog: Catalog, list: ArchiveList): PagedList<FrameRecord> {
  return {
    total: list.total,
    timeAt: (i) => list.timeAt(i),
    page: (offset, limit) => list.page(offset, limit).flatMap((ref) => catalog.frames.get(ref) ?? []),
  };
}

/** One page of the merged timeline; `archives` are the archives the filter includes, ready to read. */
export function timelinePage(catalog: Catalog, archives: readonly HistoryPort[], q: TimelineQuery): TimelinePage {
  const anchor = { before: q.before, target: q.target };
  const lists = [ownFrames(catalog, q), ...archives.map((h) => archiveFrames(catalog, h.timeline(anchor)))];
  const merged = mergeAll(lists, timeOf);
  return { frames: merged.page(q.offset, q.limit), total: merged.total };
}

export interface PositionsQuery {
  source?: SourceName;
  target?: string;
  /** Pinned frames only: the catalog's list, as the frames route answers it (no archive merge). */
  pinned?: boolean;
  before?: Date;
  /** Moments, epoch ms. */
  at: readonly number[];
}

export interface Positions {
  total: number;
  newestMs?: number;
  oldestMs?: number;
  /** For each moment: items captured at or after it. */
  since: number[];
}

/** Items of a newest-first list captured at or after `t` (a binary search on capture times). */
export function countSince<T>(list: PagedList<T>, t: number): number {
  let lo = 0;
  let hi = list.total;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list.timeAt(mid) >= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Frames of `filter` captured at or after each moment (before the anchor). Each count is of the
 * stretch between one moment and the next newer one, summed from the newest down: one walk of
 * the time index over the whole range, however many moments (not one walk per moment).
 */
function countsSince(catalog: Catalog, filter: FrameQuery, at: readonly number[]): number[] {
  const anchor = filter.to ? filter.to.getTime() : Number.POSITIVE_INFINITY;
  const order = at.map((t, k) => [t, k] as const).sort((a, b) => b[0] - a[0]);
  const out = new Array<number>(at.length).fill(0);
  let n = 0;
  let upper = anchor;
  for (const [t, k] of order) {
    if (t < upper) {
      n += catalog.frames.count({ ...filter, from: new Date(t), to: Number.isFinite(upper) ? new Date(upper) : undefined });
      upper = t;
    }
    out[k] = n;
  }
  return out;
}

/** The newest and oldest capture time of `filter`'s frames (two index seeks). */
function ends(catalog: Catalog, filter: FrameQuery): { newestMs: number; oldestMs: number } | undefined {
  const [newest] = catalog.frames.list({ ...filter, limit: 1, order: 'desc' });
  const [oldest] = catalog.frames.list({ ...filter, limit: 1, order: 'asc' });
  return newest && oldest ? { newestMs: timeOf(newest), oldestMs: timeOf(oldest) } : undefined;
}

/**
 * Where moments fall in the merged timeline: the count of items at or after a moment is the sum
 * of each list's (the merge keeps time order), so no merged page is ever read. Own frames are
 * counted by the database, archives by a binary search on their own index.
 */
export function timelinePositions(catalog: Catalog, archives: readonly HistoryPort[], q: PositionsQuery): Positions {
  // Pinned frames are the catalog's list alone, as the frames route answers them.
  const filter: FrameQuery = q.pinned ? { source: q.source, target: q.target, to: q.before, pinned: true } : { source: q.source, target: q.target, to: q.before, external: false };
  const lists = q.pinned ? [] : archives.map((h) => memoTimes(archiveFrames(catalog, h.timeline({ before: q.before, target: q.target }))));
  const own = countsSince(catalog, filter, q.at);
  const since = own.map((n, k) => n + lists.reduce((m, l) => m + countSince(l, q.at[k] as number), 0));
  const total = catalog.frames.count(filter) + lists.reduce((n, l) => n + l.total, 0);
  const newest: number[] = [];
  const oldest: number[] = [];
  const e = ends(catalog, filter);
  if (e) {
    newest.push(e.newestMs);
    oldest.push(e.oldestMs);
  }
  for (const l of lists) {
    if (l.total === 0) continue;
    newest.push(l.timeAt(0));
    oldest.push(l.timeAt(l.total - 1));
  }
  if (newest.length === 0) return { total, since };
  return { total, newestMs: Math.max(...newest), oldestMs: Math.min(...oldest), since };
}

/** The instant an archive frame shows: its own, or for a crop of one, its archive ancestor's. */
export function shownAt(catalog: Catalog, f: FrameRecord): number | undefined {
  let cur: FrameRecord | undefined = f;
  for (let depth = 0; cur && depth < 8; depth++) {
    if (cur.external) return timeOf(cur);
    cur = cur.parentRef ? catalog.frames.get(cur.parentRef) : undefined;
  }
  return undefined;
}

/**
 * Frames as the dashboard lists them, each archive frame (or crop of one) with the activity at
 * its moment. `archiveOf` gives the history of an archive source (undefined: not one, or off).
 */
export async function summarize(
  catalog: Catalog,
  frames: readonly FrameRecord[],
  archiveOf: (source: SourceName) => Promise<HistoryPort | undefined>,
  signal?: AbortSignal,
): Promise<FrameSummary[]> {
  const screens = catalog.text.screens(frames.map((f) => f.ref));
  const out = frames.map((f) => {
    const s = frameSummary(f);
    const screen = screens.get(f.ref);
    return screen === undefined ? s : { ...s, screen };
  });
  const bySource = new Map<SourceName, number[]>();
  for (const [i, f] of frames.entries()) {
    if (!f.external && !f.parentRef) continue;
    const list = bySource.get(f.source) ?? [];
    list.push(i);
    bySource.set(f.source, list);
  }
  for (const [source, positions] of bySource) {
    const history = await archiveOf(source).catch(() => undefined);
    if (!history?.activityAt) continue;
    const at = positions.map((i) => shownAt(catalog, frames[i] as FrameRecord));
    const known = positions.filter((_, k) => at[k] !== undefined);
    const labels: (ScreenActivity | undefined)[] = await history.activityAt(at.filter((t): t is number => t !== undefined), signal).catch(() => []);
    for (const [k, i] of known.entries()) {
      const activity = labels[k];
      if (activity) out[i] = { ...(out[i] as FrameSummary), activity };
    }
  }
  return out;
}
