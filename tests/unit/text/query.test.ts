import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { matchingBoxes, parseQuery, toFtsMatch } from '../../../src/main/core/text/query.ts';

/** The FTS5 table of migration 5, alone. */
function table(): Database.Database {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE frame_text USING fts5 (text, title, app, document, source, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')`);
  const ins = db.prepare('INSERT INTO frame_text (rowid, text, title, app, document, source) VALUES (?, ?, ?, ?, ?, ?)');
  ins.run(1, 'Invoice 4411 was paid by Contoso', 'Inbox - Outlook', 'Outlook', '', 'manictime');
  ins.run(2, 'Café crème near the desktop', 'Menu', 'Chrome', 'https://example.com/menu', 'desktop');
  ins.run(3, 'NEAR AND OR NOT column:value', '', '', '', 'desktop');
  return db;
}

const run = (db: Database.Database, query: string, filters = {}): number[] =>
  (db.prepare('SELECT rowid FROM frame_text WHERE frame_text MATCH ? ORDER BY rowid').all(toFtsMatch(parseQuery(query), filters)) as { rowid: number }[]).map((r) => r.rowid);

describe('search_screenshots queries', () => {
  const db = table();

  it('words, phrases, prefixes and OR; case- and accent-insensitive', () => {
    expect(run(db, 'contoso')).toEqual([1]);
    expect(run(db, 'CAFE creme')).toEqual([2]);
    expect(run(db, '"invoice 4411"')).toEqual([1]);
    expect(run(db, '"4411 invoice"')).toEqual([]);
    expect(run(db, 'cont*')).toEqual([1]);
    expect(run(db, 'contoso OR café')).toEqual([1, 2]);
    expect(run(db, 'invoice#4411')).toEqual([1]);
  });

  it('never matches the source column, but filters on it and on the app', () => {
    expect(run(db, 'manictime')).toEqual([]);
    expect(run(db, 'desktop')).toEqual([2]);
    expect(run(db, 'near', { source: 'desktop' })).toEqual([2, 3]);
    expect(run(db, 'paid', { app: 'outlook' })).toEqual([1]);
    expect(run(db, 'paid', { app: 'chrome' })).toEqual([]);
  });

  it('whatever is typed, FTS5 sees quoted strings only', () => {
    for (const q of ['"unbalanced', 'NEAR(a b)', 'column:value', '^start', 'a AND OR NOT b', "'; DROP TABLE x; --", '{text}: x', 'ab*cd*', '-x +y', 'NOT']) {
      expect(() => run(db, q), q).not.toThrow();
    }
    expect(run(db, 'NEAR AND')).toEqual([3]);
    expect(() => parseQuery('"" *** ((( )')).toThrow(/no word to search for/);
    // A one-letter prefix would walk much of the vocabulary: two letters at least.
    expect(() => parseQuery('invoice c*')).toThrow(/prefix "c\*" is too short/);
    expect(() => parseQuery('a*b*')).toThrow(/too short/);
    expect(() => parseQuery('"paid by c"*')).toThrow(/too short/);
    expect(run(db, 'pa*')).toEqual([1]);
    expect(() => parseQuery(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))).toThrow(/more than 32 terms/);
  });

  it('finds the boxes of the matching words only, a phrase where it runs', () => {
    const text = 'Invoice 4411 paid\nby Contoso, invoice';
    const boxes = [0, 0, 10, 10, 20, 0, 10, 10, 40, 0, 10, 10, 0, 20, 10, 10, 20, 20, 10, 10, 40, 20, 10, 10];
    expect(matchingBoxes(text, boxes, parseQuery('contoso')).map((b) => [b.text, b.x, b.y])).toEqual([['Contoso,', 20, 20]]);
    expect(matchingBoxes(text, boxes, parseQuery('"invoice 4411"')).map((b) => b.text)).toEqual(['Invoice', '4411']);
    expect(matchingBoxes(text, boxes, parseQuery('invoice')).map((b) => b.text)).toEqual(['Invoice', 'invoice']);
    expect(matchingBoxes(text, boxes.slice(0, 8), parseQuery('invoice'))).toEqual([]);
  });
});
