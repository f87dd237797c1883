/**
 * Several browsers as one source (browser.endpoints): a second Chromium on another port, and a
 * third behind a proxy that wants an access-token header on /json/version and on the WebSocket
 * upgrade (as browserless or a gateway in front of a grid does). All on 127.0.0.1.
 */
import { ready } from '../../../src/main/core/sources/aim.ts';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserSource, type BrowserSource } from '../../../src/main/core/sources/browser/browserSource.ts';
import { browserSettings } from '../../../src/main/core/sources/browser/settings.ts';
import { serveFixtures, startChromium, type FixtureServer, type RunningChromium } from '../../fixtures/browser/harness.ts';
import { defaults, failure, signal } from './kit.ts';

const TOKEN = 'sesame';
let srv: FixtureServer;
let local: RunningChromium;
let farm: RunningChromium;
let secure: RunningChromium;
let proxy: Server;
let proxyUrl: string;
let source: BrowserSource;
let dataDir: string;
const seen: string[] = [];

/** An HTTP + WebSocket proxy to `port` that refuses requests without the token header. */
function tokenProxy(port: number): Promise<Server> {
  const allowed = (req: IncomingMessage): boolean => {
    seen.push(`${req.method} ${req.url} ${req.headers['x-token'] ?? '-'}`);
    return req.headers['x-token'] === TOKEN;
  };
  const server = createServer((req, res) => {
    if (!allowed(req)) return void res.writeHead(401).end('token required');
    const up = request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!allowed(req)) return void socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
    const up = connect(port, '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`, ...Object.entries(req.headers).map(([k, v]) => `${k}: ${String(v)}`), '', ''];
      up.write(lines.join('\r\n'));
      if (head.length) up.write(head);
      up.pipe(socket).pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  srv = await serveFixtures();
  [local, farm, secure] = await Promise.all([startChromium({ url: srv.url('other.html') }), startChromium({ url: srv.url('page.html') }), startChromium({ url: srv.url('form.html') })]);
  proxy = await tokenProxy(secure.port);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  dataDir = mkdtempSync(join(tmpdir(), 'sightline-endpoints-'));
  const settings = browserSettings.parse({
    endpoint: local.endpoint,
    headless: true,
    endpoints: [
      { name: 'farm', url: farm.endpoint },
      { name: 'secure', url: proxyUrl, headers: { 'x-token': TOKEN } },
    ],
  });
  source = createBrowserSource({ settings, dataDir });
});

afterAll(async () => {
  await source?.dispose?.();
  await new Promise((r) => proxy?.close(r));
  for (const c of [local, farm, secure]) {
    await c?.kill();
    c?.cleanup();
  }
  await srv?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('browser.endpoints', () => {
  it('lists the tabs of every browser, each id naming its endpoint, and acts on a remote tab like a local one', async () => {
    // Three browsers just started on a shared machine: wait until each lists its page.
    let tabs = await source.screen.listTargets(signal);
    for (let i = 0; i < 50 && !['other.html', 'page.html', 'form.html'].every((u) => tabs.some((t) => String(t.details?.url).endsWith(u))); i++) {
      await new Promise((r) => setTimeout(r, 200));
      tabs = await source.screen.listTargets(signal);
    }
    const byUrl = (name: string) => tabs.find((t) => String(t.details?.url).endsWith(name));
    expect(byUrl('other.html')?.id).toMatch(/^browser:[A-F0-9]+$/);
    expect(byUrl('other.html')?.details?.endpoint).toBeUndefined();
    const onFarm = byUrl('page.html')!;
    expect(onFarm.id).toMatch(/^browser:farm\/[A-F0-9]+$/);
    expect(onFarm.details?.endpoint).toBe('farm');
    const onSecure = byUrl('form.html')!;
    expect(onSecure.id).toMatch(/^browser:secure\/[A-F0-9]+$/);
    // Both the /json/version request and the WebSocket upgrade carried the token.
    expect(seen.some((s) => s.startsWith('GET /json/version sesame'))).toBe(true);
    expect(seen.some((s) => /^GET \/devtools\/browser\/\S+ sesame$/.test(s))).toBe(true);

    const cap = await source.screen.capture(onFarm.id, defaults);
    expect(cap.target).toBe(onFarm.id);
    const again = (await source.screen.listTargets(signal)).find((t) => t.id === onFarm.id);
    expect(again?.details).toMatchObject({ endpoint: 'farm', viewport: { width: expect.any(Number) } });
    const tree = await source.tree.uiTree(onFarm.id, { ref: 'x', source: 'browser', target: onFarm.id, capturedAt: '', image: { width: 1, height: 1 }, sourceSize: cap.sourceSize, origin: { x: 0, y: 0 }, scale: 1, state: cap.state }, { maxNodes: 50, query: 'Clicked 0', signal });
    const d = await source.input.perform(ready({ kind: 'click', target: onFarm.id, node: tree[0]!.id, button: 'left', clicks: 1, modifiers: [] }), signal);
    expect(d.outcome?.hit).toMatchObject({ name: 'Clicked 0' });

    const name = (await source.text.readText(onSecure.id, signal)).find((i) => i.text === 'Send');
    expect(name?.node).toBeTruthy();
    const typed = await source.input.perform(ready({ kind: 'type_text', target: onSecure.id, node: (await source.text.readText(onSecure.id, signal)).find((i) => i.text === 'Name')!.node!, text: 'Remote' }), signal);
    expect(typed.outcome?.received).toMatchObject({ role: 'textbox', name: 'Name', value: 'Remote', valueMatches: true });
  });

  it('opens a tab on a named endpoint, and says which endpoint an unknown id names', async () => {
    const opened = await source.input.perform(ready({ kind: 'tabs', target: 'browser:farm/', params: { action: 'new', url: srv.url('other.html') } }), signal);
    expect(opened.target).toMatch(/^browser:farm\/[A-F0-9]+$/);
    expect((await source.screen.listTargets(signal)).some((t) => t.id === opened.target)).toBe(true);
    await source.input.perform(ready({ kind: 'tabs', target: String(opened.target), params: { action: 'close' } }), signal);

    const unknown = await failure(source.screen.capture('browser:nosuch/ABCDEF', defaults));
    expect(unknown.code).toBe('TAB_NOT_FOUND');
    expect(unknown.hint).toMatch(/farm, secure/);
  });

  it('health names each endpoint; one that refuses (no token) leaves the others listed and the source degraded', async () => {
    const ok = await source.health();
    expect(ok).toMatchObject({ available: true, degraded: false });
    expect(ok.checks?.map((c) => `${c.id}:${c.status}`)).toEqual(['browser.endpoint:ok', 'browser.endpoints.farm:ok', 'browser.endpoints.secure:ok']);

    const settings = browserSettings.parse({ endpoint: local.endpoint, headless: true, endpoints: [{ name: 'farm', url: farm.endpoint }, { name: 'locked', url: proxyUrl }] });
    const other = createBrowserSource({ settings, dataDir });
    try {
      const h = await other.health();
      expect(h).toMatchObject({ available: true, degraded: true, reason: '1 of 2 endpoints do not answer' });
      expect(h.checks?.find((c) => c.id === 'browser.endpoints.locked')).toMatchObject({ status: 'error', detail: expect.stringMatching(/no browser answers at browser.endpoints locked/) });
      const ids = (await other.screen.listTargets(signal)).map((t) => t.id);
      expect(ids.some((id) => id.startsWith('browser:farm/'))).toBe(true);
      expect(ids.some((id) => id.startsWith('browser:locked/'))).toBe(false);
    } finally {
      await other.dispose?.();
    }
  });

  it('settings refuse duplicate names and names that cannot prefix an id', () => {
    expect(() => browserSettings.parse({ endpoints: [{ name: 'a', url: 'http://h:1' }, { name: 'A', url: 'http://h:2' }] })).toThrow(/unique/);
    expect(() => browserSettings.parse({ endpoints: [{ name: 'a/b', url: 'http://h:1' }] })).toThrow();
    expect(() => browserSettings.parse({ endpoints: [{ name: 'grid', url: 'ftp://h:1' }] })).toThrow();
    expect(browserSettings.parse({}).endpoints).toEqual([]);
  });
});
