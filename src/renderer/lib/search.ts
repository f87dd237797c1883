/**
 * The timeline's text search, pure: a hit's snippet as plain and marked parts (never HTML),
 * its word boxes as percent of the frame (so they sit on a thumbnail or the full image alike),
 * and the indexer's progress as one line.
 */
import type { ScreenshotHit, ScreenshotSearch, TextBox, TextIndexStatus } from '../../shared/api.ts';
import { MIN_FOLD } from '../../shared/timeline.ts';
import { formatCount } from './format.ts';
import type { PercentRect } from './roi.ts';

export interface SnippetPart {
  text: string;
  mark: boolean;
}

/** "a «b» c" → [a ][b][ c]: the matches between « and » marked. */
export function snippetParts(snippet: string): SnippetPart[] {
  const out: SnippetPart[] = [];
  const re = /«([^»]*)»/g;
  let at = 0;
  for (const m of snippet.matchAll(re)) {
    if (m.index > at) out.push({ text: snippet.slice(at, m.index), mark: false });
    if (m[1]) out.push({ text: m[1], mark: true });
    at = m.index + m[0].length;
  }
  if (at < snippet.length) out.push({ text: snippet.slice(at), mark: false });
  // Line breaks of OCR text read as spaces in one line.
  return out.map((p) => ({ ...p, text: p.text.replace(/\s+/g, ' ') }));
}

/** Word boxes in image px of a frame → percent of that frame, clamped to it. */
export function boxesToPercent(boxes: readonly TextBox[], image: { width: number; height: number }): PercentRect[] {
  if (image.width <= 0 || image.height <= 0) return [];
  const clamp = (v: number): number => Math.max(0, Math.min(100, v));
  return boxes.map((b) => {
    const x = clamp((b.x / image.width) * 100);
    const y = clamp((b.y / image.height) * 100);
    return { x, y, width: clamp(((b.x + b.width) / image.width) * 100) - x, height: clamp(((b.y + b.height) / image.height) * 100) - y };
  });
}

/** "Text index: 1,200 of 5,000 screenshots · indexing" (and why it is off or paused). */
export function indexLine(s: TextIndexStatus | null | undefined): string {
  if (!s) return 'Text index: not running in this process.';
  const counts = `${formatCount(s.done)} of ${formatCount(s.total)} screenshots`;
  switch (s.state) {
    case 'off':
      return `Text index off: ${s.reason ?? 'turned off in Settings.'} ${counts} indexed.`;
    case 'idle':
      return `Text index: ${counts}, up to date${s.excluded ? ` (${formatCount(s.excluded)} of excluded apps skipped)` : ''}.`;
    case 'paused':
      return `Text index: ${counts}, paused — ${s.reason ?? 'waiting'}`;
    case 'indexing': {
      // Read again after an upgrade: what they showed stays searchable meanwhile.
      if (s.reread) return `Text index: ${counts}; reading again ${formatCount(s.reread.done)} of ${formatCount(s.reread.total)} indexed by an older, less accurate reader.`;
      const since = s.searchableSince ? `; everything since ${s.searchableSince.slice(0, 10)} is searchable` : '';
      return `Text index: ${counts}, indexing newest first${since}.`;
    }
  }
}

/** What nothing matching means when the server gives no reason a person can read. */
const EMPTY: Record<NonNullable<ScreenshotSearch['reason']>, string> = {
  NO_FRAMES_IN_RANGE: 'No screenshots were taken in these days. Widen the dates.',
  NOT_INDEXED_YET: 'Nothing matched yet: the text index has not read every screenshot. Search again later.',
  INDEX_OFF: 'Screen text is not indexed: turn on “Index screen text for search” in Settings.',
  EXCLUDED_APP: 'Screenshots of this app are never indexed (Settings → Never index these apps).',
  NO_MATCH: 'Nothing matched. Try fewer or other words.',
};

/** Tool names, parameters and settings keys: words for an agent, not for the person at the dashboard. */
const AGENT_WORDS = /list_screenshots|find_text|get_screenshot|search_screenshots|from\/to|\bref\b/;

/**
 * The server's remediation (written for agents too) as the dashboard says it: settings keys in
 * parentheses go, and a clause that sends the reader to an agent's tool is cut off.
 */
export function forPeople(text: string): string {
  const out: string[] = [];
  for (const sentence of text.replace(/\s*\((?:ocr|sources|input|capture|privacy)\.[\w.]+\)/g, '').split(/(?<=\.)\s+/)) {
    const m = AGENT_WORDS.exec(sentence);
    if (!m) {
      out.push(sentence);
      continue;
    }
    const head = sentence.slice(0, m.index);
    const cut = Math.max(head.lastIndexOf(': '), head.lastIndexOf(', or '), head.lastIndexOf('; '));
    if (cut > 0) out.push(`${sentence.slice(0, cut).trim()}.`);
  }
  return out.join(' ').trim();
}

/** What to say above the results (or instead of them); `shown` is how many hits are listed. */
export function resultsLine(r: ScreenshotSearch, shown = r.results.length): string {
  if (shown === 0) return (r.remediation && forPeople(r.remediation)) || (r.reason ? EMPTY[r.reason] : 'Nothing matched.');
  const all = `${formatCount(r.total)} ${r.total === 1 ? 'screenshot matches' : 'screenshots match'}`;
  return shown < r.total ? `${all}, newest first: showing ${formatCount(shown)}` : `${all}, newest first`;
}

/** A row of the search results: one hit, or a run of hits of one unchanged screen folded into its newest. */
export interface HitRow {
  hit: ScreenshotHit;
  /** The run's hits, newest first (the row's own first), when it folds several. */
  run?: ScreenshotHit[];
}

/**
 * Hits (newest first) with each run of one target showing one screen (the same screen key, as the
 * timeline folds them) made one row: 72 hits of a screen left open are one row, "72 screenshots,
 * 09:00–09:13". Shorter runs stay as they are. Hits with no key stand alone.
 */
export function foldHits(hits: readonly ScreenshotHit[], screens: Readonly<Record<string, string>>): HitRow[] {
  const out: HitRow[] = [];
  let i = 0;
  while (i < hits.length) {
    const h = hits[i]!;
    const key = screens[h.ref];
    let j = i + 1;
    if (key !== undefined) while (j < hits.length && screens[hits[j]!.ref] === key && hits[j]!.target === h.target) j++;
    if (j - i >= MIN_FOLD) out.push({ hit: h, run: hits.slice(i, j) });
    else for (let k = i; k < j; k++) out.push({ hit: hits[k]! });
    i = j;
  }
  return out;
}
