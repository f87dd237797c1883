/**
 * A hostile agent against a real Chromium, through an MCP client: the allowlist judges a tab by
 * its origin (never its title), only web URLs are opened, redirects are judged hop by hop (those a
 * click or a key starts too), a call is judged when it reaches the tab, not when it was made, and
 * Sightline's own dashboard, API and /auth URLs are never operated, whatever the allowlist says.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/main/core/http/server.ts';
import { connectDriver, serveFixtures, startChromium, type FixtureServer, type RunningChromium } from '../../fixtures/browser/harness.ts';
import { startHarness, tempDir, textOf, type Harness } from '../../support/mcpHarness.ts';

let allowedSrv: FixtureServer;
let otherSrv: FixtureServer;
let chrome: RunningChromium;
let driver: Browser;
let h: Harness;
let server: RunningServer;
let tab: string;

const hostOf = (url: string): string => new URL(url).host;

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return h.call(name, args);
}

async function ok(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const r = await call(name, args);
  expect(r.isError, textOf(r)).toBeFalsy();
  return r;
}

async function refused(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await call(name, args);
  expect(r.isError, textOf(r)).toBe(true);
  return textOf(r);
}

async function tabs(): Promise<{ id: string; title: string; details?: { url?: string } }[]> {
  const r = await ok('list_targets', { source: 'browser' });
  return (r.structuredContent as { targets: { id: string; title: string; details?: { url?: string } }[] }).targets;
}

async function urlOf(id: string): Promise<string | undefined> {
  return (await tabs()).find((t) => t.id === id)?.details?.url;
}

/** The driver's page for a Sightline tab id. */
async function pageOf(id: string): Promise<Page> {
  const targetId = id.slice('browser:'.length);
  const t = driver.targets().find((x) => (x as unknown as { _targetId: string })._targetId === targetId);
  const p = await t?.page();
  if (!p) throw new Error(`no page for ${id}`);
  return p;
}

beforeAll(async () => {
  allowedSrv = await serveFixtures();
  otherSrv = await serveFixtures();
  chrome = await startChromium({ url: otherSrv.url('page.html') });
  driver = await connectDriver(chrome.endpoint);
  // The core builds its own browser source on this Chromium (its data directory, its settings).
  h = await startHarness({ dataDir: tempDir(), settings: { sources: { browser: { enabled: true } }, browser: { endpoint: chrome.endpoint, headless: true } } });
  server = await startServer(h.core, { log: () => undefined });
  tab = (await tabs()).find((t) => t.details?.url?.endsWith('/page.html'))!.id;
  expect(tab).toBeDefined();
}, 60_000);

afterAll(async () => {
  await server?.close();
  await h?.close();
  await driver?.disconnect();
  await chrome?.kill();
  chrome?.cleanup();
  await allowedSrv?.close();
  await otherSrv?.close();
});

describe('the allowlist judges a tab by its origin', () => {
  it('a page titled with an allowed host takes no input; the allowed origin does; a redirect off the list is stopped before it is sent', async () => {
    const allowed = hostOf(allowedSrv.url('page.html'));
    await ok('navigate', { target: tab, url: otherSrv.url('page.html') });
    await (await pageOf(tab)).evaluate(`document.title = ${JSON.stringify(allowed)}`);
    expect((await tabs()).find((t) => t.id === tab)?.title).toBe(allowed);
    h.core.settings.update({ input: { allowlist: [allowed] } });
    try {
      await ok('capture', { target: tab });
      expect(await refused('click', { target: tab, x: 10, y: 10 })).toMatch(new RegExp(`^NOT_ALLOWED: Input to ${hostOf(otherSrv.url('x')).replace('.', '\\.')} \\(browser\\)`));
      // An origin entry (scheme included) admits the tab's page; the host alone does too.
      h.core.settings.update({ input: { allowlist: [new URL(otherSrv.url('x')).origin] } });
      await ok('click', { target: tab, x: 10, y: 10 });
      // A redirect to an off-list origin is stopped before that origin is asked; the tab is left blank.
      h.core.settings.update({ input: { allowlist: [] } });
      await ok('navigate', { target: tab, url: allowedSrv.url('page.html') });
      h.core.settings.update({ input: { allowlist: [allowed] } });
      const other = hostOf(otherSrv.url('x'));
      expect(await refused('navigate', { target: tab, url: allowedSrv.url(`redirect?to=${encodeURIComponent(otherSrv.url('other.html'))}`) })).toBe(
        `NOT_ALLOWED: The page led to a URL that is not opened, and was stopped: Input to ${other} (browser) is not in the input allowlist. Hint: The user can add "${other}" to input.allowlist in settings.`,
      );
      expect(await urlOf(tab)).toBe('about:blank');
    } finally {
      h.core.settings.update({ input: { allowlist: [] } });
    }
  });

  it('a blank tab takes no input under an allowlist, and may be led only to an allowed origin', async () => {
    const allowed = hostOf(allowedSrv.url('page.html'));
    const blank = ((await ok('tabs', { action: 'new' })).structuredContent as { details: { target: string } }).details.target;
    h.core.settings.update({ input: { allowlist: [allowed] } });
    try {
      await ok('capture', { target: blank });
      expect(await refused('type_text', { target: blank, text: 'x' })).toMatch(/^NOT_ALLOWED: .* is blank: it takes no input while input\.allowlist is set\./);
      expect(await refused('navigate', { target: blank, url: otherSrv.url('page.html') })).toMatch(/^NOT_ALLOWED: Input to /);
      await ok('navigate', { target: blank, url: allowedSrv.url('page.html') });
    } finally {
      h.core.settings.update({ input: { allowlist: [] } });
      await ok('tabs', { action: 'close', target: blank });
    }
  });
});

