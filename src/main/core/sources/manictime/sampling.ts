/**
 * Which screenshots of a window to return: pure selection policy, no I/O.
 *
 * Work is done on *moments*: the screenshots that share one capture second (one
 * per monitor, or a same-second collision). A moment is kept or dropped whole so
 * both monitors of an instant come back together, each as its own entry; only a
 * single moment larger than `max` is cut. `max` is strict.
 */
import type { ScreenActivity } from '../../../../shared/frame.ts';
import { spreadEvenly } from '../../util/sampling.ts';


export interface Timed {
  utcMs: number;
}

export interface ActivitySegment {
  startMs: number;
  endMs: number;
  app: string | undefined;
  document: string | undefined;
}

export interface ActivitySpan {
  startMs: number;
  endMs: number;
  /** Application name (Applications timeline group) or document name (Documents timeline activity). */
  value: string;
}

/** Group a time-sorted list into runs with the same `utcMs`. */
export function toMoments<T extends Timed>(sorted: readonly T[]): T[][] {
  const out: T[][] = [];
  let cur: T[] | undefined;
  for (const item of sorted) {
    if (cur && (cur[0] as T).utcMs === item.utcMs) cur.push(item);
    else out.push((cur = [item]));
  }
  return out;
}

/**
 * Keep as many moments as fit in `max` entries, spread evenly over the window.
 * Returns the flattened entries (never more than `max`).
 */
export function capMoments<T>(moments: readonly T[][], max: number): T[] {
  if (max <= 0 || moments.length === 0) return [];
  let total = 0;
  for (const m of moments) total += m.length;
  if (total <= max) return moments.flat();
  for (let k = Math.min(moments.length, max); k >= 1; k--) {
    const picked = spreadEvenly(moments, k);
    let sum = 0;
    for (const m of picked) sum += m.length;
    if (sum <= max) return picked.flat();
  }
  // One moment alone is larger than max: cut it.
  return (moments[0] as T[]).slice(0, max);
}

/** Chronological, cut at `max` (page on with `from` after the last entry). */
export function sampleAll<T>(moments: readonly T[][], max: number): T[] {
  const out: T[] = [];
  for (const m of moments) {
    for (const item of m) {
      if (out.length >= max) return out;
      out.push(item);
    }
  }
  return out;
}

/**
 * The first moment of each `intervalMs` bucket counted from `originMs`; with no
 * usable interval, one spread evenly so about `max` moments come back.
 */
export function sampleInterval<T extends Timed>(moments: readonly T[][], intervalMs: number, originMs: number, max: number): T[] {
  if (moments.length === 0) return [];
  let step = intervalMs;
  if (!(step > 0)) {
    const first = (moments[0] as T[])[0] as T;
    const last = (moments[moments.length - 1] as T[])[0] as T;
    step = Math.max(1000, (last.utcMs - first.utcMs + 1000) / Math.max(1, max));
  }
  const picked: T[][] = [];
  let lastBucket = Number.NEGATIVE_INFINITY;
  for (const m of moments) {
    const bucket = Math.floor(((m[0] as T).utcMs - originMs) / step);
    if (bucket !== lastBucket) {
      picked.push(m);
      lastBucket = bucket;
    }
  }
  return capMoments(picked, max);
}

/**
 * One moment per activity change: the first screenshot taken at or after the
 * segment's start and before its end (it shows the new application or document).
 * Segments with no screenshot inside are skipped.
 */
export function sampleTransitions<T extends Timed>(moments: readonly T[][], segments: readonly ActivitySegment[], max: number): T[] {
  const picked: T[][] = [];
  let i = 0;
  for (const seg of segments) {
    // Moments and segments are both sorted: advance a shared cursor.
    while (i < moments.length && ((moments[i] as T[])[0] as T).utcMs < seg.startMs) i++;
    if (i >= moments.length) break;
    const m = moments[i] as T[];
    if ((m[0] as T).utcMs < seg.endMs && picked[picked.length - 1] !== m) picked.push(m);
  }
  return capMoments(picked, max);
}

/**
 * Merge the Applications and Documents timelines into segments where the pair
 * (app, document) is constant. Gaps with neither are left out.
 */
export function buildSegments(apps: readonly ActivitySpan[], docs: readonly ActivitySpan[]): ActivitySegment[] {
  const cuts = new Set<number>();
  for (const s of apps) if (s.endMs > s.startMs) cuts.add(s.startMs).add(s.endMs);
  for (const s of docs) if (s.endMs > s.startMs) cuts.add(s.startMs).add(s.endMs);
  const times = [...cuts].sort((a, b) => a - b);
  const sortedApps = [...apps].sort((a, b) => a.startMs - b.startMs);
  const sortedDocs = [...docs].sort((a, b) => a.startMs - b.startMs);
  const out: ActivitySegment[] = [];
  for (let k = 0; k + 1 < times.length; k++) {
    const start = times[k] as number;
    const end = times[k + 1] as number;
    const app = covering(sortedApps, start);
    const document = covering(sortedDocs, start);
    if (app === undefined && document === undefined) continue;
    const prev = out[out.length - 1];
    if (prev && prev.endMs === start && prev.app === app && prev.document === document) prev.endMs = end;
    else out.push({ startMs: start, endMs: end, app, document });
  }
  return out;
}

/** The value of the last span (by start) that covers `t`; `sorted` by start. */
export function covering(sorted: readonly ActivitySpan[], t: number): string | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as ActivitySpan).startMs <= t) lo = mid + 1;
    else hi = mid;
  }
  // Spans rarely overlap; look back a few for one that still covers t.
  for (let j = lo - 1, n = 0; j >= 0 && n < 8; j--, n++) {
    const s = sorted[j] as ActivitySpan;
    if (s.endMs > t) return s.value;
  }
  return undefined;
}

/** The segment covering `t` (segments sorted, non-overlapping). */
export function segmentAt(segments: readonly ActivitySegment[], t: number): ActivitySegment | undefined {
  let lo = 0;
  let hi = segments.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((segments[mid] as ActivitySegment).startMs <= t) lo = mid + 1;
    else hi = mid;
  }
  const s = segments[lo - 1];
  return s && s.endMs > t ? s : undefined;
}

/** What a segment says the user was doing (app and document), as list_screenshots and the dashboard show it. */
export function activityOf(seg: ActivitySegment | undefined): ScreenActivity | undefined {
  if (seg?.app !== undefined) return seg.document !== undefined ? { app: seg.app, document: seg.document } : { app: seg.app };
  if (seg?.document !== undefined) return { app: 'unknown', document: seg.document };
  return undefined;
}

/**
 * Instants grouped into runs no more than `maxGapMs` apart, each with the positions (in
 * `times`) of its members: one activity read per run covers a page of screenshots without
 * reading the months between two distant ones.
 */
export function clusterTimes(times: readonly number[], maxGapMs: number): { fromMs: number; toMs: number; members: number[] }[] {
  const order = times.map((_, i) => i).filter((i) => Number.isFinite(times[i])).sort((a, b) => (times[a] as number) - (times[b] as number));
  const out: { fromMs: number; toMs: number; members: number[] }[] = [];
  for (const i of order) {
    const t = times[i] as number;
    const last = out[out.length - 1];
    if (last && t - last.toMs <= maxGapMs) {
      last.toMs = t;
      last.members.push(i);
    } else out.push({ fromMs: t, toMs: t, members: [i] });
  }
  return out;
}
