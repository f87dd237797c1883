/**
 * Where to press a node, and how to bring one into view first. Pure. `uiautomator dump` leaves
 * out views that are not visible and clips the others to their visible part, so a node that
 * scrolled away is missing from the dump and one half scrolled out has a short box. Such a node
 * is revealed by swiping its nearest scrollable ancestor: towards its clipped side, or, when it
 * is missing, towards where its neighbours in that list say it went (their shift between two dumps
 * applied to its last box). The caller re-dumps after each swipe, a bounded number of times.
 */
import type { Point, Rect, Size } from '../../../../shared/frame.ts';
import type { SourceUiNode } from '../source.ts';
import type { HandledDump } from './handles.ts';
import { intersect } from '../../image/mapping.ts';

export function centre(r: Rect): Point {
  return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
}

const area = (r: Rect): number => r.width * r.height;

/** The nearest scrollable ancestor of node `id` in `dump`. */
export function scrollerOf(dump: HandledDump, id: string): SourceUiNode | undefined {
  let n = dump.byId.get(id);
  for (n = n?.parentId === undefined ? undefined : dump.byId.get(n.parentId); n; n = n.parentId === undefined ? undefined : dump.byId.get(n.parentId)) {
    if (n.attributes?.scrollable === 'true') return n;
  }
  return undefined;
}

/** What of the screen a node can be seen in: its scroller's box on screen, else the screen. */
export function viewport(screen: Size, scroller: SourceUiNode | undefined): Rect {
  const s = { x: 0, y: 0, width: screen.width, height: screen.height };
  return (scroller && intersect(scroller.bounds, s)) ?? s;
}

export type Placement =
  /** Press here (the centre of the visible part: the node's true centre when it is wholly visible). */
  | { press: Point }
  /** Swipe the scroller by `shift` (content displacement in px; +y moves content down), then look again. */
  | { shift: Point }
  /** Off screen with nothing to scroll. */
  | { unreachable: true };

/**
 * Press a node that shows at least 60 % of its size (as last known wholly, `fullSize`) inside its
 * viewport; else scroll towards its hidden part.
 */
export function placeNode(box: Rect, fullSize: Size, view: Rect, canScroll: boolean): Placement {
  const seen = intersect(box, view);
  const expected = Math.max(area(box), fullSize.width * fullSize.height);
  if (seen && (area(seen) >= 0.6 * expected || !canScroll)) return { press: centre(seen) };
  if (!canScroll) return { unreachable: true };
  // The whole box, as far as the clipping lets it be guessed: it extends beyond the clipped side.
  const full = { ...box };
  if (fullSize.height > box.height) {
    if (box.y <= view.y + 1) full.y = box.y + box.height - fullSize.height;
    full.height = fullSize.height;
  }
  if (fullSize.width > box.width) {
    if (box.x <= view.x + 1) full.x = box.x + box.width - fullSize.width;
    full.width = fullSize.width;
  }
  return { shift: shiftToShow(full, view) };
}

/** The content displacement that brings `box` inside `view` with a margin, bounded to 80 % of the view. */
export function shiftToShow(box: Rect, view: Rect): Point {
  const axis = (start: number, size: number, vStart: number, vSize: number): number => {
    const end = start + size;
    const vEnd = vStart + vSize;
    // In view already: inside it, or covering all of it.
    if ((start >= vStart && end <= vEnd) || (start <= vStart && end >= vEnd)) return 0;
    const margin = Math.min(48, vSize * 0.1);
    const d = size > vSize - 2 * margin || start < vStart ? vStart + margin - start : vEnd - margin - end;
    const limit = vSize * 0.8;
    const bounded = Math.max(-limit, Math.min(limit, d));
    // Less than the touch slop (8 dp, ~24 px) would not scroll at all.
    return Math.sign(bounded) * Math.max(40, Math.abs(bounded));
  };
  return { x: axis(box.x, box.width, view.x, view.width), y: axis(box.y, box.height, view.y, view.height) };
}

/** The finger's path inside `view` that moves its content by `shift`. */
export function swipeFor(shift: Point, view: Rect): { from: Point; to: Point } {
  const c = centre(view);
  return { from: { x: c.x - shift.x / 2, y: c.y - shift.y / 2 }, to: { x: c.x + shift.x / 2, y: c.y + shift.y / 2 } };
}

/**
 * How the content under `scrollerId` moved from `before` to `now`: the median shift of the nodes
 * inside it that both dumps show (tracked ids), or undefined when none is in both.
 */
export function contentShift(before: HandledDump, now: HandledDump, scrollerId: string): Point | undefined {
  const whole: Point[] = [];
  const clipped: Point[] = [];
  for (const n of before.nodes) {
    if (n.id === scrollerId || !inside(before, n.id, scrollerId)) continue;
    const m = now.byId.get(n.id);
    if (!m || !inside(now, m.id, scrollerId)) continue;
    // A box of the same size in both is unclipped: its corner moved with the content.
    if (m.bounds.width === n.bounds.width && m.bounds.height === n.bounds.height) whole.push({ x: m.bounds.x - n.bounds.x, y: m.bounds.y - n.bounds.y });
    else clipped.push({ x: m.bounds.x + m.bounds.width - (n.bounds.x + n.bounds.width), y: m.bounds.y + m.bounds.height - (n.bounds.y + n.bounds.height) });
  }
  const shifts = whole.length ? whole : clipped;
  if (shifts.length === 0) return undefined;
  return { x: median(shifts.map((p) => p.x)), y: median(shifts.map((p) => p.y)) };
}

function inside(dump: HandledDump, id: string, ancestor: string): boolean {
  for (let n = dump.byId.get(id); n?.parentId !== undefined; n = dump.byId.get(n.parentId)) if (n.parentId === ancestor) return true;
  return false;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function moved(r: Rect, by: Point): Rect {
  return { ...r, x: r.x + by.x, y: r.y + by.y };
}
