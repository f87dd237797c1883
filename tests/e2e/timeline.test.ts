/**
 * The timeline as a person moves through it, end to end: the real `sightline serve` over a seeded
 * catalog and the built dashboard in headless Chromium. The time strip shows which days and hours
 * have frames and jumps there (mouse and keyboard); a run of near-identical frames (one screen
 * key in the text index) is one row, "11:23–11:27 · 13 similar", that opens and folds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FramesPage, TimelinePositions } from '../../src/shared/api.ts';
import { Catalog } from '../../src/main/core/catalog/catalog.ts';
import type { FrameRecord } from '../../src/main/core/catalog/types.ts';
import { serve, type Served } from '../support/cli.ts';
import { ALL_SOURCES_OFF, explainViolations, launchBrowser, openDashboard, screenshot, seedFrames, seriousViolations, writeSettings, type SeedFrame } from './support.ts';

const TAB = 'browser:8F3A1C0D';
const NOTES = 'desktop:window:0x5a00001';
const RUN = 13;
const TOTAL = 20 + 3 + 30 + 1 + RUN + 1;
/** Rows with the runs folded: today's tab (13 frames) and yesterday's build (3). */
const ROWS = TOTAL - RUN + 1 - 3 + 1;

/** Local time on the day `daysAgo` days before today (the strip is drawn in local days and hours). */
function localAt(daysAgo: number, hour: number, minute: number, second = 0): string {
  const d = new Date();
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() - daysAgo, hour, minute, second).toISOString();
}

