/**
 * Why search_screenshots found nothing: EXCLUDED_APP only when the app asked for is excluded
 * (not because a query word names one), and an archive that cannot be reached is left out of the
 * counts instead of failing the search.
 */
import { describe, expect, it } from 'vitest';
import { SightlineError } from '../../../src/shared/errors.ts';
import type { CoreSettings } from '../../../src/shared/settings.ts';
import { TextSearch, type TextSearchDeps } from '../../../src/main/core/text/search.ts';

const ocr: CoreSettings['ocr'] = { enabled: true, engine: 'auto', index: true, cpuBudget: 1, excludeApps: ['KeePass', '1Password'] };

function searchWith(over: Partial<TextSearchDeps> = {}): TextSearch {
  return new TextSearch({
    store: { search: () => ({ hits: [], total: 0, more: false }), countIndexed: () => 5, screens: () => new Map() },
    countFrames: () => 5,
    archives: async () => [],
    sourceNames: () => ['desktop', 'manictime'],
    settings: () => ocr,
    status: () => undefined,
    ...over,
  });
}

const run = (s: TextSearch, query: string, more: { app?: string } = {}) => s.search({ query, max: 10, signal: new AbortController().signal, ...more });

describe('an empty search says why', () => {
  it('EXCLUDED_APP when the app filter is an excluded app', async () => {
    const r = await run(searchWith(), 'password', { app: 'KeePass' });
    expect(r.reason).toBe('EXCLUDED_APP');
    expect(r.remediation).toMatch(/KeePass are never indexed/);
  });

  it('a query word naming an excluded app is no match, with a note, not EXCLUDED_APP', async () => {
    const r = await run(searchWith(), 'keepass download');
    expect(r.reason).toBe('NO_MATCH');
    expect(r.remediation).toMatch(/Frames of KeePass are never indexed/);
    const other = await run(searchWith(), 'invoice', { app: 'Outlook' });
    expect(other.reason).toBe('NO_MATCH');
    expect(other.remediation).not.toMatch(/never indexed/);
  });

  it('an archive that cannot be read is left out of the counts, never failing the search', async () => {
    const away = { name: 'manictime', extent: () => { throw new SightlineError('FILE_UNAVAILABLE', 'The ManicTime folder is away.', 'Reconnect it.'); } };
    const r = await run(searchWith({ archives: async () => [away], countFrames: () => 0, store: { search: () => ({ hits: [], total: 0, more: false }), countIndexed: () => 0, screens: () => new Map() } }), 'invoice');
    expect(r.reason).toBe('NO_FRAMES_IN_RANGE');
    const rejected = await run(searchWith({ archives: () => Promise.reject(new SightlineError('SOURCE_UNAVAILABLE', 'Away.', 'Later.')) }), 'invoice');
    expect(rejected.reason).toBe('NO_MATCH');
  });
});
