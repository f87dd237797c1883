/**
 * The time strip's calendar arithmetic, pure (unit-tested under Node): the local days between
 * the oldest and newest frame, the hours of one day, and each one's frame count and first row
 * from the server's `since` counts (frames at or after a moment). Local midnights and hours are
 * made with the Date constructor, so a day of a clock change has 23 or 25 hours, as it should.
 */

/** A stretch of time [start, end) with its frames; `row` is the newest one's row (0 = newest). */
export interface Span {
  start: number;
  end: number;
  count: number;
  row: number;
}

/** Most days a strip offers (the newest ones): one positions request holds a year and a day. */
export const MAX_DAYS = 366;

/** Local midnight of the day `ms` falls in. */
export function dayStart(ms: number): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** Local midnight `n` days after the one of `ms` (n may be negative). */
export function addDays(ms: number, n: number): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + n).getTime();
}

/**
 * The edges of the days from the oldest frame's to the newest's, newest first: the midnight
 * after the newest day, then each midnight down to the oldest day's (at most MAX_DAYS days).
 */
export function dayEdges(oldestMs: number, newestMs: number, maxDays = MAX_DAYS): number[] {
  const edges = [addDays(newestMs, 1)];
  const oldest = dayStart(oldestMs);
  for (let k = 0; k < maxDays; k++) {
    const e = addDays(newestMs, -k);
    edges.push(e);
    if (e <= oldest) break;
  }
  return edges;
}

/** The edges of a day's hours, newest first: its next midnight, then 23:00 down to 00:00. */
export function hourEdges(dayMs: number): number[] {
  const d = new Date(dayStart(dayMs));
  const out: number[] = [];
  for (let h = 24; h >= 0; h--) out.push(new Date(d.getFullYear(), d.getMonth(), d.getDate(), h).getTime());
  return out;
}

/**
 * Spans between consecutive edges (newest first), from `since[k]`, the frames at or after
 * edges[k]; `offset` rows come before the counted ones (live frames newer than the anchor).
 */
export function spans(edges: readonly number[], since: readonly number[], offset = 0): Span[] {
  const out: Span[] = [];
  for (let k = 1; k < edges.length; k++) {
    const newer = since[k - 1] ?? 0;
    const all = since[k] ?? newer;
    out.push({ start: edges[k] as number, end: edges[k - 1] as number, count: Math.max(0, all - newer), row: offset + newer });
  }
  return out;
}
