/**
 * Keeping an Android UI-tree node id valid across captures (issue 11): `uiautomator dump` gives
 * no stable handles, so a node handed out earlier is found again in a fresh dump by what
 * identifies it — its resource-id, its text or content-desc, its class and its position in the
 * hierarchy — and never by position alone when it had a name. In order:
 *   1. same resource-id, class and place in the hierarchy;
 *   2. same resource-id and class elsewhere (a layout shift), when the id was unique or the label agrees;
 *   3. without ids on either side, the same text or content-desc and class;
 *   4. a node with neither id nor label: same class at the same place over much the same box,
 *      likewise anonymous (after a layout shift such a node is lost rather than guessed).
 * Within a step, candidates rank by label agreement, then hierarchy and box closeness. Two equally
 * good ones are ambiguous; none is "gone". Pure; works on parseUiDump's nodes (parentId + dump order).
 */
import type { Rect } from '../../../../shared/frame.ts';
import type { SourceUiNode } from '../source.ts';
import { normalizeText } from './textQuery.ts';

export interface NodeFingerprint {
  className: string;
  resourceId?: string;
  text?: string;
  desc?: string;
  /** Position among the dumped siblings at each level, the top-level window first. */
  indexPath: number[];
  /** Classes from the top-level window down to the node itself. */
  classPath: string[];
  /** Device pixels, as dumped. */
  bounds: Rect;
  /** How many nodes of its dump carried the same resource-id (1: unique). */
  idCount: number;
}

export type Relocation =
  | { node: SourceUiNode; via: 'id-path' | 'id' | 'label' | 'path' }
  /** Equally good candidates, best first. */
  | { ambiguous: SourceUiNode[] };

interface Place {
  indexPath: number[];
  classPath: string[];
}

/** Index and class paths of every node, from parentId and the dump's (pre-)order. */
export function hierarchyPlaces(nodes: readonly SourceUiNode[]): Map<string, Place> {
  const places = new Map<string, Place>();
  const children = new Map<string | undefined, number>();
  for (const n of nodes) {
    const parent = n.parentId === undefined ? undefined : places.get(n.parentId);
    // A parent filtered out of the list (get_ui_tree's query) makes the node a root of what is left.
    const key = parent ? n.parentId : undefined;
    const index = children.get(key) ?? 0;
    children.set(key, index + 1);
    places.set(n.id, {
      indexPath: [...(parent?.indexPath ?? []), index],
      classPath: [...(parent?.classPath ?? []), n.role],
    });
  }
  return places;
}

/** What identifies node `id` of `nodes` (a whole dump: a filtered list shortens the paths). */
export function fingerprint(nodes: readonly SourceUiNode[], id: string, places = hierarchyPlaces(nodes)): NodeFingerprint | undefined {
  const node = nodes.find((n) => n.id === id);
  const place = places.get(id);
  if (!node || !place) return undefined;
  const rid = resourceId(node);
  const text = node.attributes?.text;
  const desc = node.attributes?.['content-desc'];
  return {
    className: node.role,
    ...(rid ? { resourceId: rid } : {}),
    ...(text ? { text } : {}),
    ...(desc ? { desc } : {}),
    indexPath: place.indexPath,
    classPath: place.classPath,
    bounds: { ...node.bounds },
    idCount: rid ? nodes.filter((n) => resourceId(n) === rid).length : 0,
  };
}

const STEP = { 'id-path': 0, id: 1, label: 2, path: 3 } as const;
/** An anonymous node must keep most of its box (intersection over union) to count as the same. */
const MIN_ANONYMOUS_OVERLAP = 0.75;
type Via = keyof typeof STEP;

/** The fingerprinted element in a fresh dump: found, ambiguous, or undefined when it is gone. */
export function relocate(fp: NodeFingerprint, nodes: readonly SourceUiNode[], places = hierarchyPlaces(nodes)): Relocation | undefined {
  const oldLabel = !!(fp.text || fp.desc);
  const freshIdCount = fp.resourceId ? nodes.filter((n) => resourceId(n) === fp.resourceId).length : 0;
  const uniqueId = fp.idCount === 1 && freshIdCount === 1;
  const scored: { node: SourceUiNode; via: Via; score: number }[] = [];
  for (const n of nodes) {
    const place = places.get(n.id);
    if (n.role !== fp.className || !place) continue;
    const rid = resourceId(n);
    const agrees = labelAgrees(fp, n);
    const samePlace = sameArray(place.indexPath, fp.indexPath) && sameArray(place.classPath, fp.classPath);
    let via: Via | undefined;
    if (fp.resourceId && rid === fp.resourceId) {
      // Views sharing an id (list rows) must keep their label: the row at the old place may now be another item.
      if (samePlace && (uniqueId || !oldLabel || agrees)) via = 'id-path';
      else if (agrees || uniqueId) via = 'id';
    } else if (!fp.resourceId && !rid) {
      // Ids do not come and go within one build: a node that gained or lost one is another node.
      if (oldLabel && agrees) via = 'label';
      else if (!oldLabel && !hasLabel(n) && samePlace && overlap(fp.bounds, n.bounds) >= MIN_ANONYMOUS_OVERLAP) via = 'path';
    }
    if (via) scored.push({ node: n, via, score: (agrees ? 4 : 0) + 2 * pathCloseness(fp, place) + boxCloseness(fp.bounds, n.bounds) });
  }
  if (scored.length === 0) return undefined;
  scored.sort((a, b) => STEP[a.via] - STEP[b.via] || b.score - a.score);
  const best = scored[0]!;
  const tied = scored.filter((s) => s.via === best.via && Math.abs(s.score - best.score) < 1e-9);
  if (tied.length > 1) return { ambiguous: tied.map((s) => s.node) };
  return { node: best.node, via: best.via };
}

function resourceId(n: SourceUiNode): string | undefined {
  return n.attributes?.['resource-id'] || undefined;
}

function hasLabel(n: SourceUiNode): boolean {
  return !!(n.attributes?.text || n.attributes?.['content-desc']);
}

function labelAgrees(fp: NodeFingerprint, n: SourceUiNode): boolean {
  const same = (a: string | undefined, b: string | undefined): boolean => !!a && !!b && normalizeText(a) === normalizeText(b);
  return same(fp.text, n.attributes?.text) || same(fp.desc, n.attributes?.['content-desc']);
}

function sameArray<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** 0..1.5: the share of the index path in common from the top, plus 0.5 for the same class chain. */
function pathCloseness(fp: NodeFingerprint, place: Place): number {
  let common = 0;
  while (common < fp.indexPath.length && fp.indexPath[common] === place.indexPath[common]) common++;
  return common / Math.max(fp.indexPath.length, place.indexPath.length, 1) + (sameArray(fp.classPath, place.classPath) ? 0.5 : 0);
}

/** Intersection over union; two equal boxes (empty ones too) overlap fully. */
function overlap(a: Rect, b: Rect): number {
  if (a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height) return 1;
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  return (w * h) / (a.width * a.height + b.width * b.height - w * h);
}

/** 0..2: 1 + overlap when the boxes meet, else falling with the centres' distance. */
function boxCloseness(a: Rect, b: Rect): number {
  const o = overlap(a, b);
  if (o > 0) return 1 + o;
  const dx = a.x + a.width / 2 - (b.x + b.width / 2);
  const dy = a.y + a.height / 2 - (b.y + b.height / 2);
  return 1 / (1 + Math.hypot(dx, dy) / 100);
}