describe('a call is judged on the tab as it is when the call reaches it', () => {
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
  const keysOn = async (id: string): Promise<unknown[]> => (await (await pageOf(id)).evaluate('window.state.keys')) as unknown[];

  it('Pause pressed while a call waits behind a slow navigation: nothing happens after the pause', async () => {
    await ok('navigate', { target: tab, url: otherSrv.url('page.html') });
    // The navigation holds the tab for 1.5 s; the key arrives while it does, the pause after that.
    const nav = call('navigate', { target: tab, url: otherSrv.url('slow?ms=1500&page=page.html') });
    await sleep(300);
    const key = call('press_key', { target: tab, key: 'a' });
    await sleep(300);
    h.core.settings.update({ input: { paused: true } });
    try {
      expect((await nav).isError, textOf(await nav)).toBeFalsy();
      const k = await key;
      expect(textOf(k)).toMatch(/^INPUT_PAUSED: /);
      expect(await urlOf(tab)).toBe(otherSrv.url('slow?ms=1500&page=page.html'));
      expect(await keysOn(tab)).toEqual([]);
    } finally {
      h.core.settings.update({ input: { paused: false } });
    }
  });

  it('a click that follows a link off the allowlist is stopped at the hop: the page is never asked for, the tab is left blank', async () => {
    const allowed = hostOf(allowedSrv.url('page.html'));
    const other = hostOf(otherSrv.url('x'));
    await ok('navigate', { target: tab, url: allowedSrv.url('page.html') });
    await (await pageOf(tab)).evaluate(`document.getElementById('other').href = ${JSON.stringify(otherSrv.url('other.html?from-click'))}`);
    h.core.settings.update({ input: { allowlist: [allowed] } });
    try {
      expect(await refused('click', { target: tab, text: 'Another page' })).toBe(
        `NOT_ALLOWED: The input was sent (click), but the page it led to is not opened, and was stopped (the tab is blank now): Input to ${other} (browser) is not in the input allowlist. Hint: The user can add "${other}" to input.allowlist in settings.`,
      );
      expect(await urlOf(tab)).toBe('about:blank');
      expect(otherSrv.requests).not.toContain('/other.html?from-click');
    } finally {
      h.core.settings.update({ input: { allowlist: [] } });
    }
  });

  it('a key pressed while a click takes the tab off the allowlist is refused', async () => {
    const allowed = hostOf(allowedSrv.url('page.html'));
    await ok('navigate', { target: tab, url: allowedSrv.url('page.html') });
    // The link leads off the list to a page that answers slowly: the key is asked for while the tab still shows the allowed page.
    const offList = otherSrv.url('slow?ms=800&page=page.html');
    await (await pageOf(tab)).evaluate(`document.getElementById('other').href = ${JSON.stringify(offList)}`);
    h.core.settings.update({ input: { allowlist: [allowed] } });
    try {
      const click = call('click', { target: tab, text: 'Another page' });
      await sleep(150);
      const key = await call('press_key', { target: tab, key: 'a' });
      expect(textOf(key)).toMatch(/^NOT_ALLOWED: /);
      expect(textOf(await click)).toMatch(/^NOT_ALLOWED: The input was sent \(click\)/);
      // No key reached any page the allowlist does not admit.
      const url = await urlOf(tab);
      expect(url === 'about:blank' || url?.startsWith(allowedSrv.url(''))).toBe(true);
      if (url !== 'about:blank') expect(await keysOn(tab)).toEqual([]);
    } finally {
      h.core.settings.update({ input: { allowlist: [] } });
    }
  });
});

