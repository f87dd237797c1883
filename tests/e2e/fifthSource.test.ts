/**
 * A fifth source reaches the dashboard without a change to the dashboard or the core: an
 * in-process core with the built-in sources off and the test module `fake`
 * (tests/support/fifthSource) behind the real HTTP server, the built dashboard in headless
 * Chromium. Its target group and Capture button, its Setup card and check, its Settings
 * switch and fields (saved, and refused with the server's message) all come from
 * `GET /api/sources` and the module's own settings schema.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/main/core/http/server.ts';
import { BUILTIN_SOURCES, createCore, type Core } from '../../src/main/core/index.ts';
import type { FrameSummary } from '../../src/shared/api.ts';
import { fakeModule } from '../support/fifthSource/module.ts';
import { slowHealth } from '../support/fifthSource/source.ts';
import { launchBrowser, openDashboard, screenshot } from './support.ts';

const DASHBOARD = resolve(import.meta.dirname, '../../out/renderer');
const BUILTINS_OFF = Object.fromEntries(BUILTIN_SOURCES.map((m) => [m.name, { enabled: false }]));

describe('a fifth source in the dashboard (in-process core + Chromium)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-fifth-'));
  let core: Core;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    core = await createCore({ dataDir, modules: [...BUILTIN_SOURCES, fakeModule], settings: { sources: BUILTINS_OFF }, log: () => undefined });
    server = await startServer(core, { staticDir: DASHBOARD, log: () => undefined });
    browser = await launchBrowser();
    page = await openDashboard(browser, server.dashboardUrl);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await core?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const targetTitles = (): Promise<string[]> => page.locator('[data-testid="target-group-fake"] [data-testid="target-row"] .ttitle').allInnerTexts();

  it('is not named anywhere in the built dashboard', () => {
    const assets = join(DASHBOARD, 'assets');
    const scripts = readdirSync(assets).filter((f) => f.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const f of scripts) expect(readFileSync(join(assets, f), 'utf8')).not.toMatch(/Fake screens|fake:screen/);
  });

  it('lists its screen under its own group on Targets, and Capture now adds a frame to the timeline', async () => {
    await page.getByTestId('nav-targets').click();
    const group = page.getByTestId('target-group-fake');
    await group.waitFor({ state: 'visible' });
    expect(await group.locator('h2').innerText()).toBe('Fake screens');
    await expect.poll(targetTitles).toEqual(['Fake 1']);
    // Only the fake source is on: no other group is listed.
    expect(await page.locator('[data-testid^="target-group-"]').count()).toBe(1);
    await screenshot(page, 'fifth-source-targets');

    const row = group.locator('[data-testid="target-row"][data-target="fake:screen:1"]');
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/capture')), row.getByTestId('capture-now').click()]);
    expect(response.status()).toBe(200);
    const { frame } = (await response.json()) as { frame: FrameSummary };
    expect(frame).toMatchObject({ source: 'fake', target: 'fake:screen:1' });

    await page.getByTestId('nav-timeline').click();
    const filter = page.getByTestId('filter-source-fake');
    expect(await filter.innerText()).toBe('Fake screens');
    await filter.click();
    await expect.poll(() => filter.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByTestId('frame-count').innerText()).toBe('1 frame');
    const listed = page.locator(`[data-testid="frame-row"][data-ref="${frame.ref}"]`);
    await listed.waitFor({ state: 'visible' });
    expect(await listed.innerText()).toContain('Fake screens');
    // Its thumbnail is the captured image, decoded.
    await expect.poll(() => listed.locator('img[data-testid="thumbnail"]').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
  });

  it('shows its card and check on Setup', async () => {
    await page.getByTestId('nav-setup').click();
    const card = page.getByTestId('setup-source-fake');
    await card.waitFor({ state: 'visible' });
    expect(await card.locator('h2').innerText()).toBe('Fake screens');
    await expect.poll(() => card.getByTestId('setup-state').innerText()).toMatch(/Ready/);
    const check = card.locator('[data-check="fake.screens"]');
    expect(await check.getAttribute('data-status')).toBe('ok');
    expect(await check.innerText()).toContain('1 screen(s)');
  });

  it('is configured in Settings: its switch and fields, a bad value refused under its field, a good one applied', async () => {
    await page.getByTestId('nav-settings').click();
    const toggle = page.getByTestId('setting-sources.fake.enabled');
    await toggle.waitFor({ state: 'visible' });
    expect(await toggle.isChecked()).toBe(true);
    expect(await page.locator('label[for="setting-sources.fake.enabled"]').innerText()).toBe('Fake screens');
    const screens = page.getByTestId('setting-fake.screens');
    const label = page.getByTestId('setting-fake.label');
    expect(await screens.inputValue()).toBe('1');
    expect(await label.inputValue()).toBe('Fake');

    // Out of the module's range, and a core field out of its own: the server's validation lands
    // under both fields at once, not one per save.
    await screens.fill('99');
    await page.getByTestId('setting-capture.quality').fill('500');
    await page.getByTestId('settings-save').click();
    const error = page.locator('[id="setting-fake.screens-error"]');
    await expect.poll(() => error.innerText()).toBe('Must be at most 8.');
    expect(await page.locator('[id="setting-capture.quality-error"]').innerText()).toBe('Must be at most 100.');
    expect(await page.getByTestId('settings-problems').innerText()).toMatch(/2 fields need a change before saving: .*Quality.*Fake screens|2 fields need a change before saving: .*Fake screens.*Quality/);
    expect(await screens.getAttribute('aria-invalid')).toBe('true');
    await page.getByTestId('setting-capture.quality').fill(String(core.settings.values().capture.quality));
    expect((core.settings.values() as { fake?: unknown }).fake).toEqual({ screens: 1, label: 'Fake' });
    await screenshot(page, 'fifth-source-settings-error');

    await screens.fill('2');
    await page.getByTestId('settings-save').click();
    await expect.poll(() => page.getByTestId('field-error').count()).toBe(0);
    await expect.poll(() => (JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { fake?: { screens?: number } }).fake?.screens).toBe(2);

    // The module was rebuilt with its new settings: Targets lists two screens.
    await page.getByTestId('nav-targets').click();
    await expect.poll(targetTitles).toEqual(['Fake 1', 'Fake 2']);
  });

  it("pauses and resumes at once, shown and in effect, while a source's probe hangs; a page opened then has a working switch", async () => {
    const auth = { headers: { Authorization: `Bearer ${server.token}` } };
    const release = slowHealth.hold();
    try {
      // A check of every source is under way and does not come back (Setup's "Check again" asks for one).
      const probing = fetch(`${server.url}/api/status?fresh=true`, auth).then(() => 'answered');
      await expect.poll(() => slowHealth.pending).toBeGreaterThan(0);
      // A page opened now: its switch is usable once the event stream opens, not after the probe.
      const fresh = await openDashboard(browser, server.dashboardUrl);
      try {
        const toggle = async (want: boolean): Promise<{ pageMs: number; serverMs: number }> => {
          const answered = fresh.waitForResponse((r) => r.url().endsWith('/api/input/pause'));
          // In the page: from the click to the switch showing the new state.
          const pageMs = (await fresh.evaluate(`new Promise((resolve, reject) => {
            const sw = document.querySelector('[data-testid="pause-switch"]');
            const t0 = performance.now();
            const mo = new MutationObserver(() => { if (sw.getAttribute('data-paused') === '${want}') { mo.disconnect(); resolve(performance.now() - t0); } });
            mo.observe(sw, { attributes: true });
            setTimeout(() => reject(new Error('the switch did not change')), 10000);
            sw.click();
          })`)) as number;
          // At the server: the request's own time (sent to answered), the state set when it answers.
          const response = await answered;
          const t = response.request().timing();
          expect(core.settings.values().input.paused).toBe(want);
          expect(((await response.json()) as { paused: boolean }).paused).toBe(want);
          return { pageMs, serverMs: t.responseEnd - t.requestStart };
        };
        const paused = await toggle(true);
        const resumed = await toggle(false);
        // Both took effect while the probe still hung: neither waited on it.
        expect(slowHealth.pending).toBeGreaterThan(0);
        expect(await Promise.race([probing, new Promise((r) => setTimeout(() => r('waiting'), 50))])).toBe('waiting');
        process.stdout.write(`[e2e] pause: shown ${paused.pageMs.toFixed(1)} ms, in effect at the server ${paused.serverMs.toFixed(1)} ms; resume: shown ${resumed.pageMs.toFixed(1)} ms, server ${resumed.serverMs.toFixed(1)} ms (a probe hanging throughout)\n`);
      } finally {
        await fresh.context().close();
      }
      release();
      expect(await probing).toBe('answered');
    } finally {
      release();
    }
  });
});
