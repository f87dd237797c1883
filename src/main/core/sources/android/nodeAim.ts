/**
 * Acting on a node id: read the screen again, find the element (handles.ts), bring it into view
 * when it is off screen (reveal.ts: swipe its scroller, read again, at most MAX_SCROLLS times),
 * and press the centre of its current box, in device px. An element that is gone is
 * NODE_NOT_FOUND with a hint. Every attempt costs a UI dump (1–3 s on a phone).
 */
import { SightlineError } from '../../../../shared/errors.ts';
import type { Point, Rect } from '../../../../shared/frame.ts';
import type { SourceUiNode } from '../source.ts';
import type { DeviceRef } from './devices.ts';
import type { DeviceDumps } from './dumps.ts';
import type { HandledDump } from './handles.ts';
import { contentShift, moved, placeNode, scrollerOf, shiftToShow, swipeFor, viewport } from './reveal.ts';

export const MAX_SCROLLS = 6;

export interface Aimed {
  /** Where to press, device px (not rounded). */
  point: Point;
  node: SourceUiNode;
  /** The dump it was found in. */
  dump: HandledDump;
  /** Swipes made to bring it into view. */
  scrolls: number;
}

/** Swipe from → to without a fling (the caller picks the gesture the device has). */
export type Swiper = (ref: DeviceRef, from: Point, to: Point, signal: AbortSignal) => Promise<void>;

const REFRESH_HINT = 'Call get_ui_tree (or capture) to see the screen as it is now, and use an id from it.';

export class NodeAims {
  readonly #dumps: DeviceDumps;
  readonly #swipe: Swiper;

  constructor(dumps: DeviceDumps, swipe: Swiper) {
    this.#dumps = dumps;
    this.#swipe = swipe;
  }

  /** Find node `id` on the device now, scrolled into view (the caller holds the device's lock). */
  async resolve(ref: DeviceRef, id: string, signal: AbortSignal): Promise<Aimed> {
    const handles = this.#dumps.handles(ref);
    const record = handles.record(id);
    if (!record) {
      throw new SightlineError('NODE_NOT_FOUND', `"${id}" is not a node id of ${ref.id}.`, 'Call get_ui_tree for this target and use an id from it (ids do not survive a restart of Sightline).');
    }
    const lastSize = record.fp.bounds;
    // A dump read a moment ago with no input since (the text lookup of this very action) will do.
    const recent = this.#dumps.recent(ref);
    const ready = recent ? handles.find(id, recent) : undefined;
    if (recent && ready && 'node' in ready) {
      const scroller = scrollerOf(recent, ready.node.id);
      const full = { width: Math.max(lastSize.width, ready.node.bounds.width), height: Math.max(lastSize.height, ready.node.bounds.height) };
      const place = placeNode(ready.node.bounds, full, viewport(recent.screen, scroller), !!scroller);
      if ('press' in place) return { point: place.press, node: ready.node, dump: recent, scrolls: 0 };
    }
    let before = this.#dumps.last(ref);
    let predicted: Rect | undefined;
    let scrollerId: string | undefined;
    for (let scrolls = 0; ; scrolls++) {
      const now = await this.#dumps.dump(ref, signal);
      const found = handles.find(id, now);
      if (found && 'ambiguous' in found) {
        throw new SightlineError('NODE_NOT_FOUND', `Node "${id}" of ${ref.id} cannot be told apart any more: ${found.ambiguous.length} elements now match it.`, REFRESH_HINT);
      }
      let shift: Point | undefined;
      let view: Rect | undefined;
      if (found) {
        const node = found.node;
        const scroller = scrollerOf(now, node.id);
        view = viewport(now.screen, scroller);
        const full = { width: Math.max(lastSize.width, node.bounds.width), height: Math.max(lastSize.height, node.bounds.height) };
        const place = placeNode(node.bounds, full, view, !!scroller);
        if ('press' in place) return { point: place.press, node, dump: now, scrolls };
        if ('unreachable' in place) {
          throw new SightlineError('NODE_NOT_FOUND', `Node "${id}" of ${ref.id} is off screen and nothing around it scrolls.`, REFRESH_HINT);
        }
        shift = place.shift;
        scrollerId = scroller!.id;
        predicted = undefined;
      } else {
        // Missing from the dump: scrolled out of its list (its neighbours show where to), or gone.
        const sc = scrollerId ?? (before?.byId.has(id) ? scrollerOf(before, id)?.id : undefined);
        const base = predicted ?? before?.byId.get(id)?.bounds;
        const scroller = sc === undefined ? undefined : now.byId.get(sc);
        const by = before && sc && scroller ? contentShift(before, now, sc) : undefined;
        if (scrolls > 0 && by && Math.abs(by.x) < 1 && Math.abs(by.y) < 1) {
          throw new SightlineError('NODE_NOT_FOUND', `Node "${id}" of ${ref.id} is not on screen and its list no longer moves (it may have reached its end).`, REFRESH_HINT);
        }
        if (base && by && scroller) {
          predicted = moved(base, by);
          scrollerId = scroller.id;
          view = viewport(now.screen, scroller);
          shift = shiftToShow(predicted, view);
        }
        if (!shift || (shift.x === 0 && shift.y === 0)) {
          throw new SightlineError('NODE_NOT_FOUND', `Node "${id}" of ${ref.id} is gone: the element is no longer on screen (its page or dialog closed, or it scrolled out of view).`, REFRESH_HINT);
        }
      }
      if (scrolls >= MAX_SCROLLS) {
        throw new SightlineError('NODE_NOT_FOUND', `Node "${id}" of ${ref.id} did not come into view after ${scrolls} swipes.`, 'Scroll towards it (scroll or swipe), then call get_ui_tree again.');
      }
      const path = swipeFor(shift, view!);
      await this.#swipe(ref, path.from, path.to, signal);
      before = now;
    }
  }
}
