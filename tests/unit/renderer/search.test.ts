import { describe, expect, it } from 'vitest';
import { boxesToPercent, indexLine, resultsLine, snippetParts } from '../../../src/renderer/lib/search.ts';

describe('timeline search helpers', () => {
  it('splits a snippet into plain and marked parts (never HTML)', () => {
    expect(snippetParts('…paid by «Contoso» <b>yes</b>\nnow')).toEqual([
      { text: '…paid by ', mark: false },
      { text: 'Contoso', mark: true },
      { text: ' <b>yes</b> now', mark: false },
    ]);
    expect(snippetParts('«a»«b»')).toEqual([
      { text: 'a', mark: true },
      { text: 'b', mark: true },
    ]);
  });

  it('puts boxes in percent of the frame, clamped to it', () => {
    expect(boxesToPercent([{ text: 'x', x: 450, y: 150, width: 90, height: 30 }], { width: 900, height: 300 })).toEqual([{ x: 50, y: 50, width: 10, height: 10 }]);
    expect(boxesToPercent([{ text: 'x', x: 880, y: 0, width: 90, height: 30 }], { width: 900, height: 300 })[0]!.width).toBeCloseTo(100 - (880 / 900) * 100);
    expect(boxesToPercent([{ text: 'x', x: 1, y: 1, width: 1, height: 1 }], { width: 0, height: 0 })).toEqual([]);
  });

  it('says how far the index got', () => {
    expect(indexLine(null)).toMatch(/not running/);
    expect(indexLine({ state: 'indexing', done: 1200, total: 5000, excluded: 0, queued: 0, searchableSince: '2024-05-06T08:00:00.000Z' })).toBe(
      'Text index: 1,200 of 5,000 screenshots, indexing newest first; everything since 2024-05-06 is searchable.',
    );
    expect(indexLine({ state: 'idle', done: 3, total: 3, excluded: 1, queued: 0 })).toBe('Text index: 3 of 3 screenshots, up to date (1 of excluded apps skipped).');
    expect(indexLine({ state: 'off', reason: 'Text indexing is turned off (ocr.index).', done: 0, total: 9, excluded: 0, queued: 0 })).toMatch(/^Text index off: Text indexing is turned off/);
    // The server's remediation names agents' tools; a person reads the dashboard's own words.
    expect(resultsLine({ results: [], total: 0, more: false, reason: 'NOT_INDEXED_YET', remediation: 'Search again later, or use list_screenshots and find_text on a ref.' })).toBe('Nothing matched yet: the text index has not read every screenshot. Search again later, or browse the timeline.');
    expect(resultsLine({ results: [], total: 0, more: false, reason: 'NO_MATCH', remediation: 'Nothing here.' })).toBe('Nothing matched. Try fewer or other words.');
    expect(resultsLine({ results: [], total: 153, more: true }, 50)).toBe('153 screenshots match, newest first: showing 50');
    expect(resultsLine({ results: [], total: 1, more: false }, 1)).toBe('1 screenshot matches, newest first');
  });
});
