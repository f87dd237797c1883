/**
 * A browser routine end to end on a real Chromium: an agent's run recorded through MCP actions,
 * saved (its password becomes a required input), replayed on the same page, on a page that
 * changed (ids renamed, a banner above the form, controls moved, restyled, another viewport), and
 * on pages where the replay must stop (the button relabelled, two identical buttons, a field
 * gone) without touching anything more.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resizeViewport } from '../../fixtures/browser/harness.ts';
import { startHarness, tempDir, textOf, type Harness } from '../../support/mcpHarness.ts';
import { evalIn, open, type Ctx } from '../browser/kit.ts';

let c: Ctx;
let h: Harness;
const EMAIL = 'ada@example.org';
/** The CLI from its source (Node runs TypeScript): the built bin is the same code. */
const CLI = join(import.meta.dirname, '../../../src/cli/index.ts');

function cli2(dataDir: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, [CLI, ...args, '--data-dir', dataDir], { env: { ...process.env, SIGHTLINE_BROWSER_URL: c.chrome.endpoint }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.once('exit', (code) => done({ code, stdout, stderr }));
  });
}
const PASSWORD = 'correct-horse-42';

beforeAll(async () => {
  c = await open('routines/order.html');
  h = await startHarness({ sources: [c.source], settings: { sources: { browser: { enabled: true } } } });
});

afterAll(async () => {
  await h?.close();
  await c?.close();
});

async function ok(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const r = await h.call(name, args);
  expect(r.isError, textOf(r)).toBeFalsy();
  return r;
}

async function goto(page: string, size: [number, number] = [1280, 800]): Promise<void> {
  await c.page.goto(c.srv.url(`routines/${page}`));
  await resizeViewport(c.page, size[0], size[1]);
}

const pageState = async (): Promise<{ clicked: string[]; values: string[]; path: string }> => ({
  clicked: (await evalIn<string[] | undefined>(c, 'window.state && window.state.clicked')) ?? [],
  values: await evalIn<string[]>(c, '[...document.querySelectorAll("input")].map((i) => i.value)'),
  path: await evalIn<string>(c, 'location.pathname'),
});

