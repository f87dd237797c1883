/**
 * One status for every screen: the real `sightline serve` with the browser source adopting a real
 * Chromium, the built dashboard in headless Chromium, and real MCP clients over Streamable HTTP.
 * The header, Setup and Targets read the same health, and it follows the browser when it dies; the
 * agent count follows clients that come and go, ended sessions or not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient, serve, type Served } from '../support/cli.ts';
import { ALL_SOURCES_OFF, launchBrowser, openDashboard, startDebugBrowser, writeSettings, type DebugBrowser } from './support.ts';

describe('one status model (sightline serve + Chromium)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-status-'));
  let s: Served;
  let chrome: DebugBrowser;
  let browser: Browser;
  let page: Page;
  const put = async (body: object): Promise<void> => {
    const r = await fetch(`${s.base}/api/settings`, { method: 'PUT', headers: { Authorization: `Bearer ${s.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(r.status).toBe(200);
  };
  const text = (id: string): Promise<string> => page.getByTestId(id).innerText();

  beforeAll(async () => {
    chrome = await startDebugBrowser();
    writeSettings(dataDir, { ...ALL_SOURCES_OFF, sources: { ...ALL_SOURCES_OFF.sources, browser: { enabled: true } }, browser: { endpoint: chrome.endpoint, headless: true }, ocr: { index: false } });
    s = await serve(dataDir);
    browser = await launchBrowser();
    page = await openDashboard(browser, s.dashboardUrl, { width: 1440, height: 900 });
  });

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await chrome?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts a partly working source as needing attention in the header and in Setup alike', async () => {
    await page.goto(`${s.base}/#/setup`);
    await expect.poll(() => text('status-sources'), { timeout: 10_000 }).toBe('1/1 sources ready');
    expect(await page.locator('[data-testid="nav-setup"] .count').count()).toBe(0);

    // A second browser that does not answer: the source works, partly.
    await put({ browser: { endpoint: chrome.endpoint, headless: true, endpoints: [{ name: 'grid', url: 'http://127.0.0.1:9' }] } });
    await page.getByTestId('setup-recheck').click();
    const card = page.getByTestId('setup-source-browser');
    await expect.poll(() => card.getByTestId('setup-state').innerText(), { timeout: 15_000 }).toContain('Partly working');
    await expect.poll(() => text('status-sources'), { timeout: 10_000 }).toBe('0/1 sources ready');
    expect(await page.locator('[data-testid="nav-setup"] .count').innerText()).toBe('1');
    expect(await text('setup-summary')).toMatch(/^0 of 1 sources ready, 1 needs attention/);
    await put({ browser: { endpoint: chrome.endpoint, headless: true, endpoints: [] } });
    await page.getByTestId('setup-recheck').click();
    await expect.poll(() => text('status-sources'), { timeout: 10_000 }).toBe('1/1 sources ready');
  });

  it('never says Ready above a browser that died: Targets, the header and Setup turn at once', async () => {
    await page.goto(`${s.base}/#/targets`);
    const group = page.getByTestId('target-group-browser');
    await expect.poll(() => group.getByTestId('target-row').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(() => group.getByTestId('group-state').innerText(), { timeout: 10_000 }).toBe('Ready');

    await chrome.kill();
    await page.getByTestId('targets-refresh').click();
    await expect.poll(() => group.getByTestId('target-error').count(), { timeout: 15_000 }).toBe(1);
    expect(await group.getByTestId('target-error').getAttribute('data-code')).toBe('SOURCE_UNAVAILABLE');
    await expect.poll(() => group.getByTestId('group-state').innerText(), { timeout: 10_000 }).toBe('Needs attention');
    // The header heard it from the server (no reload, no health timer), and Setup says the same.
    await expect.poll(() => text('status-sources'), { timeout: 10_000 }).toBe('0/1 sources ready');
    expect(await page.locator('[data-testid="nav-setup"] .count').innerText()).toBe('1');
    await page.getByTestId('nav-setup').click();
    await expect.poll(() => page.getByTestId('setup-source-browser').getByTestId('setup-state').innerText(), { timeout: 10_000 }).toContain('Needs attention');
  });

  it('counts the agents connected now: one that goes away without ending its session is no longer counted', async () => {
    await expect.poll(() => text('status-agents'), { timeout: 10_000 }).toMatch(/^0 agents$/);
    const first = await httpClient(s.mcpUrl, s.token, 'agent-one');
    const second = await httpClient(s.mcpUrl, s.token, 'agent-two');
    await expect.poll(() => text('status-agents'), { timeout: 10_000 }).toMatch(/^2 agents$/);
    // Closing the transport drops its connections but never says goodbye (no DELETE), as a crashed client would.
    await second.close();
    await expect.poll(() => text('status-agents'), { timeout: 10_000 }).toMatch(/^1 agent$/);
    await first.close();
    await expect.poll(() => text('status-agents'), { timeout: 10_000 }).toMatch(/^0 agents$/);
  });
});
