import { describe, expect, it } from 'vitest';
import type { ScreenshotHit, ScreenshotSearch } from '../../../src/shared/api.ts';
import { boxesToPercent, foldHits, indexLine, resultsLine, snippetParts } from '../../../src/renderer/lib/search.ts';

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
    const none = (reason: NonNullable<ScreenshotSearch['reason']>, remediation: string): string => resultsLine({ results: [], total: 0, more: false, reason, remediation });
    expect(none('NOT_INDEXED_YET', 'Nothing matched yet, but the text index has not read 5 of the 9 screenshots today. Search again later, or use list_screenshots and find_text on a ref.')).toBe('Nothing matched yet, but the text index has not read 5 of the 9 screenshots today. Search again later.');
    expect(none('NO_FRAMES_IN_RANGE', 'No frames were captured today: widen from/to, or check list_screenshots for what exists.')).toBe('No frames were captured today.');
    expect(none('EXCLUDED_APP', 'Frames of KeePassXC are never indexed (ocr.excludeApps): they cannot be searched. Use list_screenshots with from/to to find them by time.')).toBe('Frames of KeePassXC are never indexed: they cannot be searched.');
    expect(none('NO_MATCH', 'Nothing here.')).toBe('Nothing here.');
    // Nothing left a person can use: the dashboard's own sentence.
    expect(none('NOT_INDEXED_YET', 'Use list_screenshots.')).toBe('Nothing matched yet: the text index has not read every screenshot. Search again later.');
    expect(resultsLine({ results: [], total: 153, more: true }, 50)).toBe('153 screenshots match, newest first: showing 50');
    expect(resultsLine({ results: [], total: 1, more: false }, 1)).toBe('1 screenshot matches, newest first');
  });

  it('folds hits of one unchanged screen into one row, as the timeline folds frames', () => {
    const hit = (ref: string, target = 'desktop:window:1'): ScreenshotHit => ({ ref, source: 'desktop', target, capturedAt: '2025-01-01T09:00:00Z', displayLocalTime: '', image: { width: 10, height: 10 }, snippet: '', boxes: [] });
    const hits = [hit('a'), hit('b'), hit('c'), hit('d'), hit('e', 'desktop:window:2'), hit('f'), hit('g'), hit('h')];
    // a–d one screen; e another window with the same key; f, g a run too short to fold; h no key.
    const screens = { a: 'S', b: 'S', c: 'S', d: 'S', e: 'S', f: 'T', g: 'T' };
    const rows = foldHits(hits, screens);
    expect(rows.map((r) => (r.run ? `${r.hit.ref}×${r.run.length}` : r.hit.ref))).toEqual(['a×4', 'e', 'f', 'g', 'h']);
    expect(rows[0]!.run!.map((h) => h.ref)).toEqual(['a', 'b', 'c', 'd']);
    expect(foldHits(hits, {}).length).toBe(hits.length);
  });
});
