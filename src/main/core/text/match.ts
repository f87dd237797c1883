/**
 * Finding text on screen, pure: a query (plain or a regular expression) against text items
 * with boxes, from OCR lines or from a DOM/UI tree, case- and accent-insensitively. Each hit
 * carries a box, a centre and a confidence in the items' own pixels.
 */
import { createContext, runInContext, type Context } from 'node:vm';
import { SightlineError } from '../../../shared/errors.ts';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface TextWord {
  text: string;
  box: Box;
  confidence?: number;
}

/** A line of OCR (with its words) or a tree node's text (without words: its box is the node's). */
export interface TextItem {
  text: string;
  box: Box;
  confidence?: number;
  /** The item's words in order; the item's text is taken as them joined by single spaces. */
  words?: TextWord[];
  /** The caller's handle (a ui-tree node id), passed through. */
  id?: string;
}

/**
 * `word`: exactly one whole word; `phrase`: whole words in a row; `substring`: part of a word
 * (or words cut at either end); `item`: text in an item without word boxes (the item's box).
 */
export type MatchKind = 'word' | 'phrase' | 'substring' | 'item';

export interface TextMatch {
  /** The matched text as it appears in the item (accents and case kept). */
  text: string;
  box: Box;
  center: { x: number; y: number };
  confidence: number;
  kind: MatchKind;
  /**
   * `word`: the union of whole word boxes; `proportional`: part of a word box cut in proportion
   * to its characters (exact to about a character's width); `item`: the whole item's box.
   */
  boxFrom: 'word' | 'proportional' | 'item';
  /** The hit starts and ends at word boundaries (`Save` in `Save as`, not in `Saved`). */
  wholeWord: boolean;
  itemIndex: number;
  id?: string;
  /** Character edits between the query and this hit (fuzzy hits only). */
  edits?: number;
}

export interface FindOptions {
  /** Treat the query as a regular expression (JavaScript syntax), matched case-insensitively on folded text. */
  regex?: boolean;
  /** At most this many hits (default 100). */
  max?: number;
  /**
   * Also accept whole words (or runs of words for a phrase) within one edit per five
   * characters, ranked after exact hits: OCR misreads a letter now and then (`Deskiop`).
   */
  fuzzy?: boolean;
}

/** Limits that keep one call cheap whatever the caller sends. */
export const LIMITS = { queryLength: 500, itemLength: 20_000, totalLength: 2_000_000, defaultMax: 100 } as const;

export interface Folded {
  /** Lower case, accents stripped (NFKD without combining marks), whitespace runs as one space. */
  text: string;
  /** For each folded code unit, the index in the original string of the character it came from. */
  map: number[];
}

const MARK = /\p{M}/u;
const WORDCHAR = /[\p{L}\p{N}]/u;

/** Case- and accent-insensitive form of `s`, with a map back to `s`'s offsets. */
export function fold(s: string): Folded {
  let text = '';
  const map: number[] = [];
  let i = 0;
  let lastSpace = true;
  for (const ch of s) {
    if (/\s/.test(ch)) {
      if (!lastSpace) {
        text += ' ';
        map.push(i);
        lastSpace = true;
      }
    } else {
      for (const f of ch.normalize('NFKD')) {
        if (MARK.test(f)) continue;
        for (const u of f.toLowerCase()) {
          text += u;
          for (let k = 0; k < u.length; k++) map.push(i);
        }
      }
      lastSpace = false;
    }
    i += ch.length;
  }
  if (text.endsWith(' ')) {
    text = text.slice(0, -1);
    map.pop();
  }
  return { text, map };
}

/**
 * A repeated group around a single repeated atom, `(a+)+`, `(\\w*)*`, `(.+){2,}`: the textbook
 * exponential pattern, refused up front with a clear message. Subtler ones are stopped by the
 * time budget in `findText`.
 */
export function nestsQuantifiers(pattern: string): boolean {
  const src = pattern.replace(/\\./g, '_').replace(/\[[^\]]*\]/g, '_');
  return /\((?:\?:)?[^()|][*+]\)[*+{]/.test(src);
}

