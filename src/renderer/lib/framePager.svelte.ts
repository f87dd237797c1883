/**
 * The timeline's data model, kept free of the DOM and of Svelte so it is unit-tested
 * under Node: a sparse, page-at-a-time view of a newest-first list that may hold
 * 100,000 frames, plus the frames that arrived live since it was opened.
 *
 * Paging is anchored: every page is fetched with `before = anchor` (the moment the
 * list was opened), so offsets stay stable while agents keep capturing. Frames newer
 * than the anchor arrive through server events and sit in `live`, ahead of the pages.
 */
import type { FrameSummary, FramesPage, FramesQuery } from '../../shared/api.ts';
import type { SourceName } from '../../shared/frame.ts';

export interface FrameFilter {
  source?: SourceName | undefined;
  target?: string | undefined;
  pinned?: boolean | undefined;
}

export type PageFetcher = (query: FramesQuery, signal: AbortSignal) => Promise<FramesPage>;

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
  private readonly anchorMs: number;
  private readonly fetchPage: PageFetcher;
  private readonly pages = new Map<number, FrameSummary[]>();
  private readonly inflight = new Map<number, AbortController>();
  private readonly live: FrameSummary[] = [];
  private readonly liveRefs = new Set<string>();
  /** Frames before the anchor, as the server counted them (null until the first page). */
  private serverTotal: number | null = null;
  private disposed = false;
  /** Called whenever what `at()` or `count` returns may have changed. */
  onChange: () => void = () => {};
  /** Called when a page fails to load (the list keeps what it has). */
  onError: (e: unknown) => void = () => {};

  constructor(fetchPage: PageFetcher, filter: FrameFilter = {}, options: { pageSize?: number; anchor?: Date } = {}) {
    this.fetchPage = fetchPage;
    this.filter = { ...filter };
    this.pageSize = options.pageSize ?? 100;
    const anchor = options.anchor ?? new Date();
    this.anchor = anchor.toISOString();
    this.anchorMs = anchor.getTime();
  }

  /** Whether the first page has answered (until then `count` is only the live frames). */
  get loaded(): boolean {
    return this.serverTotal !== null;
  }

  get count(): number {
    return this.live.length + (this.serverTotal ?? 0);
  }

  at(index: number): FrameSummary | undefined {
    if (index < 0) return undefined;
    if (index < this.live.length) return this.live[index];
    const i = index - this.live.length;
    return this.pages.get(Math.floor(i / this.pageSize))?.[i % this.pageSize];
  }

  indexOf(ref: string): number {
    const l = this.live.findIndex((f) => f.ref === ref);
    if (l >= 0) return l;
    for (const [p, frames] of this.pages) {
      const i = frames.findIndex((f) => f.ref === ref);
      if (i >= 0) return this.live.length + p * this.pageSize + i;
    }
    return -1;
  }

  /** Pages (of the anchored list) needed to show display rows [from, to). */
  pagesFor(from: number, to: number): number[] {
    const start = Math.max(0, from - this.live.length);
    const end = Math.max(0, to - this.live.length);
    if (end <= start && this.loaded) return [];
    const first = Math.floor(start / this.pageSize);
    const last = this.loaded ? Math.floor(Math.max(start, end - 1) / this.pageSize) : first;
    const maxPage = this.loaded ? Math.max(0, Math.ceil((this.serverTotal ?? 0) / this.pageSize) - 1) : first;
    const out: number[] = [];
    for (let p = first; p <= Math.min(last, maxPage); p++) out.push(p);
    return out;
  }

  /**
   * Make sure rows [from, to) are loaded; requests for pages no longer wanted are
   * cancelled, so a fast scroll through 10,000 rows does not queue 100 fetches.
   */
  ensure(from: number, to: number): void {
    if (this.disposed) return;
    const wanted = new Set(this.pagesFor(from, to));
    for (const [p, ctrl] of this.inflight) {
      if (!wanted.has(p)) {
        ctrl.abort();
        this.inflight.delete(p);
      }
    }
    for (const p of wanted) {
      if (this.pages.has(p) || this.inflight.has(p)) continue;
      void this.load(p);
    }
  }

  private async load(page: number): Promise<void> {
    const ctrl = new AbortController();
    this.inflight.set(page, ctrl);
    const query: FramesQuery = { before: this.anchor, offset: page * this.pageSize, limit: this.pageSize };
    if (this.filter.source) query.source = this.filter.source;
    if (this.filter.target) query.target = this.filter.target;
    if (this.filter.pinned) query.pinned = true;
    try {
      const result = await this.fetchPage(query, ctrl.signal);
      if (this.disposed || ctrl.signal.aborted) return;
      this.pages.set(page, result.frames);
      this.serverTotal = result.total;
      this.onChange();
    } catch (e) {
      if (!ctrl.signal.aborted && !this.disposed) this.onError(e);
    } finally {
      if (this.inflight.get(page) === ctrl) this.inflight.delete(page);
    }
  }

  /** A frame announced by the server. Returns whether it was added to the list. */
  insertLive(frame: FrameSummary): boolean {
    if (this.disposed || !matchesFilter(frame, this.filter)) return false;
    // Frames at or before the anchor are (or will be) in the pages already.
    if (new Date(frame.capturedAt).getTime() < this.anchorMs) return false;
    if (this.liveRefs.has(frame.ref)) return false;
    this.liveRefs.add(frame.ref);
    // Keep newest first even when events arrive slightly out of order.
    const t = new Date(frame.capturedAt).getTime();
    let i = 0;
    while (i < this.live.length && new Date(this.live[i]!.capturedAt).getTime() > t) i++;
    this.live.splice(i, 0, frame);
    this.onChange();
    return true;
  }

  /**
   * A frame announced now but dated before the anchor (a crop keeps its parent's time;
   * an archive is indexed late): it belongs inside the anchored pages, which must be
   * fetched again to hold it.
   */
  needsReload(frame: FrameSummary): boolean {
    return !this.disposed && matchesFilter(frame, this.filter) && new Date(frame.capturedAt).getTime() < this.anchorMs && this.indexOf(frame.ref) < 0;
  }

  /** A frame whose metadata changed (pinned, annotation). */
  update(frame: FrameSummary): void {
    let changed = false;
    const li = this.live.findIndex((f) => f.ref === frame.ref);
    if (li >= 0) {
      this.live[li] = frame;
      changed = true;
    }
    for (const frames of this.pages.values()) {
      const i = frames.findIndex((f) => f.ref === frame.ref);
      if (i >= 0) {
        frames[i] = frame;
        changed = true;
      }
    }
    if (changed) this.onChange();
  }

  dispose(): void {
    this.disposed = true;
    for (const ctrl of this.inflight.values()) ctrl.abort();
    this.inflight.clear();
  }
}

/**
 * How many rows a window holds away from the list's ends. Recycling DOM slots by
 * `index % windowSize` keeps the same set of slots while scrolling (only the slots
 * leaving one end and entering the other change content).
 */
export function windowSize(viewportHeight: number, rowHeight: number, overscan = 6): number {
  return Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1 + 2 * overscan;
}

/** The rows to render for a scroll position: fixed-height windowing with overscan. */
export function visibleRange(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  count: number,
  overscan = 6,
): { from: number; to: number } {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const from = Math.max(0, first - overscan);
  const to = Math.min(count, first - overscan + windowSize(viewportHeight, rowHeight, overscan));
  return { from, to: Math.max(from, to) };
}
