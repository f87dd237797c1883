/**
 * search_screenshots: the text index queried newest first, each hit with its snippet and the
 * boxes of its matching words in image pixels of the frame; an empty answer says why (no frames
 * in the window, the index not built that far yet, an excluded app, or simply no match).
 */
import type { ScreenshotHit, ScreenshotSearch, TextIndexStatus } from '../../../shared/api.ts';
import { SightlineError } from '../../../shared/errors.ts';
import type { CoreSettings } from '../../../shared/settings.ts';
import type { TextHit, TextSearchQuery } from '../catalog/text.ts';
import type { FrameQuery } from '../catalog/types.ts';
import type { SearchParams, TextSearchPort } from '../ports.ts';
import type { ArchiveExtent } from '../sources/source.ts';
import { displayLocalTime } from '../util/time.ts';
import { excludedBy } from './indexText.ts';
import { describeQuery, matchingBoxes, parseQuery, sourceFilter, toFtsMatch, type ParsedQuery } from './query.ts';

export interface TextSearchDeps {
  store: {
    search(q: TextSearchQuery): { hits: TextHit[]; total: number; more: boolean };
    countIndexed(from?: Date, to?: Date, sourceMatch?: string): number;
    screens(refs: readonly string[]): Map<string, string>;
  };
  /** Sightline's own frames (to tell "no frames here" from "no match"). */
  countFrames(q: FrameQuery): number;
  /**
   * The archives (refreshed first) and how many screenshots each holds in a window. One that
   * cannot be reached now is left out (its screenshots are not counted).
   */
  archives(signal: AbortSignal): Promise<{ name: string; extent(q: { from?: number; to?: number }): ArchiveExtent }[]>;
  sourceNames(): string[];
  settings(): CoreSettings['ocr'];
  /** The indexer's progress (undefined: no indexer runs in this process). */
  status(): TextIndexStatus | undefined;
}

const COUNT_UP_TO = 10_000;
const BOXES_PER_HIT = 40;

export class TextSearch implements TextSearchPort {
  readonly #d: TextSearchDeps;

  constructor(deps: TextSearchDeps) {
    this.#d = deps;
  }

  status(): TextIndexStatus | undefined {
    return this.#d.status();
  }

  screens(refs: readonly string[]): Map<string, string> {
    return this.#d.store.screens(refs);
  }

