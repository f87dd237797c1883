/**
 * Secrets in text: where card numbers (Luhn-checked) and tokens matching the mask patterns are.
 * The finder is one plain-JS function kept as a string, because the browser runs it inside the
 * page (to find the secrets' boxes in the DOM) and Node runs the very same code on UI trees, OCR
 * text and logs: one implementation, so a page and a tree can never disagree on what is secret.
 */
import { runInNewContext } from 'node:vm';

/**
 * `SECRET_FINDER_JS` is a function expression: `(patterns) => (text) => [[start, end], …]`,
 * sorted and merged. A pattern is `card-number` or a regular expression source; one that does not
 * compile is skipped (settings validate them first).
 */
export const SECRET_FINDER_JS = `(patterns) => {
  const res = [];
  let card = false;
  for (const p of patterns || []) {
    if (p === 'card-number') { card = true; continue; }
    try { res.push(new RegExp(p, 'gu')); } catch (e) { /* validated by settings */ }
  }
  const luhn = (d) => {
    let sum = 0, alt = false;
    for (let i = d.length - 1; i >= 0; i--) {
      let n = d.charCodeAt(i) - 48;
      if (alt) { n *= 2; if (n > 9) n -= 9; }
      sum += n; alt = !alt;
    }
    return sum % 10 === 0;
  };
  const CARD = /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g;
  // The longest Luhn-valid run of 13 to 19 digits at the start of a match, cut only between digit groups
  // (a card number followed by an expiry year is still found).
  const cardLength = (m) => {
    const cuts = [m.length];
    for (let i = m.length - 1; i > 0; i--) if (m[i] === ' ' || m[i] === '-') cuts.push(i);
    for (const end of cuts) {
      const d = m.slice(0, end).replace(/[ -]/g, '');
      if (d.length >= 13 && d.length <= 19 && luhn(d)) return end;
    }
    return 0;
  };
  // One scan of a text for anything that may be a secret; most texts have none, and then the
  // patterns are not run one by one.
  let any = null;
  try {
    const alts = res.map((r) => '(?:' + r.source + ')');
    if (card) alts.push('[0-9](?:[ -]?[0-9]){12}');
    any = alts.length ? new RegExp(alts.join('|'), 'u') : null;
  } catch (e) { any = null; }
  if (!card && res.length === 0) return () => [];
  return (text) => {
    const out = [];
    if (!text) return out;
    text = String(text);
    if (any && !any.test(text)) return out;
    if (card && /[0-9]{4}/.test(text.replace(/[ -]/g, ''))) {
      CARD.lastIndex = 0;
      for (let m; (m = CARD.exec(text)); ) {
        const n = cardLength(m[0]);
        if (n) out.push([m.index, m.index + n]);
      }
    }
    for (const re of res) {
      re.lastIndex = 0;
      for (let m; (m = re.exec(text)); ) {
        if (m[0].length === 0) { re.lastIndex++; continue; }
        out.push([m.index, m.index + m[0].length]);
      }
    }
    out.sort((a, b) => a[0] - b[0]);
    const merged = [];
    for (const r of out) {
      const last = merged[merged.length - 1];
      if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
      else merged.push([r[0], r[1]]);
    }
    return merged;
  };
}`;

export type SecretFinder = (text: string) => [number, number][];

/** What a masked secret reads as in trees, text and logs (a fixed width: it says nothing of the length). */
export const MASKED_TEXT = '••••';

const finders = new Map<string, SecretFinder>();

/** The finder for these patterns (compiled once per list). */
export function secretFinder(patterns: readonly string[]): SecretFinder {
  const key = JSON.stringify(patterns);
  let f = finders.get(key);
  if (!f) {
    const make = runInNewContext(`(${SECRET_FINDER_JS})`) as (p: readonly string[]) => (text: string) => [number, number][];
    const inner = make([...patterns]);
    f = (text) => inner(text).map(([a, b]) => [a, b] as [number, number]);
    if (finders.size > 16) finders.clear();
    finders.set(key, f);
  }
  return f;
}

/** `text` with every secret replaced by MASKED_TEXT. */
export function blankSecrets(text: string, patterns: readonly string[]): string {
  if (!text || patterns.length === 0) return text;
  const ranges = secretFinder(patterns)(text);
  if (ranges.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [a, b] of ranges) {
    out += text.slice(at, a) + MASKED_TEXT;
    at = b;
  }
  return out + text.slice(at);
}

/** Whether `text` holds a secret. */
export function hasSecret(text: string, patterns: readonly string[]): boolean {
  return !!text && patterns.length > 0 && secretFinder(patterns)(text).length > 0;
}

/** `autocomplete` tokens of fields whose value is a payment or one-time secret. */
export const SECRET_AUTOCOMPLETE = ['cc-number', 'cc-csc', 'cc-exp', 'cc-exp-month', 'cc-exp-year', 'one-time-code'] as const;
