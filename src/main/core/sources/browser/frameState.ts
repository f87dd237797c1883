/**
 * What a browser frame remembers about its tab (stored with the frame as JSON) and the pure
 * rules for when it is stale and where its points are. Tested in tests/unit/browser.
 */
import { z } from 'zod';
import { SightlineError } from '../../../../shared/errors.ts';
import type { Point, Rect, Size } from '../../../../shared/frame.ts';

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
 * staleness: a viewport frame's coordinates are viewport coordinates, and a full-page
 * frame's are document coordinates, both unchanged by a scroll.
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

/** The region a capture covers, in CSS px of the page (Page.captureScreenshot's clip space). */
export function captureRegion(m: { w: number; h: number; sx: number; sy: number; dw: number; dh: number; dpr: number }, fullPage: boolean): { region: Rect; clipped: boolean } {
  if (!fullPage) return { region: { x: m.sx, y: m.sy, width: m.w, height: m.h }, clipped: false };
  // Chrome renders at most 16384 device px along an edge; beyond that the image is blank.
  const max = Math.floor(16384 / m.dpr);
  const width = Math.min(m.dw, max);
  const height = Math.min(m.dh, max);
  return { region: { x: 0, y: 0, width, height }, clipped: width < m.dw || height < m.dh };
}
