/**
 * What a run read, in its routine, on a real Chromium: a wait between two clicks is waited for
 * again, a text found and a tree query made after the last action are read again and handed back
 * as the routine's output, and a read made before the first action (finding the way) is left out.
 * A wait that is never met, or a read that finds nothing, stops the replay with ROUTINE_DIVERGED.
 */
import { readFileSync } from 'node:fs';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { evalIn, open, type Ctx } from '../browser/kit.ts';

let c: Ctx;
let h: Harness;

beforeAll(async () => {
  c = await open('economy/later.html');
  h = await startHarness({ sources: [c.source], settings: { sources: { browser: { enabled: true } } } });
});

afterAll(async () => {
  await h?.close();
  await c?.close();
});

async function ok(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const r = await h.call(name, { target: c.target, ...args });
  expect(r.isError, textOf(r)).toBeFalsy();
  return r;
}

const state = (): Promise<{ checks: number; reserved: boolean }> => evalIn(c, 'window.state');
const fresh = async (): Promise<void> => {
  await c.page.goto(c.srv.url('economy/later.html'));
};

describe('reads in a routine', () => {
  it('keeps the wait between actions and the reads after the last one, and leaves out the read that found the way', async () => {
    await ok('get_ui_tree', { query: 'button' });
    await ok('click', { text: 'Check availability' });
    await ok('wait_for', { text: 'Reserve now', timeoutMs: 3000 });
    await ok('click', { text: 'Reserve now' });
    await ok('find_text', { text: 'Reserved.' });
    await ok('get_ui_tree', { query: 'heading' });
    expect((await state()).reserved).toBe(true);

    const saved = await h.call('save_routine', { name: 'book' });
    const path = (saved.structuredContent as { path: string }).path;
    const routine = JSON.parse(readFileSync(path, 'utf8')) as { steps: { kind: string; params: Record<string, unknown> }[] };
    expect(routine.steps.map((s) => s.kind)).toEqual(['click', 'wait_for', 'click', 'find_text', 'get_ui_tree']);
    expect(routine.steps[1]!.params).toEqual({ text: 'Reserve now', timeoutMs: 3000 });
    expect(routine.steps[4]!.params).toMatchObject({ query: 'heading' });
  });

  it('replays them: waits for the offer, books, and answers with what it read', async () => {
    await fresh();
    const r = await h.call('run_routine', { name: 'book' });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect((await state()).reserved).toBe(true);
    const s = r.structuredContent as { outputs: { step: number; what: string; lines: string[] }[] };
    expect(s.outputs).toEqual([
      { step: 4, what: 'read the text "Reserved."', lines: ['Reserved.'] },
      { step: 5, what: 'read nodes matching "heading" in the tree', lines: ['heading "Room booking"'] },
    ]);
    expect(textOf(r)).toContain('Step 5, read nodes matching "heading" in the tree:\n- heading "Room booking"');
  });

  it('stops at the wait when the offer never comes: nothing after it is clicked', { timeout: 30_000 }, async () => {
    await fresh();
    // The slow server never answers.
    await evalIn(c, 'window.setTimeout = () => 0, 0');
    const r = await h.call('run_routine', { name: 'book' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^ROUTINE_DIVERGED: Step 2 \(wait for "Reserve now" to appear\): expected "Reserve now" to appear; saw /);
    expect(await state()).toMatchObject({ checks: 1, reserved: false });
  });

  it('stops at a read that finds nothing of what the recording read', { timeout: 30_000 }, async () => {
    await fresh();
    // The booking goes through, but the page says so in other words.
    await evalIn(c, `document.getElementById('offer').addEventListener('click', () => setTimeout(() => { document.getElementById('status').textContent = 'Booked.'; }, 0), true), 0`);
    const r = await h.call('run_routine', { name: 'book' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^ROUTINE_DIVERGED: Step 4 \(read the text "Reserved\."\): expected the text "Reserved\."; saw none/);
  });

  it('keeps the secrets a read named out of the catalog, as the activity log keeps an action\'s', async () => {
    const key = 'sk-proj-Zq8Wm3Lp0Xv7Tn2Rb5Yc9Hd4';
    await ok('find_text', { text: key });
    const reads = h.core.catalog.reads.following([0, ...h.core.activity.list({ limit: 1000 }).map((e) => e.id)]);
    expect(reads.at(-1)).toMatchObject({ tool: 'find_text', target: c.target });
    expect(JSON.stringify(reads)).not.toContain(key);
  });
});
