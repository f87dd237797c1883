/**
 * Fixed-height windowing for the timeline: which rows to draw for a scroll position,
 * which DOM slot each is drawn in, and where an hour's group starts. Pure, so it is
 * unit-tested under Node without Svelte or a DOM.
 */
import type { FrameSummary } from '../../shared/api.ts';
import { hourKey } from './format.ts';

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

export interface WindowRow {
  i: number;
  /** The DOM slot this row is drawn in (rows recycle slots as the list scrolls). */
  slot: number;
  /** Undefined while its page is loading. */
  frame: FrameSummary | undefined;
  /** The first row of an hour: it shows the hour in its gutter. */
  header: boolean;
}

/**
 * Rows [from, to) of a newest-first list, in slot order. Slots are reused by index
 * modulo `pool` and kept in slot order, so the set of slots never changes while
 * scrolling: rows are rewritten in place, never created, removed or moved.
 */
export function windowRows(from: number, to: number, pool: number, at: (i: number) => FrameSummary | undefined): WindowRow[] {
  const keyAt = (i: number): string | undefined => {
    const f = at(i);
    return f ? hourKey(f.capturedAt) : undefined;
  };
  const out: WindowRow[] = [];
  let prevKey = from > 0 ? keyAt(from - 1) : undefined;
  for (let i = from; i < to; i++) {
    const frame = at(i);
    const key = frame ? hourKey(frame.capturedAt) : undefined;
    // A header starts each hour; unknown neighbours (a page still loading) show none.
    const header = !!key && (i === 0 || (prevKey !== undefined && prevKey !== key));
    out.push({ i, slot: i % pool, frame, header });
    prevKey = key;
  }
  return out.sort((a, b) => a.slot - b.slot);
}