describe('the timeline: time strip and folded runs (sightline serve + Chromium)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-timeline-'));
  let s: Served;
  let browser: Browser;
  let page: Page;
  let run: FrameRecord[];
  let yesterday: FrameRecord[];
  let older: FrameRecord[];
  let today: FrameRecord[];

  /** The ref of the row at the top of the list's viewport. */
  const topRef = (): Promise<string | null> =>
    page.evaluate(`(() => {
      const v = document.querySelector('[data-testid="timeline-viewport"]');
      const i = Math.floor(v.scrollTop / 72);
      return document.querySelector('[data-testid="frame-row"][data-index="' + i + '"]')?.dataset.ref ?? null;
    })()`);

  beforeAll(async () => {
    writeSettings(dataDir, { ...ALL_SOURCES_OFF, ocr: { index: false } });
    const specs: SeedFrame[] = [];
    const notes = (capturedAt: string): SeedFrame => ({ source: 'desktop', target: NOTES, capturedAt, look: 'editor', width: 320, height: 200, label: { title: 'Plan — Notes', app: 'Notes' } });
    // Three days ago: 20 frames, 09:00–09:38. Yesterday: three within one minute, 14:05:00–14:05:40.
    for (let i = 0; i < 20; i++) specs.push(notes(localAt(3, 9, i * 2)));
    for (let i = 0; i < 3; i++) specs.push({ source: 'desktop', target: NOTES, capturedAt: localAt(1, 14, 5, i * 20), look: 'terminal', width: 320, height: 200, label: { title: 'Build — Terminal', app: 'Terminal' } });
    // Today, in the first minutes after midnight (so it is today, and past, whenever the test runs
    // but in those minutes): 31 frames of the notes, then 13 of a tab that did not change (10 s
    // apart), then the notes again.
    for (let i = 0; i < 30; i++) specs.push(notes(localAt(0, 0, 0, i)));
    specs.push(notes(localAt(0, 0, 1)));
    for (let i = 0; i < RUN; i++) specs.push({ source: 'browser', target: TAB, capturedAt: localAt(0, 0, 2, i * 10), look: 'browser', width: 320, height: 200, label: { title: 'Forecast · Weather', document: 'https://weather.example/forecast' } });
    specs.push(notes(localAt(0, 0, 5)));
    const frames = await seedFrames(dataDir, specs);
    older = frames.slice(0, 20);
    yesterday = frames.slice(20, 23);
    today = frames.slice(23);
    run = frames.filter((f) => f.target === TAB);
    // The text index found the tab's frames to show one screen (the first one's).
    const catalog = Catalog.open(dataDir);
    try {
      for (const f of run) catalog.text.put({ ref: f.ref, text: 'Forecast sunny', boxes: [], label: f.label ?? {}, status: 'read', screen: run[0]!.ref, reuse: f === run[0] ? 'read' : 'same' });
      // Yesterday's build output did not change either: a run inside one minute.
      for (const f of yesterday) catalog.text.put({ ref: f.ref, text: 'Build passed', boxes: [], label: f.label ?? {}, status: 'read', screen: yesterday[0]!.ref, reuse: f === yesterday[0] ? 'read' : 'same' });
    } finally {
      catalog.close();
    }
    s = await serve(dataDir);
    browser = await launchBrowser();
    page = await openDashboard(browser, s.dashboardUrl, { width: 1440, height: 900 });
  });

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts frames per moment through the API (days of an anchored list)', async () => {
    const at = [localAt(-1, 0, 0), localAt(0, 0, 0), localAt(1, 0, 0), localAt(2, 0, 0), localAt(3, 0, 0)].map((t) => Date.parse(t));
    const r = await fetch(`${s.base}/api/timeline/positions?at=${at.join(',')}&before=${encodeURIComponent(new Date().toISOString())}`, { headers: { Authorization: `Bearer ${s.token}` } });
    expect(r.status).toBe(200);
    const p = (await r.json()) as TimelinePositions;
    expect(p.total).toBe(TOTAL);
    expect(p.newest).toBe(new Date(Date.parse(today[today.length - 1]!.capturedAt)).toISOString());
    expect(p.oldest).toBe(new Date(Date.parse(older[0]!.capturedAt)).toISOString());
    // Frames at or after each midnight: none after tonight's, 45 today, 48 from yesterday, 48, all.
    expect(p.since).toEqual([0, 45, 48, 48, TOTAL]);
    const bad = await fetch(`${s.base}/api/timeline/positions?at=soon`, { headers: { Authorization: `Bearer ${s.token}` } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENT');
  });

  it('brings the first screen\'s thumbnails with the first page, none asked for one by one', async () => {
    const auth = { headers: { Authorization: `Bearer ${s.token}` } };
    const r = await fetch(`${s.base}/api/frames?limit=20&thumbs=3&before=${encodeURIComponent(new Date().toISOString())}`, auth);
    const body = (await r.json()) as FramesPage;
    // The first three rows: the newest frame, the folded run (its newest), the frame after the run.
    expect(body.frames[1]!.ref).toBe(run[RUN - 1]!.ref);
    expect(Object.keys(body.thumbs ?? {})).toEqual([body.frames[0]!.ref, body.frames[1]!.ref, body.frames[1 + RUN]!.ref]);
    for (const url of Object.values(body.thumbs ?? {})) {
      expect(url).toMatch(/^data:image\/jpeg;base64,/);
      const jpeg = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
      expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    }
    // Without `thumbs`, none; more than a screenful is refused.
    expect(((await (await fetch(`${s.base}/api/frames?limit=5`, auth)).json()) as FramesPage).thumbs).toBeUndefined();
    const tooMany = await fetch(`${s.base}/api/frames?limit=5&thumbs=17`, auth);
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENT');

    // A fresh page of 900 px: the page names its first page in a preload link, which the script
    // takes (one request for it); its rows show their thumbnails, and none was requested on its own.
    const fresh = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const p = await fresh.newPage();
      const asked: string[] = [];
      const pages: string[] = [];
      p.on('request', (req) => {
        if (req.url().endsWith('/thumbnail')) asked.push(decodeURIComponent(req.url().split('/').at(-2) ?? ''));
        if (/\/api\/frames\?/.test(req.url())) pages.push(req.url());
      });
      await p.goto(s.dashboardUrl);
      const preload = await p.locator('link[rel="preload"][data-first-page]').getAttribute('href');
      expect(preload).toMatch(/^\/api\/frames\?before=[^&]+&limit=100&thumbs=12$/);
      const first = p.locator('[data-testid="frame-row"][data-index="0"] img[data-testid="thumbnail"]');
      await expect.poll(() => first.evaluate((i) => (i as unknown as { complete: boolean; naturalWidth: number }).complete && (i as unknown as { naturalWidth: number }).naturalWidth > 0)).toBe(true);
      const shown = await p.evaluate(`[...document.querySelectorAll('[data-testid="frame-row"]')].filter((r) => Number(r.dataset.index) < 10).map((r) => [r.dataset.ref, r.querySelector('img[data-testid="thumbnail"]').src.slice(0, 22)])`);
      expect(shown).toHaveLength(10);
      for (const [ref, src] of shown as [string, string][]) {
        expect(src).toBe('data:image/jpeg;base64');
        expect(asked).not.toContain(ref);
      }
      expect(pages).toEqual([new URL(preload!, s.base).href]);
    } finally {
      await fresh.close();
    }
  });

  it('shows which days and hours have frames and jumps there, by mouse and by keyboard', async () => {
    await page.goto(`${s.base}/#/timeline`);
    const strip = page.getByTestId('time-strip');
    await strip.waitFor();
    // Days with frames only, newest first, each with its count.
    const days = await page.locator('[data-testid="strip-day"] option').allInnerTexts();
    expect(days).toHaveLength(3);
    expect(days[0]).toMatch(/^Today · 45 frames$/);
    expect(days[1]).toMatch(/^Yesterday · 3 frames$/);
    expect(days[2]).toMatch(/· 20 frames$/);
    // Today's hours: frames only at 00:00–01:00, and that hour is the one on screen.
    const hour0 = page.locator('[data-testid="strip-hour"][data-hour="00"]');
    await expect.poll(() => hour0.getAttribute('data-count')).toBe('45');
    expect(await hour0.getAttribute('aria-current')).toBe('time');
    expect(await page.locator('[data-testid="strip-hour"]:not([disabled])').count()).toBe(1);

    // The keyboard: the older-day button jumps to yesterday's newest frame.
    await page.getByTestId('strip-older').focus();
    await page.keyboard.press('Enter');
    await expect.poll(topRef).toBe(yesterday[yesterday.length - 1]!.ref);
    await expect.poll(() => page.locator('[data-testid="strip-day"]').inputValue()).toBe(String(new Date(localAt(1, 0, 0)).getTime()));
    const hour14 = page.locator('[data-testid="strip-hour"][data-hour="14"]');
    await expect.poll(() => hour14.getAttribute('data-count')).toBe('3');
    // One tab stop for the hours; arrows move between hours with frames, Enter jumps.
    await page.getByTestId('strip-newer').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(`document.activeElement?.dataset.hour`)).toBe('14');

    // A day picked from the list: three days ago, its newest frame (09:38) at the top.
    await page.getByTestId('strip-day').selectOption(String(new Date(localAt(3, 0, 0)).getTime()));
    await expect.poll(topRef).toBe(older[older.length - 1]!.ref);
    const hour9 = page.locator('[data-testid="strip-hour"][data-hour="09"]');
    await expect.poll(() => hour9.getAttribute('data-count')).toBe('20');
    // And back to today by mouse: its only hour.
    await page.getByTestId('strip-newer').click();
    await page.getByTestId('strip-newer').click();
    await expect.poll(topRef).toBe(today[today.length - 1]!.ref);
    await screenshot(page, 'timeline-strip');
  });

  it('folds near-identical consecutive frames into one row that opens and folds again', async () => {
    await page.goto(`${s.base}/#/timeline`);
    const label = page.getByTestId('run-label').filter({ hasText: `${RUN} similar` });
    await expect.poll(() => label.count()).toBe(1);
    const first = new Date(run[0]!.capturedAt);
    const last = new Date(run[RUN - 1]!.capturedAt);
    const hm = (d: Date): string => `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
    expect(await label.innerText()).toBe(`${RUN} similar · ${hm(first)}–${hm(last)}`);
    expect(await page.getByTestId('frame-count').innerText()).toBe(`${TOTAL} frames`);
    // The list has a row less for each frame folded away (the listbox says how many rows in all).
    const rowCount = (): Promise<string | null> => page.locator('[data-testid="frame-row"]').first().getAttribute('aria-setsize');
    await expect.poll(rowCount).toBe(String(ROWS));
    // The run's row is the second (the notes at 00:05 come first) and shows its newest frame.
    const runRow = page.locator('[data-testid="frame-row"]', { has: label });
    expect(await runRow.getAttribute('data-ref')).toBe(run[RUN - 1]!.ref);
    expect(await runRow.getAttribute('data-index')).toBe('1');
    for (const f of run.slice(0, -1)) expect(await page.locator(`[data-testid="frame-row"][data-ref="${f.ref}"]`).count()).toBe(0);

    // Opened by mouse: every frame of the run is a row of its own (yesterday's run stays folded).
    const OPEN = String(TOTAL - 3 + 1);
    await runRow.getByTestId('run-toggle').click();
    await expect.poll(rowCount).toBe(OPEN);
    for (const f of run) expect(await page.locator(`[data-testid="frame-row"][data-ref="${f.ref}"]`).count()).toBe(1);
    expect(await runRow.getByTestId('run-toggle').getAttribute('data-open')).toBe('true');
    await screenshot(page, 'timeline-run-open');

    // Folded by keyboard from inside the run: select a frame of it, arrow left.
    await page.locator(`[data-testid="frame-row"][data-ref="${run[5]!.ref}"]`).click();
    await page.getByTestId('timeline-viewport').focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(rowCount).toBe(String(ROWS));
    // And opened again with arrow right on the run's row, then folded.
    await page.keyboard.press('ArrowRight');
    await expect.poll(rowCount).toBe(OPEN);
    await page.keyboard.press('ArrowLeft');
    await expect.poll(rowCount).toBe(String(ROWS));
    await screenshot(page, 'timeline-runs');
  });

  it('reads as memory: the hours labelled and coloured by app, the day named in full, titles led by the document, a one-minute run said so', async () => {
    await page.goto(`${s.base}/#/timeline`);
    await page.getByTestId('time-strip').waitFor();
    // The clock under the bars.
    expect(await page.getByTestId('strip-ticks').innerText()).toMatch(/^00\s*06\s*12\s*18$/);
    // Today's one hour holds the notes and the weather tab: its bar is both their colours, the legend names them.
    const hour0 = page.locator('[data-testid="strip-hour"][data-hour="00"]');
    await expect.poll(async () => (await hour0.locator('.seg').evaluateAll((els) => els.map((e) => e.getAttribute('data-app')))).sort()).toEqual(['Notes', 'weather.example']);
    const colours = await hour0.locator('.seg').evaluateAll((els) => els.map((e) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(e).backgroundColor));
    expect(new Set(colours).size).toBe(2);
    expect((await page.getByTestId('strip-legend').innerText()).split('\n').sort()).toEqual(['Notes', 'weather.example']);
    // The day picker shows its whole text.
    const day = page.getByTestId('strip-day');
    const room = (await day.evaluate(`(() => {
      const el = document.querySelector('[data-testid="strip-day"]');
      const probe = document.createElement('span');
      probe.style.font = getComputedStyle(el).font;
      probe.style.position = 'absolute';
      probe.textContent = el.options[el.selectedIndex].text;
      document.body.append(probe);
      const need = probe.getBoundingClientRect().width;
      probe.remove();
      return { need, has: el.clientWidth };
    })()`)) as { need: number; has: number };
    // The text, its padding and the arrow fit.
    expect(room.need + 34, JSON.stringify(room)).toBeLessThanOrEqual(room.has);
    // A row of the notes leads with what it shows; the app follows, once.
    const notesRow = page.locator(`[data-testid="frame-row"][data-ref="${today[today.length - 1]!.ref}"]`);
    expect(await notesRow.getByTestId('frame-title').innerText()).toBe('Plan');
    expect(await notesRow.getByTestId('frame-app').innerText()).toBe('Notes');
    // Yesterday's three frames inside one minute: the row says so, not "14:05–14:05".
    await page.getByTestId('strip-older').click();
    await expect.poll(topRef).toBe(yesterday[yesterday.length - 1]!.ref);
    const buildRun = page.locator(`[data-testid="frame-row"][data-ref="${yesterday[2]!.ref}"]`).getByTestId('run-label');
    await expect.poll(() => buildRun.innerText()).toBe('3 similar · within a minute at 14:05');
  });

  it('opens on the newest frame', async () => {
    const fresh = await openDashboard(browser, s.dashboardUrl, { width: 1440, height: 900 });
    try {
      const newest = today[today.length - 1]!.ref;
      await expect.poll(() => fresh.url()).toContain(`#/timeline/${newest}`);
      await expect.poll(() => fresh.getByTestId('viewer-title').innerText()).toBe('Plan — Notes');
      // Closed, it stays closed.
      await fresh.getByRole('button', { name: 'Close viewer' }).click();
      await expect.poll(() => fresh.url()).toMatch(/#\/timeline$/);
      await fresh.waitForTimeout(200);
      expect(await fresh.getByTestId('viewer').count()).toBe(0);
    } finally {
      await fresh.context().close();
    }
  });

  it('folds search hits of one unchanged screen like the timeline, a new search closes the last result, and both states pass axe', async () => {
    const a11y = await openDashboard(browser, s.dashboardUrl, { width: 1440, height: 900, bypassCSP: true });
    const failures: string[] = [];
    const check = async (state: string): Promise<void> => {
      for (const scheme of ['light', 'dark'] as const) {
        await a11y.emulateMedia({ colorScheme: scheme });
        await a11y.waitForTimeout(200);
        const vs = await seriousViolations(a11y);
        if (vs.length > 0) failures.push(`${state} (${scheme}):\n${explainViolations(vs)}`);
      }
    };
    try {
      // A run opened: each row of it is an option holding no control of its own.
      await a11y.goto(`${s.base}/#/timeline`);
      const runRow = a11y.locator(`[data-testid="frame-row"][data-ref="${run[RUN - 1]!.ref}"]`);
      await runRow.getByTestId('run-toggle').click();
      await expect.poll(() => a11y.locator(`[data-testid="frame-row"][data-ref="${run[0]!.ref}"]`).count()).toBe(1);
      await check('timeline, a run open');

      // 13 hits of the one forecast screen are one row.
      await a11y.getByTestId('timeline-search').fill('forecast');
      await a11y.getByTestId('timeline-search').press('Enter');
      const fold = a11y.getByTestId('search-run');
      await expect.poll(() => fold.innerText()).toMatch(new RegExp(`^${RUN} screenshots, \\d\\d:02–\\d\\d:04: one screen, unchanged$`));
      expect(await a11y.getByTestId('search-hit').count()).toBe(1);
      await check('search results');
      await fold.click();
      await expect.poll(() => a11y.getByTestId('search-hit').count()).toBe(RUN);
      await check('search results, a run open');
      await screenshot(a11y, 'timeline-search-folded');

      // A result opened, then a new search: the viewer closes.
      await a11y.getByTestId('search-hit').first().click();
      await expect.poll(() => a11y.url()).toContain(run[RUN - 1]!.ref);
      await a11y.getByTestId('timeline-search').fill('build');
      await a11y.getByTestId('timeline-search').press('Enter');
      await expect.poll(() => a11y.url()).toMatch(/#\/timeline$/);
      expect(await a11y.getByTestId('viewer').count()).toBe(0);
    } finally {
      await a11y.context().close();
    }
    if (failures.length > 0) process.stderr.write(`${failures.join('\n\n')}\n`);
    expect(failures.join('\n\n')).toBe('');
  });
});
