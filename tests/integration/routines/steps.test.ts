/**
 * A drag and a dialog as routine steps on a real Chromium: recorded through MCP, saved, replayed
 * on the page afresh (both ends of the drag found again by what they are; the dialog answered),
 * and stopped with ROUTINE_DIVERGED where the page differs (the drop target renamed: nothing is
 * dragged; no dialog opens: none is answered).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { evalIn, open, type Ctx } from '../browser/kit.ts';

let c: Ctx;
let h: Harness;

beforeAll(async () => {
  c = await open('economy/reorder.html');
  h = await startHarness({ sources: [c.source], settings: { sources: { browser: { enabled: true } } } });
});

afterAll(async () => {
  await h?.close();
  await c?.close();
});

async function ok(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await h.call(name, { target: c.target, ...args });
  expect(r.isError, textOf(r)).toBeFalsy();
  return textOf(r);
}

const ORDER = ['Run the tests', 'Plan the release', 'Tag the commit', 'Write the notes'];
const order = (): Promise<string[]> => evalIn<string[]>(c, 'window.state.order');

describe('routine steps beyond clicks and typing', () => {
  it('replays a drag by both ends, and stops before dragging when the drop target is renamed', { timeout: 30_000 }, async () => {
    const tree = await ok('get_ui_tree', { query: 'listitem' });
    const node = (name: string): string => new RegExp(`^(\\S+) listitem "${name}"`, 'm').exec(tree)![1]!;
    await ok('drag', { node: node('Run the tests'), toNode: node('Plan the release') });
    expect(await order()).toEqual(ORDER);
    const saved = await h.call('save_routine', { name: 'reorder', fromAction: 1, toAction: 1 });
    expect(textOf(saved)).toMatch(/^Saved routine "reorder": 1 step on browser/);

    await c.page.goto(c.srv.url('economy/reorder.html'));
    const r = await h.call('run_routine', { name: 'reorder' });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(await order()).toEqual(ORDER);

    await c.page.goto(c.srv.url('economy/reorder.html'));
    await evalIn(c, 'document.querySelector("li").textContent = "Plan the launch"');
    const stopped = await h.call('run_routine', { name: 'reorder' });
    expect(textOf(stopped)).toMatch(/^ROUTINE_DIVERGED: Step 1 \(drag listitem "Run the tests" onto listitem "Plan the release"\): expected to drop on exactly one listitem "Plan the release"; saw none/);
    expect(await evalIn<number>(c, 'window.state.drops')).toBe(0);
  });

  it('replays a click that opens a dialog and the answer to it, and stops when no dialog opens', { timeout: 30_000 }, async () => {
    await c.page.goto(c.srv.url('economy/dialog.html'));
    // This session's actions so far (the replays above act in it too): the next two are the ones to save.
    const before = h.core.activity.list({ limit: 1000 }).length;
    expect(await ok('click', { text: 'Delete draft' })).toMatch(/confirm dialog is open/);
    await ok('handle_dialog', { accept: true });
    expect(await evalIn<boolean>(c, 'window.state.deleted')).toBe(true);
    const saved = await h.call('save_routine', { name: 'delete-draft', fromAction: before + 1, toAction: before + 2 });
    expect(textOf(saved)).toMatch(/^Saved routine "delete-draft": 2 steps/);

    await c.page.goto(c.srv.url('economy/dialog.html'));
    const progress: string[] = [];
    const r = await h.client.callTool({ name: 'run_routine', arguments: { name: 'delete-draft' } }, undefined, { onprogress: (p) => void progress.push(String(p.message)) });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(progress.slice(0, 2)).toEqual(['step 1/2: click button "Delete draft"', 'step 2/2: accept the dialog']);
    expect(await evalIn(c, 'window.state')).toEqual({ asked: 1, deleted: true });

    // The page no longer asks: the click is done, and the answer the recording gave is not.
    await c.page.goto(c.srv.url('economy/dialog.html'));
    await evalIn(c, 'window.confirm = () => false');
    const stopped = await h.call('run_routine', { name: 'delete-draft' });
    expect(textOf(stopped)).toMatch(/^ROUTINE_DIVERGED: Step 2 \(accept the dialog\): expected a dialog open; saw No dialog is open/);
    expect(await evalIn(c, 'window.state')).toEqual({ asked: 1, deleted: false });
  });
});
