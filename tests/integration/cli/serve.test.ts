import { request } from 'node:http';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { httpClient, serve, stdioClient, type Served } from '../../support/cli.ts';
import { tempDir } from '../../support/mcpHarness.ts';

/** A raw request, so Host and Origin can be forged (fetch will not). */
function raw(url: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((ok, fail) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('sightline serve (HTTP, token, Host/Origin) and the bridge', () => {
  const dataDir = tempDir();
  let s: Served;
  beforeAll(async () => {
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ sources: { desktop: { enabled: false }, browser: { enabled: false }, android: { enabled: false }, manictime: { enabled: false } } }));
    // A data directory others can read, and a catalog left world-readable (an empty file is an empty database).
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'catalog.sqlite'), '', { mode: 0o644 });
    chmodSync(join(dataDir, 'catalog.sqlite'), 0o644);
    s = await serve(dataDir);
  });
  afterAll(async () => s.stop());

  it('binds to 127.0.0.1 and keeps the token in a user-only file', () => {
    expect(new URL(s.mcpUrl).hostname).toBe('127.0.0.1');
    const tokenFile = join(dataDir, 'token');
    expect(readFileSync(tokenFile, 'utf8').trim()).toBe(s.token);
    expect(statSync(tokenFile).mode & 0o077).toBe(0);
    expect(statSync(join(dataDir, 'discovery.json')).mode & 0o077).toBe(0);
    // The folder is tightened; the catalog and SQLite's -wal and -shm beside it are this user's alone.
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    for (const f of ['catalog.sqlite', 'catalog.sqlite-wal', 'catalog.sqlite-shm']) expect(statSync(join(dataDir, f)).mode & 0o077, f).toBe(0);
  });

  it('answers 401 without a token and 403 for a foreign Host or Origin', async () => {
    const host = new URL(s.base).host;
    expect((await raw(`${s.base}/api/status`, {})).status).toBe(401);
    expect((await raw(`${s.base}/mcp`, {}, 'POST')).status).toBe(401);
    expect((await raw(`${s.base}/api/status`, { Authorization: 'Bearer nope' })).status).toBe(401);
    const auth = { Authorization: `Bearer ${s.token}` };
    expect((await raw(`${s.base}/api/status`, auth)).status).toBe(200);
    expect((await raw(`${s.base}/api/status`, { ...auth, Host: `evil.example:${new URL(s.base).port}` })).status).toBe(403);
    expect((await raw(`${s.base}/api/status`, { ...auth, Origin: 'http://evil.example' })).status).toBe(403);
    expect((await raw(`${s.base}/mcp`, { ...auth, Origin: 'http://evil.example' }, 'POST')).status).toBe(403);
    expect((await raw(`${s.base}/api/status`, { ...auth, Origin: `http://${host}` })).status).toBe(200);
  });

  it('opens the dashboard already authorised through the printed URL', async () => {
    const r = await raw(s.dashboardUrl, {});
    expect(r.status).toBe(302);
    const cookie = String(r.headers['set-cookie']).split(';')[0]!;
    expect(String(r.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    expect(cookie).not.toContain(s.token);
    expect((await raw(`${s.base}/api/status`, { Cookie: cookie })).status).toBe(200);
    expect((await raw(`${s.base}/auth?token=wrong`, {})).status).toBe(401);
  });

  it('opens MCP sessions only for initialize requests', async () => {
    const auth = { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const r = await fetch(s.mcpUrl, { method: 'POST', headers: auth, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(r.status).toBe(400);
    const before = ((await (await fetch(`${s.base}/api/status`, { headers: auth })).json()) as { clients: number }).clients;
    for (let i = 0; i < 5; i++) await fetch(s.mcpUrl, { method: 'POST', headers: auth, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(((await (await fetch(`${s.base}/api/status`, { headers: auth })).json()) as { clients: number }).clients).toBe(before);
  });

  it('serves Streamable HTTP MCP with the bearer token', async () => {
    const client = await httpClient(s.mcpUrl, s.token);
    const r = (await client.callTool({ name: 'list_screenshots', arguments: {} })) as CallToolResult;
    expect(r.structuredContent).toMatchObject({ screenshots: [] });
    await client.close();
  });

  it('relays two stdio clients to the running server, sharing one catalog and activity log', async () => {
    const a = await stdioClient(['mcp', '--data-dir', dataDir], {}, 'agent-a');
    const b = await stdioClient(['mcp', '--data-dir', dataDir], {}, 'agent-b');
    expect(a.stderr()).toMatch(/relaying to the app/);
    // Pause through the server's API; both relayed clients see it in their tool results.
    const res = await fetch(`${s.base}/api/input/pause`, { method: 'POST', headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ paused: true }) });
    expect(res.status).toBe(200);
    for (const c of [a, b]) {
      const r = (await c.client.callTool({ name: 'click', arguments: { target: 'desktop:window:1', x: 1, y: 1 } })) as CallToolResult;
      expect((r.content[0] as { text: string }).text).toMatch(/^INPUT_PAUSED/);
    }
    const log = (await (await fetch(`${s.base}/api/activity`, { headers: { Authorization: `Bearer ${s.token}` } })).json()) as { entries: { client: string; result: string }[] };
    expect(log.entries.map((e) => e.client).sort()).toEqual(['agent-a', 'agent-b']);
    await a.client.close();
    await b.client.close();
  });

  it('ignores a stale discovery file and runs in-process', async () => {
    const other = tempDir();
    writeFileSync(join(other, 'settings.json'), JSON.stringify({ sources: { desktop: { enabled: false }, browser: { enabled: false }, android: { enabled: false }, manictime: { enabled: false } } }));
    // A discovery file left by an app that has gone (no such pid; nothing listening).
    writeFileSync(join(other, 'discovery.json'), JSON.stringify({ pid: 2 ** 22 + 7, url: 'http://127.0.0.1:9', mcpUrl: 'http://127.0.0.1:9/mcp', token: 'x'.repeat(43), version: '0', startedAt: new Date().toISOString() }), { mode: 0o600 });
    const c = await stdioClient(['mcp', '--data-dir', other]);
    const r = (await c.client.callTool({ name: 'list_screenshots', arguments: {} })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(c.stderr()).toMatch(/in-process core/);
    await c.client.close();
    expect(existsSync(join(other, 'catalog.sqlite'))).toBe(true);
  });
});
