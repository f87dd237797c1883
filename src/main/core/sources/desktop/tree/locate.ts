/**
 * Acting on a desktop node: the id is found again in a fresh read of its window's tree (it may
 * have moved, or the window with it) and the action lands on the centre of its visible part now,
 * in screen points. Typing into a label means typing into the field it names.
 */
import { SightlineError } from '../../../../../shared/errors.ts';
import type { Point, Rect } from '../../../../../shared/frame.ts';
import type { ElementRef, SourceAction } from '../../source.ts';
import { parseDesktopTarget } from '../session.ts';
import { noTree, type DesktopTree } from './desktopTree.ts';
import type { AxElement } from './types.ts';

export interface Located {
  /** Screen points. */
  point: Point;
  element: ElementRef;
  /** A password field: what is typed into it is never logged or answered. */
  password?: boolean;
}

export async function resolveNode(tree: DesktopTree, target: string, nodeId: string, options: { forTyping?: boolean; signal: AbortSignal }): Promise<Located> {
  const t = parseDesktopTarget(target);
  if (t.kind !== 'window') throw new SightlineError('INVALID_ARGUMENT', `${target} is a display: a node belongs to a window.`, 'Use the desktop:window:… id get_ui_tree was called with.');
  const handles = tree.handles(t.id);
  if (!handles?.knows(nodeId)) {
    throw new SightlineError('NODE_NOT_FOUND', `No node "${nodeId}" of ${target}.`, `Call get_ui_tree on ${target} and use one of its ids.`);
  }
  const now = await tree.read(target, options.signal);
  if (!now) throw noTree(target, tree.backend);
  const found = handles.find(nodeId, now.read);
  if (!found) throw new SightlineError('NODE_NOT_FOUND', `Node ${nodeId} is no longer in ${target}.`, 'Call get_ui_tree again and use a current id.');
  if ('ambiguous' in found) {
    const list = found.ambiguous.slice(0, 5).map((i) => `${now.read.ids[i]} (${describe(now.read.elements[i]!)})`);
    throw new SightlineError('NODE_NOT_FOUND', `Node ${nodeId} changed and now matches ${found.ambiguous.length} elements: ${list.join(', ')}.`, 'Pick one of these ids, or call get_ui_tree again.');
  }
  let index = found.index;
  let element = now.read.elements[index]!;
  if (options.forTyping && element.labelFor !== undefined) {
    index = element.labelFor;
    element = now.read.elements[index]!;
  }
  const box = clip(element.bounds, now.window.bounds);
  if (element.states.showing === false || !box) {
    throw new SightlineError('POINT_OUTSIDE_FRAME', `Node ${nodeId} (${describe(element)}) is not on screen in ${target} now.`, 'Scroll it into view (scroll the window), then try again.');
  }
  return {
    point: { x: box.x + box.width / 2, y: box.y + box.height / 2 },
    element: { role: element.role, ...(element.name ? { name: element.name } : {}), node: now.read.ids[index]! },
    ...(element.states.password ? { password: true } : {}),
  };
}

/**
 * The action with its node aims turned into points (the aim's `node` and a drag's `toNode`),
 * and where the node was found; unchanged without a node or a tree (the input then refuses a
 * node it cannot place).
 */
export async function resolveAims<S>(tree: DesktopTree | undefined, action: SourceAction<S>, signal: AbortSignal): Promise<{ action: SourceAction<S>; node?: Located }> {
  if (!tree) return { action };
  let out = action;
  let node: Located | undefined;
  if ('node' in action && action.node !== undefined && !('point' in action && action.point) && action.kind !== 'scroll_into_view') {
    node = await resolveNode(tree, action.target, action.node, { forTyping: action.kind === 'type_text', signal });
    out = { ...out, point: node.point } as SourceAction<S>;
  }
  if (out.kind === 'drag' && !out.to && out.toNode !== undefined) {
    const to = await resolveNode(tree, out.target, out.toNode, { signal });
    out = { ...out, to: to.point };
  }
  return { action: out, ...(node ? { node } : {}) };
}

function describe(e: AxElement): string {
  return e.name ? `${e.role} “${e.name}”` : e.role;
}

function clip(r: Rect, to: Rect): Rect | undefined {
  const x = Math.max(r.x, to.x);
  const y = Math.max(r.y, to.y);
  const width = Math.min(r.x + r.width, to.x + to.width) - x;
  const height = Math.min(r.y + r.height, to.y + to.height) - y;
  return width > 0 && height > 0 ? { x, y, width, height } : undefined;
}
