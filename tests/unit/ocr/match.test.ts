import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SightlineError } from '../../../src/shared/errors.ts';
import { editDistance, findText, fold, itemsFromOcr, nestsQuantifiers, type TextItem } from '../../../src/main/core/text/match.ts';

const box = (x: number, y: number, width: number, height = 12) => ({ x, y, width, height });
const line: TextItem = {
  text: 'Open Café Settings',
  box: box(10, 20, 150),
  confidence: 0.9,
  words: [
    { text: 'Open', box: box(10, 20, 40), confidence: 0.95 },
    { text: 'Café', box: box(60, 20, 40), confidence: 0.8 },
    { text: 'Settings', box: box(110, 20, 50), confidence: 0.9 },
  ],
};

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof SightlineError ? e.code : 'OTHER';
  }
  return undefined;
}

describe('fold', () => {
  it('drops case and accents and maps back to the original offsets', () => {
    const f = fold('  Ångström  CAFÉ ');
    expect(f.text).toBe('angstrom cafe');
    expect(f.map[0]).toBe(2);
    expect(f.map[f.text.indexOf('c')]).toBe('  Ångström  '.length);
  });
  it('folds decomposed accents, ligatures and full-width letters', () => {
    expect(fold('Cafe\u0301 ﬁle ＡＢ').text).toBe('cafe file ab');
  });
  it('keeps a monotone map inside the string (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (s) => {
        const f = fold(s);
        expect(f.map).toHaveLength(f.text.length);
        for (let i = 0; i < f.map.length; i++) {
          expect(f.map[i]).toBeGreaterThanOrEqual(i > 0 ? (f.map[i - 1] ?? 0) : 0);
          expect(f.map[i]).toBeLessThan(s.length);
        }
      }),
    );
  });
});

describe('findText', () => {
  it('finds a single word with its own box, ignoring case and accents', () => {
    const [m] = findText([line], 'cafe');
    expect(m).toMatchObject({ text: 'Café', kind: 'word', boxFrom: 'word', wholeWord: true, box: box(60, 20, 40), center: { x: 80, y: 26 }, confidence: 0.8 });
  });
  it('finds a phrase over several words as the union of their boxes', () => {
    const [m] = findText([line], 'café  settings');
    expect(m).toMatchObject({ text: 'Café Settings', kind: 'phrase', box: box(60, 20, 100), confidence: 0.8 });
  });
  it('cuts a substring from its word box in proportion to its characters', () => {
    const [m] = findText([line], 'tings');
    expect(m).toMatchObject({ text: 'tings', kind: 'substring', boxFrom: 'proportional', wholeWord: false });
    expect(m?.box.x).toBeCloseTo(110 + (50 * 3) / 8, 0);
    expect(m?.box.width).toBeCloseTo((50 * 5) / 8, 0);
  });
  it('takes the whole word box when the rest of the word is punctuation OCR glued on', () => {
    const item: TextItem = { text: 'Settings. (Save', box: box(0, 0, 100), words: [{ text: 'Settings.', box: box(0, 0, 50) }, { text: '(Save', box: box(60, 0, 40) }] };
    expect(findText([item], 'settings')[0]).toMatchObject({ text: 'Settings', kind: 'word', box: box(0, 0, 50), wholeWord: true });
    expect(findText([item], 'save')[0]).toMatchObject({ kind: 'word', box: box(60, 0, 40) });
  });
  it('ranks whole-word hits before parts of longer words', () => {
    const items: TextItem[] = [{ text: 'Saved', box: box(0, 0, 50) }, { text: 'Save', box: box(0, 40, 40) }];
    const hits = findText(items, 'save');
    expect(hits.map((h) => [h.text, h.wholeWord, h.kind])).toEqual([
      ['Save', true, 'item'],
      ['Save', false, 'item'],
    ]);
    expect(hits.map((h) => h.itemIndex)).toEqual([1, 0]);
  });
  it('matches tree text without words on the node box and passes the id through', () => {
    const [m] = findText([{ text: 'Submit order', box: box(5, 5, 90, 30), id: 'n42' }], 'ORDER');
    expect(m).toMatchObject({ kind: 'item', boxFrom: 'item', box: box(5, 5, 90, 30), center: { x: 50, y: 20 }, id: 'n42', confidence: 1 });
  });
  it('supports regular expressions on folded text', () => {
    const hits = findText([line, { text: 'v1.4.2 released', box: box(0, 60, 100), words: [{ text: 'v1.4.2', box: box(0, 60, 40) }, { text: 'released', box: box(50, 60, 50) }] }], 'v\\d+(\\.\\d+)+', { regex: true });
    expect(hits.map((h) => h.text)).toEqual(['v1.4.2']);
    expect(findText([line], '^open\\s+caf[eé]', { regex: true })[0]?.text).toBe('Open Café');
  });
  it('orders hits in reading order and caps them', () => {
    const items: TextItem[] = [0, 1, 2, 3].map((i) => ({ text: 'ok', box: box(100 - i * 20, i < 2 ? 0 : 30, 10) }));
    expect(findText(items, 'ok').map((h) => h.itemIndex)).toEqual([1, 0, 3, 2]);
    expect(findText(items, 'ok', { max: 2 })).toHaveLength(2);
  });
  it('refuses an empty query, a bad pattern and a catastrophic one with INVALID_ARGUMENT', () => {
    expect(codeOf(() => findText([line], '   '))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => findText([line], '(unclosed', { regex: true }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => findText([line], '(a+)+$', { regex: true }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => findText([line], 'x'.repeat(501)))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => findText([line], '(unclosed'))).toBeUndefined();
  });
  it('refuses more text than it will scan', () => {
    const big = Array.from({ length: 120 }, () => ({ text: 'a'.repeat(20_000), box: box(0, 0, 1) }));
    expect(codeOf(() => findText(big, 'b'))).toBe('INVALID_ARGUMENT');
  });
  it('treats any plain query literally (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ''), (q) => {
        const item = { text: `[${q}]`, box: box(0, 0, 100) };
        expect(findText([item], q).length).toBeGreaterThanOrEqual(1);
      }),
    );
  });
  it('finds every word of a generated line at its own box, whatever case or accents the query uses (property)', () => {
    const word = fc.string({ unit: fc.constantFrom(...'abcdeéèfgnoöuüzAÉZ09'), minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 8 }), fc.nat(), fc.boolean(), (words, pick, upper) => {
        let x = 0;
        const ws = words.map((t) => {
          const w = { text: t, box: box(x, 10, t.length * 7), confidence: 0.9 };
          x += t.length * 7 + 5;
          return w;
        });
        const target = ws[pick % ws.length]!;
        const query = upper ? target.text.toUpperCase() : target.text.normalize('NFD').replace(/\p{M}/gu, '');
        const hits = findText([{ text: words.join(' '), box: box(0, 10, x), words: ws }], query, { max: 1000 });
        expect(hits.some((h) => h.kind === 'word' && h.box.x === target.box.x && h.box.width === target.box.width)).toBe(true);
        for (const h of hits) {
          expect(h.box.x).toBeGreaterThanOrEqual(-0.1);
          expect(h.box.x + h.box.width).toBeLessThanOrEqual(x + 0.1);
        }
      }),
    );
  });
});