/**
 * Regular expressions run with a time budget (wall clock, so it leaves room for a busy machine):
 * a pattern that backtracks for longer is refused.
 */
const REGEX_BUDGET_MS = 1000;

/** The query as a global, case-insensitive RegExp over folded text; bad input is INVALID_ARGUMENT. */
export function compileQuery(query: string, regex: boolean): RegExp {
  if (typeof query !== 'string' || query.trim() === '') throw new SightlineError('INVALID_ARGUMENT', 'The text to find is empty.', 'pass the words to look for');
  if (query.length > LIMITS.queryLength) throw new SightlineError('INVALID_ARGUMENT', `The text to find is ${query.length} characters long (at most ${LIMITS.queryLength}).`, 'search for a shorter, distinctive part');
  if (!regex) return new RegExp(fold(query).text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g');
  // Accents in the pattern are folded like the text; case is left to the `i` flag (lower-casing would turn \W into \w).
  const pattern = query.normalize('NFKD').replace(/\p{M}/gu, '');
  if (nestsQuantifiers(pattern)) {
    throw new SightlineError('INVALID_ARGUMENT', `The regular expression ${JSON.stringify(query)} nests repetitions (like (a+)+), which can take exponential time.`, 'rewrite it without a repeated group that itself repeats, or search for plain text');
  }
  try {
    return new RegExp(pattern, 'gi');
  } catch (e) {
    throw new SightlineError('INVALID_ARGUMENT', `Invalid regular expression ${JSON.stringify(query)}: ${(e as Error).message}.`, 'fix the pattern (JavaScript syntax) or pass regex: false to search for the text as written');
  }
}

interface Span {
  start: number;
  end: number;
  word?: TextWord;
}

/** The item's text and, when it has words, where each word sits in that text. */
function layoutOf(item: TextItem): { text: string; spans: Span[] } {
  if (!item.words?.length) return { text: item.text, spans: [] };
  let text = '';
  const spans: Span[] = [];
  for (const w of item.words) {
    if (text) text += ' ';
    spans.push({ start: text.length, end: text.length + w.text.length, word: w });
    text += w.text;
  }
  return { text, spans };
}

function part(b: Box, from: number, to: number, len: number): Box {
  const per = b.width / Math.max(1, len);
  return { x: b.x + from * per, y: b.y, width: (to - from) * per, height: b.height };
}

function union(boxes: Box[]): Box {
  const x0 = Math.min(...boxes.map((b) => b.x));
  const y0 = Math.min(...boxes.map((b) => b.y));
  const x1 = Math.max(...boxes.map((b) => b.x + b.width));
  const y1 = Math.max(...boxes.map((b) => b.y + b.height));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

function hit(item: TextItem, index: number, text: string, spans: Span[], start: number, end: number): TextMatch {
  const covered = spans.filter((s) => s.start < end && s.end > start);
  let box: Box;
  let kind: MatchKind;
  let boxFrom: TextMatch['boxFrom'];
  let confidence = item.confidence ?? 1;
  if (covered.length === 0) {
    [box, kind, boxFrom] = [item.box, 'item', 'item'];
  } else {
    // OCR glues stray punctuation to words (`Settings.`, `(Save`): a word whose uncovered rest
    // is only punctuation counts as covered whole, and keeps its own box.
    const rest = (s: Span): string => text.slice(s.start, Math.max(s.start, start)) + text.slice(Math.min(s.end, end), s.end);
    const full = (s: Span): boolean => !WORDCHAR.test(rest(s));
    const whole = covered.every(full);
    const parts = covered.map((s) => {
      const w = s.word as TextWord;
      const from = Math.max(0, start - s.start);
      const to = Math.min(s.end, end) - s.start;
      return full(s) ? w.box : part(w.box, from, to, s.end - s.start);
    });
    box = union(parts);
    kind = whole ? (covered.length === 1 ? 'word' : 'phrase') : 'substring';
    boxFrom = whole ? 'word' : 'proportional';
    confidence = Math.min(...covered.map((s) => s.word?.confidence ?? item.confidence ?? 1));
  }
  const r = { x: round1(box.x), y: round1(box.y), width: round1(box.width), height: round1(box.height) };
  return {
    text: text.slice(start, end),
    box: r,
    center: { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) },
    confidence: Math.round(confidence * 1000) / 1000,
    kind,
    boxFrom,
    wholeWord: !WORDCHAR.test(text[start - 1] ?? ' ') && !WORDCHAR.test(text[end] ?? ' '),
    itemIndex: index,
    ...(item.id !== undefined ? { id: item.id } : {}),
  };
}

/**
 * Every occurrence of `query` in `items`: exact whole-word hits first, then fuzzy ones, then
 * parts of longer words, each group in reading order (top to bottom, left to right). A phrase matches within one item (one OCR line or one node), not
 * across items.
 */
export function findText(items: readonly TextItem[], query: string, opts: FindOptions = {}): TextMatch[] {
  const re = compileQuery(query, opts.regex ?? false);
  const max = Math.max(1, Math.min(opts.max ?? LIMITS.defaultMax, 10_000));
  let budget: number = LIMITS.totalLength;
  const prepared = items.map((item) => {
    const { text, spans } = layoutOf(item);
    const t = text.length > LIMITS.itemLength ? text.slice(0, LIMITS.itemLength) : text;
    budget -= t.length;
    // Past the budget nothing is folded: the call fails below without the work.
    return { t, spans, f: budget < 0 ? { text: '', map: [] } : fold(t) };
  });
  if (budget < 0) throw new SightlineError('INVALID_ARGUMENT', `Too much text to search (over ${LIMITS.totalLength} characters).`, 'search a crop or a single target');
  const texts = prepared.map((p) => p.f.text);
  // A plain query is an escaped literal: no backtracking, no need for the guarded run.
  const found = opts.regex ? execAll(re, texts, max, query) : texts.map((t) => scan(re, t, max));
  const out: TextMatch[] = [];
  prepared.forEach(({ t, spans, f }, index) => {
    const item = items[index] as TextItem;
    for (const [at, len] of found[index] ?? []) {
      const start = f.map[at] ?? 0;
      const lastIdx = f.map[at + len - 1] ?? start;
      // End after the whole original character (a surrogate pair or a letter whose accent was folded away).
      let end = lastIdx + ((t.codePointAt(lastIdx) ?? 0) > 0xffff ? 2 : 1);
      while (end < t.length && MARK.test(t[end] ?? '')) end++;
      out.push(hit(item, index, t, spans, start, end));
    }
  });
  if (opts.fuzzy && !opts.regex) out.push(...fuzzyHits(items, prepared, fold(query).text));
  // Exact whole words first, then near misses, then parts of longer words.
  const rank = (m: TextMatch): number => (m.edits ? 1 : m.wholeWord ? 0 : 2);
  return out
    .sort((a, b) => rank(a) - rank(b) || (Math.abs(a.box.y - b.box.y) < Math.min(a.box.height, b.box.height) / 2 ? a.box.x - b.box.x : a.box.y - b.box.y))
    .slice(0, max);
}

/** Edit distance, giving up (returning limit + 1) once every path exceeds `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min((prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1), (prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1);
      cur.push(v);
      best = Math.min(best, v);
    }
    if (best > limit) return limit + 1;
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/** Letter groups OCR engines mistake for one another, reduced to one spelling before comparing. */
export function ocrShape(s: string): string {
  return s.replace(/rn/g, 'm').replace(/vv/g, 'w').replace(/cl/g, 'd').replace(/[1il|]/g, 'l').replace(/0/g, 'o');
}

/**
 * Runs of as many whole words as the query has, within one edit per five query characters. A
 * run is also compared without the marks at its edges: OCR reads a button's border beside its
 * label as `|`, `[` or a quote (`‘Atert|`), which would otherwise cost edits of their own.
 */
function fuzzyHits(items: readonly TextItem[], prepared: { t: string; spans: Span[] }[], q: string): TextMatch[] {
  const limit = Math.floor(q.length / 5);
  if (limit === 0) return [];
  const n = q.split(' ').length;
  const shape = ocrShape(q);
  const out: TextMatch[] = [];
  prepared.forEach(({ t, spans }, index) => {
    const tokens = [...t.matchAll(/\S+/g)].map((m) => [m.index, m.index + m[0].length] as const);
    for (let i = 0; i + n <= tokens.length; i++) {
      const start = tokens[i]?.[0] ?? 0;
      const end = tokens[i + n - 1]?.[1] ?? start;
      const runs = runsOf(t, start, end, q).map(([s, e]) => ({ s, e, cand: fold(t.slice(s, e)).text }));
      // The exact search already found it.
      if (runs.some((r) => r.cand === q)) continue;
      let best: { d: number; start: number; end: number } | undefined;
      for (const { s, e, cand } of runs) {
        // An OCR confusion (`rn` read as `m`) costs one edit, not two.
        const d = Math.max(1, editDistance(ocrShape(cand), shape, limit));
        if (d <= limit && (!best || d <= best.d)) best = { d, start: s, end: e };
      }
      if (!best) continue;
      const h = hit(items[index] as TextItem, index, t, spans, best.start, best.end);
      out.push({ ...h, confidence: Math.round(h.confidence * (1 - best.d / q.length) * 1000) / 1000, edits: best.d });
    }
  });
  return out;
}

/** The run [start, end) of `t`, then, where the query does not begin or end so, without its edges' marks. */
function runsOf(t: string, start: number, end: number, q: string): [number, number][] {
  let s = start;
  let e = end;
  if (WORDCHAR.test(q[0] ?? '')) while (s < e && !WORDCHAR.test(t[s] ?? '')) s++;
  if (WORDCHAR.test(q[q.length - 1] ?? '')) while (e > s && !WORDCHAR.test(t[e - 1] ?? '')) e--;
  return s === start && e === end ? [[start, end]] : [[start, end], ...(e > s ? [[s, e] as [number, number]] : [])];
}

/** [index, length] of every non-empty match of `re` in `t`, at most `cap`. */
function scan(re: RegExp, t: string, cap: number): [number, number][] {
  re.lastIndex = 0;
  const out: [number, number][] = [];
  for (let m = re.exec(t); m && out.length < cap; m = re.exec(t)) {
    if (m[0].length === 0) re.lastIndex++;
    else out.push([m.index, m[0].length]);
  }
  return out;
}

let sandbox: Context | undefined;

/**
 * The same for a regular expression over every text, run in a vm context with a timeout (V8 interrupts a backtracking regular expression there).
 */
function execAll(re: RegExp, texts: string[], cap: number, query: string): [number, number][][] {
  sandbox ??= createContext({});
  Object.assign(sandbox, { re, texts, cap, scan: undefined });
  const code = `texts.map((t) => { re.lastIndex = 0; const out = []; let m; while (out.length < cap && (m = re.exec(t))) { if (m[0].length === 0) { re.lastIndex++; continue; } out.push([m.index, m[0].length]); } return out; })`;
  try {
    return runInContext(code, sandbox, { timeout: REGEX_BUDGET_MS }) as [number, number][][];
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new SightlineError('INVALID_ARGUMENT', `The regular expression ${JSON.stringify(query)} took over ${REGEX_BUDGET_MS} ms on this text (it backtracks too much).`, 'simplify the pattern (avoid repeated groups that themselves repeat), or search for plain text');
    }
    throw e;
  } finally {
    Object.assign(sandbox, { re: undefined, texts: undefined });
  }
}

/** OCR lines as text items (the OCR result's shape is a structural match). */
export function itemsFromOcr(result: { lines: readonly { text: string; box: Box; confidence: number; words: readonly TextWord[] }[] }): TextItem[] {
  return result.lines.map((l) => ({ text: l.text, box: l.box, confidence: l.confidence, words: [...l.words] }));
}
