/**
 * One status for every screen, and evidence a person can trust: the real `sightline serve` with the
 * browser source adopting a real Chromium, the built dashboard in headless Chromium, and real MCP
 * clients over Streamable HTTP. The header, Setup and Targets read the same health, and it follows
 * the browser when it dies, pushed by the server; the agent count follows clients that come and
 * go, ended sessions or not; each action's row links the frame taken right after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../src/shared/activity.ts';
import { httpClient, serve, type Served } from '../support/cli.ts';
import { ALL_SOURCES_OFF, launchBrowser, openDashboard, startDebugBrowser, writeSettings, type DebugBrowser } from './support.ts';

describe('one status model (sightline serve + Chromium)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-status-'));
  let s: Served;
  let chrome: DebugBrowser;
  let browser: Browser;
  let page: Page;
  let pageServer: Server;
  /** The tab the agent acts in, on the page below. */
  let tab: string;
  let seenAfterMs = -1;
  const put = async (body: object): Promise<void> => {
    const r = await fetch(`${s.base}/api/settings`, { method: 'PUT', headers: { Authorization: `Bearer ${s.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(r.status).toBe(200);
  };
  const text = (id: string): Promise<string> => page.getByTestId(id).innerText();

  beforeAll(async () => {
    chrome = await startDebugBrowser();
    // A page with a price, a comment field and a button that shows what was sent.
    pageServer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Invoice 4411</title><body style="font:18px sans-serif;margin:24px">
        <table><tr><td style="padding:12px;border:1px solid #999">45.00 EUR</td></tr></table>
        <p><label>Comment <textarea id="c" rows="2" cols="30"></textarea></label></p>
        <button onclick="document.getElementById('out').textContent = 'Sent: ' + document.getElementById('c').value">Send</button>
        <p id="out"></p></body>`);
    });
    await new Promise<void>((ok) => pageServer.listen(0, '127.0.0.1', () => ok()));
    writeSettings(dataDir, { ...ALL_SOURCES_OFF, sources: { ...ALL_SOURCES_OFF.sources, browser: { enabled: true } }, browser: { endpoint: chrome.endpoint, headless: true }, ocr: { index: false } });
    s = await serve(dataDir);
    browser = await launchBrowser();
    page = await openDashboard(browser, s.dashboardUrl, { width: 1440, height: 900 });
    // The browser's blank tab, sent to the invoice page.
    const pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;
    const setup = await httpClient(s.mcpUrl, s.token, 'setup');
    try {
      const listed = (await setup.callTool({ name: 'list_targets', arguments: { source: 'browser' } })) as CallToolResult;
      tab = (listed.structuredContent as { targets: { id: string }[] }).targets[0]!.id;
      const nav = (await setup.callTool({ name: 'navigate', arguments: { target: tab, url: pageUrl } })) as CallToolResult;
      expect(nav.isError, JSON.stringify(nav.content)).toBeFalsy();
    } finally {
      await setup.close();
    }
  });

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await chrome?.kill();
    await new Promise<void>((ok) => (pageServer ? pageServer.close(() => ok()) : ok()));
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

  it("links each quick action to the frame taken right after it, a crop's whole frame included; the viewer names the action", async () => {
    const agent = await httpClient(s.mcpUrl, s.token, 'evidence-agent');
    const text = (r: unknown): string => ((r as CallToolResult).content.filter((c) => c.type === 'text') as { text: string }[]).map((c) => c.text).join('\n');
    const act = async (name: string, args: object): Promise<{ afterRef: string; shown?: string }> => {
      const r = (await agent.callTool({ name, arguments: { target: tab, after: 'image', ...args } })) as CallToolResult;
      expect(r.isError, text(r)).toBeFalsy();
      const shown = /The image is frame (\S+) /.exec(text(r))?.[1];
      return { afterRef: (r.structuredContent as { afterRef: string }).afterRef, ...(shown ? { shown } : {}) };
    };
    try {
      await agent.callTool({ name: 'capture', arguments: { target: tab } });
      // Three quick actions: a click that changes nothing, a comment typed, the button pressed.
      const cell = await act('click', { text: '45.00 EUR' });
      const typed = await act('type_text', { field: 'Comment', text: 'Looks good' });
      const sent = await act('click', { text: 'Send' });
      expect(new Set([cell.afterRef, typed.afterRef, sent.afterRef]).size).toBe(3);
      // The typing's answer showed a crop of what changed: its row still links the whole frame taken after it.
      expect(typed.shown).toBeDefined();
      expect(typed.shown).not.toBe(typed.afterRef);
      const rows = (await (await fetch(`${s.base}/api/activity?limit=10`, { headers: { Authorization: `Bearer ${s.token}` } })).json()) as { entries: ActivityEntry[] };
      const mine = rows.entries.filter((e) => e.client === 'evidence-agent' && e.tool !== 'capture');
      expect(mine.map((e) => [e.tool, e.afterRef])).toEqual([
        ['click', sent.afterRef],
        ['type_text', typed.afterRef],
        ['click', cell.afterRef],
      ]);
      // Each acted in the frame the one before it left.
      expect(mine[0]!.frameRef).toBe(typed.afterRef);
      expect(mine[1]!.frameRef).toBe(cell.afterRef);

      // The dashboard links each row's own after-frame, and opens it in the Activity viewer.
      await page.goto(`${s.base}/#/activity`);
      for (const e of mine) {
        await expect.poll(() => page.locator(`[data-testid="activity-row"][data-id="${e.id}"] [data-testid="after-frame"]`).getAttribute('data-ref')).toBe(e.afterRef);
      }
      await page.locator(`[data-testid="activity-row"][data-id="${mine[2]!.id}"] [data-testid="after-frame"]`).click();
      const dialog = page.getByTestId('activity-viewer');
      await expect.poll(() => dialog.getByTestId('aviewer-after').locator('a').getAttribute('data-ref')).toBe(cell.afterRef);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => dialog.getByTestId('aviewer-after').locator('a').getAttribute('data-ref')).toBe(typed.afterRef);
      await page.keyboard.press('Escape');

      // The timeline's viewer says which action a frame belongs to.
      await page.goto(`${s.base}/#/timeline/${cell.afterRef}`);
      const said = page.getByTestId('frame-action');
      await expect.poll(() => said.count()).toBe(2);
      expect(await page.locator('[data-testid="frame-action"][data-role="after"]').innerText()).toMatch(/^Taken right after click .*by evidence-agent$/);
      expect(await page.locator('[data-testid="frame-action"][data-role="before"]').innerText()).toMatch(/^type_text .*acted in it at /);
    } finally {
      await agent.close();
    }
  });

  it('never says Ready above a browser that died: the header, Setup and Targets turn without a refresh', async () => {
    await page.goto(`${s.base}/#/targets`);
    const group = page.getByTestId('target-group-browser');
    await expect.poll(() => group.getByTestId('target-row').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(() => group.getByTestId('group-state').innerText(), { timeout: 10_000 }).toBe('Ready');
    await expect.poll(() => text('status-sources')).toBe('1/1 sources ready');

    // Nothing is clicked: the server hears the connection close and says so (its health timer is
    // 30 s away; a poll that gives up after 10 s cannot be answered by it).
    const killed = Date.now();
    await chrome.kill();
    await expect.poll(() => text('status-sources'), { timeout: 10_000 }).toBe('0/1 sources ready');
    seenAfterMs = Date.now() - killed;
    await expect.poll(() => group.getByTestId('group-state').innerText(), { timeout: 10_000 }).toBe('Needs attention');
    await expect.poll(() => group.getByTestId('target-error').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator('[data-testid="nav-setup"] .count').innerText()).toBe('1');
    await page.getByTestId('nav-setup').click();
    await expect.poll(() => page.getByTestId('setup-source-browser').getByTestId('setup-state').innerText(), { timeout: 10_000 }).toContain('Needs attention');
    process.stdout.write(`[e2e] a killed browser was shown in the header ${seenAfterMs} ms after the kill\n`);
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