  async search(p: SearchParams): Promise<ScreenshotSearch> {
    if (p.source !== undefined && !this.#d.sourceNames().includes(p.source)) {
      throw new SightlineError('INVALID_ARGUMENT', `Unknown source "${p.source}".`, `Use one of: ${this.#d.sourceNames().join(', ')}; or leave source out to search them all.`);
    }
    if (p.from && p.to && p.from.getTime() >= p.to.getTime()) throw new SightlineError('INVALID_ARGUMENT', '"from" must be before "to".', 'Swap them, or widen the window.');
    const parsed = parseQuery(p.query);
    const match = toFtsMatch(parsed, { app: p.app, source: p.source });
    const { hits, total, more } = this.#d.store.search({ match, from: p.from, to: p.to, limit: p.max, offset: p.offset ?? 0, countUpTo: COUNT_UP_TO });
    const out: ScreenshotSearch = { results: hits.map((h) => toHit(h, parsed)), total, more };
    const status = this.#d.status();
    if (status && status.state !== 'idle') out.index = status;
    // A page past the last match is not "nothing found": the matches are on earlier pages.
    if (out.results.length === 0 && total === 0) Object.assign(out, await this.#explain(p, parsed, status));
    return out;
  }

  async #explain(p: SearchParams, q: ParsedQuery, status: TextIndexStatus | undefined): Promise<Pick<ScreenshotSearch, 'reason' | 'remediation'>> {
    const s = this.#d.settings();
    const window = describeWindow(p);
    const archives = (await this.#d.archives(p.signal).catch(() => [])).filter((a) => p.source === undefined || a.name === p.source);
    const own = p.source === undefined || !archives.some((a) => a.name === p.source) ? this.#d.countFrames({ source: p.source, from: p.from, to: p.to, external: false, rootOnly: true }) : 0;
    const range = { ...(p.from ? { from: p.from.getTime() } : {}), ...(p.to ? { to: p.to.getTime() } : {}) };
    // An archive that cannot be read now is left out of the counts, not a failed search.
    const inArchives = archives.reduce((n, a) => n + countOrZero(() => a.extent(range).count), 0);
    if (own + inArchives === 0) {
      return { reason: 'NO_FRAMES_IN_RANGE', remediation: `No frames${p.source ? ` from ${p.source}` : ''} were captured ${window}: widen from/to, or check list_screenshots for what exists.` };
    }
    // Only when the app asked for really is excluded: its frames are never indexed (and their
    // text is deleted when an app is added to the list), so nothing of it can be found.
    const excluded = p.app !== undefined ? excludedBy({ app: p.app }, s.excludeApps) : undefined;
    if (excluded) {
      return { reason: 'EXCLUDED_APP', remediation: `Frames of ${excluded} are never indexed (ocr.excludeApps): they cannot be searched. Use list_screenshots with from/to to find them by time.` };
    }
    const indexed = this.#d.store.countIndexed(p.from, p.to, p.source !== undefined ? sourceFilter(p.source) : undefined);
    if (!s.enabled || !s.index) {
      if (indexed < own + inArchives) {
        return { reason: 'INDEX_OFF', remediation: `Text indexing is off (${!s.enabled ? 'ocr.enabled' : 'ocr.index'}); ${indexed} of ${own + inArchives} frames ${window} have text. Turn it on in Settings to search the rest.` };
      }
    } else if (status && status.state !== 'idle' && indexed < own + inArchives) {
      const since = status.searchableSince ? ` Everything since ${status.searchableSince} is searchable.` : '';
      const left = own + inArchives - indexed;
      return {
        reason: 'NOT_INDEXED_YET',
        remediation: `Nothing matched yet, but the text index has not read ${left} of the ${own + inArchives} screenshots ${window} (it covers ${status.done} of ${status.total} screenshots in all, newest first).${since} Search again later, or use list_screenshots and find_text on a ref.`,
      };
    }
    // The words may name an excluded app: say so, without claiming that is why.
    const named = q.groups.flat().map((t) => excludedBy({ app: t.tokens.join(' ') }, s.excludeApps)).find((n) => n !== undefined);
    const note = named ? ` Frames of ${named} are never indexed (ocr.excludeApps).` : '';
    return { reason: 'NO_MATCH', remediation: `No frame ${window} shows "${describeQuery(q)}"${p.app ? ` in ${p.app}` : ''} (${indexed} indexed frames searched). Try fewer or other words, a prefix (word*), or a wider window.${note}` };
  }
}

function countOrZero(count: () => number): number {
  try {
    return count();
  } catch {
    return 0;
  }
}

function toHit(h: TextHit, q: ParsedQuery): ScreenshotHit {
  const f = h.frame;
  const hit: ScreenshotHit = {
    ref: f.ref,
    source: f.source,
    target: f.target,
    capturedAt: f.capturedAt,
    displayLocalTime: displayLocalTime(new Date(f.capturedAt)),
    image: { width: f.image.width, height: f.image.height },
    snippet: h.snippet,
    boxes: matchingBoxes(h.text, h.boxes, q, BOXES_PER_HIT),
  };
  if (h.label.title) hit.title = h.label.title;
  if (h.label.app) hit.app = h.label.app;
  if (h.label.document) hit.document = h.label.document;
  return hit;
}

function describeWindow(p: SearchParams): string {
  if (p.from && p.to) return `between ${p.from.toISOString()} and ${p.to.toISOString()}`;
  if (p.from) return `since ${p.from.toISOString()}`;
  if (p.to) return `before ${p.to.toISOString()}`;
  return 'in the catalog';
}
