/**
 * The timeline's data model: a sparse, page-at-a-time view of a newest-first list that
 * may hold 100,000 frames, plus the frames that arrived live since it was opened. Its
 * fields are Svelte state, so a component that reads `count`, `at(i)` or `error`
 * re-renders when a page arrives or a frame is added; it needs no DOM and is unit-tested
 * under Node.
 *
 * Paging is anchored: every page is fetched with `before = anchor` (the moment the
 * list was opened), so offsets stay stable while agents keep capturing. Frames newer
 * than the anchor arrive through server events and sit in `live`, ahead of the pages.
 */
import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import { MAX_INLINE_THUMBS, TIMELINE_PAGE_SIZE, type FrameSummary, type FramesPage, type FramesQuery } from '../../shared/api.ts';
import type { SourceName } from '../../shared/frame.ts';
import { pageSegments, type Segment } from '../../shared/timeline.ts';

export interface FrameFilter {
  source?: SourceName | undefined;
  target?: string | undefined;
  pinned?: boolean | undefined;
}

/**
 * One row of the list as drawn: a frame, or a run of near-identical frames folded into its
 * newest one ("11:23–11:27 · 13 similar"), or a frame of a run that was opened.
 */
export interface ListRow {
  /** The frame the row shows (a folded run's newest); undefined while its page loads. */
  frame: FrameSummary | undefined;
  /** Its index in the unfolded list (0 = newest). */
  index: number;
  /** On the run's first row: how many frames it holds, its oldest, and whether it is open. */
  run?: { count: number; oldest: FrameSummary; open: boolean };
  /** A frame inside an opened run, after its first. */
  inRun?: boolean;
}

export type PageFetcher = (query: FramesQuery, signal: AbortSignal) => Promise<FramesPage>;

export interface PagerOptions {
  pageSize?: number;
  anchor?: Date;
  /**
   * Targets of every frame the pager receives are added here. The timeline passes one
   * set for its lifetime, so its target filter still offers targets seen under an
   * earlier filter (or since gone).
   */
  seenTargets?: Set<string>;
}

/** The first page of the unfiltered timeline, asked for before the page is drawn (main.ts). */
let early: { anchorMs: number; pageSize: number; page: Promise<FramesPage> } | undefined;

/**
 * Ask for the first page now, anchored now: the timeline's pager takes it when it is made with
 * no filter, which saves the time the page takes to mount (the request goes out first, not
 * after every component has been set up). The first `thumbs` rows bring their thumbnails inline.
 */
export function prefetchFirstPage(fetchPage: PageFetcher, thumbs = 0, pageSize = TIMELINE_PAGE_SIZE): void {
  const anchorMs = Date.now();
  // Formatted once, never mutated: not state.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  const before = new Date(anchorMs).toISOString();
  adoptFirstPage(fetchPage({ before, offset: 0, limit: pageSize, ...(thumbs > 0 ? { thumbs: Math.min(MAX_INLINE_THUMBS, thumbs) } : {}) }, new AbortController().signal), anchorMs, pageSize);
}

/** The first page (frames before `anchorMs`, `pageSize` of them), already asked for by someone else: the server's preload link. */
export function adoptFirstPage(page: Promise<FramesPage>, anchorMs: number, pageSize: number): void {
  page.catch(() => {});
  early = { anchorMs, pageSize, page };
}

/** The first page asked for ahead, while no pager has taken it: its total says whether anything is recorded yet. */
export function firstPageAhead(): Promise<FramesPage> | undefined {
  return early?.page;
}

export function matchesFilter(frame: FrameSummary, filter: FrameFilter): boolean {
  if (filter.source && frame.source !== filter.source) return false;
  if (filter.target && frame.target !== filter.target) return false;
  if (filter.pinned && !frame.pinned) return false;
  return true;
}

