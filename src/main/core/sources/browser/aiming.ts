/**
 * Where an action lands, found in one page call (AIM_FN): a frame point re-mapped through page
 * coordinates when the page scrolled since the frame, or a node's element at its current box;
 * scrolled into view when off screen; with what is there, what has focus, and a DOM watch for
 * the action's outcome. Errors say what happened and what to do.
 */
import { SightlineError } from '../../../../shared/errors.ts';
import type { Point } from '../../../../shared/frame.ts';
import type { StoredFrame } from '../source.ts';
import { remapNote, type BrowserFrameState } from './frameState.ts';
import { AIM_FN, type AimOk, type AimResult, type AimSpec } from './pageActions.ts';
import type { Tab, TabSessions } from './tabs.ts';

/** An aim as an action gives it: a node id (found again) or a point in the frame's source space. */
export interface AimAt {
  node?: string;
  point?: Point;
}

export interface AimRequest {
  frame?: StoredFrame<BrowserFrameState>;
  from?: AimAt;
  to?: AimAt;
  /** Bring an off-screen aim into view (default true). */
  scroll?: boolean;
  hit?: boolean;
  dropHit?: boolean;
  focus?: boolean;
  observe?: boolean;
}

export interface Aimed extends AimOk {
  /** What was re-mapped on the way (outcome.remapped). */
  remapped?: string;
}

export const NODE_HINT = 'Call get_ui_tree again and use an id from it.';

/** The aims of an action that has them; undefined when it names neither a node nor a point. */
export function aimOf(a: { node?: string; point?: Point }): AimAt | undefined {
  if (typeof a.node === 'string' && a.node.length > 0) return { node: a.node };
  if (a.point) {
    if (!Number.isFinite(a.point.x) || !Number.isFinite(a.point.y)) throw new SightlineError('INVALID_ARGUMENT', 'The point must have finite x and y.', 'Give x, y in image pixels of the frame.');
    return { point: a.point };
  }
  return undefined;
}

export async function aimAt(tabs: TabSessions, tab: Tab, req: AimRequest): Promise<Aimed> {
  const aims = [req.from, req.to].filter((a): a is AimAt => a !== undefined).map((a) => (a.node !== undefined ? { node: a.node } : { point: a.point! }));
  const st = req.frame?.state;
  const spec: AimSpec = {
    aims,
    ...(st ? { frame: { sx: st.scroll.x, sy: st.scroll.y, fullPage: st.fullPage } } : {}),
    scroll: req.scroll ?? true,
    hit: req.hit === true,
    dropHit: req.dropHit === true,
    focus: req.focus === true,
    observe: req.observe === true,
  };
  let r = await tabs.call<AimResult>(tab, AIM_FN, [spec]);
  if (r.error === 'node-gone') {
    // An id from an earlier world of this document (Sightline reconnected): find that world again.
    const aim = aims[r.which];
    if (aim?.node !== undefined && (await tabs.adoptWorld(tab, aim.node))) r = await tabs.call<AimResult>(tab, AIM_FN, [spec]);
  }
  if (r.error !== undefined) throw aimError(r, aims, tab.targetId);
  const remapped = remapNote({
    ref: req.frame?.ref,
    moved: r.moved,
    fixed: r.fixed,
    scrolled: r.scrolled,
    nodes: aims.map((a) => ('node' in a ? a.node : undefined)),
  });
  return remapped ? { ...r, remapped } : r;
}

function aimError(r: Exclude<AimResult, AimOk>, aims: AimSpec['aims'], target: string): SightlineError {
  const aim = 'which' in r ? aims[r.which] : undefined;
  const node = aim && 'node' in aim ? aim.node : undefined;
  switch (r.error) {
    case 'node-gone':
      return new SightlineError('NODE_NOT_FOUND', `Node "${node}" is no longer on the page of ${target} (removed, or the page changed), or is not an id from get_ui_tree.`, NODE_HINT, { node });
    case 'node-hidden':
      return new SightlineError(
        'NODE_NOT_FOUND',
        `Node "${node}" (${r.el.role}${r.el.name ? ` "${r.el.name}"` : ''}) is on the page but not displayed.`,
        'It may show after another action (opening its menu, tab or section); then call get_ui_tree again.',
        { node },
      );
    case 'outside':
      return new SightlineError(
        'POINT_OUTSIDE_FRAME',
        `Page point (${Math.round(r.doc.x)}, ${Math.round(r.doc.y)}) cannot be scrolled into the viewport (the page is smaller now).`,
        'Capture again and use a point from the new frame.',
      );
    case 'apart':
      return new SightlineError('POINT_OUTSIDE_FRAME', 'The start and the end of the drag cannot be on screen at the same time.', 'Scroll so both are visible, capture again, and drag within the new frame.');
  }
}
