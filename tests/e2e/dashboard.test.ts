/**
 * The dashboard end to end: the real `sightline serve` over a seeded catalog, the built
 * dashboard in headless Chromium, and a real MCP client over Streamable HTTP.
 * Screenshots of every screen land in test-results/screenshots/ (copies in docs/screenshots/).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrameRecord } from '../../src/main/core/catalog/types.ts';
import type { FrameSummary, StatusInfo } from '../../src/shared/api.ts';
import { httpClient, serve, type Served } from '../support/cli.ts';
import { launchBrowser, minutesAgo, openDashboard, renderLook, screenshot, seedFrames, writeSettings, type SeedFrame } from './support.ts';

const TARGETS = [
  { source: 'desktop', target: 'desktop:window:0x3a00007', look: 'editor', title: 'main.ts — sightline', width: 1280, height: 800 },
  { source: 'browser', target: 'browser:8F3A1C', look: 'browser', title: 'Checkout · Acme Store', width: 1280, height: 720 },
  { source: 'android', target: 'android:emulator-5554', look: 'phone', title: '', width: 540, height: 1200 },
  { source: 'desktop', target: 'desktop:window:0x4c00012', look: 'terminal', title: 'bash — 120×40', width: 1200, height: 760 },
] as const;

describe('dashboard (sightline serve + Chromium)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-'));
  let s: Served;
  let browser: Browser;
  let page: Page;
  let seeded: FrameRecord[];
  let pattern: FrameRecord;
  let agent: Client;
  const token = (): string => readFileSync(join(dataDir, 'token'), 'utf8').trim();
  const api = async <T>(path: string): Promise<T> => (await fetch(`${s.base}${path}`, { headers: { Authorization: `Bearer ${token()}` } })).json() as Promise<T>;

  beforeAll(async () => {
    writeSettings(dataDir, {
      sources: { desktop: { enabled: false }, browser: { enabled: false }, android: { enabled: true }, manictime: { enabled: false } },
      // A missing adb: onboarding must say so.
      android: { adbPath: join(dataDir, 'no-such-adb') },
      // Lossless crops, so the crop test can compare pixels exactly.
      capture: { format: 'png' },
    });
    const specs: SeedFrame[] = [];
    for (let i = 0; i < 23; i++) {
      const t = TARGETS[i % TARGETS.length]!;
      specs.push({ ...t, capturedAt: minutesAgo(10 + i * 9), pinned: i % 5 === 1 });
    }
    // The newest frame: a dense pattern for the crop test.
    specs.push({ source: 'desktop', target: 'desktop:display:0', look: 'pattern', width: 1280, height: 800, capturedAt: minutesAgo(2), format: 'png', ref: 'pattern_1' });
    seeded = await seedFrames(dataDir, specs);
    pattern = seeded.find((f) => f.ref === 'pattern_1')!;
    s = await serve(dataDir);
    browser = await launchBrowser();
    page = await openDashboard(browser, s.dashboardUrl);
    agent = await httpClient(s.mcpUrl, token(), 'e2e-agent');
  });

  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await browser?.close();
    await s?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Refs of the rendered rows in list order (the DOM order is the recycled slots' order). */
  const rowRefs = async (): Promise<string[]> =>
    (await page.locator('[data-testid="frame-row"][data-ref]').evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-index')), e.getAttribute('data-ref') ?? ''] as const)))
      .sort((a, b) => a[0] - b[0])
      .map(([, ref]) => ref);
  const countText = (): Promise<string> => page.getByTestId('frame-count').innerText();

  it('shows every seeded frame newest first, with thumbnails, and filters them', async () => {
    const newestFirst = [...seeded].sort((a, b) => Date.parse(b.capturedAt) - Date.parse(a.capturedAt)).map((f) => f.ref);
    await expect.poll(countText).toBe(`${seeded.length} frames`);
    await expect.poll(async () => (await rowRefs()).slice(0, 8)).toEqual(newestFirst.slice(0, 8));
    // Thumbnails really load (decoded pixels, not a broken image).
    await expect
      .poll(() => page.locator('[data-testid="frame-row"][data-index="0"] img[data-testid="thumbnail"]').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    await page.waitForTimeout(300);
    await screenshot(page, 'timeline');

    // Source filter.
    const android = seeded.filter((f) => f.source === 'android');
    await page.getByTestId('filter-source-android').click();
    await expect.poll(countText).toBe(`${android.length} frames`);
    await expect.poll(async () => new Set(await rowRefs())).toEqual(new Set(android.map((f) => f.ref)));

    // Pinned, combined with the source.
    await page.getByTestId('filter-pinned').click();
    const pinnedAndroid = android.filter((f) => f.pinned);
    await expect.poll(countText).toBe(`${pinnedAndroid.length} ${pinnedAndroid.length === 1 ? 'frame' : 'frames'}`);
    await expect.poll(async () => new Set(await rowRefs())).toEqual(new Set(pinnedAndroid.map((f) => f.ref)));
    await page.getByTestId('filter-pinned').click();
    await page.getByTestId('filter-source-all').click();

    // Target filter.
    const terminal = seeded.filter((f) => f.target === 'desktop:window:0x4c00012');
    await page.getByTestId('filter-target').selectOption('desktop:window:0x4c00012');
    await expect.poll(countText).toBe(`${terminal.length} frames`);
    await expect.poll(async () => new Set(await rowRefs())).toEqual(new Set(terminal.map((f) => f.ref)));
    await page.getByTestId('filter-target').selectOption('');
    await expect.poll(countText).toBe(`${seeded.length} frames`);
  });

  it('crops a dragged region into a new frame whose pixels match the same region cut with sharp', async () => {
    await page.goto(`${s.base}/#/timeline/${pattern.ref}`);
    const img = page.getByTestId('viewer-image');
    await expect.poll(() => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).toBe(1280);
    const box = (await page.getByTestId('cropper').boundingBox())!;
    const from = { x: 0.25, y: 0.3 };
    const to = { x: 0.6, y: 0.72 };
    await page.mouse.move(box.x + box.width * from.x, box.y + box.height * from.y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height * 0.5, { steps: 4 });
    await page.mouse.move(box.x + box.width * to.x, box.y + box.height * to.y, { steps: 4 });
    await page.mouse.up();
    await page.getByTestId('crop-selection').waitFor({ state: 'visible' });
    expect(Number(await page.getByTestId('roi-x').inputValue())).toBeCloseTo(25, 0);
    expect(Number(await page.getByTestId('roi-width').inputValue())).toBeCloseTo(35, 0);
    await screenshot(page, 'viewer-cropper');

    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/api/frames/${pattern.ref}/crop`)), page.getByTestId('save-crop').click()]);
    expect(response.status()).toBe(200);
    const sent = response.request().postDataJSON() as { coordinateUnits: string };
    expect(sent.coordinateUnits).toBe('percent');
    const { frame } = (await response.json()) as { frame: FrameSummary };
    expect(frame.parentRef).toBe(pattern.ref);
    // The region is where the mouse went, to a screen pixel or two (k image px each).
    const k = 1280 / box.width;
    expect(Math.abs(frame.origin.x - 0.25 * 1280)).toBeLessThan(2.5 * k);
    expect(Math.abs(frame.origin.y - 0.3 * 800)).toBeLessThan(2.5 * k);
    expect(Math.abs(frame.image.width - 0.35 * 1280)).toBeLessThan(3 * k);
    expect(Math.abs(frame.image.height - 0.42 * 800)).toBeLessThan(3 * k);

    const cropped = Buffer.from(await (await fetch(`${s.base}/api/frames/${frame.ref}/image`, { headers: { Authorization: `Bearer ${token()}` } })).arrayBuffer());
    const original = await renderLook('pattern', 1280, 800, seeded.indexOf(pattern), '', 'png');
    const expected = await sharp(original)
      .extract({ left: Math.round(frame.origin.x), top: Math.round(frame.origin.y), width: frame.image.width, height: frame.image.height })
      .removeAlpha()
      .raw()
      .toBuffer();
    const actual = await sharp(cropped).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([actual.info.width, actual.info.height]).toEqual([frame.image.width, frame.image.height]);
    expect(actual.data.equals(expected)).toBe(true);
    // And a region one pixel off does not match (the comparison can fail).
    const shifted = await sharp(original)
      .extract({ left: Math.round(frame.origin.x) + 1, top: Math.round(frame.origin.y), width: frame.image.width, height: frame.image.height })
      .removeAlpha()
      .raw()
      .toBuffer();
    expect(actual.data.equals(shifted)).toBe(false);

    // The crop shows up in the timeline, live, next to its parent.
    await expect.poll(() => rowRefs()).toContain(frame.ref);

    // The keyboard adjusts the region: arrows move it, Shift+arrows resize it, Escape clears it.
    await page.getByTestId('crop-selection').focus();
    const x0 = Number(await page.getByTestId('roi-x').inputValue());
    const w0 = Number(await page.getByTestId('roi-width').inputValue());
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    expect(Number(await page.getByTestId('roi-x').inputValue())).toBeCloseTo(x0 + 2, 2);
    expect(Number(await page.getByTestId('roi-width').inputValue())).toBeCloseTo(w0 + 1, 2);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('crop-selection').count()).toBe(0);
  });

  it('pins a frame for agents from the viewer', async () => {
    await page.goto(`${s.base}/#/timeline/${pattern.ref}`);
    await page.getByTestId('pin-button').click();
    await expect.poll(() => page.getByTestId('pin-button').getAttribute('aria-pressed')).toBe('true');
    const r = (await agent.callTool({ name: 'list_screenshots', arguments: { pinned: true, max: 50 } })) as CallToolResult;
    const refs = (r.structuredContent as { screenshots: { ref: string }[] }).screenshots.map((x) => x.ref);
    expect(refs).toContain(pattern.ref);
  });

  it('pausing input from the header makes an MCP client’s click return INPUT_PAUSED', async () => {
    const click = async (): Promise<string> => {
      const r = (await agent.callTool({ name: 'click', arguments: { target: 'desktop:window:0x3a00007', x: 10, y: 10 } })) as CallToolResult;
      return (r.content[0] as { text: string }).text;
    };
    expect(await click()).not.toMatch(/^INPUT_PAUSED/);
    await page.getByTestId('pause-switch').click();
    await expect.poll(() => page.getByTestId('pause-switch').getAttribute('data-paused')).toBe('true');
    expect((await api<StatusInfo>('/api/status')).paused).toBe(true);
    expect(await click()).toMatch(/^INPUT_PAUSED/);
    await screenshot(page, 'header-paused');
  });

  it('shows agent actions in the activity log, live, with the pause state', async () => {
    await page.getByTestId('nav-activity').click();
    await page.getByTestId('activity-paused').waitFor({ state: 'visible' });
    const paused = page.locator('[data-testid="activity-row"][data-tool="click"][data-result="INPUT_PAUSED"]');
    await expect.poll(() => paused.count()).toBeGreaterThanOrEqual(1);
    await expect.poll(() => paused.first().innerText()).toContain('e2e-agent');
    // A new action appears without a reload (server-sent events).
    const before = await page.getByTestId('activity-row').count();
    await agent.callTool({ name: 'scroll', arguments: { target: 'desktop:window:0x3a00007', x: 5, y: 5, deltaY: 300 } });
    await expect.poll(() => page.getByTestId('activity-row').count()).toBe(before + 1);
    await expect.poll(() => page.getByTestId('activity-row').first().getAttribute('data-tool')).toBe('scroll');
    await screenshot(page, 'activity');

    // Resume from the activity banner; the next click is no longer refused as paused.
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => page.getByTestId('pause-switch').getAttribute('data-paused')).toBe('false');
    const r = (await agent.callTool({ name: 'click', arguments: { target: 'desktop:window:0x3a00007', x: 10, y: 10 } })) as CallToolResult;
    expect((r.content[0] as { text: string }).text).not.toMatch(/^INPUT_PAUSED/);
  });

  it('onboarding shows a missing source with its reason', async () => {
    await page.getByTestId('nav-setup').click();
    const status = await api<StatusInfo>('/api/status');
    const android = status.sources.find((x) => x.source === 'android')!;
    expect(android.available).toBe(false);
    const card = page.getByTestId('setup-source-android');
    await expect.poll(() => card.getAttribute('data-available')).toBe('false');
    await expect.poll(() => card.getByTestId('setup-state').innerText()).toMatch(/Needs attention/);
    await expect.poll(() => card.getByTestId('setup-reason').innerText()).toContain(android.reason!.slice(1));
    for (const c of android.checks ?? []) {
      await expect.poll(() => card.locator(`[data-check="${c.id}"]`).getAttribute('data-status')).toBe(c.status);
    }
    await screenshot(page, 'setup');
  });

  it('lists targets per source: a source that cannot list says why, where to fix it, and offers nothing to capture', async () => {
    await page.getByTestId('nav-targets').click();
    const group = page.getByTestId('target-group-android');
    await group.waitFor({ state: 'visible' });
    // What the API says is what the group shows: the refusal with its code and its hint.
    const listed = await api<{ targets: unknown[]; errors: { source: string; code: string; message: string; hint?: string }[] }>('/api/targets');
    const refusal = listed.errors.find((e) => e.source === 'android')!;
    expect(refusal.message).toMatch(/adb/);
    const error = group.getByTestId('target-error');
    await expect.poll(() => error.getAttribute('data-code')).toBe(refusal.code);
    expect(await error.innerText()).toContain(refusal.message);
    if (refusal.hint) expect(await error.innerText()).toContain(refusal.hint);
    expect(await error.getByRole('link', { name: 'Fix in Setup' }).getAttribute('href')).toBe('#/setup');
    await expect.poll(() => group.getByTestId('group-state').innerText()).toBe('Needs attention');
    // Nothing listed, so nothing to capture; only the enabled source has a group.
    expect(await group.getByTestId('capture-now').count()).toBe(0);
    expect(await page.locator('[data-testid^="target-group-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))).toEqual(['target-group-android']);
    await screenshot(page, 'targets');
  });

  it('settings: a bad value is shown next to its field and not saved', async () => {
    await page.getByTestId('nav-settings').click();
    const field = page.getByTestId('setting-capture.maxDimension');
    await field.fill('10');
    await page.getByTestId('settings-save').click();
    await expect.poll(() => page.getByTestId('field-error').innerText()).toMatch(/64/);
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'settings-error');
    const file = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { capture?: { maxDimension?: number } };
    expect(file.capture?.maxDimension).toBeUndefined();

    await field.fill('1200');
    await page.getByTestId('settings-save').click();
    await expect.poll(() => page.getByTestId('field-error').count()).toBe(0);
    await expect.poll(() => (JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { capture: { maxDimension: number } }).capture.maxDimension).toBe(1200);
  });

  it('looks right in dark mode: dark surfaces, light words that hold their contrast, the image itself unchanged', async () => {
    /** The colours a person sees: surfaces, words on them, and their contrast (WCAG's ratio). */
    const colours = async (p: Page): Promise<{ page: number; header: number; title: number; titleOn: number; contrast: number; imageSame: boolean }> =>
      (await p.evaluate(`(() => {
        const rgb = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
        const lum = (c) => { const [r, g, b] = rgb(c).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
        const bgOf = (el) => { for (let e = el; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor; if (!/rgba\\(0, 0, 0, 0\\)|transparent/.test(c)) return c; } return 'rgb(255, 255, 255)'; };
        const title = document.querySelector('[data-testid="viewer-title"]');
        const t = lum(getComputedStyle(title).color), on = lum(bgOf(title));
        const img = document.querySelector('[data-testid="viewer-image"]');
        return {
          page: lum(getComputedStyle(document.body).backgroundColor),
          header: lum(bgOf(document.querySelector('header.topbar'))),
          title: t,
          titleOn: on,
          contrast: (Math.max(t, on) + 0.05) / (Math.min(t, on) + 0.05),
          imageSame: getComputedStyle(img).filter === 'none' && getComputedStyle(img).opacity === '1',
        };
      })()`)) as { page: number; header: number; title: number; titleOn: number; contrast: number; imageSame: boolean };
    const open = async (scheme: 'light' | 'dark'): Promise<Page> => {
      const p = await openDashboard(browser, s.dashboardUrl, { colorScheme: scheme });
      await p.goto(`${s.base}/#/timeline/${seeded[1]!.ref}`);
      await expect.poll(() => p.getByTestId('viewer-image').evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
      await p.getByTestId('viewer-title').waitFor();
      await p.waitForTimeout(300);
      return p;
    };
    const dark = await open('dark');
    const light = await open('light');
    try {
      const d = await colours(dark);
      const l = await colours(light);
      // Dark surfaces under light words, the light theme the other way round (so the check can fail).
      expect(d.page).toBeLessThan(0.05);
      expect(d.header).toBeLessThan(0.05);
      expect(d.title).toBeGreaterThan(0.5);
      expect(l.page).toBeGreaterThan(0.8);
      expect(l.title).toBeLessThan(0.1);
      // The words hold WCAG AA on their surface in both themes; the screenshot is shown as it was taken.
      expect(d.contrast).toBeGreaterThanOrEqual(4.5);
      expect(l.contrast).toBeGreaterThanOrEqual(4.5);
      expect(d.imageSame).toBe(true);
      await screenshot(dark, 'timeline-dark');
    } finally {
      await dark.context().close();
      await light.context().close();
    }
  });
});
