/**
 * Agent runs in the dashboard's activity log: the real `sightline serve`, MCP clients over
 * Streamable HTTP (one calling as `sightline agent` does, its run in `_meta`), a run folder as
 * the agent leaves it, and the built dashboard in headless Chromium. The run's actions sit
 * under one heading with its goal and outcome, its step screenshots and run.json are linked
 * (and load), and the log can show that run alone.
 */
import { rmSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunArtifacts } from '../../src/cli/agent/artifacts.ts';
import { CLIENT_NAME, RUN_META_KEY } from '../../src/cli/agent/mcp.ts';
import { httpClient, serve, type Served } from '../support/cli.ts';
import { tempDir } from '../support/mcpHarness.ts';
import { ALL_SOURCES_OFF, launchBrowser, openDashboard, screenshot, writeSettings } from './support.ts';

const TARGET = 'desktop:window:0x3a00007';

describe('agent runs in the activity log (sightline serve + Chromium)', () => {
  const dataDir = tempDir('sightline-e2e-runs-');
  let s: Served;
  let browser: Browser;
  let page: Page;
  let run: RunArtifacts;
  let agent: Client;
  let other: Client;
  const elsewhere = 'elsewhere-run-1';

  beforeAll(async () => {
    writeSettings(dataDir, ALL_SOURCES_OFF);
    run = RunArtifacts.create({ dataDir, goal: 'Turn on dark mode', at: new Date(), secrets: [] });
    const colours = ['#2a6', '#a26', '#26a'];
    const steps = [];
    for (let n = 1; n <= 3; n++) {
      run.write(`step-0${n}/screenshot.jpg`, await sharp({ create: { width: 320, height: 200, channels: 3, background: colours[n - 1]! } }).jpeg().toBuffer());
      steps.push({ step: n, screenshot: `step-0${n}/screenshot.jpg`, action: `click (${n * 40}, 60)`, outcome: n < 3 ? 'ok' : 'goal reached', timings: { totalMs: 10, overheadMs: 10 } });
    }
    run.write('run.json', { runId: run.id, goal: 'Turn on dark mode', provider: 'anthropic', model: 'claude-test', durationMs: 4200, status: 'done', stop: { reason: 'done', exitCode: 0, message: 'goal reached' }, target: { id: TARGET, title: 'Settings' }, steps });
    expect(await run.flush()).toBeUndefined();
    s = await serve(dataDir);
    agent = await httpClient(s.mcpUrl, s.token, CLIENT_NAME);
    other = await httpClient(s.mcpUrl, s.token, 'claude-desktop');
    const call = (c: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<unknown> => c.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) });
    const meta = { [RUN_META_KEY]: { id: run.id, artifacts: run.dir } };
    await call(agent, 'click', { target: TARGET, x: 40, y: 60 }, meta);
    await call(other, 'scroll', { target: TARGET, x: 5, y: 5, deltaY: 300 });
    await call(agent, 'click', { target: TARGET, x: 80, y: 60 }, meta);
    await call(agent, 'press_key', { target: TARGET, key: 'Enter' }, meta);
    // A run whose artifacts went elsewhere (--out): grouped, and the heading says why nothing is linked.
    await call(agent, 'click', { target: TARGET, x: 1, y: 1 }, { [RUN_META_KEY]: { id: elsewhere, artifacts: '/tmp/somewhere/else' } });
    browser = await launchBrowser();
    page = await openDashboard(browser, s.dashboardUrl);
  });

  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await other?.close().catch(() => undefined);
    await browser?.close();
    await s?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const group = (id: string) => page.locator(`[data-testid="run-group"][data-run="${id}"]`);
  /** Rows in table order: a heading as `run <id>`, an action as `<tool>` (`<tool> in <run>` under one). */
  const order = (): Promise<string[]> =>
    page.locator('[data-testid="run-group"], [data-testid="activity-row"]').evaluateAll((els) =>
      els.map((e) => (e.getAttribute('data-testid') === 'run-group' ? `run ${e.getAttribute('data-run')}` : `${e.getAttribute('data-tool')}${e.getAttribute('data-run') ? ` in ${e.getAttribute('data-run')}` : ''}`)),
    );

  it('gathers a run’s actions under its heading, with its goal, outcome and artifacts', async () => {
    await page.getByTestId('nav-activity').click();
    await expect.poll(order).toEqual([`run ${elsewhere}`, `click in ${elsewhere}`, `run ${run.id}`, `press_key in ${run.id}`, `click in ${run.id}`, `click in ${run.id}`, 'scroll']);
    const g = group(run.id);
    await expect.poll(() => g.getByTestId('run-goal').innerText()).toBe('“Turn on dark mode”');
    expect(await g.getByTestId('run-status').innerText()).toBe('Done');
    expect(await g.getByTestId('run-count').innerText()).toMatch(/^3 actions · 3 refused or failed/);
    // Step screenshots are served and decode; each links to the full image.
    const shots = g.getByTestId('run-step');
    await expect.poll(() => shots.count()).toBe(3);
    await expect.poll(() => shots.locator('img').evaluateAll((imgs) => imgs.map((i) => (i as unknown as { naturalWidth: number }).naturalWidth))).toEqual([320, 320, 320]);
    const href = await g.getByTestId('run-json').getAttribute('href');
    expect(href).toBe(`/api/runs/${run.id}/files/run.json`);
    // The link opens with the dashboard's session (the cookie), no token in the URL.
    const opened = await page.request.get(`${s.base}${href}`);
    expect(opened.status()).toBe(200);
    expect(((await opened.json()) as { goal: string }).goal).toBe('Turn on dark mode');
    // The run written elsewhere says so.
    const problem = group(elsewhere).getByTestId('run-problem');
    await expect.poll(() => problem.innerText()).toMatch(/the run keeps them in \/tmp\/somewhere\/else/);
    expect(await problem.getAttribute('title')).toMatch(/No artifacts for run elsewhere-run-1/);
    expect(await group(elsewhere).getByTestId('run-json').count()).toBe(0);
    await screenshot(page, 'activity-runs');
  });

  it('folds a run, and shows one run alone', async () => {
    await group(run.id).getByRole('button', { name: 'Hide the run’s actions' }).click();
    await expect.poll(order).toEqual([`run ${elsewhere}`, `click in ${elsewhere}`, `run ${run.id}`, 'scroll']);
    await group(run.id).getByRole('button', { name: 'Show the run’s actions' }).click();
    await group(run.id).getByTestId('run-only').click();
    await expect.poll(order).toEqual([`run ${run.id}`, `press_key in ${run.id}`, `click in ${run.id}`, `click in ${run.id}`]);
    // The filter names the run by its goal, not its folder's name.
    await expect.poll(() => page.getByTestId('activity-filter-run').innerText()).toBe('Run: “Turn on dark mode”');
    // A new action of the run arrives live under its heading; another client's does not show.
    await agent.callTool({ name: 'scroll', arguments: { target: TARGET, x: 5, y: 5, deltaY: 100 }, _meta: { [RUN_META_KEY]: { id: run.id, artifacts: run.dir } } });
    await other.callTool({ name: 'scroll', arguments: { target: TARGET, x: 5, y: 5, deltaY: 100 } });
    await expect.poll(order).toEqual([`run ${run.id}`, `scroll in ${run.id}`, `press_key in ${run.id}`, `click in ${run.id}`, `click in ${run.id}`]);
    await page.getByRole('button', { name: 'Show every action again' }).click();
    await expect.poll(async () => (await order()).length).toBe(9);
  });

  it("gathers another client's actions under its session, shows that session alone, and forgets the filter on leaving", async () => {
    // claude-desktop has acted twice now (one scroll before, one during the last test): one session.
    const session = page.getByTestId('session-group');
    await expect.poll(() => session.count()).toBe(1);
    expect(await session.getByTestId('session-client').innerText()).toBe('claude-desktop');
    expect(await session.getByTestId('session-count').innerText()).toMatch(/^2 actions · /);
    const key = await session.getAttribute('data-group');
    await expect.poll(() => page.locator(`[data-testid="activity-row"][data-group="${key}"]`).count()).toBe(2);
    await session.getByTestId('session-only').click();
    await expect.poll(() => page.getByTestId('activity-row').count()).toBe(2);
    expect(await page.getByTestId('activity-filter-run').innerText()).toMatch(/^Session of claude-desktop from /);
    // Leaving Activity and coming back shows every action again.
    await page.getByTestId('nav-timeline').click();
    await page.getByTestId('nav-activity').click();
    await expect.poll(() => page.getByTestId('activity-row').count()).toBe(7);
    expect(await page.getByTestId('activity-filter-run').count()).toBe(0);
  });
});
