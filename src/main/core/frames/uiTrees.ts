/**
 * The latest UI tree per target, so `click` can take a node id instead of x, y. Nodes keep their
 * SOURCE-space boxes: a click by node presses the exact centre of its box in source units, never
 * a centre rounded into image pixels and mapped back (which landed up to 3 device px off on a
 * 1080×2400 phone seen at 450×1000).
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { Point, Rect, UiNode } from '../../../shared/frame.ts';
import { rectSourceToImage, type Mapping } from '../image/mapping.ts';
import type { SourceUiNode } from '../sources/source.ts';

interface CachedTree {
  frameRef: string;
  nodes: Map<string, SourceUiNode>;
}

export class UiTrees {
  readonly #trees = new Map<string, CachedTree>();

  set(target: string, frameRef: string, nodes: readonly SourceUiNode[]): void {
    this.#trees.set(target, { frameRef, nodes: new Map(nodes.map((n) => [n.id, n])) });
  }

  /** The node's centre in source space, and the frame its tree was read against. */
  nodeCentre(target: string, id: string): { frameRef: string; source: Point } {
    const tree = this.#trees.get(target);
    if (!tree) throw new SightlineError('NODE_NOT_FOUND', `No UI tree for ${target} yet.`, 'Call get_ui_tree first, then click by node id.');
    const node = tree.nodes.get(id);
    if (!node) throw new SightlineError('NODE_NOT_FOUND', `Node "${id}" is not in the latest UI tree of ${target}.`, 'Call get_ui_tree again and use an id from it.');
    const { x, y, width, height } = node.bounds;
    return { frameRef: tree.frameRef, source: { x: x + width / 2, y: y + height / 2 } };
  }

  clear(target?: string): void {
    if (target) this.#trees.delete(target);
    else this.#trees.clear();
  }
}

/** Nodes as an agent sees them: boxes in image pixels of the frame, rounded to whole pixels. */
export function toImageNodes(frame: Mapping, nodes: readonly SourceUiNode[]): UiNode[] {
  return nodes.map((n) => ({ ...n, bounds: roundRect(rectSourceToImage(frame, n.bounds)) }));
}

function roundRect(r: Rect): Rect {
  return { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
}
