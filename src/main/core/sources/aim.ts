/** Small helpers for sources reading an action's aim. */
import { SightlineError } from '../../../shared/errors.ts';
import type { Point } from '../../../shared/frame.ts';

/** The point an action aims at, for a source that acts on points only (no UI tree). */
export function requirePoint(action: { kind: string; point?: Point; node?: string; target: string }): Point {
  if (action.point) return action.point;
  if (action.node !== undefined) {
    throw new SightlineError('UNSUPPORTED', `${action.target} has no UI tree: ${action.kind} needs x, y.`, 'Give x, y in image pixels of the frame you saw.');
  }
  throw new SightlineError('INVALID_ARGUMENT', `${action.kind} needs a point.`, 'Give x, y in image pixels of the frame you saw.');
}
