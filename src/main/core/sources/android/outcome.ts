/**
 * What an action on a device did, as far as it can be told cheaply: the node a tap landed on
 * (from a dump the action read anyway, or the latest one when it is not older than the frame the
 * point was read in), and whether the keyboard came or went. Pure.
 */
import type { Point } from '../../../../shared/frame.ts';
import type { ElementRef, SourceUiNode, StoredFrame } from '../source.ts';
import type { HandledDump } from './handles.ts';
import type { ImeState } from './ime.ts';

/** A node as an outcome names it: its class, its label (text, else content-desc, else resource-id) and its id. */
export function elementRef(n: SourceUiNode): ElementRef & { app?: string } {
  const a = n.attributes ?? {};
  const name = a.text || a['content-desc'] || a['resource-id'] || undefined;
  return { role: n.role, ...(name ? { name } : {}), node: n.id, ...(a.package ? { app: a.package } : {}) };
}

function contains(n: SourceUiNode, p: Point): boolean {
  const b = n.bounds;
  return p.x >= b.x && p.x < b.x + b.width && p.y >= b.y && p.y < b.y + b.height;
}

/**
 * What receives a tap at `p`: the deepest clickable node holding the point (later in the dump wins
 * a tie: it is drawn on top), else the deepest node holding it.
 */
export function hitAt(dump: HandledDump, p: Point): SourceUiNode | undefined {
  let best: { n: SourceUiNode; depth: number; clickable: boolean } | undefined;
  for (const n of dump.nodes) {
    if (!contains(n, p)) continue;
    const depth = dump.places.get(n.id)?.indexPath.length ?? 0;
    const clickable = n.clickable === true;
    if (!best || (clickable && !best.clickable) || (clickable === best.clickable && depth >= best.depth)) best = { n, depth, clickable };
  }
  return best?.n;
}

/** The latest dump, if it may describe what the frame showed: read no earlier than the frame, in its rotation. */
export function dumpForFrame(dump: HandledDump | undefined, frame: StoredFrame<{ rotation: number | null }> | undefined): HandledDump | undefined {
  if (!dump || !frame) return undefined;
  const taken = Date.parse(frame.capturedAt);
  if (!Number.isFinite(taken) || dump.at < taken) return undefined;
  if (dump.rotation !== undefined && typeof frame.state.rotation === 'number' && dump.rotation !== frame.state.rotation) return undefined;
  return dump;
}

/** "the keyboard appeared" / "the keyboard closed", when it changed. */
export function keyboardNote(before: ImeState | undefined, after: ImeState | undefined): string | undefined {
  if (before?.shown === undefined || after?.shown === undefined || before.shown === after.shown) return undefined;
  return after.shown ? 'the keyboard appeared' : 'the keyboard closed';
}

export function joinNotes(...notes: (string | undefined)[]): string | undefined {
  const kept = notes.filter((n): n is string => !!n);
  return kept.length ? kept.join('; ') : undefined;
}
