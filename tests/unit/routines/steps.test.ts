/** A drag, a dialog answered, and the page a run started on: as steps of a routine, and as a Playwright test. */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ActivityEntry, ActivityQuery } from '../../../src/shared/activity.ts';
import { Routines } from '../../../src/main/core/routines/routines.ts';
import { tempDir } from '../../support/mcpHarness.ts';
import { buildRoutine } from '../../../src/main/core/routines/build.ts';
import { parseRoutine } from '../../../src/main/core/routines/format.ts';
import { toPlaywright } from '../../../src/main/core/routines/playwright.ts';

let id = 0;
const entry = (e: Partial<ActivityEntry>): ActivityEntry => ({ id: ++id, at: '2026-01-01T00:00:00Z', tool: 'click', result: 'ok', durationMs: 1, source: 'browser', target: 'browser:T1', ...e });

describe('a drag and a dialog in a routine', () => {
  const r = buildRoutine(
    [
      entry({ tool: 'drag', params: { target: 'browser:T1', node: 'a.6', toNode: 'a.3', durationMs: 200 }, outcome: { hit: { role: 'listitem', name: 'Run the tests' }, drop: { role: 'listitem', name: 'Plan the release' } } }),
      entry({ tool: 'click', params: { text: 'Delete draft' }, outcome: { hit: { role: 'button', name: 'Delete draft' } } }),
      entry({ tool: 'handle_dialog', params: { target: 'browser:T1', accept: true } }),
    ],
    { name: 'tidy', from: { run: 'r1' }, page: 'https://todo.example/list.html?by=me#top' },
  );

  it('aims both ends of a drag by what they are and keeps the dialog answer; starts on the page the log says the tab showed', () => {
    expect(r.target).toEqual({ source: 'browser', origin: 'https://todo.example' });
    expect(r.start).toBe('https://todo.example/list.html');
    expect(r.steps[0]).toEqual({ kind: 'drag', aim: { role: 'listitem', name: 'Run the tests', purpose: 'control' }, to: { role: 'listitem', name: 'Plan the release', purpose: 'control' }, params: { durationMs: 200 } });
    expect(r.steps[2]).toEqual({ kind: 'handle_dialog', params: { accept: true } });
    expect(parseRoutine(JSON.stringify(r), 'tidy.json')).toEqual(r);
    // A file of the first version (no start) still reads.
    const { start: _s, ...v1 } = r;
    expect(parseRoutine(JSON.stringify(v1), 'v1.json').start).toBeUndefined();
  });

  it('refuses a drag dropped where the log names nothing, and a drop point in a file', () => {
    expect(() => buildRoutine([entry({ tool: 'drag', params: { node: 'a.1', toX: 5, toY: 9 }, outcome: { hit: { role: 'listitem', name: 'A' } } })], { name: 'd', from: {}, page: 'https://a.example/' })).toThrow(/dropped on a point/);
    const file = { ...r, steps: [{ kind: 'drag', aim: { name: 'A', purpose: 'control' }, params: { toNode: 'a.3' } }] };
    expect(() => parseRoutine(JSON.stringify(file), 'd.json')).toThrow(/drop point/);
  });

  it('exports as a test that opens its start page, drags onto the element, and answers the dialog from a handler set before the click', () => {
    const spec = toPlaywright(r);
    expect(spec).toContain("await page.goto('https://todo.example/list.html');");
    expect(spec).toContain("await page.getByRole('listitem', { name: 'Run the tests', exact: true }).dragTo(page.getByRole('listitem', { name: 'Plan the release', exact: true }));");
    expect(spec).toMatch(/page\.once\('dialog', \(d\) => d\.accept\(\)\);\n {2}await page\.getByRole\('button', \{ name: 'Delete draft', exact: true \}\)\.click\(\);/);
  });
});

describe('the page a saved browser routine starts on', () => {
  /** A log of a few entries, listed as the catalog lists them (newest first). */
  function startOf(log: ActivityEntry[], from: number): string | undefined {
    const dataDir = tempDir('sightline-routine-start-');
    try {
      const list = (q: ActivityQuery): ActivityEntry[] => log.filter((e) => (q.before === undefined || e.id < q.before) && (q.target === undefined || e.target === q.target)).sort((a, b) => b.id - a.id);
      return new Routines({ dataDir, activity: { list } }).save({ name: 'r', fromAction: from, toAction: log.at(-1)!.id }).routine.start;
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const nav = (at: number, frameRef: string, url: string): ActivityEntry => ({ ...entry({ tool: 'navigate', params: { url }, outcome: { navigated: { url } } }), id: at, frameRef, targetLabel: { document: 'https://a.example/old.html' } });
  const click = (at: number, frameRef: string, document: string): ActivityEntry => ({ ...entry({ params: { text: 'Go' } }), id: at, frameRef, targetLabel: { document } });

  it('is where the last navigation before it led, when no frame was taken since (the label is of the page it left)', () => {
    expect(startOf([nav(1, 'f1', 'https://a.example/form.html?x=1'), click(2, 'f1', 'https://a.example/old.html')], 2)).toBe('https://a.example/form.html');
  });

  it('is the page of a frame taken since that navigation (a capture after the page was changed outside the log)', () => {
    expect(startOf([nav(1, 'f1', 'https://a.example/form.html'), click(2, 'f2', 'https://a.example/other.html')], 2)).toBe('https://a.example/other.html');
  });
});
