/**
 * Routines in the dashboard, end to end: the real `sightline serve` with its browser source on a
 * headless Chromium showing the order page, an agent (an MCP client over HTTP) acting on it, and
 * the built dashboard in another Chromium. The agent's session is saved from Activity (steps
 * ticked, a typed value made an input, the password a secret input), shows in Routines, runs
 * against the page and is done, then stops at the step where a changed page differs, touching
 * nothing; the outcome links to the run in Activity. Axe checks the form and the screen, and the
 * screen fits a 390 px window. A routine is deleted after a second click.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveFixtures, type FixtureServer } from '../fixtures/browser/harness.ts';
import { httpClient, serve, type Served } from '../support/cli.ts';
import { tempDir } from '../support/mcpHarness.ts';
import { ALL_SOURCES_OFF, explainViolations, launchBrowser, openDashboard, screenshot, seriousViolations, startDebugBrowser, writeSettings, type DebugBrowser } from './support.ts';

const EMAIL = 'ada@example.org';
const PASSWORD = 'correct-horse-42';

describe('routines in the dashboard (sightline serve + Chromium)', () => {
  const dataDir = tempDir('sightline-e2e-routines-');
  let s: Served;
  let chrome: DebugBrowser;
  let pages: FixtureServer;
  let browser: Browser;
  let page: Page;
  let agent: Client;
  let tab: string;

  const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => (await agent.callTool({ name, arguments: args })) as CallToolResult;
  const ok = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => {
    const r = await call(name, args);
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    return r;
  };
  /** The tab's page now (origin and path), as the browser source lists it. */
  const tabPath = async (): Promise<string> => {
    const listed = (await ok('list_targets', { source: 'browser' })).structuredContent as { targets: { id: string; details?: { url?: string } }[] };
    return new URL(listed.targets.find((t) => t.id === tab)?.details?.url ?? 'about:blank').pathname;
  };

  beforeAll(async () => {
    chrome = await startDebugBrowser();
    pages = await serveFixtures();
    writeSettings(dataDir, { ...ALL_SOURCES_OFF, sources: { ...ALL_SOURCES_OFF.sources, browser: { enabled: true } }, browser: { endpoint: chrome.endpoint, headless: true }, ocr: { index: false } });
    s = await serve(dataDir);
    agent = await httpClient(s.mcpUrl, s.token, 'order-agent');
    const listed = (await ok('list_targets', { source: 'browser' })).structuredContent as { targets: { id: string }[] };
    tab = listed.targets[0]!.id;
    // The agent's run: fill the order form and place it; one click it tried was refused.
    await ok('navigate', { target: tab, url: pages.url('routines/order.html') });
    await ok('capture', { target: tab });
    expect((await call('click', { target: tab, text: 'Pay with points' })).isError).toBe(true);
    await ok('type_text', { target: tab, field: 'Email', text: EMAIL });
    await ok('type_text', { target: tab, field: 'Password', text: PASSWORD });
    await ok('click', { target: tab, text: 'Place order' });
    expect(await tabPath()).toBe('/routines/done.html');
    browser = await launchBrowser();
    page = await openDashboard(browser, s.dashboardUrl, { bypassCSP: true });
  });

  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await browser?.close();
    await s?.stop();
    await chrome?.kill();
    await pages?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('saves the agent’s session from Activity: steps ticked, a value made an input, the password a secret one', async () => {
    await page.getByTestId('nav-activity').click();
    const session = page.locator('[data-testid="session-group"]').filter({ hasText: 'order-agent' });
    await session.getByTestId('session-save-routine').click();
    const form = page.getByTestId('save-routine');
    const steps = form.getByTestId('save-routine-step');
    // The navigation, the two fields and the click; the refused click is not offered, captures and listings are not actions.
    await expect.poll(() => steps.evaluateAll((els) => els.map((e) => e.getAttribute('data-tool')))).toEqual(['navigate', 'type_text', 'type_text', 'click']);
    expect(await steps.locator('input[type="checkbox"]:not(.switch)').evaluateAll((els) => els.map((e) => (e as unknown as { checked: boolean }).checked))).toEqual([true, true, true, true]);
    expect(await steps.nth(2).innerText()).toMatch(/type a secret into Password\s+A secret: a required input, asked at each run and never stored\./);
    expect(await steps.nth(2).getByTestId('make-input').count()).toBe(0);
    expect((await form.innerText()).includes(PASSWORD)).toBe(false);

    // The navigation is left out (the routine starts on the page); the email becomes an input.
    await steps.nth(0).getByRole('checkbox').uncheck();
    await steps.nth(1).getByTestId('make-input').check();
    const name = steps.nth(1).getByTestId('input-name');
    expect(await name.inputValue()).toBe('email');
    await name.fill('customer_email');
    expect(await seriousViolations(page), explainViolations(await seriousViolations(page))).toEqual([]);
    await screenshot(page, 'activity-save-routine');

    await form.getByTestId('save-routine-name').fill('bad name');
    await form.getByTestId('save-routine-submit').click();
    await expect.poll(() => form.getByTestId('save-routine-error').innerText()).toMatch(/"bad name" is not a routine name\.\s+Use letters, digits/);
    await form.getByTestId('save-routine-name').fill('order');
    await form.getByTestId('save-routine-submit').click();
    await expect.poll(() => form.getByTestId('save-routine-saved').innerText()).toMatch(/^Saved routine order: 3 steps; inputs password \(secret\), customer_email\./);

    const routine = JSON.parse(readFileSync(join(dataDir, 'routines', 'order.json'), 'utf8')) as { steps: { kind: string; params: Record<string, unknown> }[]; inputs: { name: string; default?: string }[] };
    expect(routine.steps.map((x) => x.kind)).toEqual(['type_text', 'type_text', 'click']);
    expect(routine.steps[0]!.params.text).toEqual({ input: 'customer_email' });
    expect(routine.inputs.find((i) => i.name === 'customer_email')?.default).toBe(EMAIL);
    expect(JSON.stringify(routine)).not.toContain(PASSWORD);
  });

  it('lists it in Routines with its target, steps and inputs; Run asks for the password and replays it on the page: done', async () => {
    await page.getByTestId('save-routine-open').click();
    await expect.poll(() => page.evaluate('location.hash')).toBe('#/routines');
    const card = page.locator('[data-testid="routine"][data-name="order"]');
    await expect.poll(() => card.getByTestId('routine-target').innerText()).toBe(new URL(pages.url('x')).origin);
    expect(await card.getByTestId('routine-steps').innerText()).toBe('3 steps');
    expect(await card.getByTestId('routine-input').allInnerTexts()).toEqual(['password (secret)', 'customer_email (optional)']);
    expect(await card.getByTestId('routine-last').innerText()).toBe('Not run yet.');
    await card.getByRole('button', { name: 'Show the routine’s steps' }).click();
    await expect.poll(() => card.getByTestId('routine-step-list').locator('li').allInnerTexts()).toEqual([
      'type_text textbox "Email" ← customer_email · expects the field to read back the text',
      'type_text textbox "Password" ← password',
      `click button "Place order" · expects the page ${new URL(pages.url('routines/done.html')).href}`,
    ]);

    await ok('navigate', { target: tab, url: pages.url('routines/order.html') });
    await card.getByTestId('routine-run').click();
    const password = card.getByTestId('routine-input-password');
    expect(await password.getAttribute('type')).toBe('password');
    expect(await password.getAttribute('required')).not.toBeNull();
    expect(await card.getByTestId('routine-input-customer_email').getAttribute('required')).toBeNull();
    await password.fill(PASSWORD);
    await card.getByTestId('routine-input-customer_email').fill('grace@example.org');
    await card.getByTestId('routine-run-now').click();
    const outcome = card.getByTestId('routine-outcome');
    await expect.poll(() => outcome.getAttribute('data-status'), { timeout: 20_000 }).toBe('done');
    expect(await outcome.innerText()).toMatch(/^Done in [\d.]+ (ms|s): 3 steps\.\s+See the run in Activity/);
    expect(await tabPath()).toBe('/routines/done.html');
    expect(await card.getByTestId('routine-inputs').count()).toBe(0);
    await expect.poll(() => card.getByTestId('routine-last').innerText()).toMatch(/^Last run .*: Done in [\d.]+ (ms|s) · the run in Activity$/);
  });

  it('links the outcome to its run in Activity: the replay’s actions, named after the routine, by the dashboard', async () => {
    const card = page.locator('[data-testid="routine"][data-name="order"]');
    const href = await card.getByTestId('routine-outcome-run').getAttribute('href');
    const runId = decodeURIComponent(/run=([^&]+)/.exec(href ?? '')![1]!);
    await card.getByTestId('routine-outcome-run').click();
    const group = page.locator(`[data-testid="run-group"][data-run="${runId}"]`);
    await expect.poll(() => group.getByTestId('run-goal').innerText()).toBe('“routine order”');
    expect(await group.getByTestId('run-status').innerText()).toBe('Done');
    const rows = page.locator(`[data-testid="activity-row"][data-run="${runId}"]`);
    await expect.poll(() => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-tool')))).toEqual(['click', 'type_text', 'type_text']);
    // Only that run is shown.
    expect(await page.getByTestId('activity-row').count()).toBe(3);
    expect((await page.getByTestId('activity-table').innerText()).includes(PASSWORD)).toBe(false);

    // A run is saved from its heading the same way: its three actions, the email now typed as given.
    await group.getByTestId('run-save-routine').click();
    const form = page.getByTestId('save-routine');
    await expect.poll(() => form.getByTestId('save-routine-step').allInnerTexts()).toEqual([
      expect.stringMatching(/^type “grace@example\.org” into Email\s+Make input$/),
      expect.stringMatching(/^type a secret into Password\s+A secret: a required input/),
      'click “Place order”',
    ]);
    await form.getByTestId('save-routine-name').fill('order-again');
    await form.getByTestId('save-routine-submit').click();
    await expect.poll(() => form.getByTestId('save-routine-saved').innerText()).toMatch(/^Saved routine order-again: 3 steps; inputs password \(secret\)\./);
    expect(JSON.parse(readFileSync(join(dataDir, 'routines', 'order-again.json'), 'utf8')).from).toEqual({ run: runId });
    await form.getByRole('button', { name: 'Close', exact: true }).last().click();
    await form.waitFor({ state: 'detached' });
  });

  it('stops at the step where the changed page differs, without clicking anything, and says what it expected and saw', { timeout: 40_000 }, async () => {
    await ok('navigate', { target: tab, url: pages.url('routines/relabelled.html') });
    await page.getByTestId('nav-routines').click();
    const card = page.locator('[data-testid="routine"][data-name="order"]');
    await card.getByTestId('routine-run').click();
    await card.getByTestId('routine-input-password').fill(PASSWORD);
    await card.getByTestId('routine-run-now').click();
    const outcome = card.getByTestId('routine-outcome');
    await expect.poll(() => outcome.getAttribute('data-status'), { timeout: 30_000 }).toBe('stopped');
    expect(await outcome.innerText()).toMatch(/^Stopped at step 3: expected exactly one (button|element) "Place order", saw none after 5000 ms.*Nothing after it was done\./);
    expect(await outcome.innerText()).toMatch(/Look at frame \S+/);
    expect(await tabPath()).toBe('/routines/relabelled.html');
    await expect.poll(() => card.getByTestId('routine-last').innerText()).toMatch(/: Stopped at step 3 ROUTINE_DIVERGED · the run in Activity$/);
    expect(await seriousViolations(page), explainViolations(await seriousViolations(page))).toEqual([]);
    await screenshot(page, 'routines');
  });

  it('fits a 390 px wide window', async () => {
    const narrow = await openDashboard(browser, s.dashboardUrl, { width: 390, height: 844 });
    try {
      await narrow.goto(`${s.base}/#/routines`);
      const card = narrow.locator('[data-testid="routine"][data-name="order"]');
      await card.waitFor();
      await card.getByTestId('routine-run').click();
      await card.getByTestId('routine-input-password').waitFor();
      expect(await narrow.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      const box = await card.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      expect(await narrow.getByTestId('nav-routines').isVisible()).toBe(true);
      await screenshot(narrow, 'routines-narrow');
    } finally {
      await narrow.context().close();
    }
  });

  it('deletes a routine after asking once more', async () => {
    const card = page.locator('[data-testid="routine"][data-name="order"]');
    await card.getByTestId('routine-delete').click();
    await card.getByTestId('routine-delete-confirm').click();
    await card.waitFor({ state: 'detached' });
    expect(await page.getByTestId('routine').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(['order-again']);
    expect(existsSync(join(dataDir, 'routines', 'order.json'))).toBe(false);
  });
});
