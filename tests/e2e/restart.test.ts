/**
 * A restart of the server does not strand the dashboard: the real `sightline serve` started without
 * --port comes back on the port its data directory remembers, the page left open finds it again by
 * itself (signed in, live events flowing), and never claims input is live while cut off. A remembered
 * port another program took is replaced, and the server says so.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type Served } from '../support/cli.ts';
import { ALL_SOURCES_OFF, launchBrowser, openDashboard, writeSettings } from './support.ts';

/** A port free now, on loopback. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', () => ok()));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((ok) => srv.close(() => ok()));
  return port;
}

describe('the dashboard survives a server restart (sightline serve + Chromium)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-restart-'));
  let s: Served;
  let browser: Browser;
  let page: Page;
  let squatter: Server | undefined;
  const pause = async (paused: boolean): Promise<void> => {
    const r = await fetch(`${s.base}/api/input/pause`, { method: 'POST', headers: { Authorization: `Bearer ${s.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ paused }) });
    expect(r.status).toBe(200);
  };
  const switchText = (): Promise<string> => page.getByTestId('pause-switch').innerText();

  beforeAll(async () => {
    writeSettings(dataDir, { ...ALL_SOURCES_OFF, ocr: { index: false } });
    // The port this data directory used last (a free one, so parallel runs do not meet).
    writeFileSync(join(dataDir, 'port'), `${await freePort()}\n`);
    s = await serve(dataDir, {}, { port: 'remembered' });
    browser = await launchBrowser();
    page = await openDashboard(browser, s.dashboardUrl);
  });

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await new Promise<void>((ok) => (squatter ? squatter.close(() => ok()) : ok()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('comes back on the remembered port, and the open page reconnects by itself, signed in and live', async () => {
    const port = Number(readFileSync(join(dataDir, 'port'), 'utf8'));
    expect(new URL(s.base).port).toBe(String(port));
    await expect.poll(() => switchText(), { timeout: 10_000 }).toMatch(/Input live/);

    await s.stop();
    // Cut off: the switch says so, never "Input live".
    await expect.poll(() => switchText(), { timeout: 10_000 }).toMatch(/Not connected/);
    expect(await switchText()).not.toMatch(/Input live/);

    s = await serve(dataDir, {}, { port: 'remembered' });
    expect(new URL(s.base).port).toBe(String(port));
    // No reload: the page found the server again, and its session still holds.
    await expect.poll(() => switchText(), { timeout: 20_000 }).toMatch(/Input live/);
    expect(await page.getByTestId('unauthorized').count()).toBe(0);
    await expect.poll(() => page.locator('.reconnecting').count(), { timeout: 10_000 }).toBe(0);
    // Events flow again: a pause from elsewhere shows at once.
    await pause(true);
    await expect.poll(() => switchText(), { timeout: 5000 }).toMatch(/Input paused/);
    await pause(false);
    await expect.poll(() => switchText(), { timeout: 5000 }).toMatch(/Input live/);
  });

  it('takes another port when the remembered one is taken, keeps it, and says so', async () => {
    const old = Number(readFileSync(join(dataDir, 'port'), 'utf8'));
    await s.stop();
    squatter = createServer();
    await new Promise<void>((ok) => squatter!.listen(old, '127.0.0.1', () => ok()));
    s = await serve(dataDir, {}, { port: 'remembered' });
    const now = Number(new URL(s.base).port);
    expect(now).not.toBe(old);
    expect(s.output()).toContain(`Port ${old} is in use by another program, so Sightline listens on port ${now} instead`);
    expect(Number(readFileSync(join(dataDir, 'port'), 'utf8'))).toBe(now);
  });
});
