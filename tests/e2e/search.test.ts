/**
 * The timeline's text search end to end: frames with rendered text seeded into a catalog, the
 * real `sightline serve` indexing them in the background with the real OCR engine, and the built
 * dashboard in headless Chromium: the index line reports progress, a word finds its screenshot,
 * the match is boxed on the thumbnail and in the viewer, and a missing word says why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/main/core/catalog/catalog.ts';
import type { FrameRecord } from '../../src/main/core/catalog/types.ts';
import { serve, type Served } from '../support/cli.ts';
import { TEXT_SHOT_SIZE, textScreenshot } from '../support/textArchive.ts';
import { ALL_SOURCES_OFF, launchBrowser, minutesAgo, openDashboard, screenshot, writeSettings } from './support.ts';

/** A DOM element as far as the tests read it (tsconfig has no DOM types). */
interface Styled {
  style: { left: string; top: string };
}

const FRAMES = [
  { app: 'Outlook', title: 'Inbox - Outlook', lines: ['Quarterly budget review with the finance team', 'Invoice 4411 was paid by Contoso yesterday'], minutes: 30 },
  { app: 'Code', title: 'release.md - Code', lines: ['Release checklist for the tundra project', 'Run the tests before tagging'], minutes: 20 },
  { app: 'Chrome', title: 'Menu - Chrome', lines: ['Lunch menu of the canteen today', 'Pumpkin soup and bread'], minutes: 10 },
];

describe('dashboard text search (sightline serve + Chromium + tesseract)', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-search-'));
  let s: Served;
  let browser: Browser;
  let page: Page;
  const seeded: FrameRecord[] = [];

  beforeAll(async () => {
    writeSettings(dataDir, ALL_SOURCES_OFF);
    const catalog = Catalog.open(dataDir);
    try {
      for (const f of FRAMES) {
        const { jpeg } = await textScreenshot(f.lines);
        seeded.push(
          await catalog.frames.insert({
            source: 'desktop',
            target: `desktop:window:${f.app.toLowerCase()}`,
            capturedAt: minutesAgo(f.minutes),
            image: TEXT_SHOT_SIZE,
            sourceSize: TEXT_SHOT_SIZE,
            origin: { x: 0, y: 0 },
            scale: 1,
            format: 'jpeg',
            data: jpeg,
            label: { title: f.title, app: f.app },
          }),
        );
      }
    } finally {
      catalog.close();
    }
    s = await serve(dataDir);
    browser = await launchBrowser();
    page = await openDashboard(browser, s.dashboardUrl);
  });

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows the indexer catching up, then finds a word with its box on the thumbnail and in the viewer', async () => {
    await page.goto(`${s.base}/#/timeline`);
    const line = page.getByTestId('text-index-status');
    await expect.poll(() => line.innerText(), { timeout: 60_000 }).toMatch(/Text index: 3 of 3 screenshots, up to date/);

    await page.getByTestId('timeline-search').fill('contoso');
    await page.getByTestId('timeline-search').press('Enter');
    await expect.poll(() => page.getByTestId('search-hit').count()).toBe(1);
    const hit = page.getByTestId('search-hit').first();
    expect(await hit.getAttribute('data-ref')).toBe(seeded[0]!.ref);
    expect(await hit.getByTestId('search-snippet').locator('mark').allInnerTexts()).toEqual(['Contoso']);
    expect(await page.getByTestId('search-summary').innerText()).toMatch(/^1 screenshot match/);
    // The box sits on the second line, towards its end, on a thumbnail of the frame's proportions.
    const thumb = await hit.getByTestId('thumb-match').evaluate((el) => ({ left: parseFloat((el as unknown as Styled).style.left), top: parseFloat((el as unknown as Styled).style.top) }));
    expect(thumb.left).toBeGreaterThan(25);
    expect(thumb.top).toBeGreaterThan(20);
    expect(thumb.top).toBeLessThan(40);

    await hit.click();
    await page.waitForSelector('[data-testid="viewer-image"]');
    await expect.poll(() => page.getByTestId('text-match').count()).toBe(1);
    const inViewer = await page.getByTestId('text-match').evaluate((el) => ({ left: parseFloat((el as unknown as Styled).style.left), top: parseFloat((el as unknown as Styled).style.top) }));
    expect(inViewer).toEqual(thumb);
    await screenshot(page, 'timeline-search');
  });

  it('a word no screenshot showed says why, and clearing the search brings the timeline back', async () => {
    await page.getByTestId('timeline-search').fill('zeppelin');
    await page.getByTestId('timeline-search').press('Enter');
    await expect.poll(() => page.getByTestId('search-summary').innerText()).toMatch(/No frame .* shows "zeppelin" \(3 indexed frames searched\)/);
    expect(await page.getByTestId('search-hit').count()).toBe(0);
    await page.getByTestId('search-clear').click();
    await expect.poll(() => page.getByTestId('frame-row').count()).toBeGreaterThanOrEqual(3);
  });

  it('a query that is not valid says so', async () => {
    await page.getByTestId('timeline-search').fill('"" ***');
    await page.getByTestId('timeline-search').press('Enter');
    await expect.poll(() => page.getByTestId('search-results').innerText()).toMatch(/has no word to search for/);
  });
});
