/**
 * The smaller things a person meets, on the real `sightline serve` and the built dashboard in
 * headless Chromium: a first run opens on Setup; a source the person does not use can be set aside
 * (and taken back); the viewer gives an archive frame's real size, zooms and shows it 1:1; focus
 * stays on the timeline list, never on a row slot that scrolling refills; and the dashboard speaks
 * in its own words, not an agent's.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/renderer/lib/format.ts';
import type { FramesPage } from '../../src/shared/api.ts';
import { serve, type Served } from '../support/cli.ts';
import { createManicTimeFixture, type ManicTimeFixture } from '../support/manictimeFixture.ts';
import { ALL_SOURCES_OFF, launchBrowser, minutesAgo, openDashboard, screenshot, seedFrames, writeSettings } from './support.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('a first run (sightline serve + Chromium)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-first-'));
  let s: Served;
  let page: Page;

  beforeAll(async () => {
    // Nothing recorded yet, and one source on that cannot work here (no adb).
    writeSettings(dataDir, { ...ALL_SOURCES_OFF, sources: { ...ALL_SOURCES_OFF.sources, android: { enabled: true } }, android: { adbPath: '/nonexistent/adb' }, ocr: { index: false } });
    s = await serve(dataDir);
    page = await openDashboard(browser, s.dashboardUrl);
  });

  afterAll(async () => {
    await s?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens on Setup, not on an empty timeline', async () => {
    await expect.poll(() => new URL(page.url()).hash, { timeout: 10_000 }).toBe('#/setup');
    await page.getByTestId('setup-source-android').waitFor();
    // A link to a screen is still followed.
    await page.goto(`${s.base}/#/timeline`);
    await page.reload();
    await page.getByTestId('timeline-viewport').waitFor();
    expect(new URL(page.url()).hash).toBe('#/timeline');
  });

  it('sets aside a source the person does not use, and takes it back', async () => {
    await page.goto(`${s.base}/#/setup`);
    const card = page.getByTestId('setup-source-android');
    await expect.poll(() => card.getByTestId('setup-state').innerText(), { timeout: 15_000 }).toContain('Needs attention');
    await expect.poll(() => page.locator('[data-testid="nav-setup"] .count').innerText()).toBe('1');

    await card.getByTestId('source-unused-android').click();
    await expect.poll(() => card.getByTestId('setup-state').innerText()).toContain('Off');
    // No longer counted as needing attention, anywhere.
    await expect.poll(() => page.locator('[data-testid="nav-setup"] .count').count()).toBe(0);
    expect(await page.getByTestId('status-sources').innerText()).toBe('0/0 sources ready');
    expect((JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { sources: { android: { enabled: boolean } } }).sources.android.enabled).toBe(false);
    expect(await card.innerText()).toContain('You said you do not use this source');

    await card.getByTestId('source-use-android').click();
    await expect.poll(() => card.getByTestId('setup-state').innerText(), { timeout: 15_000 }).toContain('Needs attention');
    await expect.poll(() => page.locator('[data-testid="nav-setup"] .count').innerText()).toBe('1');
  });

  it('explains connecting an agent where a new user lands: Setup and the empty activity log', async () => {
    for (const screen of ['setup', 'activity'] as const) {
      await page.goto(`${s.base}/#/${screen}`);
      const connect = page.getByTestId('connect-agent');
      await connect.waitFor();
      expect(await connect.getByTestId('connect-url').innerText()).toBe(s.mcpUrl);
      expect(await connect.getByTestId('connect-token-file').innerText()).toBe(join(dataDir, 'token'));
      const config = connect.getByTestId('connect-config');
      // Claude Desktop (and Cursor): this checkout's relay for this data directory, pasted as JSON.
      const desktop = JSON.parse(await config.innerText()) as { mcpServers: { sightline: { command: string; args: string[] } } };
      expect(desktop.mcpServers.sightline.args.slice(-3)).toEqual(['mcp', '--data-dir', dataDir]);
      expect(desktop.mcpServers.sightline.args[0]).toMatch(/bin\/sightline\.js$/);
      await connect.getByTestId('connect-client-cursor').click();
      expect(JSON.parse(await config.innerText())).toEqual(desktop);
      await connect.getByTestId('connect-client-claude-code').click();
      expect(await config.innerText()).toMatch(/^claude mcp add (--env DISPLAY=\S+ )?sightline -- \S+ \S+bin\/sightline\.js mcp --data-dir /);
      await connect.getByTestId('connect-client-http').click();
      expect(await config.innerText()).toBe(`claude mcp add --transport http sightline ${s.mcpUrl} --header "Authorization: Bearer $(cat ${join(dataDir, 'token')})"`);
    }
    expect(await page.getByTestId('activity-empty').innerText()).toContain('No agent activity yet');
    await screenshot(page, 'activity-empty');
  });
});

describe('the viewer, the list and the words (sightline serve over a ManicTime archive + Chromium)', () => {
  const base = mkdtempSync(join(tmpdir(), 'sightline-e2e-details-'));
  const dataDir = join(base, 'data');
  let fx: ManicTimeFixture;
  let s: Served;
  let page: Page;
  const api = async <T>(path: string): Promise<T> => (await fetch(`${s.base}${path}`, { headers: { Authorization: `Bearer ${s.token}` } })).json() as Promise<T>;

  beforeAll(async () => {
    fx = await createManicTimeFixture(join(base, 'mt'));
    mkdirSync(dataDir, { recursive: true });
    writeSettings(dataDir, { ...ALL_SOURCES_OFF, sources: { ...ALL_SOURCES_OFF.sources, manictime: { enabled: true } }, manictime: { dataDir: fx.dataDir }, ocr: { index: false } });
    await seedFrames(dataDir, [
      { source: 'desktop', target: 'desktop:window:0x3a00007', look: 'editor', title: 'main.ts', width: 1280, height: 800, capturedAt: minutesAgo(3) },
      { source: 'desktop', target: 'desktop:window:0x3a00007', look: 'editor', title: 'main.ts', width: 1280, height: 800, capturedAt: minutesAgo(9) },
    ]);
    s = await serve(dataDir);
    page = await openDashboard(browser, s.dashboardUrl, { width: 1280, height: 800 });
  });

  afterAll(async () => {
    await s?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('gives an archive frame its real size on disk, zooms it, and shows it 1:1', async () => {
    const { frames } = await api<FramesPage>('/api/frames?source=manictime&limit=1');
    const frame = frames[0]!;
    // The catalog keeps no size for a file the archive holds.
    expect(frame.bytes).toBe(0);
    const head = await fetch(`${s.base}/api/frames/${frame.ref}/full`, { method: 'HEAD', headers: { Authorization: `Bearer ${s.token}` } });
    const size = Number(head.headers.get('content-length'));
    expect(size).toBeGreaterThan(0);

    await page.goto(`${s.base}/#/timeline/${frame.ref}`);
    const img = page.getByTestId('viewer-image');
    await expect.poll(() => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth), { timeout: 15_000 }).toBeGreaterThan(0);
    const shown = (b: { width: number } | null): number => Math.round(b?.width ?? 0);
    await expect.poll(() => page.getByTestId('viewer-bytes').innerText(), { timeout: 10_000 }).not.toBe('0 B');
    expect(await page.getByTestId('viewer-bytes').innerText()).toBe(formatBytes(size));

    // Zoom, on a frame wider than the pane: 1:1 draws one image pixel per screen pixel, and scrolls.
    const big = (await api<FramesPage>('/api/frames?source=desktop&limit=1')).frames[0]!;
    await page.goto(`${s.base}/#/timeline/${big.ref}`);
    await expect.poll(() => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth), { timeout: 15_000 }).toBe(1280);
    expect(await page.getByTestId('zoom-level').innerText()).toBe('Fit');
    await page.waitForTimeout(100);
    const fit = shown(await img.boundingBox());
    expect(fit).toBeLessThan(1280);
    await page.getByTestId('zoom-actual').click();
    await expect.poll(async () => shown(await img.boundingBox())).toBe(1280);
    expect(await page.getByTestId('zoom-level').innerText()).toBe('100 %');
    const stage = page.getByTestId('viewer-stage');
    expect(await stage.evaluate((el) => (el as unknown as { scrollWidth: number; clientWidth: number }).scrollWidth > (el as unknown as { clientWidth: number }).clientWidth)).toBe(true);
    // From its top left corner: nothing is cut off to the left.
    expect((await img.boundingBox())!.x).toBeGreaterThanOrEqual((await stage.boundingBox())!.x);
    await page.getByTestId('zoom-in').click();
    await expect.poll(async () => shown(await img.boundingBox())).toBe(2560);
    await page.getByTestId('zoom-out').click();
    await page.getByTestId('zoom-out').click();
    await expect.poll(async () => shown(await img.boundingBox())).toBe(640);
    expect(await page.getByTestId('zoom-level').innerText()).toBe('50 %');
    await page.getByTestId('zoom-fit').click();
    await expect.poll(async () => shown(await img.boundingBox())).toBe(fit);
  });

  it('keeps focus on the list while the keyboard walks it, never on a row slot', async () => {
    await page.goto(`${s.base}/#/timeline`);
    const first = page.getByTestId('frame-row').first();
    await first.waitFor();
    await first.click();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    const focused = await page.evaluate(`document.activeElement?.getAttribute('data-testid')`);
    expect(focused).toBe('timeline-viewport');
    expect(await page.locator('[data-testid="frame-row"]:focus').count()).toBe(0);
  });

  it('speaks in the dashboard\'s words: a pin, an old archive, an empty search', async () => {
    // Pin with P on the list: the notice names no tool or parameter.
    await page.getByTestId('timeline-viewport').focus();
    await page.keyboard.press('p');
    const toast = page.getByTestId('toast').last();
    await expect.poll(() => toast.innerText()).toContain('Pinned: agents find it among the pinned screenshots.');
    expect(await toast.innerText()).not.toMatch(/list_screenshots|pinned: true/);

    // The fixture's newest screenshot is from 2024: an age in months, not thousands of hours.
    await page.goto(`${s.base}/#/setup`);
    const check = page.locator('[data-check="manictime.capture"]');
    await expect.poll(() => check.innerText(), { timeout: 15_000 }).toMatch(/The newest screenshot is \d+ months old/);
    expect(await check.innerText()).not.toMatch(/\d h old/);

    await page.goto(`${s.base}/#/timeline`);
    await page.getByTestId('timeline-search').fill('nothingmatchesthis');
    await page.getByTestId('timeline-search').press('Enter');
    await expect.poll(() => page.getByTestId('search-results').innerText(), { timeout: 10_000 }).toMatch(/^Text indexing is off; \d+ of \d+ frames .* have text\. Turn it on in Settings/);
    expect(await page.getByTestId('search-results').innerText()).not.toMatch(/find_text|list_screenshots|a ref|ocr\./);
  });
});


