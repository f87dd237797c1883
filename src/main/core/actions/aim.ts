/**
 * Where an action lands, before anything is touched: the target, the frame whose pixels x, y are
 * in (the session's latest capture, or a named ref), and the aim — an image point, a UI-tree
 * node (a handle the source finds again), or a text the source (or OCR) finds on screen.
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { Point } from '../../../shared/frame.ts';
import type { FrameRecord } from '../catalog/types.ts';
import type { ActionRequest } from '../ports.ts';

export interface Aimed {
  target: string;
  /** The frame x, y are read in (a named ref, or the session's latest capture). */
  frame?: FrameRecord;
  imagePoint?: Point;
  node?: string;
  text?: { query: string; index?: number };
}

/** What each tool needs: a point (x, y / node / text), a point optionally, or none. */
const AIM_REQUIRED: ReadonlySet<string> = new Set(['click', 'swipe', 'hover', 'drag']);
const AIM_OPTIONAL: ReadonlySet<string> = new Set(['type_text', 'scroll']);

export function aimKind(tool: string): 'required' | 'optional' | 'none' {
  return AIM_REQUIRED.has(tool) ? 'required' : AIM_OPTIONAL.has(tool) ? 'optional' : 'none';
}

/** Validate the request's aim and name its target; frames are resolved by the caller. */
export function readAim(req: ActionRequest, named: FrameRecord | undefined): Aimed {
  if ((req.x === undefined) !== (req.y === undefined)) {
    throw new SightlineError('INVALID_ARGUMENT', 'Give both "x" and "y", or neither.', 'x and y are image pixels of the frame you saw.');
  }
  const imagePoint = req.x !== undefined && req.y !== undefined ? { x: req.x, y: req.y } : undefined;
  if (req.ref && !named) throw new SightlineError('FRAME_NOT_FOUND', `No frame "${req.ref}".`, 'Use a ref returned by capture, crop_screenshot or list_screenshots.');
  if (req.target && named && req.target !== named.target) {
    throw new SightlineError('INVALID_ARGUMENT', `Frame ${named.ref} belongs to ${named.target}, not ${req.target}.`, 'Omit "target" when giving "ref".');
  }
  const target = req.target ?? named?.target;
  if (!target) throw new SightlineError('INVALID_ARGUMENT', '"target" or "ref" is required.', 'Call list_targets, then capture the target.');
  const node = req.tool === 'scroll_into_view' ? undefined : req.node;
  const aims = [imagePoint && 'x/y', node !== undefined && 'node', req.find !== undefined && 'text'].filter(Boolean);
  if (aims.length > 1) throw new SightlineError('INVALID_ARGUMENT', `Give one of x/y, node or text, not ${aims.join(' and ')}.`, 'Each says where to act; one is enough.');
  const kind = aimKind(req.tool);
  if (kind === 'none' && aims.length && isBuiltinTool(req.tool)) {
    throw new SightlineError('INVALID_ARGUMENT', `${req.tool} takes no ${aims[0]}.`, `Call ${req.tool} with the target only.`);
  }
  if (kind === 'required' && aims.length === 0) {
    throw new SightlineError('INVALID_ARGUMENT', `${req.tool} needs "x" and "y", a "node" or a "text".`, 'Give image coordinates of the frame you saw, or a node id from get_ui_tree.');
  }
  if (req.index !== undefined && req.find === undefined) throw new SightlineError('INVALID_ARGUMENT', '"index" picks among the matches of "text".', 'Give "text" too, or leave "index" out.');
  return {
    target,
    frame: named,
    ...(imagePoint ? { imagePoint } : {}),
    ...(node !== undefined ? { node } : {}),
    ...(req.find !== undefined ? { text: { query: req.find, ...(req.index !== undefined ? { index: req.index } : {}) } } : {}),
  };
}

function isBuiltinTool(tool: string): boolean {
  return !tool.includes(':');
}
