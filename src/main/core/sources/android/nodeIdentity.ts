/**
 * Keeping an Android UI-tree node id valid across captures: `uiautomator dump` gives
 * no stable handles, so a node handed out earlier is found again in a fresh dump by what
 * identifies it — its resource-id, its text or content-desc, its class and its position in the
 * hierarchy — and never by position alone when it had a name. In order:
 *   1. same resource-id, class and place in the hierarchy;
 *   2. same resource-id and class elsewhere (a layout shift), when the id was unique or the label agrees;
 *   3. without ids on either side, the same text or content-desc and class;
 *   4. a node with neither id nor label: same class at the same place over much the same box,
 *      likewise anonymous (after a layout shift such a node is lost rather than guessed).
 * A node without a label of its own (a list row around its TextViews) is also known by its
 * content, the first labels inside it: rows sharing an id, or with none, must keep their content
 * to count as the same (a recycled row at the old place showing another item is another element),
 * and one that kept it is found again elsewhere (the list scrolled).
 * Within a step, candidates rank by label agreement, then hierarchy and box closeness. Two equally
 * good ones are ambiguous; none is "gone". Pure; works on parseUiDump's nodes (parentId + dump order).
 */
import { boxCloseness, boxOverlap } from '../../image/mapping.ts';
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
  /** For a node without a label: the first labels inside it (normalised), what a list row shows. */
  content?: string;
}

export type Relocation =
  | { node: SourceUiNode; via: 'id-path' | 'id' | 'label' | 'path' }
  /** Equally good candidates, best first. */
  | { ambiguous: SourceUiNode[] };

export interface Place {
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
  return fingerprintOf(node, place, rid ? nodes.filter((n) => resourceId(n) === rid).length : 0, contentsOf(nodes).get(id));
}

/** Every node's fingerprint in one pass (a dump of N nodes: O(N), where N calls of `fingerprint` are O(N²)). */
export function fingerprintAll(nodes: readonly SourceUiNode[], places = hierarchyPlaces(nodes), contents = contentsOf(nodes)): Map<string, NodeFingerprint> {
  const idCounts = new Map<string, number>();
  for (const n of nodes) {
    const rid = resourceId(n);
    if (rid) idCounts.set(rid, (idCounts.get(rid) ?? 0) + 1);
  }
  const out = new Map<string, NodeFingerprint>();
  for (const n of nodes) {
    const place = places.get(n.id);
    const rid = resourceId(n);
    if (place) out.set(n.id, fingerprintOf(n, place, rid ? idCounts.get(rid)! : 0, contents.get(n.id)));
  }
  return out;
}

function fingerprintOf(node: SourceUiNode, place: Place, idCount: number, content: string | undefined): NodeFingerprint {
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
    idCount,
    ...(content && !text && !desc ? { content } : {}),
  };
}

/** Labels inside a node that count as its content: the first few, never an editable field's value. */
const CONTENT_LABELS = 3;

/**
 * Each node's content: the first labels (text, else content-desc) of its descendants in dump
 * order, normalised. A field's value is left out (it changes as the user types).
 */
export function contentsOf(nodes: readonly SourceUiNode[]): Map<string, string> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const labels = new Map<string, string[]>();
  for (const n of nodes) {
    const label = /EditText|AutoCompleteTextView/.test(n.role) ? n.attributes?.['content-desc'] : n.attributes?.text || n.attributes?.['content-desc'];
    if (!label) continue;
    for (let p = n.parentId === undefined ? undefined : byId.get(n.parentId); p; p = p.parentId === undefined ? undefined : byId.get(p.parentId)) {
      const list = labels.get(p.id) ?? [];
      if (list.length >= CONTENT_LABELS) continue;
      list.push(normalizeText(label));
      labels.set(p.id, list);
    }
  }
  return new Map([...labels].map(([id, l]) => [id, l.join(' | ')]));
}

const STEP = { 'id-path': 0, id: 1, label: 2, path: 3 } as const;
/** An anonymous node must keep most of its box (intersection over union) to count as the same. */
const MIN_ANONYMOUS_OVERLAP = 0.75;
type Via = keyof typeof STEP;

/** The fingerprinted element in a fresh dump: found, ambiguous, or undefined when it is gone. */
export function relocate(fp: NodeFingerprint, nodes: readonly SourceUiNode[], places = hierarchyPlaces(nodes), contents?: Map<string, string>): Relocation | undefined {
  const oldLabel = !!(fp.text || fp.desc);
  const inside = fp.content ? (contents ?? contentsOf(nodes)) : undefined;
  const freshIdCount = fp.resourceId ? nodes.filter((n) => resourceId(n) === fp.resourceId).length : 0;
  const uniqueId = fp.idCount === 1 && freshIdCount === 1;
  const scored: { node: SourceUiNode; via: Via; score: number }[] = [];
  for (const n of nodes) {
    const place = places.get(n.id);
    if (n.role !== fp.className || !place) continue;
    const rid = resourceId(n);
    const agrees = labelAgrees(fp, n);
    // A node known by its content (a row) must still show it; one with none is judged as before.
    const keepsContent = !inside || (!hasLabel(n) && inside.get(n.id) === fp.content);
    const samePlace = sameArray(place.indexPath, fp.indexPath) && sameArray(place.classPath, fp.classPath);
    let via: Via | undefined;
    if (fp.resourceId && rid === fp.resourceId) {
      // Views sharing an id (list rows) must keep their label: the row at the old place may now be another item.
      if (samePlace && (uniqueId || (!oldLabel && keepsContent) || agrees)) via = 'id-path';
      else if (agrees || uniqueId || (!oldLabel && inside && keepsContent)) via = 'id';
    } else if (!fp.resourceId && !rid) {
      // Ids do not come and go within one build: a node that gained or lost one is another node.
      if (oldLabel && agrees) via = 'label';
      else if (!oldLabel && inside && keepsContent) via = 'label';
      else if (!oldLabel && !hasLabel(n) && keepsContent && samePlace && boxOverlap(fp.bounds, n.bounds) >= MIN_ANONYMOUS_OVERLAP) via = 'path';
    }
    const known = agrees || (!!inside && keepsContent);
    if (via) scored.push({ node: n, via, score: (known ? 4 : 0) + 2 * pathCloseness(fp, place) + boxCloseness(fp.bounds, n.bounds) });
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
