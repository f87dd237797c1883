/**
 * The latest UI tree per target, so `click` can take a node id instead of x, y.
 * Node bounds are in image pixels of the tree's frame; a node's centre is clicked.
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { Point, UiNode } from '../../../shared/frame.ts';

export interface CachedTree {
  frameRef: string;
  nodes: Map<string, UiNode>;
}

export class UiTreeCache {
  readonly #trees = new Map<string, CachedTree>();

  set(target: string, frameRef: string, nodes: readonly UiNode[]): void {
    this.#trees.set(target, { frameRef, nodes: new Map(nodes.map((n) => [n.id, n])) });
  }

  nodeCentre(target: string, id: string): { frameRef: string; point: Point } {
    const tree = this.#trees.get(target);
    if (!tree) throw new SightlineError('NODE_NOT_FOUND', `No UI tree for ${target} yet.`, 'Call get_ui_tree first, then click by node id.');
    const node = tree.nodes.get(id);
    if (!node) throw new SightlineError('NODE_NOT_FOUND', `Node "${id}" is not in the latest UI tree of ${target}.`, 'Call get_ui_tree again and use an id from it.');
    const { x, y, width, height } = node.bounds;
    return { frameRef: tree.frameRef, point: { x: Math.floor(x + width / 2), y: Math.floor(y + height / 2) } };
  }

  clear(target?: string): void {
    if (target) this.#trees.delete(target);
    else this.#trees.clear();
  }
}
