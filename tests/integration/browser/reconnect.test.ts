/**
 * Losing the browser and finding it again, and Sightline's own launch path, with real
 * Chromium processes that the tests kill and restart.
 */
import { ready } from '../../../src/main/core/sources/aim.ts';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserSource } from '../../../src/main/core/sources/browser/browserSource.ts';
import type { CaptureOptions } from '../../../src/main/core/sources/source.ts';
import { SightlineError } from '../../../src/shared/errors.ts';
import { CHROMIUM, connectDriver, driverPage, serveFixtures, startChromium, type FixtureServer } from '../../fixtures/browser/harness.ts';

let srv: FixtureServer;
const dirs: string[] = [];
const signal = new AbortController().signal;
const defaults: CaptureOptions = { maxDimension: 1000, format: 'jpeg', quality: 70, raw: false, signal };

function tmp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

async function failure(p: Promise<unknown>): Promise<SightlineError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(SightlineError);
    return e as SightlineError;
  }
  throw new Error('expected a SightlineError');
}

beforeAll(async () => {
  srv = await serveFixtures();
});

afterAll(async () => {
  await srv?.close();
  // Chromium's helper processes outlive a killed browser for a moment and may still write here.
  for (const d of dirs) rmSync(d, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
});

describe('connection loss', () => {
  it('fails a call in flight with CDP_CONNECTION_LOST, and the next call after a restart works', async () => {
    let chrome = await startChromium({ url: srv.url('page.html') });
    const source = createBrowserSource({ settings: { endpoint: chrome.endpoint, headless: true }, dataDir: tmp('sightline-data-') });
    try {
      const [tab] = (await source.screen.listTargets(signal)).filter((t) => String(t.details?.url).endsWith('page.html'));
      await source.screen.capture(tab!.id, defaults);

      // Make the renderer busy, so the next capture is still waiting when the browser dies.
      const driver = await connectDriver(chrome.endpoint);
      const page = await driverPage(driver, tab!.id.slice('browser:'.length));
      await page.click('#busy');
      await driver.disconnect();
      await new Promise((r) => setTimeout(r, 300));
      const inFlight = failure(source.screen.capture(tab!.id, defaults));
      await new Promise((r) => setTimeout(r, 300));
      await chrome.kill();
      chrome.cleanup();
      const lost = await inFlight;
      expect(lost.code).toBe('CDP_CONNECTION_LOST');
      expect(lost.hint).toMatch(/[Cc]all again/);

      // Nothing answers until the browser is back: a clear error, not a hang or a crash.
      const down = await failure(source.screen.listTargets(signal));
      expect(down.code).toBe('SOURCE_UNAVAILABLE');
      expect(down.message).toContain(chrome.endpoint);
      expect((await source.health()).available).toBe(false);

      // The user restarts the browser on the same port (a killed profile stays locked a while: use a fresh one).
      chrome = await startChromium({ url: srv.url('page.html'), port: chrome.port });
      const tabs = await source.screen.listTargets(signal);
      const again = tabs.find((t) => String(t.details?.url).endsWith('page.html'));
      expect(again).toBeDefined();
      const cap = await source.screen.capture(again!.id, defaults);
      expect(cap.encoded!.width).toBe(1000);
      expect((await source.health()).available).toBe(true);
    } finally {
      await source.dispose!();
      await chrome.kill();
      chrome.cleanup();
    }
  });

  it('reconnects on the next call after the connection drops between calls', async () => {
    let chrome = await startChromium({ url: srv.url('page.html') });
    const source = createBrowserSource({ settings: { endpoint: chrome.endpoint, headless: true }, dataDir: tmp('sightline-data-') });
    try {
      const first = (await source.screen.listTargets(signal))[0]!;
      await chrome.kill();
      chrome.cleanup();
      chrome = await startChromium({ url: srv.url('other.html'), port: chrome.port });
      // The old tab is gone with its browser; the new one is found on the same endpoint.
      expect((await failure(source.screen.capture(first.id, defaults))).code).toBe('TAB_NOT_FOUND');
      const tabs = await source.screen.listTargets(signal);
      expect(tabs.map((t) => t.details?.url)).toContain(srv.url('other.html'));
    } finally {
      await source.dispose!();
      await chrome.kill();
      chrome.cleanup();
    }
  });
});

describe('launching', () => {
  it('launches Chromium with a dedicated profile, works with it, and closes it on dispose', async () => {
    const dataDir = tmp('sightline-data-');
    const home = tmp('sightline-home-');
    const source = createBrowserSource({
      settings: { executablePath: CHROMIUM, headless: true },
      dataDir,
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
    });
    const health = await source.health();
    expect(health.available).toBe(true);

    const target = await source.launch();
    expect(target).toMatch(/^browser:[A-F0-9]+$/);
    const profile = join(dataDir, 'browser-profile');
    const activePort = join(profile, 'DevToolsActivePort');
    expect(existsSync(activePort)).toBe(true);
    const port = Number(readFileSync(activePort, 'utf8').split('\n')[0]);
    expect((await source.screen.listTargets(signal)).map((t) => t.id)).toContain(target);
    const cap = await source.screen.capture(target, defaults);
    expect(cap.encoded!.data.length).toBeGreaterThan(0);
    await source.input.perform(ready({ kind: 'press_key', target, key: 'Tab' }), signal);

    await source.dispose!();
    const answered = await fetch(`http://127.0.0.1:${port}/json/version`).then(
      () => true,
      () => false,
    );
    expect(answered).toBe(false);
  });

  it('reports what to do when no browser answers at the configured endpoint', async () => {
    const source = createBrowserSource({ settings: { endpoint: 'http://127.0.0.1:9', headless: true }, dataDir: tmp('sightline-data-') });
    const health = await source.health();
    expect(health).toMatchObject({ source: 'browser', available: false });
    expect(health.reason).toContain('http://127.0.0.1:9');
    expect(health.remediation).toMatch(/--remote-debugging-port=9222/);
    expect(health.remediation).toMatch(/--user-data-dir/);
    expect(health.remediation).toMatch(/browser\.endpoint/);
    const e = await failure(source.screen.listTargets(signal));
    expect(e.code).toBe('SOURCE_UNAVAILABLE');
    await source.dispose!();
  });

  it('refuses a configured executable that does not exist, without launching anything', async () => {
    const source = createBrowserSource({ settings: { executablePath: '/nonexistent/chrome', headless: true }, dataDir: tmp('sightline-data-') });
    const e = await failure(source.launch());
    expect(e.code).toBe('SOURCE_UNAVAILABLE');
    expect(e.message).toContain('/nonexistent/chrome');
    await source.dispose!();
  });
});
