/**
 * Setup's switch for apps that show their controls only when asked: the real desktop source on
 * Xvfb + openbox with an AT-SPI bus, an in-process core behind the real HTTP server, the built
 * dashboard in headless Chromium (at a phone's width too). The desktop card's check offers the
 * switch with what it changes and for which apps; turning it on writes Sightline's Chromium
 * launcher and turns the session's accessibility status on, turning it off undoes both.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/main/core/http/server.ts';
import { BUILTIN_SOURCES, createCore, type Core } from '../../src/main/core/index.ts';
import { startA11y, type A11ySession } from '../support/a11y.ts';
import { startXvfb, type XDisplay } from '../support/xvfb.ts';
import { launchBrowser, openDashboard, screenshot } from './support.ts';

const DASHBOARD = resolve(import.meta.dirname, '../../out/renderer');
const OTHERS_OFF = Object.fromEntries(BUILTIN_SOURCES.filter((m) => m.name !== 'desktop').map((m) => [m.name, { enabled: false }]));

describe('Setup: start Chromium, Electron and Qt apps with accessibility on (real desktop source + Chromium)', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-appaccess-'));
  const home = mkdtempSync(join(tmpdir(), 'sightline-e2e-appaccess-home-'));
  let x: XDisplay;
  let a: A11ySession;
  let core: Core;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    x = await startXvfb('1024x768');
    a = await startA11y(x);
    const env = { PATH: process.env.PATH, HOME: home, DBUS_SESSION_BUS_ADDRESS: a.env.DBUS_SESSION_BUS_ADDRESS, XDG_DATA_DIRS: '/usr/share' };
    core = await createCore({ dataDir, env, settings: { sources: OTHERS_OFF, desktop: { display: x.display } }, log: () => undefined });
    server = await startServer(core, { staticDir: DASHBOARD, log: () => undefined });
    browser = await launchBrowser();
    page = await openDashboard(browser, server.dashboardUrl);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await core?.close();
    await a?.stop();
    await x?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  const launcher = join(home, '.local/share/applications/chromium.desktop');
  function busStatus(): string {
    const r = spawnSync('dbus-send', ['--session', '--print-reply=literal', '--dest=org.a11y.Bus', '/org/a11y/bus', 'org.freedesktop.DBus.Properties.Get', 'string:org.a11y.Status', 'string:IsEnabled'], { env: a.env, encoding: 'utf8' });
    return r.stdout.trim().split(/\s+/).pop() ?? '';
  }

  it('offers the switch on the desktop card, says what it changes, and applies and undoes it', async () => {
    await page.getByTestId('nav-setup').click();
    const card = page.getByTestId('setup-source-desktop');
    const check = card.locator('[data-check="app-accessibility"]');
    await check.waitFor({ state: 'visible', timeout: 30_000 });
    const choice = check.getByTestId('check-setting');
    expect(await choice.getAttribute('data-on')).toBe('false');
    expect(await choice.innerText()).toMatch(/Start these apps with accessibility on[\s\S]*--force-renderer-accessibility[\s\S]*here: Chromium/);
    const toggle = choice.getByTestId('check-setting-switch');
    expect(await toggle.isChecked()).toBe(false);

    await toggle.click();
    await expect.poll(() => choice.getAttribute('data-on'), { timeout: 15_000 }).toBe('true');
    expect(await toggle.isChecked()).toBe(true);
    expect(existsSync(launcher)).toBe(true);
    expect(busStatus()).toBe('true');
    await expect.poll(() => check.innerText()).toMatch(/On: launchers for Chromium/);
    await screenshot(page, 'setup-app-accessibility');

    await toggle.click();
    await expect.poll(() => choice.getAttribute('data-on'), { timeout: 15_000 }).toBe('false');
    expect(existsSync(launcher)).toBe(false);
    expect(busStatus()).toBe('false');
  });

  it('wraps within its check at a phone’s width', async () => {
    const narrow = await openDashboard(browser, server.dashboardUrl, { width: 390, height: 800 });
    try {
      await narrow.getByTestId('nav-setup').click();
      const choice = narrow.locator('[data-check="app-accessibility"]').getByTestId('check-setting');
      await choice.waitFor({ state: 'visible', timeout: 30_000 });
      // Its text (a long folder path among it) wraps inside its check: it never widens the card.
      const box = (await choice.boundingBox())!;
      const row = (await narrow.locator('[data-check="app-accessibility"]').boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(row.x);
      expect(box.x + box.width).toBeLessThanOrEqual(row.x + row.width + 0.5);
    } finally {
      await narrow.context().close();
    }
  });
});
