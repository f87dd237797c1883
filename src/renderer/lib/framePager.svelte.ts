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
import { SvelteMap } from 'svelte/reactivity';
import type { FrameSummary, FramesPage, FramesQuery } from '../../shared/api.ts';
import type { SourceName } from '../../shared/frame.ts';

export interface FrameFilter {
  source?: SourceName | undefined;
  target?: string | undefined;
  pinned?: boolean | undefined;
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

  /** Whether the first page has answered (until then `count` is only the live frames). */
  readonly loaded = $derived(this.#serverTotal !== null);
  /** Rows in the list: the live frames, then the anchored pages. */
  readonly count = $derived(this.#live.length + (this.#serverTotal ?? 0));
  /** Why the last page failed to load; cleared when a page loads (the list keeps what it has). */
  error = $state<unknown>(null);

  /** Called whenever what `at()` or `count` returns may have changed (for callers outside Svelte). */
  onChange: () => void = () => {};
  /** Called when a page fails to load. */
  onError: (e: unknown) => void = () => {};

  constructor(fetchPage: PageFetcher, filter: FrameFilter = {}, options: PagerOptions = {}) {
    this.#fetchPage = fetchPage;
    this.filter = { ...filter };
    this.pageSize = options.pageSize ?? 100;
    this.#seenTargets = options.seenTargets;
    this.#anchorMs = options.anchor?.getTime() ?? Date.now();
    // Formatted once and never mutated: not state.
    // eslint-disable-next-line svelte/prefer-svelte-reactivity
    this.anchor = new Date(this.#anchorMs).toISOString();
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
      const result = await this.#fetchPage(query, ctrl.signal);
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