describe('fuzzy matching', () => {
  const ocr: TextItem = { text: 'shows Deskiop Setings', box: box(0, 0, 150), words: [{ text: 'shows', box: box(0, 0, 40), confidence: 0.9 }, { text: 'Deskiop', box: box(50, 0, 50), confidence: 0.5 }, { text: 'Setings', box: box(110, 0, 40), confidence: 0.9 }] };
  it('finds a misread word within one edit per five characters when asked, after exact hits', () => {
    expect(findText([ocr], 'desktop')).toEqual([]);
    const [m] = findText([ocr], 'desktop', { fuzzy: true });
    expect(m).toMatchObject({ text: 'Deskiop', kind: 'word', box: box(50, 0, 50), edits: 1 });
    expect(m?.confidence).toBeCloseTo(0.5 * (1 - 1 / 7), 3);
    expect(findText([ocr], 'desktop settings', { fuzzy: true })[0]).toMatchObject({ kind: 'phrase', box: box(50, 0, 100), edits: 2 });
    const both = findText([{ text: 'Desktop', box: box(0, 40, 50) }, ocr], 'desktop', { fuzzy: true });
    expect(both.map((h) => [h.text, h.edits])).toEqual([['Desktop', undefined], ['Deskiop', 1]]);
    expect(findText([ocr], 'dog', { fuzzy: true })).toEqual([]);
  });
  it('counts an OCR confusion such as rn → m as one edit', () => {
    const item: TextItem = { text: 'usemame', box: box(0, 0, 60), words: [{ text: 'usemame', box: box(0, 0, 60) }] };
    expect(findText([item], 'username', { fuzzy: true })[0]).toMatchObject({ text: 'usemame', edits: 1 });
    expect(findText([item], 'usernames', { fuzzy: true })[0]?.edits).toBe(1);
  });
  it("compares a word without the marks OCR read from a button's border beside it", () => {
    const words = [{ text: '‘Atert|', box: box(0, 0, 70) }, { text: 'Conf', box: box(80, 0, 40) }];
    const [m] = findText([{ text: '‘Atert| Conf', box: box(0, 0, 120), words }], 'Alert', { fuzzy: true });
    // Stray marks glued to a word leave it whole, with its own box.
    expect(m).toMatchObject({ text: 'Atert', kind: 'word', box: box(0, 0, 70), edits: 1 });
    // A mark the query itself has is compared, and found exactly, not as a near miss.
    expect(findText([{ text: '(Alert)', box: box(0, 0, 70) }], 'Alert', { fuzzy: true }).map((h) => h.edits)).toEqual([undefined]);
    expect(findText([{ text: '|Atert', box: box(0, 0, 60) }], 'Alert', { fuzzy: true })).toHaveLength(1);
  });
  it('bounds the edit distance', () => {
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
    expect(editDistance('a', 'abcdef', 2)).toBe(3);
  });
});

describe('nestsQuantifiers', () => {
  it('flags nested repetition and lets ordinary patterns through', () => {
    for (const p of ['(a+)+', '(\\w*)*', '(.+){2,}', '(?:x+)*']) expect(nestsQuantifiers(p), p).toBe(true);
    for (const p of ['(ab)+', 'a+b*', '[(a+)]+', '\\(a+\\)+', '(foo|bar)*', 'v\\d+(\\.\\d+)+']) expect(nestsQuantifiers(p), p).toBe(false);
  });
  it('stops a pattern that backtracks too long with INVALID_ARGUMENT', () => {
    const t0 = performance.now();
    expect(codeOf(() => findText([{ text: `${'a'.repeat(40)}!`, box: box(0, 0, 1) }], '^(a|aa)*$', { regex: true }))).toBe('INVALID_ARGUMENT');
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});

describe('itemsFromOcr', () => {
  it('turns OCR lines into items with words', () => {
    const items = itemsFromOcr({ lines: [{ text: 'Open Café Settings', box: line.box, confidence: 0.9, words: line.words ?? [] }] });
    expect(findText(items, 'open')[0]?.box).toEqual(box(10, 20, 40));
  });
});
