/**
 * One newest-first list made of several (Sightline's own frames and each archive's), paged by
 * offset without reading any of them from its start. Where a page begins in each list is the
 * k-th element of two sorted lists: a binary search on capture times, O(log n) probes of single
 * items, so a page deep in a years-long archive costs a few dozen index lookups, and only the
 * page's own items are ever read whole (an archive makes catalog rows for exactly those).
 *
 * Everything here is synchronous on purpose: the catalog and the archive index answer at once,
 * and a page computed in one tick sees one state of both (no write lands between two probes).
 */

/** A newest-first list, read a page at a time. */
export interface PagedList<T> {
  /** Items in the list. */
  readonly total: number;
  /** Capture time (epoch ms) of item `index` (0 = newest), read without building the item. */
  timeAt(index: number): number;
  /** Items [offset, offset + limit), newest first. */
  page(offset: number, limit: number): T[];
}

/**
 * How many of the first `k` items of merge(a, b) come from `a`. Equal times go to `a` first, so
 * the merge is one fixed order. `lo`/`hi` narrow the search when a bound is already known.
 */
export function splitAt<T>(a: PagedList<T>, b: PagedList<T>, k: number, lo = 0, hi = k): number {
  let low = Math.max(lo, 0, k - b.total);
  let high = Math.min(hi, k, a.total);
  while (low < high) {
    const i = (low + high) >>> 1;
    // a[i] is among the first k exactly when it comes before b[k - i - 1].
    if (a.timeAt(i) >= b.timeAt(k - i - 1)) low = i + 1;
    else high = i;
  }
  return low;
}

/** Merge two sorted runs of items (a first on equal times). */
function mergeRuns<T>(as: readonly T[], bs: readonly T[], timeOf: (item: T) => number): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < as.length && j < bs.length) {
    if (timeOf(as[i] as T) >= timeOf(bs[j] as T)) out.push(as[i++] as T);
    else out.push(bs[j++] as T);
  }
  while (i < as.length) out.push(as[i++] as T);
  while (j < bs.length) out.push(bs[j++] as T);
  return out;
}

/** A list's probes remembered (a binary search revisits items, and merges of merges more so). */
export function memoTimes<T>(list: PagedList<T>): PagedList<T> {
  const seen = new Map<number, number>();
  return {
    total: list.total,
    timeAt(index) {
      let t = seen.get(index);
      if (t === undefined) seen.set(index, (t = list.timeAt(index)));
      return t;
    },
    page: (offset, limit) => list.page(offset, limit),
  };
}

/** merge(a, b) as one list: a page reads from each exactly the items it shows. */
export function mergeLists<T>(a: PagedList<T>, b: PagedList<T>, timeOf: (item: T) => number): PagedList<T> {
  const total = a.total + b.total;
  return memoTimes({
    total,
    timeAt(k) {
      if (!(k >= 0 && k < total)) throw new RangeError(`index ${k} outside 0..${total - 1}`);
      const i = splitAt(a, b, k);
      const j = k - i;
      if (j >= b.total) return a.timeAt(i);
      if (i >= a.total) return b.timeAt(j);
      return Math.max(a.timeAt(i), b.timeAt(j));
    },
    page(offset, limit) {
      const start = Math.max(0, Math.min(offset, total));
      const end = Math.min(total, start + Math.max(0, limit));
      if (end <= start) return [];
      const i0 = splitAt(a, b, start);
      // The end's split lies within a page's length of the start's.
      const i1 = splitAt(a, b, end, i0, i0 + (end - start));
      const j0 = start - i0;
      const j1 = end - i1;
      const as = i1 > i0 ? a.page(i0, i1 - i0) : [];
      const bs = j1 > j0 ? b.page(j0, j1 - j0) : [];
      return mergeRuns(as, bs, timeOf);
    },
  });
}

/** Any number of lists as one (none: an empty list). */
export function mergeAll<T>(lists: readonly PagedList<T>[], timeOf: (item: T) => number): PagedList<T> {
  const [first, ...rest] = lists;
  if (!first) return { total: 0, timeAt: (i) => { throw new RangeError(`index ${i} of an empty list`); }, page: () => [] };
  return rest.reduce<PagedList<T>>((acc, l) => mergeLists(acc, memoTimes(l), timeOf), memoTimes(first));
}

/** A plain array (newest first) as a list: tests, and lists small enough to hold. */
export function arrayList<T>(items: readonly T[], timeOf: (item: T) => number): PagedList<T> {
  return {
    total: items.length,
    timeAt: (i) => timeOf(items[i] as T),
    page: (offset, limit) => items.slice(offset, offset + limit),
  };
}
