/**
 * Where an action lands, before anything is touched: the target, the frame whose pixels x, y are
 * in (the session's latest capture, or a named ref), and the aim — an image point, a UI-tree
 * node (a handle the source finds again), or a text the source (or OCR) finds on screen.
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { Point } from '../../../shared/frame.ts';
import type { FrameRecord } from '../catalog/types.ts';
import type { AnyActionKind } from '../ports.ts';

export interface Aimed {
  target: string;
  /** The frame x, y are read in (a named ref, or the session's latest capture). */
  frame?: FrameRecord;
  imagePoint?: Point;
  node?: string;
  text?: { query: string; index?: number };
}

/** The arguments every kind reads its target, frame and aim from (as its input shape declares them). */
interface AimArgs {
  target?: string;
  ref?: string;
  x?: number;
  y?: number;
  node?: string;
  index?: number;
}

/** Validate the call's aim against its kind and name its target; frames are resolved by the caller. */
export function readAim(kind: Pick<AnyActionKind, 'name' | 'aim' | 'textAim' | 'defaultTarget'>, args: Record<string, unknown>, named: FrameRecord | undefined): Aimed {
  const a = args as AimArgs;
  const text = kind.aim === 'none' ? undefined : (args[kind.textAim ?? 'text'] as string | undefined);
  if ((a.x === undefined) !== (a.y === undefined)) {
    throw new SightlineError('INVALID_ARGUMENT', 'Give both "x" and "y", or neither.', 'x and y are image pixels of the frame you saw.');
  }
  const imagePoint = a.x !== undefined && a.y !== undefined ? { x: a.x, y: a.y } : undefined;
  if (a.ref && !named) throw new SightlineError('FRAME_NOT_FOUND', `No frame "${a.ref}".`, 'Use a ref returned by capture, crop_screenshot or list_screenshots.');
  if (a.target && named && a.target !== named.target) {
    throw new SightlineError('INVALID_ARGUMENT', `Frame ${named.ref} belongs to ${named.target}, not ${a.target}.`, 'Omit "target" when giving "ref".');
  }
  const target = a.target ?? named?.target ?? kind.defaultTarget?.(args as never);
  if (!target) throw new SightlineError('INVALID_ARGUMENT', '"target" or "ref" is required.', 'Call list_targets, then capture the target.');
  const node = kind.aim === 'none' ? undefined : a.node;
  const aims = [imagePoint && 'x/y', node !== undefined && 'node', text !== undefined && (kind.textAim ?? 'text')].filter(Boolean);
  if (aims.length > 1) throw new SightlineError('INVALID_ARGUMENT', `Give one of x/y, node or ${kind.textAim ?? 'text'}, not ${aims.join(' and ')}.`, 'Each says where to act; one is enough.');
  if (kind.aim === 'none' && imagePoint) throw new SightlineError('INVALID_ARGUMENT', `${kind.name} takes no x/y.`, `Call ${kind.name} with the target only.`);
  if (kind.aim === 'required' && aims.length === 0) {
    throw new SightlineError('INVALID_ARGUMENT', `${kind.name} needs "x" and "y", a "node" or a "text".`, 'Give image coordinates of the frame you saw, or a node id from get_ui_tree.');
  }
  if (a.index !== undefined && text === undefined) throw new SightlineError('INVALID_ARGUMENT', `"index" picks among the matches of "${kind.textAim ?? 'text'}".`, `Give "${kind.textAim ?? 'text'}" too, or leave "index" out.`);
  return {
    target,
    ...(named ? { frame: named } : {}),
    ...(imagePoint ? { imagePoint } : {}),
    ...(node !== undefined ? { node } : {}),
    ...(text !== undefined ? { text: { query: text, ...(a.index !== undefined ? { index: a.index } : {}) } } : {}),
  };
}
