/**
 * Aiming by text ("click Submit"): the target's visible text (its tree's first — the DOM, the
 * UI tree — else OCR of a fresh capture) is searched case- and accent-insensitively; one hit, or
 * the `index`-th of several (1 = first in reading order), is where the action lands. Several
 * without an index is AMBIGUOUS_TEXT, listing them so the agent can pick.
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { Point, Rect } from '../../../shared/frame.ts';
import { sourceToImage, type Mapping } from '../image/mapping.ts';
import type { ScreenTextResult } from '../ports.ts';
import { findText, type TextMatch } from '../text/match.ts';

export interface TextHit {
  /** Source-space centre of the hit (where a point action lands). */
  point: Point;
  bounds: Rect;
  /** The node the text belongs to (actions then aim at the node itself). */
  node?: string;
  text: string;
  /** Where the text was read: the source's tree, or OCR. */
  via: 'tree' | 'ocr';
}

/** Pick where `query` is in the text read from a target (`frame` maps positions in the error list into image pixels). */
export function findTextAim(read: ScreenTextResult, target: string, query: { query: string; index?: number }, frame?: Mapping): TextHit {
  const { items, via } = read;
  const hits = distinct(findText(items.map((i) => ({ text: i.text, box: i.bounds, ...(i.node !== undefined ? { id: i.node } : {}), ...(i.confidence !== undefined ? { confidence: i.confidence } : {}) })), query.query, { fuzzy: via === 'ocr' }));
  if (hits.length === 0) {
    throw new SightlineError('NODE_NOT_FOUND', `No text "${query.query}" is visible on ${target} (read ${via === 'tree' ? "from the page's own text" : 'by OCR'}).`, 'Capture the target and look; scroll if it may be off screen, or give x, y.');
  }
  // Whole-word hits win over parts of longer words ("OK" over "Booking").
  const best = hits.filter((h) => h.wholeWord || hits.every((x) => !x.wholeWord));
  let chosen: TextMatch | undefined;
  if (query.index !== undefined) {
    chosen = best[query.index - 1];
    if (!chosen) throw new SightlineError('INVALID_ARGUMENT', `"index" ${query.index} is past the ${best.length} matches of "${query.query}".`, `Use an index from 1 to ${best.length}.`);
  } else if (best.length === 1) {
    chosen = best[0];
  } else {
    const where = (m: TextMatch): string => {
      const c = frame ? sourceToImage(frame, m.center) : m.center;
      return `(${Math.round(c.x)}, ${Math.round(c.y)})`;
    };
    const list = best
      .slice(0, 10)
      .map((m, i) => `${i + 1}: "${m.text}" at ${where(m)}`)
      .join('; ');
    throw new SightlineError(
      'AMBIGUOUS_TEXT',
      `"${query.query}" matches ${best.length} places on ${target}${frame ? ' (image pixels of your latest capture)' : ''}: ${list}${best.length > 10 ? '; …' : ''}.`,
      'Add "index" (1 = the first listed) or give a longer text.',
      { matches: best.length },
    );
  }
  const hit = chosen as TextMatch;
  return { point: hit.center, bounds: hit.box, text: hit.text, via, ...(hit.id !== undefined ? { node: hit.id } : {}) };
}

/** One hit per node: a label and its node's other text items would otherwise count twice. */
function distinct(hits: TextMatch[]): TextMatch[] {
  const seen = new Set<string>();
  return hits.filter((h) => {
    if (h.id === undefined) return true;
    if (seen.has(h.id)) return false;
    seen.add(h.id);
    return true;
  });
}
