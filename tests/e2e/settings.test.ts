/**
 * Settings that cannot take effect are refused where they are typed, on the real `sightline serve`
 * and the built dashboard in headless Chromium: a ManicTime folder that does not exist, an X11
 * display that is no display name or that no X server answers (a real Xvfb answers the good one).
 * A setting an environment variable wins over says so, and what the file holds stays editable.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type Served } from '../support/cli.ts';
import { startXvfb, type XDisplay } from '../support/xvfb.ts';
import { ALL_SOURCES_OFF, launchBrowser, openDashboard, writeSettings } from './support.ts';

describe('settings that cannot take effect (sightline serve + Chromium)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-settings-'));
  /** What MANICTIME_DATA_DIR names, and a second real folder the person picks. */
  const fromEnv = mkdtempSync(join(tmpdir(), 'sightline-e2e-manictime-env-'));
  const picked = mkdtempSync(join(tmpdir(), 'sightline-e2e-manictime-'));
  let s: Served;
  let x: XDisplay;
  let browser: Browser;
  let page: Page;
  const file = (): Record<string, Record<string, unknown> | undefined> => JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  const field = (key: string) => page.getByTestId(`setting-${key}`);
  const errorOf = (key: string) => page.locator(`#setting-${key.replace(/\./g, '\\.')}-error`);

  async function save(key: string, value: string): Promise<void> {
    // Typed again until the form holds it as a change: a form that is still loading the settings
    // (after a reload) puts the saved value back over what was typed first.
    const save = page.getByTestId('settings-save');
    await expect
      .poll(async () => {
        await field(key).fill(value);
        return save.isEnabled();
      })
      .toBe(true);
    await save.click();
  }

  beforeAll(async () => {
    x = await startXvfb('640x480');
    writeSettings(dataDir, { ...ALL_SOURCES_OFF, ocr: { index: false } });
    // DISPLAY empty: the saved display is the one that counts.
    s = await serve(dataDir, { MANICTIME_DATA_DIR: fromEnv, DISPLAY: '' });
    browser = await launchBrowser();
    page = await openDashboard(browser, s.dashboardUrl);
    await page.goto(`${s.base}/#/settings`);
    await field('manictime.dataDir').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await x?.stop();
    for (const d of [dataDir, fromEnv, picked]) rmSync(d, { recursive: true, force: true });
  });

  it('refuses a ManicTime folder that does not exist, and keeps the file as it was', async () => {
    await save('manictime.dataDir', '/nonexistent/ManicTime');
    await expect.poll(() => errorOf('manictime.dataDir').innerText(), { timeout: 10_000 }).toContain('There is no folder /nonexistent/ManicTime on this computer.');
    expect(file().manictime).toBeUndefined();
    await save('manictime.dataDir', picked);
    await expect.poll(() => file().manictime?.dataDir, { timeout: 10_000 }).toBe(picked);
    expect(await errorOf('manictime.dataDir').count()).toBe(0);
  });

  it('names the environment variable that wins over a field, and shows what the file holds', async () => {
    await page.reload();
    await field('manictime.dataDir').waitFor();
    // The field is what saving changes (the file), not the environment's value that replaced it.
    expect(await field('manictime.dataDir').inputValue()).toBe(picked);
    const note = page.locator('[data-testid="env-note"]');
    await expect.poll(() => note.count(), { timeout: 10_000 }).toBe(1);
    expect(await note.innerText()).toContain(fromEnv);
    expect(await note.innerText()).toContain('MANICTIME_DATA_DIR');
    // Fields no variable overrides carry no such note.
    expect(await page.locator('[data-testid="env-note"]').count()).toBe(1);
  });

  it('refuses an X11 display that is no display name, or that no X server answers; takes one that does', async () => {
    await save('desktop.display', 'banana');
    await expect.poll(() => errorOf('desktop.display').innerText(), { timeout: 10_000 }).toContain('"banana" is not an X11 display name');
    await save('desktop.display', ':987');
    await expect.poll(() => errorOf('desktop.display').innerText(), { timeout: 10_000 }).toContain('No X server answers at display :987');
    expect(file().desktop).toBeUndefined();
    await save('desktop.display', x.display);
    await expect.poll(() => file().desktop?.display, { timeout: 10_000 }).toBe(x.display);
  });

  it('says a bad number in a person\'s words, and announces unsaved changes only when there are some', async () => {
    const unsaved = page.getByTestId('unsaved');
    await page.reload();
    await field('capture.quality').waitFor();
    expect(await unsaved.textContent()).toBe('');
    // Out of the screen reader's reach while hidden.
    expect(await page.locator('.savebar').getAttribute('inert')).not.toBeNull();
    await save('capture.quality', '500');
    await expect.poll(() => errorOf('capture.quality').innerText(), { timeout: 10_000 }).toBe('Must be at most 100.');
    expect(await unsaved.textContent()).toBe('You have unsaved changes.');
    await page.getByRole('button', { name: 'Revert' }).click();
    await expect.poll(() => unsaved.textContent(), { timeout: 10_000 }).toBe('');
  });
});
