/**
 * search_screenshots queries, pure: what a user types (words, "quoted phrases", prefix*, OR)
 * becomes an FTS5 expression in which every term is a quoted string, so nothing typed can reach
 * FTS5's own syntax (column filters, NEAR, ^). Words are cut into tokens as FTS5's unicode61
 * tokenizer cuts them (letters and digits; "invoice#4411" is the phrase "invoice 4411"), folded
 * as it folds them (case, diacritics), which also finds the matching words' boxes in a frame.
 */
import { SightlineError } from '../../../shared/errors.ts';

export interface QueryTerm {
  /** Folded tokens; several make a phrase. */
  tokens: string[];
  /** The last token is a prefix (`budg*`). */
  prefix: boolean;
}

/** Terms within a group must all match (AND); groups are alternatives (OR). */
export interface ParsedQuery {
  groups: QueryTerm[][];
}

const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;
const MAX_TERMS = 32;
/** Letters or digits a prefix (budg*) needs before its star. */
export const MIN_PREFIX = 2;
/** The columns a query's words are looked for in (the source column is only filtered on). */
const SEARCHED_COLUMNS = ['text', 'title', 'app', 'document'] as const;

/** Case- and accent-folded, as `unicode61 remove_diacritics 2` folds. */
export function fold(s: string): string {
  return s.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** The tokens FTS5 makes of `s`, folded. */
export function tokens(s: string): string[] {
  return [...s.normalize('NFC').matchAll(TOKEN)].map((m) => fold(m[0])).filter((t) => t.length > 0);
}

function bad(message: string): SightlineError {
  return new SightlineError('INVALID_ARGUMENT', message, 'Search for words ("invoice 4411"), a "quoted phrase", a prefix (budg*), or alternatives with OR.');
}

export function parseQuery(input: string): ParsedQuery {
  const groups: QueryTerm[][] = [[]];
  // "a phrase"* | a word* ; anything else (stray quotes, brackets, colons) separates.
  const re = /"([^"]*)"(\*?)|([^\s"]+)/g;
  for (const m of input.matchAll(re)) {
    const quoted = m[1];
    const raw = quoted ?? m[3] ?? '';
    if (quoted === undefined && raw === 'OR') {
      if ((groups[groups.length - 1] as QueryTerm[]).length) groups.push([]);
      continue;
    }
    const prefix = quoted !== undefined ? m[2] === '*' : raw.endsWith('*');
    const toks = tokens(raw);
    if (toks.length === 0) continue;
    // A one-letter prefix matches much of the vocabulary (the index keeps 2- and 3-letter prefixes).
    if (prefix && [...(toks[toks.length - 1] as string)].length < MIN_PREFIX) throw bad(`The prefix ${JSON.stringify(raw.slice(0, 40))} is too short: put at least ${MIN_PREFIX} letters or digits before *.`);
    (groups[groups.length - 1] as QueryTerm[]).push({ tokens: toks, prefix });
  }
  const out = groups.filter((g) => g.length > 0);
  if (out.length === 0) throw bad(`The query ${JSON.stringify(input.slice(0, 100))} has no word to search for (only letters and digits are indexed).`);
  if (out.reduce((n, g) => n + g.length, 0) > MAX_TERMS) throw bad(`The query has more than ${MAX_TERMS} terms.`);
  return { groups: out };
}

function quote(term: QueryTerm): string {
  return `"${term.tokens.join(' ')}"${term.prefix ? '*' : ''}`;
}

/** The FTS5 expression: every term quoted, optional filters on the app and source columns. */
export function toFtsMatch(q: ParsedQuery, filters: { app?: string; source?: string } = {}): string {
  const body = q.groups.map((g) => g.map(quote).join(' AND '));
  // What a frame showed, never its source column (the word "desktop" must not match every desktop frame).
  let expr = `{${SEARCHED_COLUMNS.join(' ')}} : (${body.length === 1 ? (body[0] as string) : body.map((b) => `(${b})`).join(' OR ')})`;
  const extra: string[] = [];
  if (filters.app !== undefined) {
    const t = tokens(filters.app);
    if (t.length === 0) throw bad(`The app filter ${JSON.stringify(filters.app)} has no letters or digits.`);
    extra.push(`app : "${t.join(' ')}"`);
  }
  if (filters.source !== undefined) extra.push(sourceFilter(filters.source));
  if (extra.length) expr = `(${expr}) AND ${extra.join(' AND ')}`;
  return expr;
}

/** The FTS5 filter on a frame's source column. */
export function sourceFilter(source: string): string {
  const t = tokens(source);
  if (t.length === 0) throw bad(`Unknown source ${JSON.stringify(source)}.`);
  return `source : "${t.join(' ')}"`;
}

export interface WordBox {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The words of an indexed text, in the order their boxes are stored. */
export function wordsOf(text: string): string[] {
  return text.split(/[ \n]+/).filter((w) => w.length > 0);
}

/**
 * The boxes of the words of `text` that the query's terms match (a phrase: only where its tokens
 * follow each other), in reading order, at most `max`. `boxes` holds x, y, width, height per word.
 */
export function matchingBoxes(text: string, boxes: readonly number[], q: ParsedQuery, max = 50): WordBox[] {
  const words = wordsOf(text);
  if (boxes.length < words.length * 4) return [];
  const flat: { tok: string; word: number }[] = [];
  words.forEach((w, i) => {
    for (const t of tokens(w)) flat.push({ tok: t, word: i });
  });
  const hit = new Set<number>();
  const eq = (tok: string, want: string, prefix: boolean): boolean => (prefix ? tok.startsWith(want) : tok === want);
  for (const term of q.groups.flat()) {
    const n = term.tokens.length;
    for (let j = 0; j + n <= flat.length; j++) {
      let ok = true;
      for (let k = 0; k < n && ok; k++) ok = eq((flat[j + k] as { tok: string }).tok, term.tokens[k] as string, term.prefix && k === n - 1);
      if (ok) for (let k = 0; k < n; k++) hit.add((flat[j + k] as { word: number }).word);
    }
  }
  return [...hit]
    .sort((a, b) => a - b)
    .slice(0, max)
    .map((i) => ({ text: words[i] as string, x: boxes[i * 4] as number, y: boxes[i * 4 + 1] as number, width: boxes[i * 4 + 2] as number, height: boxes[i * 4 + 3] as number }));
}

/** The distinct folded words of a query, for "which word was not found" style messages. */
export function describeQuery(q: ParsedQuery): string {
  return q.groups.map((g) => g.map((t) => (t.tokens.length > 1 ? `"${t.tokens.join(' ')}"` : t.tokens[0]) + (t.prefix ? '*' : '')).join(' ')).join(' OR ');
}
