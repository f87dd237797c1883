/**
 * Every screen of the built dashboard passes axe-core (the library, injected into the page) with no
 * serious or critical violation, in the light and the dark theme: Timeline, Search, Viewer,
 * Activity, Routines, Targets, Setup and Settings, on the real `sightline serve` over a seeded catalog.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/main/core/catalog/catalog.ts';
import type { FrameRecord } from '../../src/main/core/catalog/types.ts';
import { serve, type Served } from '../support/cli.ts';
import { ALL_SOURCES_OFF, explainViolations as explain, launchBrowser, minutesAgo, openDashboard, screenshot, seedFrames, seriousViolations as violations, writeSettings } from './support.ts';

describe('accessibility of every screen (axe-core, sightline serve + Chromium)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-axe-'));
  let s: Served;
  let browser: Browser;
  let frames: FrameRecord[];

  beforeAll(async () => {
    // One source on and unavailable (an adb that does not exist): Setup and Targets show a problem.
    writeSettings(dataDir, { ...ALL_SOURCES_OFF, sources: { ...ALL_SOURCES_OFF.sources, android: { enabled: true } }, android: { adbPath: '/nonexistent/adb' }, ocr: { index: false } });
    frames = await seedFrames(dataDir, [
      { source: 'browser', target: 'browser:AB12', capturedAt: minutesAgo(5), look: 'browser', width: 640, height: 400, title: 'Checkout', label: { title: 'Checkout · Shop', document: 'https://shop.example/checkout' } },
      { source: 'desktop', target: 'desktop:window:0x1', capturedAt: minutesAgo(9), look: 'editor', width: 640, height: 400, label: { title: 'notes.md — Editor', app: 'Editor' }, pinned: true },
      { source: 'android', target: 'android:emulator-5554', capturedAt: minutesAgo(14), look: 'phone', width: 270, height: 600, label: { app: 'com.example.weather' } },
    ]);
    const catalog = Catalog.open(dataDir);
    try {
      frames.forEach((f, i) => catalog.text.put({ ref: f.ref, text: `weekly forecast ${i}`, boxes: [], label: f.label ?? {}, status: 'read' }));
      catalog.activity.append({ at: minutesAgo(4), tool: 'click', source: 'browser', target: 'browser:AB12', result: 'ok', frameRef: frames[0]!.ref, imagePoint: { x: 100, y: 80 }, sourcePoint: { x: 100, y: 80 }, durationMs: 40, client: 'e2e-agent' });
      catalog.activity.append({ at: minutesAgo(3), tool: 'type_text', source: 'browser', target: 'browser:AB12', result: 'INPUT_PAUSED', message: 'Agent input is paused.', frameRef: frames[0]!.ref, params: { text: 'hello' }, durationMs: 2, client: 'e2e-agent' });
    } finally {
      catalog.close();
    }
    // A saved routine with a secret input (never run: Routines says so).
    mkdirSync(join(dataDir, 'routines'));
    const routine = {
      format: 'sightline-routine',
      version: 1,
      name: 'weekly-report',
      description: 'File the weekly report',
      createdAt: minutesAgo(2),
      target: { source: 'browser', origin: 'https://shop.example' },
      inputs: [{ name: 'password', secret: true }],
      steps: [
        { kind: 'type_text', aim: { role: 'textbox', name: 'Password', purpose: 'field' }, params: { text: { input: 'password' } } },
        { kind: 'click', aim: { role: 'button', name: 'Send', purpose: 'control' }, params: {}, expect: { url: 'https://shop.example/sent' } },
      ],
    };
    writeFileSync(join(dataDir, 'routines', 'weekly-report.json'), JSON.stringify(routine));
    s = await serve(dataDir);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`has no serious or critical violation on any screen (${scheme})`, async () => {
      const page = await openDashboard(browser, s.dashboardUrl, { colorScheme: scheme, width: 1280, height: 800, bypassCSP: true });
      try {
        const screens: [string, () => Promise<void>][] = [
          ['Timeline', async () => {
            await page.goto(`${s.base}/#/timeline`);
            await page.getByTestId('frame-row').first().waitFor();
          }],
          ['Search', async () => {
            await page.getByTestId('timeline-search').fill('forecast');
            await page.getByTestId('timeline-search').press('Enter');
            await page.getByTestId('search-hit').first().waitFor();
          }],
          ['Viewer', async () => {
            await page.goto(`${s.base}/#/timeline/${frames[0]!.ref}`);
            await page.getByTestId('viewer-image').waitFor();
            await expect.poll(() => page.getByTestId('viewer-image').evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
          }],
          ['Activity', async () => {
            await page.goto(`${s.base}/#/activity`);
            await page.getByTestId('activity-row').first().waitFor();
          }],
          ['Routines', async () => {
            await page.goto(`${s.base}/#/routines`);
            await page.getByTestId('routine').first().waitFor();
            await page.getByTestId('routine-run').click();
            await page.getByTestId('routine-inputs').waitFor();
          }],
          ['Targets', async () => {
            await page.goto(`${s.base}/#/targets`);
            await page.getByTestId('target-group-android').waitFor();
          }],
          ['Setup', async () => {
            await page.goto(`${s.base}/#/setup`);
            await page.getByTestId('setup-source-android').waitFor();
          }],
          ['Settings', async () => {
            await page.goto(`${s.base}/#/settings`);
            await page.getByTestId('settings-form').locator('input').first().waitFor();
          }],
          ['Settings with input paused', async () => {
            await page.getByTestId('pause-switch').click();
            await expect.poll(() => page.getByTestId('pause-switch').getAttribute('data-paused')).toBe('true');
          }],
        ];
        const failures: string[] = [];
        for (const [name, open] of screens) {
          await open();
          // Transitions finished: colours are measured as they settle.
          await page.waitForTimeout(300);
          const vs = await violations(page);
          if (scheme === 'dark' && (name === 'Setup' || name === 'Activity')) await screenshot(page, `${name.toLowerCase()}-dark`);
          if (vs.length > 0) failures.push(`${name} (${scheme}):\n${explain(vs)}`);
        }
        // The whole list, not the assertion's cut of it: each finding names its elements and why.
        if (failures.length > 0) process.stderr.write(`${failures.join('\n\n')}\n`);
        expect(failures.join('\n\n')).toBe('');
      } finally {
        await page.getByTestId('pause-switch').click();
        await page.context().close();
      }
    });
  }
});
