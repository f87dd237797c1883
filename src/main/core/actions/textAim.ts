/**
 * Aiming by text ("click Submit"): the target's visible text (its tree's first — the DOM, the
 * UI tree — else OCR of a fresh capture) is searched case- and accent-insensitively, and the hit
 * an agent means is picked: a `field` names only what takes typed text (by its label, placeholder
 * or name, a label and its control being one place); a click prefers what does something (a
 * button, link, tab, checkbox, option) to static text and headings; a whole label beats a part of
 * a longer one. When several still match, AMBIGUOUS_TEXT lists each with its role, name and node,
 * so the next call can act on one by node or by `index` (1 = the first listed).
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { Point, Rect } from '../../../shared/frame.ts';
import { sourceToImage, type Mapping } from '../image/mapping.ts';
import type { ScreenTextResult } from '../ports.ts';
import type { TextItem } from '../sources/source.ts';
import { matchItem } from '../text/items.ts';
import { findText, fold, type TextItem as MatchItem, type TextMatch } from '../text/match.ts';

export interface TextHit {
  /** Source-space centre of the hit (where a point action lands). */
  point: Point;
  bounds: Rect;
  /** The node the text belongs to (actions then aim at the node itself). */
  node?: string;
  text: string;
  /** Where the text was read: the source's tree, or OCR. */
  via: 'tree' | 'ocr';
  role?: string;
}

/**
 * `field`: a control that takes typed text; `value`: a control a form sets (a text field, a
 * drop-down, a checkbox, radio or switch, a file input); `control`: anything, preferring what
 * does something when clicked.
 */
export type AimPurpose = 'field' | 'value' | 'control';

interface Candidate {
  match: TextMatch;
  item: TextItem;
  /** The text the hit is in: what the screen shows, or the control's accessible name. */
  name: string;
  /** The whole of it reads as the query (punctuation around it aside): "Sign in", not "Sign in to Acme". */
  exact: boolean;
}

/** Pick where `query` is in the text read from a target (`frame` maps positions in the error list into image pixels). */
export function findTextAim(read: ScreenTextResult, query: { query: string; index?: number }, frame?: Mapping, purpose: AimPurpose = 'control'): TextHit {
  const { items, via } = read;
  // Roles are known when the source's tree said them; OCR knows none, and then no text is preferred.
  const roles = items.some((i) => i.editable !== undefined || i.actionable !== undefined);
  let found = candidates(items, query.query, via === 'ocr');
  if (found.length === 0) {
    throw new SightlineError('NODE_NOT_FOUND', `No text "${query.query}" is visible (read ${via === 'tree' ? "from the target's own text" : 'by OCR'}).`, 'Capture the target and look; scroll if it may be off screen, or give x, y.');
  }
  if (purpose !== 'control' && roles) {
    const fields = found.filter((c) => (purpose === 'field' ? c.item.editable : c.item.takesValue));
    if (fields.length === 0) {
      const what = purpose === 'field' ? 'text field' : 'form control';
      throw new SightlineError(
        'NODE_NOT_FOUND',
        `No ${what} "${query.query}": it matches only ${found.slice(0, 5).map((c) => describe(c)).join(', ')}${found.length > 5 ? ', …' : ''}.`,
        `Give the label or placeholder of a ${what}, or its node from get_ui_tree; click acts on other controls.`,
      );
    }
    found = fields;
  }
  // Whole words beat parts of longer words ("OK" over "Booking"); then what does something beats
  // what only reads the same; then a whole label beats a part of a longer one.
  found = prefer(found, (c) => c.match.wholeWord);
  if (purpose === 'control' && roles) found = prefer(found, (c) => c.item.actionable === true);
  found = prefer(found, (c) => c.exact);

  let chosen: Candidate | undefined;
  if (query.index !== undefined) {
    chosen = found[query.index - 1];
    if (!chosen) throw new SightlineError('INVALID_ARGUMENT', `"index" ${query.index} is past the ${found.length} matches of "${query.query}".`, `Use an index from 1 to ${found.length}.`);
  } else if (found.length === 1) {
    chosen = found[0];
  } else {
    const where = (m: TextMatch): string => {
      const c = frame ? sourceToImage(frame, m.center) : m.center;
      return `(${Math.round(c.x)}, ${Math.round(c.y)})`;
    };
    const list = found
      .slice(0, 10)
      .map((c, i) => `${i + 1}. ${describe(c)}${c.match.id !== undefined ? ` node ${c.match.id}` : ''} at ${where(c.match)}`)
      .join('; ');
    const first = found[0]!.match.id;
    throw new SightlineError(
      'AMBIGUOUS_TEXT',
      `"${query.query}" matches ${found.length} places${frame ? ' (image pixels of your latest capture)' : ''}: ${list}${found.length > 10 ? '; …' : ''}.`,
      first !== undefined ? `Act on one by its node (e.g. node: "${first}"), or add "index" (1 = the first listed).` : 'Add "index" (1 = the first listed) or give a longer text.',
      { matches: found.length },
    );
  }
  const { match, item } = chosen as Candidate;
  return { point: match.center, bounds: match.box, text: match.text, via, ...(match.id !== undefined ? { node: match.id } : {}), ...(item.role ? { role: item.role } : {}) };
}

/** Every place the query is, one per node (its best hit), in reading order; a control's accessible name counts as its text. */
function candidates(items: readonly TextItem[], query: string, fuzzy: boolean): Candidate[] {
  const searched: MatchItem[] = [];
  const owner: TextItem[] = [];
  for (const item of items) {
    searched.push(matchItem(item));
    owner.push(item);
    if (item.label) {
      searched.push({ text: item.label, box: item.bounds, ...(item.node !== undefined ? { id: item.node } : {}) });
      owner.push(item);
    }
  }
  const q = bare(query);
  const all = findText(searched, query, { fuzzy }).map((match) => {
    const name = searched[match.itemIndex]!.text;
    return { match, item: owner[match.itemIndex]!, name, exact: bare(name) === q };
  });
  const rank = (c: Candidate): number => (c.exact ? 0 : c.match.wholeWord ? 1 : 2);
  const byNode = new Map<string, Candidate>();
  const out: Candidate[] = [];
  for (const c of all) {
    const id = c.match.id;
    if (id === undefined) {
      out.push(c);
      continue;
    }
    const seen = byNode.get(id);
    if (!seen) {
      byNode.set(id, c);
      out.push(c);
    } else if (rank(c) < rank(seen)) {
      byNode.set(id, c);
      out[out.indexOf(seen)] = c;
    }
  }
  return out;
}

/** The candidates that pass `test`, or all of them when none does. */
function prefer(list: Candidate[], test: (c: Candidate) => boolean): Candidate[] {
  const kept = list.filter(test);
  return kept.length ? kept : list;
}

/** Folded, without the punctuation and symbols around it ("Password:", "Email *", "Next →"). */
function bare(s: string): string {
  return fold(s).text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

/** `button "Sign in"`, as the ambiguity list and the field refusal name a match (an OCR line by the words found in it). */
function describe(c: Candidate): string {
  const whole = c.match.boxFrom === 'item' ? c.name : c.match.text;
  const name = whole.length > 60 ? `${whole.slice(0, 59)}…` : whole;
  return `${c.item.role ?? 'text'} "${name.replace(/\s+/g, ' ')}"`;
}
