/**
 * UI-tree nodes as an agent sees them: boxes in image pixels of the frame, and the centre to
 * click. Node ids are handles the source resolves itself (a click by node acts on the element
 * where it is now); the boxes here only help the agent read the tree against its image.
 */
import type { Rect, UiNode } from '../../../shared/frame.ts';
import { rectSourceToImage, type Mapping } from '../image/mapping.ts';
import type { SourceUiNode } from '../sources/source.ts';

/** Nodes with boxes in image pixels of `frame` (whole pixels) and their centres (to 0.1 px, from the exact box). */
export function toImageNodes(frame: Mapping, nodes: readonly SourceUiNode[]): UiNode[] {
  return nodes.map((n) => {
    const exact = rectSourceToImage(frame, n.bounds);
    return { ...n, bounds: roundRect(exact), center: { x: tenth(exact.x + exact.width / 2), y: tenth(exact.y + exact.height / 2) } };
  });
}

function roundRect(r: Rect): Rect {
  return { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
}

function tenth(n: number): number {
  return Math.round(n * 10) / 10;
}
