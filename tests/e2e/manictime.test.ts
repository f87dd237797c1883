/**
 * The first day of a ManicTime user: the real `sightline serve` over a realistic archive
 * (tests/support/manictimeFixture.ts) and a few frames of Sightline's own, the built dashboard
 * in headless Chromium. "All" holds the archive from the first load, without opening the
 * ManicTime filter, and archive frames are titled with what the user was doing then.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrameRecord } from '../../src/main/core/catalog/types.ts';
import type { FramesPage } from '../../src/shared/api.ts';
import { serve, type Served } from '../support/cli.ts';
import { createManicTimeFixture } from '../support/manictimeFixture.ts';
import { launchBrowser, minutesAgo, openDashboard, screenshot, seedFrames, writeSettings } from './support.ts';

describe('dashboard over a ManicTime archive (sightline serve + Chromium)', () => {
  const base = mkdtempSync(join(tmpdir(), 'sightline-e2e-mt-'));
  const dataDir = join(base, 'data');
  let s: Served;
  let browser: Browser;
  let page: Page;
  let own: FrameRecord[];

  beforeAll(async () => {
    const fx = await createManicTimeFixture(join(base, 'mt'));
    mkdirSync(dataDir, { recursive: true });
    writeSettings(dataDir, { sources: { desktop: { enabled: false }, browser: { enabled: false }, android: { enabled: false } }, manictime: { dataDir: fx.dataDir } });
    own = await seedFrames(dataDir, [
      { source: 'desktop', target: 'desktop:window:0x3a00007', look: 'editor', title: 'main.ts — sightline', width: 1280, height: 800, capturedAt: minutesAgo(3) },
      { source: 'desktop', target: 'desktop:window:0x3a00007', look: 'editor', title: 'main.ts — sightline', width: 1280, height: 800, capturedAt: minutesAgo(9) },
    ]);
    s = await serve(dataDir);
    browser = await launchBrowser();
    // Tall enough that the first archive rows of 2024-04-01 (with activities) are rendered.
    page = await openDashboard(browser, s.dashboardUrl, { height: 1400 });
  });

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  const api = async <T>(path: string): Promise<T> => (await fetch(`${s.base}${path}`, { headers: { Authorization: `Bearer ${s.token}` } })).json() as Promise<T>;
  /** Ref and title of the rendered rows, in list order. */
  const rows = async (): Promise<{ ref: string; title: string }[]> =>
    (
      await page.locator('[data-testid="frame-row"][data-ref]').evaluateAll((els) =>
        els.map((e) => ({
          i: Number(e.getAttribute('data-index')),
          ref: e.getAttribute('data-ref') ?? '',
          title: (e.querySelector('[data-testid="frame-title"]') as { textContent: string } | null)?.textContent ?? '',
        })),
      )
    )
      .sort((a, b) => a.i - b.i)
      .map(({ ref, title }) => ({ ref, title }));

  it('"All" shows the archive on first load, after the newer own frames, titled by activity', async () => {
    const all = await api<FramesPage>('/api/frames?limit=1');
    const archive = await api<FramesPage>('/api/frames?source=manictime&limit=1');
    expect(all.total).toBe(archive.total + own.length);
    // No filter was touched: the count is the whole archive plus Sightline's frames.
    await expect.poll(() => page.getByTestId('frame-count').innerText()).toBe(`${all.total} frames`);
    expect(await page.getByText('No frames yet').count()).toBe(0);
    await expect.poll(async () => (await rows()).length).toBeGreaterThan(12);
    const shown = await rows();
    expect(shown.slice(0, 2).map((r) => r.ref)).toEqual(own.map((f) => f.ref));
    // Then the archive, newest first: 2024-04-02 (no activity recorded: the screen names it, in
    // words), then 2024-04-01 12:00 on both monitors, when Outlook was in front.
    expect(shown.slice(2, 7).map((r) => r.title)).toEqual(Array(5).fill('Screen 1'));
    expect(shown.slice(7, 9).map((r) => r.title)).toEqual(['Outlook', 'Outlook']);
    // Archive thumbnails really load.
    await expect
      .poll(() => page.locator('[data-testid="frame-row"][data-index="7"] img[data-testid="thumbnail"]').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    await page.waitForTimeout(300);
    await screenshot(page, 'timeline-manictime');
  });

  it('the viewer titles an archive frame with the app and document of its moment', async () => {
    const page1 = await api<FramesPage>(`/api/frames?source=manictime&limit=4&before=${encodeURIComponent('2024-04-01T10:31:00+02:00')}`);
    const frame = page1.frames.find((f) => f.capturedAt === '2024-04-01T10:30:00+02:00' && f.monitor === 0)!;
    await page.goto(`${s.base}/#/timeline/${frame.ref}`);
    // The document first, then the app.
    await expect.poll(() => page.getByTestId('viewer-title').innerText()).toBe('https://example.com/b — Google Chrome');
    expect(await page.getByTestId('viewer-title').getAttribute('title')).toBe('manictime:monitor:0');
  });
});