describe('only web URLs are opened', () => {
  const hint = /Hint: .*browser\.allowFileUrls/;

  it('file: to the token, data:, view-source:, javascript: and browser pages are refused before anything starts', async () => {
    await ok('navigate', { target: tab, url: otherSrv.url('page.html') });
    const before = (await tabs()).length;
    const token = pathToFileURL(join(h.dataDir, 'token')).href;
    for (const url of [
      token,
      `data:text/html,<script>location=${JSON.stringify(otherSrv.url('other.html'))}</script>`,
      `view-source:${otherSrv.url('page.html')}`,
      'javascript:alert(1)',
      'blob:http://127.0.0.1/x',
      'chrome://settings',
      'chrome-extension://abc/page.html',
      'devtools://devtools/bundled/inspector.html',
      'ftp://example.com/',
    ]) {
      const nav = await refused('navigate', { target: tab, url });
      expect(nav, url).toMatch(/^NOT_ALLOWED: /);
      expect(nav, url).toMatch(hint);
      expect(await refused('tabs', { action: 'new', url }), url).toMatch(/^NOT_ALLOWED: /);
    }
    expect(await urlOf(tab)).toBe(otherSrv.url('page.html'));
    expect((await tabs()).length).toBe(before);
  });

  it('browser.allowFileUrls admits local files, never inside the data directory', async () => {
    const outside = tempDir('sightline-file-');
    writeFileSync(join(outside, 'note.html'), '<title>Note</title><p>hello</p>');
    h.core.settings.update({ browser: { allowFileUrls: true } });
    try {
      const t = await tabs();
      const id = t.find((x) => x.details?.url === otherSrv.url('page.html'))?.id ?? tab;
      await ok('navigate', { target: id, url: pathToFileURL(join(outside, 'note.html')).href });
      expect(await urlOf(id)).toBe(pathToFileURL(join(outside, 'note.html')).href);
      expect(await refused('navigate', { target: id, url: pathToFileURL(join(h.dataDir, 'token')).href })).toMatch(/^NOT_ALLOWED: .*inside Sightline's data directory/);
      await ok('navigate', { target: id, url: otherSrv.url('page.html') });
    } finally {
      h.core.settings.update({ browser: { allowFileUrls: false } });
    }
  });
});

describe('Sightline never operates Sightline', () => {
  it('navigate to /auth?token=… fails at the first step; the settings stay unchanged', async () => {
    const settings = readFileSync(join(h.dataDir, 'settings.json'), 'utf8');
    const values = JSON.stringify(h.core.settings.values());
    const target = (await tabs()).find((t) => t.details?.url?.startsWith('http://127.0.0.1:') && !t.details.url.includes(`:${server.port}`))!.id;
    const r = await refused('navigate', { target, url: server.dashboardUrl });
    expect(r).toMatch(/^NOT_ALLOWED: Not opened: http:\/\/127\.0\.0\.1:\d+ is Sightline's own dashboard and API\. Agents never operate Sightline\./);
    expect(await refused('tabs', { action: 'new', url: `${server.url}/#/settings` })).toMatch(/^NOT_ALLOWED: .*Sightline's own dashboard/);
    // An /auth URL on any loopback port is a sign-in URL, whoever serves it.
    expect(await refused('navigate', { target, url: `http://localhost:1/auth?token=abc` })).toMatch(/^NOT_ALLOWED: .*sign-in URL/);
    expect(await urlOf(target)).not.toContain(String(server.port));
    expect(readFileSync(join(h.dataDir, 'settings.json'), 'utf8')).toBe(settings);
    expect(JSON.stringify(h.core.settings.values())).toBe(values);
  });

  it('a page that redirects to the dashboard is stopped before the dashboard is asked', async () => {
    const target = tab;
    await ok('navigate', { target, url: otherSrv.url('page.html') });
    const r = await refused('navigate', { target, url: otherSrv.url(`redirect?to=${encodeURIComponent(server.dashboardUrl)}`) });
    expect(r).toMatch(/^NOT_ALLOWED: The page led to a URL that is not opened, and was stopped: Not opened: .*Sightline's own dashboard/);
    expect(await urlOf(target)).toBe('about:blank');
  });

  it('a tab the person opened on the dashboard takes no input, upload or navigation, whatever the allowlist says', async () => {
    const page = await driver.newPage();
    await page.goto(server.dashboardUrl);
    const dash = (await tabs()).find((t) => t.details?.url?.startsWith(server.url))!.id;
    h.core.settings.update({ input: { allowlist: [hostOf(server.url), server.url] } });
    try {
      for (const [tool, args] of [
        ['click', { target: dash, x: 5, y: 5 }],
        ['type_text', { target: dash, text: '/' }],
        ['navigate', { target: dash, url: otherSrv.url('page.html') }],
        ['upload_file', { target: dash, x: 5, y: 5, paths: ['/etc/hostname'] }],
      ] as const) {
        if (tool === 'click') await ok('capture', { target: dash });
        expect(await refused(tool, args), tool).toMatch(/^NOT_ALLOWED: browser:\S+ is Sightline itself: http:\/\/127\.0\.0\.1:\d+ is Sightline's own dashboard and API\. Agents never operate Sightline\./);
      }
    } finally {
      h.core.settings.update({ input: { allowlist: [] } });
      await page.close();
    }
  });

  it('the ports of the discovery file (the tray app, another serve) are Sightline too', async () => {
    const app = await serveFixtures();
    const discovery = join(h.dataDir, 'discovery.json');
    writeFileSync(discovery, JSON.stringify({ pid: 1, url: app.url('').replace(/\/$/, ''), mcpUrl: app.url('mcp'), token: 't', version: '0', startedAt: new Date().toISOString() }), { mode: 0o600 });
    try {
      expect(await refused('navigate', { target: tab, url: app.url('page.html') })).toMatch(/^NOT_ALLOWED: Not opened: .*Sightline's own dashboard/);
    } finally {
      rmSync(discovery, { force: true });
      await app.close();
    }
  });
});
