/** A drag, a dialog answered, and the page a run started on: as steps of a routine, and as a Playwright test. */
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../../src/shared/activity.ts';
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
