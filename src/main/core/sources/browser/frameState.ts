/**
 * What a browser frame remembers about its tab (stored with the frame as JSON) and the pure
 * rules for when it is stale and where its points are. Tested in tests/unit/browser.
 */
import { z } from 'zod';
import { SightlineError } from '../../../../shared/errors.ts';
import type { Point, Rect, Size } from '../../../../shared/frame.ts';
import { intersect } from '../../image/mapping.ts';

const size = z.object({ width: z.number().finite(), height: z.number().finite() });
const point = z.object({ x: z.number().finite(), y: z.number().finite() });

/** What a browser frame remembers about its tab; the core validates stored frames with it. */
export const browserFrameState = z.object({
  /** CDP loader id of the main frame's document: a new document gets a new one. */
  loaderId: z.string(),
  url: z.string(),
  /** Layout viewport in CSS px, scrollbars included. */
  viewport: size,
  dpr: z.number().finite(),
  /** Scroll position at capture time (CSS px). */
  scroll: point,
  /** Full-page frames are in document coordinates; viewport frames in viewport coordinates. */
  fullPage: z.boolean().default(false),
});
export type BrowserFrameState = z.output<typeof browserFrameState>;

/** The browser state of a stored frame; undefined for a frame this source did not make. */
export function readState(state: unknown): BrowserFrameState | undefined {
  const r = browserFrameState.safeParse(state);
  return r.success ? r.data : undefined;
}

/**
 * Why a frame no longer describes its tab, or undefined when it still does. Scrolling is not
 * staleness: a frame records its scroll, so its points are re-mapped through page coordinates
 * when the page moved (`remapNote` says so in the action's result), as a moved window's are.
 */
export function staleReason(frame: BrowserFrameState, now: { loaderId: string; url: string; viewport: Size }): string | undefined {
  if (now.loaderId !== frame.loaderId) {
    return now.url === frame.url ? `the page was reloaded since the frame was captured` : `the tab navigated to another page (${shortUrl(now.url)}) since the frame was captured`;
  }
  if (Math.round(now.viewport.width) !== Math.round(frame.viewport.width) || Math.round(now.viewport.height) !== Math.round(frame.viewport.height)) {
    return `the viewport changed from ${fmt(frame.viewport)} to ${fmt(now.viewport)} CSS px (resize or zoom) since the frame was captured`;
  }
  return undefined;
}

function fmt(s: Size): string {
  return `${Math.round(s.width)}×${Math.round(s.height)}`;
}

function shortUrl(url: string): string {
  return url.length > 120 ? `${url.slice(0, 119)}…` : url;
}

/**
 * Where to scroll so a document point of a full-page frame is in the viewport: unchanged
 * when it already is, else centred (the browser clamps at the document's edges).
 */
export function scrollToShow(point: Point, scroll: Point, viewport: Size): Point | undefined {
  const inside = point.x >= scroll.x && point.x < scroll.x + viewport.width && point.y >= scroll.y && point.y < scroll.y + viewport.height;
  if (inside) return undefined;
  return { x: Math.max(0, Math.round(point.x - viewport.width / 2)), y: Math.max(0, Math.round(point.y - viewport.height / 2)) };
}

/** A document point as a viewport point after scrolling; throws when it still is not visible. */
export function documentToViewport(point: Point, scroll: Point, viewport: Size): Point {
  const p = { x: point.x - scroll.x, y: point.y - scroll.y };
  if (p.x < 0 || p.y < 0 || p.x >= viewport.width || p.y >= viewport.height) {
    throw new SightlineError(
      'POINT_OUTSIDE_FRAME',
      `Document point (${Math.round(point.x)}, ${Math.round(point.y)}) cannot be scrolled into the viewport (the page is smaller now).`,
      'Capture again (fullPage) and use a point from the new frame.',
    );
  }
  return p;
}

const px = (n: number): number => Math.round(n);

