/**
 * Finding UI-tree nodes by what they say, so "tap OK" is one call: the query is compared with each
 * node's text, content-desc and hint, ignoring case, accents, curly quotes, dash variants and runs
 * of white space. Whole-label matches rank before whole-word ones, which rank before substrings;
 * visible and enabled nodes before others. A label often sits in a TextView inside the clickable
 * row, so each candidate names the node to tap as well (itself, else its nearest clickable
 * ancestor), and candidates that tap the same node count once. Pure; works on parseUiDump's nodes.
 */
import type { SourceUiNode } from '../source.ts';

export type TextField = 'text' | 'content-desc' | 'hint';
export type MatchKind = 'exact' | 'word' | 'substring';

export interface TextCandidate {
  /** The node whose label matched. */
  node: SourceUiNode;
  /** What to tap: the node when clickable, else its nearest clickable ancestor around it, else the node. */
  target: SourceUiNode;
  field: TextField;
  match: MatchKind;
  /** The label as the screen shows it. */
  label: string;
  /** On screen with a non-empty box. */
  visible: boolean;
}

export interface TextSearch {
  /** Best first, one per tap target. */
  candidates: TextCandidate[];
  /** The best candidates tie (same match, visibility and enabled state) and no index chose one. */
  ambiguous: boolean;
  /** candidates[index] when an index is given, else the best one unless ambiguous. */
  chosen?: TextCandidate;
}

export interface TextSearchOptions {
  /** Pick candidates[index] (0-based, in the ranked order an AMBIGUOUS_TEXT error lists). */
  index?: number;
  /** Only whole-label matches. */
  exact?: boolean;
}

const FIELDS: readonly TextField[] = ['text', 'content-desc', 'hint'];
const MATCH_RANK: Record<MatchKind, number> = { exact: 0, word: 1, substring: 2 };
const FOLD: Record<string, string> = { '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u2032': "'", '\u201c': '"', '\u201d': '"', '\u201e': '"', '\u00ab': '"', '\u00bb': '"', '\u2212': '-', '\u00df': 'ss' };

/** Case, accents (NFKD then no combining marks), quote and dash variants, white space: all folded. */
export function normalizeText(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[\u2010-\u2015]/g, '-')
    .replace(/[\u2018-\u201e\u2032\u00ab\u00bb\u2212\u00df]/g, (c) => FOLD[c] ?? c)
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

const ALNUM = /[\p{L}\p{N}]/u;

/** How `query` (normalised) sits in `label` (normalised), if at all. */
export function matchKind(label: string, query: string): MatchKind | undefined {
  if (!query || !label) return undefined;
  if (label === query) return 'exact';
  let at = label.indexOf(query);
  if (at < 0) return undefined;
  for (; at >= 0; at = label.indexOf(query, at + 1)) {
    const before = label[at - 1];
    const after = label[at + query.length];
    if ((before === undefined || !ALNUM.test(before)) && (after === undefined || !ALNUM.test(after))) return 'word';
  }
  return 'substring';
}

export function findByText(nodes: readonly SourceUiNode[], query: string, options: TextSearchOptions = {}): TextSearch {
  const q = normalizeText(query);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const found: TextCandidate[] = [];
  if (q) {
    for (const node of nodes) {
      let best: TextCandidate | undefined;
      for (const field of FIELDS) {
        const label = labelOf(node, field);
        const match = label === undefined ? undefined : matchKind(normalizeText(label), q);
        if (!match || (options.exact && match !== 'exact')) continue;
        if (!best || MATCH_RANK[match] < MATCH_RANK[best.match]) {
          best = { node, target: tapTarget(node, byId), field, match, label: label!, visible: isVisible(node) };
        }
      }
      if (best) found.push(best);
    }
  }
  const ranked = found.sort((a, b) => compare(a, b, order));
  const seen = new Set<string>();
  const candidates = ranked.filter((c) => !seen.has(c.target.id) && seen.add(c.target.id));
  const [first, second] = candidates;
  const ambiguous = options.index === undefined && !!first && !!second && tier(first) === tier(second);
  const chosen = options.index !== undefined ? candidates[options.index] : ambiguous ? undefined : first;
  return { candidates, ambiguous, ...(chosen ? { chosen } : {}) };
}

/** parseUiDump keeps text, content-desc and hint in attributes (only when set); other nodes have a name only. */
function labelOf(n: SourceUiNode, field: TextField): string | undefined {
  const v = n.attributes ? n.attributes[field] : field === 'text' ? n.name : undefined;
  return v || undefined;
}

function isVisible(n: SourceUiNode): boolean {
  return n.inViewport !== false && n.bounds.width > 0 && n.bounds.height > 0;
}

/** The nearest clickable ancestor whose box holds the node's centre (a row around its label). */
function tapTarget(n: SourceUiNode, byId: Map<string, SourceUiNode>): SourceUiNode {
  if (n.clickable) return n;
  const cx = n.bounds.x + n.bounds.width / 2;
  const cy = n.bounds.y + n.bounds.height / 2;
  for (let p = n.parentId === undefined ? undefined : byId.get(n.parentId); p; p = p.parentId === undefined ? undefined : byId.get(p.parentId)) {
    const b = p.bounds;
    if (p.clickable && cx >= b.x && cx < b.x + b.width && cy >= b.y && cy < b.y + b.height) return p;
  }
  return n;
}

/** Candidates in one tier are equally good: the caller cannot choose between them. */
function tier(c: TextCandidate): number {
  return MATCH_RANK[c.match] * 4 + (c.visible ? 0 : 2) + (c.target.enabled === false ? 1 : 0);
}

function compare(a: TextCandidate, b: TextCandidate, order: Map<string, number>): number {
  return (
    tier(a) - tier(b) ||
    FIELDS.indexOf(a.field) - FIELDS.indexOf(b.field) ||
    // Reading order: top to bottom, then left to right, then the dump's order.
    a.node.bounds.y - b.node.bounds.y ||
    a.node.bounds.x - b.node.bounds.x ||
    (order.get(a.node.id) ?? 0) - (order.get(b.node.id) ?? 0)
  );
}