describe('a browser routine', () => {
  it('is saved from the actions an agent made; the password typed is a required input, stored nowhere', async () => {
    await ok('capture', { target: c.target });
    await ok('type_text', { target: c.target, field: 'Email', text: EMAIL });
    await ok('type_text', { target: c.target, field: 'Password', text: PASSWORD });
    await ok('click', { target: c.target, text: 'Place order' });
    expect((await pageState()).path).toBe('/routines/done.html');

    // This session's actions, named by their place in it: the last one alone, then all of them.
    const last = await ok('save_routine', { name: 'order-click', fromAction: 3, toAction: 3 });
    expect((last.structuredContent as { steps: number }).steps).toBe(1);
    const r = await ok('save_routine', { name: 'order' });
    const s = r.structuredContent as { path: string; inputs: { name: string; secret: boolean; required: boolean }[]; steps: number };
    expect(s.steps).toBe(3);
    expect(s.inputs).toEqual([expect.objectContaining({ name: 'password', secret: true, required: true })]);
    const file = readFileSync(s.path, 'utf8');
    expect(file).not.toContain(PASSWORD);
    const routine = JSON.parse(file) as { target: unknown; steps: { kind: string; aim?: unknown; params: Record<string, unknown>; expect?: unknown }[] };
    expect(routine.target).toEqual({ source: 'browser', origin: new URL(c.srv.url('x')).origin });
    expect(routine.steps.map((x) => x.kind)).toEqual(['type_text', 'type_text', 'click']);
    expect(routine.steps[0]).toMatchObject({ aim: { name: 'Email', purpose: 'field' }, params: { text: EMAIL } });
    expect(routine.steps[1]).toMatchObject({ aim: { name: 'Password', purpose: 'field' }, params: { text: { input: 'password' } } });
    expect(routine.steps[2]).toMatchObject({ aim: { name: 'Place order', purpose: 'control' }, expect: { url: `${new URL(c.srv.url('x')).origin}/routines/done.html` } });
    expect(JSON.stringify(routine)).not.toMatch(/"node"|"x":|"y":|"ref"/);

    const listed = await ok('list_routines', {});
    expect(textOf(listed)).toMatch(/^order: 3 steps on browser http:\/\/127\.0\.0\.1:\d+; inputs password \(secret\)/m);
  });

  it('is refused before its first step when an input is missing', async () => {
    await goto('order.html');
    const r = await h.call('run_routine', { name: 'order' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^INPUT_REQUIRED: Routine "order" needs "password": nothing was done\./);
    expect(await pageState()).toEqual({ clicked: [], values: ['', ''], path: '/routines/order.html' });
  });

  it('replays on the page afresh: fields typed into, the button pressed, the page reached; a run named after it', async () => {
    await goto('order.html');
    const progress: string[] = [];
    const r = (await h.client.callTool({ name: 'run_routine', arguments: { name: 'order', inputs: { password: PASSWORD } } }, undefined, { onprogress: (p) => void progress.push(String(p.message)) })) as CallToolResult;
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(progress).toEqual(['step 1/3: type_text textbox "Email"', 'step 2/3: type_text textbox "Password"', 'step 3/3: click button "Place order"', 'order: 3 steps done']);
    const s = r.structuredContent as { runId: string; steps: { step: number; ok: boolean }[] };
    expect(s.steps.map((x) => x.ok)).toEqual([true, true, true]);
    expect((await pageState()).path).toBe('/routines/done.html');
    // The replay's actions are the run's, in the same log an agent's go to, with the secret hidden.
    const acts = h.core.activity.list({ run: s.runId });
    expect(acts.map((a) => a.tool).sort()).toEqual(['click', 'type_text', 'type_text']);
    expect(JSON.stringify(acts)).not.toContain(PASSWORD);
    const run = JSON.parse(readFileSync(join(h.dataDir, 'runs', s.runId, 'run.json'), 'utf8')) as { goal: string; status: string };
    expect(run).toMatchObject({ goal: 'routine order', status: 'done' });
  });

  it('replays on a changed page: ids renamed, a banner above the form, controls moved, restyled, a smaller viewport', async () => {
    await goto('changed.html', [900, 700]);
    await ok('run_routine', { name: 'order', inputs: { password: PASSWORD } });
    expect((await pageState()).path).toBe('/routines/done.html');
  });

  it('finds a control moved below the fold: the tree of the page names it, and acting on it scrolls it into view', async () => {
    await goto('below.html', [900, 600]);
    expect(await evalIn<boolean>(c, 'document.getElementById("place").getBoundingClientRect().top > innerHeight')).toBe(true);
    await ok('run_routine', { name: 'order', inputs: { password: PASSWORD } });
    const st = await pageState();
    expect(st.path).toBe('/routines/done.html');
  });

  it('stops at the button whose label changed: ROUTINE_DIVERGED names the step, what it expected and saw, and nothing is clicked', { timeout: 30_000 }, async () => {
    await goto('relabelled.html');
    const r = await h.call('run_routine', { name: 'order', inputs: { password: PASSWORD } });
    expect(r.isError).toBe(true);
    const text = textOf(r);
    expect(text).toMatch(/^ROUTINE_DIVERGED: Step 3 \(click (button|element) "Place order"\): expected exactly one .*"Place order"; saw none after \d+ ms/);
    expect(text).toMatch(/Look at frame \S+/);
    const st = await pageState();
    expect(st.clicked).toEqual([]);
    expect(st.path).toBe('/routines/relabelled.html');
  });

  it('stops at two identical buttons without pressing either', async () => {
    await goto('twice.html');
    const r = await h.call('run_routine', { name: 'order', inputs: { password: PASSWORD } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^ROUTINE_DIVERGED: Step 3 .*saw 2 places: button "Place order" \(node .+\), button "Place order"/);
    const st = await pageState();
    expect(st.clicked).toEqual([]);
    expect(st.path).toBe('/routines/twice.html');
  });

  it('stops at its first step when the field it types into is gone, and touches nothing', async () => {
    await goto('nofield.html');
    const r = await h.call('run_routine', { name: 'order', inputs: { password: PASSWORD } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^ROUTINE_DIVERGED: Step 1 \(type_text .*"Email"\)/);
    expect(await pageState()).toEqual({ clicked: [], values: ['', ''], path: '/routines/nofield.html' });
  });

  it('asks which tab when two show its origin, and replays on the one named', async () => {
    await goto('order.html');
    const other = await c.driver.newPage();
    try {
      await other.goto(c.srv.url('routines/order.html'));
      const both = await h.call('run_routine', { name: 'order', inputs: { password: PASSWORD } });
      expect(both.isError).toBe(true);
      expect(textOf(both)).toMatch(/^INVALID_ARGUMENT: Routine "order" acts on a tab at http:\/\/127\.0\.0\.1:\d+, and there are 2: browser:\S+, browser:\S+\. Hint: Give the one to act on/);
      expect((await pageState()).values).toEqual(['', '']);
      // A target given must be one the routine names: a tab elsewhere is refused, touched by nothing.
      await other.goto('about:blank');
      const otherId = (await h.core.targets.list('browser')).targets.find((t) => t.details?.url === 'about:blank')!.id;
      const elsewhere = await h.call('run_routine', { name: 'order', inputs: { password: PASSWORD }, target: otherId });
      expect(elsewhere.isError).toBe(true);
      expect(textOf(elsewhere)).toMatch(/^INVALID_ARGUMENT: Routine "order" acts on a tab at http:\/\/127\.0\.0\.1:\d+; browser:\S+ is not one \(browser:\S+ is\)\. Nothing was done\./);
      expect((await pageState()).values).toEqual(['', '']);
      await ok('run_routine', { name: 'order', inputs: { password: PASSWORD }, target: c.target });
      expect((await pageState()).path).toBe('/routines/done.html');
      expect(await other.evaluate('location.href')).toBe('about:blank');
    } finally {
      await other.close();
    }
  });

  it('acts through the same gate as an agent: paused, nothing is done', async () => {
    await goto('order.html');
    h.core.setPaused(true);
    try {
      const r = await h.call('run_routine', { name: 'order', inputs: { password: PASSWORD } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/^INPUT_PAUSED/);
    } finally {
      h.core.setPaused(false);
    }
    expect(await pageState()).toEqual({ clicked: [], values: ['', ''], path: '/routines/order.html' });
    expect(existsSync(join(h.dataDir, 'routines', 'order.json'))).toBe(true);
  });

  it('replays from the command line (exit 0 done, 3 diverged with the divergence as JSON, 4 without its input) and exports as a Playwright test', { timeout: 60_000 }, async () => {
    const dataDir = tempDir('sightline-replay-');
    try {
      mkdirSync(join(dataDir, 'routines'));
      copyFileSync(join(h.dataDir, 'routines', 'order.json'), join(dataDir, 'routines', 'order.json'));
      const cli = (...args: string[]): ReturnType<typeof cli2> => cli2(dataDir, 'replay', ...args);
      await goto('order.html');
      const missing = await cli('order');
      expect(missing.code, missing.stderr).toBe(4);
      expect(missing.stderr).toMatch(/INPUT_REQUIRED/);

      const done = await cli('order', '--input', `password=${PASSWORD}`);
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toMatch(/^Routine "order" done on browser:\S+: 3 steps/);
      expect((await pageState()).path).toBe('/routines/done.html');

      const exported = await cli2(dataDir, 'routine', 'export', 'order', '--playwright');
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout).toContain(`await page.getByLabel('Email', { exact: true }).pressSequentially('${EMAIL}');`);
      expect(exported.stdout).toContain("const password = required('ROUTINE_PASSWORD');");
      expect(exported.stdout).toMatch(/await page\.getByRole\('button', \{ name: 'Place order', exact: true \}\)\.click\(\);\n {2}await expect\(page\)\.toHaveURL/);
      expect(exported.stdout).not.toContain(PASSWORD);

      await goto('twice.html');
      const diverged = await cli('order', '--input', `password=${PASSWORD}`, '--json');
      expect(diverged.code, diverged.stderr).toBe(3);
      const out = JSON.parse(diverged.stdout) as { ok: boolean; error: { code: string; details: { step: number; expected: string; saw: string; frame?: string } } };
      expect(out.ok).toBe(false);
      expect(out.error.code).toBe('ROUTINE_DIVERGED');
      expect(out.error.details).toMatchObject({ step: 3, expected: expect.stringContaining('Place order'), saw: expect.stringMatching(/^2 places/) });
      expect(out.error.details.frame).toBeTruthy();
      expect((await pageState()).clicked).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