/** What an action's result says about how its point was found (undefined: nothing moved). */
export function remapNote(o: {
  ref?: string;
  moved?: { dx: number; dy: number };
  fixed?: { role: string; name: string };
  scrolled?: { to: Point; which: number };
  nodes?: (string | undefined)[];
}): string | undefined {
  const parts: string[] = [];
  const since = o.ref ? ` since frame ${o.ref}` : '';
  if (o.moved && (o.moved.dx || o.moved.dy)) {
    const by = `the page scrolled by (${px(o.moved.dx)}, ${px(o.moved.dy)}) CSS px${since}`;
    parts.push(o.fixed ? `${by}, but the point is on a fixed ${o.fixed.role}${o.fixed.name ? ` "${o.fixed.name}"` : ''} that stays in place: not re-mapped` : `${by}; re-mapped through page coordinates`);
  }
  if (o.scrolled) {
    const node = o.nodes?.[o.scrolled.which];
    const to = `(${px(o.scrolled.to.x)}, ${px(o.scrolled.to.y)})`;
    parts.push(node ? `node ${node} was off screen: scrolled the page to ${to} to bring it into view` : `scrolled the page to ${to} to bring the point into view`);
  }
  return parts.length ? parts.join('; ') : undefined;
}

/**
 * A point of the viewport now (CSS px, at scroll `scrollNow`) in the coordinates of the action's
 * frame, where its boxes and points are (a page that scrolled since puts it elsewhere, maybe
 * outside the frame's image); the viewport point itself without a frame.
 */
export function toFramePoint(p: Point, scrollNow: Point, frame: { state: BrowserFrameState } | undefined): Point {
  if (!frame) return p;
  const st = frame.state;
  return st.fullPage ? { x: p.x + scrollNow.x, y: p.y + scrollNow.y } : { x: p.x + scrollNow.x - st.scroll.x, y: p.y + scrollNow.y - st.scroll.y };
}

/**
 * A region measured in the viewport now (CSS px) in the coordinates of the action's frame:
 * document coordinates for a full-page frame, the frame's own viewport (its scroll) otherwise;
 * clipped to what the frame shows. Undefined when none of it is in the frame.
 */
export function toFrameRect(r: Rect, scrollNow: Point, frame: { state: BrowserFrameState; sourceSize: Size } | undefined): Rect | undefined {
  if (!frame) return r;
  const doc = { x: r.x + scrollNow.x, y: r.y + scrollNow.y };
  const at = frame.state.fullPage ? doc : { x: doc.x - frame.state.scroll.x, y: doc.y - frame.state.scroll.y };
  return intersect({ ...at, width: r.width, height: r.height }, { x: 0, y: 0, ...frame.sourceSize });
}

/**
 * The clip (document CSS px) and output scale to capture `rect` of a frame again at the
 * device's resolution: scale 1 gives CSS × devicePixelRatio pixels, lowered only to keep the
 * long edge within `maxDimension`. Undefined when the rect lies outside the frame.
 */
export function regionClip(
  rect: Rect,
  frame: { state: BrowserFrameState; sourceSize: Size },
  dpr: number,
  maxDimension: number,
): { rect: Rect; clip: Rect & { scale: number }; size: Size } | undefined {
  const inFrame = intersect(rect, { x: 0, y: 0, ...frame.sourceSize });
  if (!inFrame) return undefined;
  const st = frame.state;
  const doc = st.fullPage ? inFrame : { ...inFrame, x: inFrame.x + st.scroll.x, y: inFrame.y + st.scroll.y };
  const long = Math.max(doc.width, doc.height) * dpr;
  const scale = long > maxDimension ? maxDimension / long : 1;
  const size = { width: Math.max(1, Math.round(doc.width * dpr * scale)), height: Math.max(1, Math.round(doc.height * dpr * scale)) };
  return { rect: inFrame, clip: { ...doc, scale }, size };
}

/** The region a capture covers, in CSS px of the page (Page.captureScreenshot's clip space). */
export function captureRegion(m: { w: number; h: number; sx: number; sy: number; dw: number; dh: number; dpr: number }, fullPage: boolean): { region: Rect; clipped: boolean } {
  if (!fullPage) return { region: { x: m.sx, y: m.sy, width: m.w, height: m.h }, clipped: false };
  // Chrome renders at most 16384 device px along an edge; beyond that the image is blank.
  const max = Math.floor(16384 / m.dpr);
  const width = Math.min(m.dw, max);
  const height = Math.min(m.dh, max);
  return { region: { x: 0, y: 0, width, height }, clipped: width < m.dw || height < m.dh };
}