export class FramePager {
  readonly pageSize: number;
  readonly filter: FrameFilter;
  readonly anchor: string;
  readonly #anchorMs: number;
  readonly #fetchPage: PageFetcher;
  readonly #seenTargets: Set<string> | undefined;
  /**
   * Loaded pages of the anchored list, reactive per page: a page that arrives re-renders
   * the rows that read it. Pages are replaced, never mutated.
   */
  readonly #pages = new SvelteMap<number, readonly FrameSummary[]>();
  /** Requests under way: bookkeeping that nothing renders. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #inflight = new Map<number, AbortController>();
  /** Frames announced since the anchor, newest first; replaced on change (raw: frames are plain data). */
  #live = $state.raw<readonly FrameSummary[]>([]);
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #liveRefs = new Set<string>();
  /** Frames before the anchor, as the server counted them (null until the first page). */
  #serverTotal = $state<number | null>(null);
  #disposed = false;
  /** The prefetched first page this pager took (used by its first load of page 0). */
  #early: Promise<FramesPage> | undefined;

  /** Whether the first page has answered (until then `count` is only the live frames). */
  readonly loaded = $derived(this.#serverTotal !== null);
  /** Rows in the list: the live frames, then the anchored pages. */
  readonly count = $derived(this.#live.length + (this.#serverTotal ?? 0));
  /** Why the last page failed to load; cleared when a page loads (the list keeps what it has). */
  error = $state<unknown>(null);

  /** Runs the person opened, by their newest frame's ref. */
  readonly #open = new SvelteSet<string>();
  // Segments per page array (pages are replaced, never mutated): computed once per page.
  readonly #segs = new WeakMap<readonly FrameSummary[], Segment[]>();

  #segments(frames: readonly FrameSummary[]): Segment[] {
    let s = this.#segs.get(frames);
    if (!s) this.#segs.set(frames, (s = pageSegments(frames)));
    return s;
  }

  #segRows(frames: readonly FrameSummary[], seg: Segment): number {
    return seg.fold && !this.#open.has(frames[seg.start]!.ref) ? 1 : seg.len;
  }

