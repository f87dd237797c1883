import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findByText, matchKind, normalizeText } from '../../../src/main/core/sources/android/textQuery.ts';
import { parseUiDump } from '../../../src/main/core/sources/android/uiDump.ts';
import type { SourceUiNode } from '../../../src/main/core/sources/source.ts';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/android/${name}`, import.meta.url), 'utf8');
const settings = parseUiDump(fixture('uiautomator-settings-1080x2400.xml'), { width: 1080, height: 2400 }).nodes;

/** A dialog: a message, two buttons, and a Compose-style row whose clickable parent repeats its label as content-desc. */
function node(id: string, role: string, a: { text?: string; desc?: string; hint?: string; parent?: string; box?: [number, number, number, number]; clickable?: boolean; enabled?: boolean; off?: boolean }): SourceUiNode {
  const [x, y, width, height] = a.box ?? [0, 0, 100, 50];
  const attributes: Record<string, string> = {};
  if (a.text) attributes.text = a.text;
  if (a.desc) attributes['content-desc'] = a.desc;
  if (a.hint) attributes.hint = a.hint;
  return { id, role, name: a.text || a.desc || '', bounds: { x, y, width, height }, clickable: !!a.clickable, enabled: a.enabled !== false, inViewport: !a.off, attributes, ...(a.parent ? { parentId: a.parent } : {}) };
}

const dialog: SourceUiNode[] = [
  node('0', 'android.widget.FrameLayout', { box: [0, 0, 1080, 2400] }),
  node('1', 'android.widget.TextView', { text: 'Delete 3 photos?', parent: '0', box: [100, 900, 880, 80] }),
  node('2', 'android.widget.Button', { text: 'Cancel', parent: '0', box: [100, 1100, 400, 120], clickable: true }),
  node('3', 'android.widget.Button', { text: 'OK', parent: '0', box: [580, 1100, 400, 120], clickable: true }),
  node('4', 'android.view.View', { desc: 'Ok, got it', parent: '0', box: [100, 1300, 880, 120], clickable: true }),
  node('5', 'android.widget.TextView', { text: 'Ok, got it', parent: '4', box: [120, 1320, 400, 80] }),
  node('6', 'android.widget.EditText', { hint: 'Search photos', parent: '0', box: [100, 200, 880, 120], clickable: true }),
];

describe('normalizeText', () => {
  it('folds case, accents, quotes, dashes and white space', () => {
    expect(normalizeText('  Sécurité &  CONFIDENTIALITÉ\n')).toBe('securite & confidentialite');
    expect(normalizeText('Wi\u2011Fi “network” — it’s')).toBe('wi-fi "network" - it\'s');
    expect(normalizeText('Straße\u00a0Ünïcödé')).toBe('strasse unicode');
    fc.assert(fc.property(fc.string(), (s) => normalizeText(normalizeText(s)) === normalizeText(s)));
  });

  it('ranks a whole label over a whole word over a substring', () => {
    expect(matchKind('ok', 'ok')).toBe('exact');
    expect(matchKind('ok, got it', 'ok')).toBe('word');
    expect(matchKind('bookmarks', 'ok')).toBe('substring');
    expect(matchKind('book ok', 'ok')).toBe('word');
    expect(matchKind('cancel', 'ok')).toBeUndefined();
  });
});

describe('findByText', () => {
  it('"OK" is the button, not the row that starts with "Ok," nor anything with "ok" inside', () => {
    const r = findByText(dialog, 'ok');
    expect(r.ambiguous).toBe(false);
    expect(r.chosen).toMatchObject({ node: { id: '3' }, target: { id: '3' }, field: 'text', match: 'exact', label: 'OK' });
    // The Compose row: its text child and its own content-desc both match; one candidate, tapping the row.
    expect(r.candidates.map((c) => [c.target.id, c.match])).toEqual([['3', 'exact'], ['4', 'word']]);
  });

  it('taps the clickable row around a label, and finds hints and accents', () => {
    const network = findByText(settings, 'network');
    // Title and summary of the same row both say "network": one target, the row.
    expect(network.candidates).toHaveLength(1);
    expect(network.chosen).toMatchObject({ label: 'Network & internet', match: 'word', target: { role: 'android.widget.LinearLayout', clickable: true } });
    expect(findByText(settings, 'securite').chosen?.label).toBe('Sécurité & confidentialité');
    expect(findByText(settings, 'wi-fi').chosen?.label).toBe('Wi\u2011Fi, SIM & mobile network, Hotspot');
    expect(findByText(dialog, 'search').chosen).toMatchObject({ field: 'hint', target: { id: '6' } });
    expect(findByText(settings, 'Search settings').chosen).toMatchObject({ field: 'content-desc', match: 'exact', target: { role: 'android.widget.Button' } });
  });

  it('reports equally good matches as ambiguous, best first, and an index picks one', () => {
    const twice = [...dialog, node('7', 'android.widget.Button', { text: 'OK', parent: '0', box: [580, 1500, 400, 120], clickable: true })];
    const r = findByText(twice, 'OK');
    expect(r.ambiguous).toBe(true);
    expect(r.chosen).toBeUndefined();
    expect(r.candidates.slice(0, 2).map((c) => c.node.id)).toEqual(['3', '7']);
    expect(findByText(twice, 'OK', { index: 1 }).chosen?.node.id).toBe('7');
    expect(findByText(twice, 'OK', { index: 5 }).chosen).toBeUndefined();
    // "Settings" is the search bar's text and desc: one node, not ambiguous.
    expect(findByText(settings, 'settings', { exact: true })).toMatchObject({ ambiguous: false, candidates: [{ target: { attributes: { 'resource-id': 'com.android.settings:id/search_bar' } } }] });
  });

  it('puts what is visible and enabled first, so a twin off screen does not make it ambiguous', () => {
    const twins = [...dialog, node('7', 'android.widget.Button', { text: 'OK', parent: '0', box: [580, 3000, 400, 120], clickable: true, off: true }), node('8', 'android.widget.Button', { text: 'OK', parent: '0', box: [0, 0, 10, 10], clickable: true, enabled: false })];
    const r = findByText(twins, 'OK');
    expect(r.ambiguous).toBe(false);
    expect(r.candidates.map((c) => c.target.id)).toEqual(['3', '8', '7', '4']);
  });

  it('finds nothing for a blank query or no match', () => {
    expect(findByText(dialog, '   ')).toEqual({ candidates: [], ambiguous: false });
    expect(findByText(dialog, 'Archive')).toEqual({ candidates: [], ambiguous: false });
  });

  it('every candidate really contains the query, whatever the labels', () => {
    const label = fc.string({ unit: 'grapheme', maxLength: 12 });
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 8 }), label, (labels, q) => {
        const nodes = labels.map((t, i) => node(String(i), 'android.widget.TextView', { text: t, box: [0, i * 60, 100, 50] }));
        const r = findByText(nodes, q);
        for (const c of r.candidates) expect(normalizeText(c.label)).toContain(normalizeText(q));
        const expected = normalizeText(q) ? labels.filter((t) => normalizeText(t) && normalizeText(t).includes(normalizeText(q))).length : 0;
        expect(r.candidates).toHaveLength(expected);
        if (r.chosen && r.candidates.length > 1) expect(r.chosen.match === 'exact' || r.candidates[1]!.match !== r.chosen.match).toBe(true);
      }),
    );
  });
});