  /**
   * Where the list as drawn differs from the list of frames: the loaded pages that hold runs
   * (folded or open), in page order, each with the rows before it (`before`, of the anchored pages) and the
   * frames folded away up to and including it (`saved`). Pages not loaded, and pages with nothing
   * to fold, count a row a frame, so only the pages with runs are visited (never all 1,000 pages of
   * 100,000 frames, and the first page costs no more than before).
   */
  readonly #layout = $derived.by(() => {
    const total = this.#serverTotal ?? 0;
    const folding: { page: number; rows: number; before: number; saved: number }[] = [];
    let saved = 0;
    for (const p of [...this.#pages.keys()].sort((a, b) => a - b)) {
      const frames = this.#pages.get(p) as readonly FrameSummary[];
      const segs = this.#segments(frames);
      // A page with runs, open or folded: its rows say so (an open run's first row folds it).
      if (!segs.some((seg) => seg.fold)) continue;
      let rows = 0;
      for (const seg of segs) rows += this.#segRows(frames, seg);
      const before = p * this.pageSize - saved;
      saved += frames.length - rows;
      folding.push({ page: p, rows, before, saved });
    }
    return { folding, rows: Math.max(0, total - saved) };
  });

  /** Rows in the list as drawn: live frames, then the anchored pages with their runs folded. */
  readonly rowCount = $derived(this.#live.length + this.#layout.rows);

  /** Row `r` of the list as drawn. */
  rowAt(r: number): ListRow | undefined {
    if (r < 0 || r >= this.rowCount) return undefined;
    const live = this.#live;
    if (r < live.length) return { frame: live[r], index: r };
    const k = r - live.length;
    const { folding } = this.#layout;
    // The last folding page that starts at or before row k.
    const f = folding[countAtOrBelow(folding, (g) => g.before, k) - 1];
    if (f && k < f.before + f.rows) return this.#rowInPage(f.page, k - f.before, live.length);
    const j = k + (f?.saved ?? 0);
    const p = Math.floor(j / this.pageSize);
    return { frame: this.#pages.get(p)?.[j % this.pageSize], index: live.length + j };
  }

  /** Row `within` of loaded page `p`, its runs folded. */
  #rowInPage(p: number, within: number, live: number): ListRow | undefined {
    const frames = this.#pages.get(p) as readonly FrameSummary[];
    const base = live + p * this.pageSize;
    for (const seg of this.#segments(frames)) {
      const n = this.#segRows(frames, seg);
      if (within < n) {
        const i = seg.start + within;
        const row: ListRow = { frame: frames[i], index: base + i };
        if (seg.fold && within === 0) row.run = { count: seg.len, oldest: frames[seg.start + seg.len - 1] as FrameSummary, open: n > 1 };
        if (seg.fold && within > 0) row.inRun = true;
        return row;
      }
      within -= n;
    }
    return undefined;
  }

  /** The row that shows frame `index` (a folded run's row for any of its frames). */
  rowOf(index: number): number {
    const live = this.#live.length;
    if (index < live) return Math.max(0, index);
    const j = index - live;
    const p = Math.floor(j / this.pageSize);
    const { folding } = this.#layout;
    // The last folding page at or before page p.
    const f = folding[countAtOrBelow(folding, (g) => g.page, p) - 1];
    if (f?.page !== p) return Math.min(this.rowCount - 1, live + j - (f?.saved ?? 0));
    const frames = this.#pages.get(p) as readonly FrameSummary[];
    const k = j - p * this.pageSize;
    let row = live + f.before;
    for (const seg of this.#segments(frames)) {
      const n = this.#segRows(frames, seg);
      if (k < seg.start + seg.len) return row + (n === 1 ? 0 : k - seg.start);
      row += n;
    }
    return row;
  }

  /** Open a folded run, or fold an open one (by its newest frame's ref). */
  toggleRun(ref: string): void {
    if (this.#open.has(ref)) this.#open.delete(ref);
    else this.#open.add(ref);
  }

  /** Make sure rows [from, to) of the list as drawn are loaded. */
  ensureRows(from: number, to: number): void {
    if (to <= from) return this.ensure(0, 0);
    const first = this.rowAt(from)?.index ?? from;
    const lastRow = this.rowAt(to - 1);
    const last = lastRow ? lastRow.index + (lastRow.run && !lastRow.run.open ? lastRow.run.count : 1) : to;
    this.ensure(first, last);
  }

  /** Called whenever what `at()` or `count` returns may have changed (for callers outside Svelte). */
  onChange: () => void = () => {};
  /** Called when a page fails to load. */
  onError: (e: unknown) => void = () => {};

  constructor(fetchPage: PageFetcher, filter: FrameFilter = {}, options: PagerOptions = {}) {
    this.#fetchPage = fetchPage;
    this.filter = { ...filter };
    this.pageSize = options.pageSize ?? TIMELINE_PAGE_SIZE;
    this.#seenTargets = options.seenTargets;
    const unfiltered = !filter.source && !filter.target && !filter.pinned;
    if (early && !options.anchor && unfiltered && early.pageSize === this.pageSize) {
      this.#anchorMs = early.anchorMs;
      this.#early = early.page;
    } else {
      this.#anchorMs = options.anchor?.getTime() ?? Date.now();
    }
    // One pager only: a later one (a reload, a filter) anchors at its own moment.
    early = undefined;
    // Formatted once and never mutated: not state.
    // eslint-disable-next-line svelte/prefer-svelte-reactivity
    this.anchor = new Date(this.#anchorMs).toISOString();
  }

  /** Frames that arrived live since the anchor: they sit ahead of the anchored rows. */
  get liveCount(): number {
    return this.#live.length;
  }

  at(index: number): FrameSummary | undefined {
    if (index < 0) return undefined;
    const live = this.#live;
    if (index < live.length) return live[index];
    const i = index - live.length;
    return this.#pages.get(Math.floor(i / this.pageSize))?.[i % this.pageSize];
  }

  indexOf(ref: string): number {
    const live = this.#live;
    const l = live.findIndex((f) => f.ref === ref);
    if (l >= 0) return l;
    for (const [p, frames] of this.#pages) {
      const i = frames.findIndex((f) => f.ref === ref);
      if (i >= 0) return live.length + p * this.pageSize + i;
    }
    return -1;
  }

  /** Pages (of the anchored list) needed to show display rows [from, to). */
  pagesFor(from: number, to: number): number[] {
    const liveCount = this.#live.length;
    const start = Math.max(0, from - liveCount);
    const end = Math.max(0, to - liveCount);
    const total = this.#serverTotal;
    if (end <= start && total !== null) return [];
    const first = Math.floor(start / this.pageSize);
    const last = total !== null ? Math.floor(Math.max(start, end - 1) / this.pageSize) : first;
    const maxPage = total !== null ? Math.max(0, Math.ceil(total / this.pageSize) - 1) : first;
    const out: number[] = [];
    for (let p = first; p <= Math.min(last, maxPage); p++) out.push(p);
    return out;
  }

  /**
   * Make sure rows [from, to) are loaded; requests for pages no longer wanted are
   * cancelled, so a fast scroll through 10,000 rows does not queue 100 fetches.
   * Called from an effect, it re-runs when live frames shift the rows onto other pages.
   */
  ensure(from: number, to: number): void {
    if (this.#disposed) return;
    const wanted = this.pagesFor(from, to);
    for (const [p, ctrl] of this.#inflight) {
      if (!wanted.includes(p)) {
        ctrl.abort();
        this.#inflight.delete(p);
      }
    }
    for (const p of wanted) {
      if (this.#pages.has(p) || this.#inflight.has(p)) continue;
      void this.#load(p);
    }
  }

  async #load(page: number): Promise<void> {
    const ctrl = new AbortController();
    this.#inflight.set(page, ctrl);
    const query: FramesQuery = { before: this.anchor, offset: page * this.pageSize, limit: this.pageSize };
    if (this.filter.source) query.source = this.filter.source;
    if (this.filter.target) query.target = this.filter.target;
    if (this.filter.pinned) query.pinned = true;
    try {
      const prefetched = page === 0 ? this.#early : undefined;
      this.#early = undefined;
      const result = await (prefetched ?? this.#fetchPage(query, ctrl.signal));
      if (this.#disposed || ctrl.signal.aborted) return;
      this.#pages.set(page, result.frames);
      this.#serverTotal = result.total;
      this.error = null;
      this.#see(result.frames);
      this.onChange();
    } catch (e) {
      if (ctrl.signal.aborted || this.#disposed) return;
      this.error = e;
      this.onError(e);
    } finally {
      if (this.#inflight.get(page) === ctrl) this.#inflight.delete(page);
    }
  }

  #see(frames: readonly FrameSummary[]): void {
    if (!this.#seenTargets) return;
    for (const f of frames) if (!this.#seenTargets.has(f.target)) this.#seenTargets.add(f.target);
  }

  /** A frame announced by the server. Returns whether it was added to the list. */
  insertLive(frame: FrameSummary): boolean {
    if (this.#disposed || !matchesFilter(frame, this.filter)) return false;
    const t = Date.parse(frame.capturedAt);
    // Frames at or before the anchor are (or will be) in the pages already.
    if (t < this.#anchorMs) return false;
    if (this.#liveRefs.has(frame.ref)) return false;
    this.#liveRefs.add(frame.ref);
    // Keep newest first even when events arrive slightly out of order.
    const live = this.#live;
    let i = 0;
    while (i < live.length && Date.parse(live[i]!.capturedAt) > t) i++;
    this.#live = [...live.slice(0, i), frame, ...live.slice(i)];
    this.#see([frame]);
    this.onChange();
    return true;
  }

  /**
   * A frame announced now but dated before the anchor (a crop keeps its parent's time;
   * an archive is indexed late): it belongs inside the anchored pages, which must be
   * fetched again to hold it.
   */
  needsReload(frame: FrameSummary): boolean {
    return !this.#disposed && matchesFilter(frame, this.filter) && Date.parse(frame.capturedAt) < this.#anchorMs && this.indexOf(frame.ref) < 0;
  }

  /** A frame whose metadata changed (pinned, annotation). */
  update(frame: FrameSummary): void {
    const swap = (frames: readonly FrameSummary[]): readonly FrameSummary[] | undefined =>
      frames.some((f) => f.ref === frame.ref) ? frames.map((f) => (f.ref === frame.ref ? frame : f)) : undefined;
    let changed = false;
    const live = swap(this.#live);
    if (live) {
      this.#live = live;
      changed = true;
    }
    for (const [p, frames] of this.#pages) {
      const next = swap(frames);
      if (next) {
        this.#pages.set(p, next);
        changed = true;
      }
    }
    if (changed) this.onChange();
  }

  dispose(): void {
    this.#disposed = true;
    for (const ctrl of this.#inflight.values()) ctrl.abort();
    this.#inflight.clear();
  }
}

/** How many items of `sorted` (ascending by `key`) have a key at or below `x`: a binary search. */
function countAtOrBelow<T>(sorted: readonly T[], key: (t: T) => number, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(sorted[mid] as T) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
