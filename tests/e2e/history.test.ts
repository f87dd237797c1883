/**
 * The history as a person uses it, end to end: the real `sightline serve` over a seeded catalog
 * (frames with the labels their sources gave, actions in the log, a text index) and the built
 * dashboard in headless Chromium. Targets that are gone (a closed tab, an unplugged device) still
 * read by name; a search with more matches than a page reaches the oldest one and narrows by app
 * and day.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScreenshotSearch } from '../../src/shared/api.ts';
import { Catalog } from '../../src/main/core/catalog/catalog.ts';
import type { FrameRecord } from '../../src/main/core/catalog/types.ts';
import { RunArtifacts } from '../../src/cli/agent/artifacts.ts';
import { httpClient, serve, type Served } from '../support/cli.ts';
import { ALL_SOURCES_OFF, launchBrowser, minutesAgo, openDashboard, renderLook, screenshot, seedFrames, writeSettings, type SeedFrame } from './support.ts';

const TAB = 'browser:B40C028B5E7A41D2';
const PHONE = 'android:127.0.0.1:40513';
const NOTES = 'desktop:window:0x5a00001';
/** Frames whose text says "forecast": more than two pages of 50. */
const MATCHES = 120;
/** Of them, the ones of the Mail app. */
const MAIL_EVERY = 10;

describe('a history a person can use (sightline serve + Chromium)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-e2e-history-'));
  let s: Served;
  let browser: Browser;
  let page: Page;
  let tab: FrameRecord[];
  let phone: FrameRecord[];
  let notes: FrameRecord[];
  let quiet: RunArtifacts;
  const now = Date.now();
  const get = async <T>(path: string): Promise<T> => {
    const r = await fetch(`${s.base}${path}`, { headers: { Authorization: `Bearer ${s.token}` } });
    expect(r.status, path).toBe(200);
    return (await r.json()) as T;
  };

  beforeAll(async () => {
    // No live source: every target of the catalog is gone. The index is fed below, not by OCR.
    writeSettings(dataDir, { ...ALL_SOURCES_OFF, ocr: { index: false } });
    const at = (i: number): string => minutesAgo(30 + i * 7, now);
    const specs: SeedFrame[] = [];
    for (let i = 0; i < 3; i++) specs.push({ source: 'browser', target: TAB, capturedAt: at(i), look: 'browser', width: 320, height: 200, title: 'Radar', label: { title: 'Rain radar · Weather', document: 'https://weather.example/radar' } });
    for (let i = 3; i < 5; i++) specs.push({ source: 'android', target: PHONE, capturedAt: at(i), look: 'phone', width: 180, height: 400, label: { app: 'com.example.notes' } });
    for (let i = 0; i < MATCHES; i++) {
      const mail = i % MAIL_EVERY === MAIL_EVERY - 1;
      specs.push({ source: 'desktop', target: NOTES, capturedAt: at(5 + i), look: 'editor', width: 320, height: 200, label: mail ? { title: 'Inbox — Mail', app: 'Mail' } : { title: 'Week plan — Notes', app: 'Notes' } });
    }
    const frames = await seedFrames(dataDir, specs);
    tab = frames.filter((f) => f.target === TAB);
    phone = frames.filter((f) => f.target === PHONE);
    notes = frames.filter((f) => f.target === NOTES);
    const catalog = Catalog.open(dataDir);
    try {
      notes.forEach((f, i) => catalog.text.put({ ref: f.ref, text: `weekly forecast number ${i}`, boxes: [], label: f.label ?? {}, status: 'read' }));
      // An agent clicked in the tab and on the phone while they were there.
      catalog.activity.append({ at: new Date(now - 29 * 60_000).toISOString(), tool: 'click', source: 'browser', target: TAB, result: 'ok', frameRef: tab[0]!.ref, imagePoint: { x: 120, y: 80 }, sourcePoint: { x: 240, y: 160 }, durationMs: 41, client: 'e2e-agent' });
      catalog.activity.append({ at: new Date(now - 28 * 60_000).toISOString(), tool: 'type_text', source: 'android', target: PHONE, result: 'ok', frameRef: phone[0]!.ref, params: { text: 'milk' }, durationMs: 80, client: 'e2e-agent' });
      // What makes a row wide: a long refusal, long parameters, a long title, both frames.
      catalog.activity.append({ at: new Date(now - 27 * 60_000).toISOString(), tool: 'scroll_into_view', source: 'browser', target: TAB, result: 'FRAME_STALE', message: 'The frame is 12.4 s older than the tab: the page changed since it was captured (a navigation or a layout shift), so its coordinates no longer hold.', frameRef: tab[1]!.ref, params: { query: 'Accept all cookies and continue to the site', node: 'e123456789' }, durationMs: 1234, client: 'a-very-long-mcp-client-name-for-testing' });
      catalog.activity.append({ at: new Date(now - 26 * 60_000).toISOString(), tool: 'click', source: 'desktop', target: NOTES, result: 'ok', frameRef: notes[1]!.ref, afterRef: notes[0]!.ref, imagePoint: { x: 80, y: 150 }, sourcePoint: { x: 1160.25, y: 2210.75 }, params: { button: 'right', clicks: 2 }, durationMs: 62, client: 'e2e-agent' });
      // A click in the frame's very corner, and what the server said of it.
      catalog.activity.append({ at: new Date(now - 25 * 60_000).toISOString(), tool: 'click', source: 'desktop', target: NOTES, result: 'ok', message: 'Hit cell “45.00 EUR”. No visible change', frameRef: notes[2]!.ref, afterRef: notes[1]!.ref, imagePoint: { x: 0, y: 0 }, sourcePoint: { x: 0, y: 0 }, durationMs: 30, client: 'e2e-agent' });
    } finally {
      catalog.close();
    }
    // A run that stopped at its first step, before any action: only its folder tells of it.
    quiet = RunArtifacts.create({ dataDir, goal: 'Book a table for two', at: new Date(now - 26.5 * 60_000), secrets: [] });
    quiet.write('step-01/screenshot.jpg', await renderLook('phone', 180, 400, 7, '', 'jpeg'));
    quiet.write('run.json', { runId: quiet.id, goal: 'Book a table for two', status: 'stopped', startedAt: new Date(now - 26.5 * 60_000).toISOString(), stop: { reason: 'error', exitCode: 1, message: 'The model did not answer.' }, steps: [{ step: 1, screenshot: 'step-01/screenshot.jpg' }] });
    expect(await quiet.flush()).toBeUndefined();
    s = await serve(dataDir);
    browser = await launchBrowser();
    page = await openDashboard(browser, s.dashboardUrl, { width: 1440, height: 900 });
  });

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('names frames, actions and the target filter by the titles stored when they were made, after the targets are gone', async () => {
    // Nothing live: the names can only come from the catalog.
    expect((await get<{ targets: unknown[] }>('/api/targets')).targets).toEqual([]);
    expect((await get<{ names: Record<string, string> }>('/api/target-names')).names).toMatchObject({ [TAB]: 'Rain radar · Weather', [PHONE]: 'com.example.notes', [NOTES]: 'Week plan — Notes' });

    await page.goto(`${s.base}/#/timeline`);
    await page.getByTestId('filter-target').selectOption(TAB);
    const row = page.locator(`[data-testid="frame-row"][data-ref="${tab[0]!.ref}"]`);
    await expect.poll(() => row.getByTestId('frame-title').innerText()).toBe('Rain radar · Weather');
    const options = await page.locator('[data-testid="filter-target"] option').evaluateAll((els) => els.map((e) => [(e as unknown as { value: string }).value, (e as unknown as { textContent: string }).textContent.trim()]));
    expect(Object.fromEntries(options)).toMatchObject({ [TAB]: 'Rain radar · Weather', [PHONE]: 'com.example.notes' });
    // No raw id anywhere a person reads a name.
    expect(options.map(([, text]) => text).join(' ')).not.toMatch(/B40C028B|127\.0\.0\.1/);

    await page.getByTestId('nav-activity').click();
    const click = page.locator(`[data-testid="activity-row"][data-tool="click"][data-target="${TAB}"]`);
    await expect.poll(() => click.getByTestId('activity-target').innerText()).toBe('Rain radar · Weather');
    const typed = page.locator('[data-testid="activity-row"][data-tool="type_text"]');
    await expect.poll(() => typed.getByTestId('activity-target').innerText()).toBe('com.example.notes');
    // The entry itself kept the name (an API reader gets it too).
    const { entries } = await get<{ entries: { target?: string; targetLabel?: { title?: string } }[] }>('/api/activity');
    expect(entries.find((e) => e.target === TAB)?.targetLabel?.title).toBe('Rain radar · Weather');
  });

  it('fits the activity log in its card at 1440 and 1024 px, and marks where the agent clicked', async () => {
    for (const [width, height] of [
      [1440, 900],
      [1024, 700],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.goto(`${s.base}/#/activity`);
      await expect.poll(() => page.getByTestId('activity-row').count()).toBe(5);
      await page.getByTestId('run-group').waitFor();
      // Every column, Result and Before · After included, inside the card and the window: no sideways scrolling.
      const fit = (await page.evaluate(`(() => {
        const wrap = document.querySelector('[data-testid="activity-table"]').parentElement;
        const box = wrap.getBoundingClientRect();
        const cols = [...document.querySelectorAll('[data-testid="activity-table"] th')].map((th) => [th.textContent.trim(), th.getBoundingClientRect().right]);
        return { overflow: wrap.scrollWidth - wrap.clientWidth, right: box.right, window: innerWidth, cols };
      })()`)) as { overflow: number; right: number; window: number; cols: [string, number][] };
      expect(fit.overflow, `${width} px`).toBeLessThanOrEqual(0);
      expect(fit.right).toBeLessThanOrEqual(fit.window);
      for (const [name, right] of fit.cols) expect(right, `${name} at ${width} px`).toBeLessThanOrEqual(fit.right + 0.5);
      expect(fit.cols.map(([name]) => name)).toEqual(expect.arrayContaining(['Result', 'Before · After']));
      await screenshot(page, `activity-${width}`);
    }

    // Where the click landed, on the before-frame's thumbnail: at 120, 80 of a 320×200 frame.
    const click = page.locator(`[data-testid="activity-row"][data-tool="click"][data-target="${TAB}"]`);
    const thumb = click.locator('[data-testid="before-frame"]');
    const mark = thumb.getByTestId('click-mark');
    const t = (await thumb.locator('img').boundingBox())!;
    const m = (await mark.boundingBox())!;
    const drawn = { x: t.x + (t.width - 320 * Math.min(t.width / 320, t.height / 200)) / 2, scale: Math.min(t.width / 320, t.height / 200) };
    expect(Math.abs(m.x + m.width / 2 - (drawn.x + 120 * drawn.scale))).toBeLessThan(1.5);
    // The thumbnail opens the Activity viewer, marked at the same point; its before image opens the timeline's viewer.
    await thumb.click();
    const dialog = page.getByTestId('activity-viewer');
    await dialog.waitFor();
    const shot = dialog.getByTestId('aviewer-before').locator('img');
    await expect.poll(() => shot.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).toBe(320);
    const d = (await shot.boundingBox())!;
    const dm = (await dialog.getByTestId('aviewer-mark').boundingBox())!;
    expect(Math.abs(dm.x + dm.width / 2 - (d.x + (120 / 320) * d.width))).toBeLessThan(2);
    expect(Math.abs(dm.y + dm.height / 2 - (d.y + (80 / 200) * d.height))).toBeLessThan(2);
    await dialog.getByTestId('aviewer-before').locator('a').click();
    await expect.poll(() => page.url()).toContain(tab[0]!.ref);
    const img = page.getByTestId('viewer-image');
    await expect.poll(() => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).toBe(320);
    // Measured once the viewer has laid the image out (it fits the image after it loads).
    const off = async (): Promise<number> => {
      const v = (await img.boundingBox())!;
      const vm = (await page.getByTestId('click-mark').boundingBox())!;
      return Math.max(Math.abs(vm.x + vm.width / 2 - (v.x + (120 / 320) * v.width)), Math.abs(vm.y + vm.height / 2 - (v.y + (80 / 200) * v.height)));
    };
    await expect.poll(off).toBeLessThan(2);
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('shows a run that stopped before acting in the activity log, where it started', async () => {
    await page.goto(`${s.base}/#/activity`);
    const group = page.locator(`[data-testid="run-group"][data-run="${quiet.id}"]`);
    await expect.poll(() => group.getByTestId('run-goal').innerText()).toBe('“Book a table for two”');
    expect(await group.getByTestId('run-count').innerText()).toBe('Stopped before any action');
    await expect.poll(() => group.getByTestId('run-status').innerText()).toBe('Stopped: Sightline failed');
    // Between the actions before and after its start (newest first: 26 min ago sits under 26, above 27).
    const order = await page.locator('[data-testid="activity-row"], [data-testid="run-group"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-run') ?? e.getAttribute('data-tool')));
    expect(order).toEqual(['click', 'click', quiet.id, 'scroll_into_view', 'type_text', 'click']);
    const { runs } = await get<{ runs: { id: string; actions: number; goal?: string }[] }>('/api/runs');
    expect(runs).toEqual([expect.objectContaining({ id: quiet.id, actions: 0, goal: 'Book a table for two' })]);
  });

  it('pins the selected region for the agent, with its title, region and note in the agent\'s list', async () => {
    const frame = notes[0]!;
    await page.goto(`${s.base}/#/timeline/${frame.ref}`);
    const img = page.getByTestId('viewer-image');
    await expect.poll(() => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).toBe(320);
    const box = (await page.getByTestId('cropper').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.25, box.y + box.height * 0.5);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.75, box.y + box.height * 0.9, { steps: 5 });
    await page.mouse.up();
    await page.getByTestId('crop-selection').waitFor();
    await page.getByTestId('pin-note').fill('The total in this table is wrong');
    expect(await page.getByTestId('pin-button').innerText()).toContain('Pin region for agent');
    const [response] = await Promise.all([page.waitForResponse((r) => /\/api\/frames\/[^/]+\/pin$/.test(r.url())), page.getByTestId('pin-button').click()]);
    const { frame: pinned } = (await response.json()) as { frame: { ref: string; parentRef?: string; image: { width: number } } };
    // The region, not the whole frame.
    expect(pinned.parentRef).toBe(frame.ref);
    expect(pinned.image.width).toBeLessThan(320);

    const agent = await httpClient(s.mcpUrl, s.token, 'e2e-agent');
    try {
      const r = (await agent.callTool({ name: 'list_screenshots', arguments: { pinned: true } })) as unknown as { content: { text: string }[]; structuredContent: { screenshots: { ref: string; title?: string; region?: object; note?: string }[] } };
      expect(r.structuredContent.screenshots.map((x) => x.ref)).toEqual([pinned.ref]);
      expect(r.structuredContent.screenshots[0]).toMatchObject({ title: 'Week plan — Notes', note: 'The total in this table is wrong', region: { of: frame.ref, x: 80, y: 100, width: 160, height: 80 } });
      expect(r.content[0]!.text).toContain(`"Week plan — Notes"  region 80,100 160×80 of ${frame.ref}  (pinned)  note: "The total in this table is wrong"`);
      const resources = await agent.listResources();
      expect(resources.resources.find((x) => x.uri.endsWith(pinned.ref))).toMatchObject({ name: expect.stringContaining('Week plan — Notes'), description: expect.stringContaining('Note: The total in this table is wrong; region 80,100 160×80') });
    } finally {
      await agent.close();
    }
  });

  it('keeps the pause switch whole beside two long progress bars at 1440 and 1024 px, and never says "Input live" while cut off', async () => {
    const progress = (id: string, label: string): string => `data: ${JSON.stringify({ type: 'progress', progress: { id, label, done: 1234, total: 98765, finished: false } })}\n\n`;
    for (const [width, height] of [
      [1440, 900],
      [1024, 700],
    ] as const) {
      const p = await openDashboard(browser, s.dashboardUrl, { width, height });
      try {
        // The server's stream, replaced by one announcing two long indexing jobs.
        await p.route('**/api/events', (route) =>
          route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: `: connected\n\n${progress('text-index', 'Text index: 1,234 of 98,765 screenshots (archive newest first)')}${progress('manictime', 'ManicTime archive: indexing 2024-04-01 … 2026-11-27')}` }),
        );
        await p.reload();
        await expect.poll(() => p.getByTestId('progress').count()).toBe(2);
        const whole = (await p.evaluate(`(() => {
          const sw = document.querySelector('[data-testid="pause-switch"]');
          const r = sw.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          const label = sw.querySelector('.label').getBoundingClientRect();
          return { left: r.left, right: r.right, window: innerWidth, onTop: sw.contains(hit), labelFits: label.right <= r.right + 0.5 && label.width > 40 };
        })()`)) as { left: number; right: number; window: number; onTop: boolean; labelFits: boolean };
        expect(whole, `${width} px`).toMatchObject({ onTop: true, labelFits: true });
        expect(whole.right).toBeLessThanOrEqual(whole.window);
        await screenshot(p, `header-progress-${width}`);
      } finally {
        await p.context().close();
      }
    }
    // No event stream at all: the switch does not claim input is live.
    const cut = await openDashboard(browser, s.dashboardUrl);
    try {
      await cut.route('**/api/events', (route) => route.abort());
      await cut.reload();
      await cut.getByTestId('pause-switch').waitFor();
      await expect.poll(() => cut.getByTestId('pause-switch').innerText()).toMatch(/Not connected/);
      expect(await cut.getByTestId('pause-switch').innerText()).not.toMatch(/Input live/);
    } finally {
      await cut.context().close();
    }
  });

  it('pages a search past 50 matches to the oldest one, and narrows it by app and day', async () => {
    const first = await get<ScreenshotSearch>('/api/search?q=forecast&limit=50');
    expect([first.results.length, first.total, first.more]).toEqual([50, MATCHES, true]);
    const last = await get<ScreenshotSearch>('/api/search?q=forecast&limit=50&offset=100');
    expect([last.results.length, last.total, last.more]).toEqual([MATCHES - 100, MATCHES, false]);
    const oldest = notes.at(-1)!;
    expect(last.results.at(-1)?.ref).toBe(oldest.ref);
    // Pages do not overlap.
    const second = await get<ScreenshotSearch>('/api/search?q=forecast&limit=50&offset=50');
    expect(new Set([...first.results, ...second.results, ...last.results].map((h) => h.ref)).size).toBe(MATCHES);

    await page.goto(`${s.base}/#/timeline`);
    await page.getByTestId('timeline-search').fill('forecast');
    await page.getByTestId('timeline-search').press('Enter');
    const hits = page.getByTestId('search-hit');
    await expect.poll(() => hits.count()).toBe(50);
    await expect.poll(() => page.getByTestId('search-summary').innerText()).toBe(`${MATCHES} screenshots match, newest first: showing 50`);
    await page.getByTestId('search-more').click();
    await expect.poll(() => hits.count()).toBe(100);
    await page.getByTestId('search-more').click();
    await expect.poll(() => hits.count()).toBe(MATCHES);
    expect(await hits.last().getAttribute('data-ref')).toBe(oldest.ref);
    await expect.poll(() => page.getByTestId('search-more').count()).toBe(0);
    await hits.last().click();
    await expect.poll(() => page.url()).toContain(oldest.ref);

    // By app: only Mail's frames.
    const mail = notes.filter((f) => f.label?.app === 'Mail');
    await page.getByTestId('search-app').fill('Mail');
    await expect.poll(() => hits.count()).toBe(mail.length);
    expect(new Set(await hits.evaluateAll((els) => els.map((e) => e.getAttribute('data-ref'))))).toEqual(new Set(mail.map((f) => f.ref)));
    await page.getByTestId('search-app').fill('');

    // By day: the local day of the oldest match, from and to.
    const day = (iso: string): string => {
      const d = new Date(iso);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    };
    const oldestDay = day(oldest.capturedAt);
    const onDay = notes.filter((f) => day(f.capturedAt) === oldestDay);
    await page.getByTestId('search-from').fill(oldestDay);
    await page.getByTestId('search-to').fill(oldestDay);
    await expect.poll(() => hits.count()).toBe(Math.min(50, onDay.length));
    await expect.poll(() => page.getByTestId('search-summary').innerText()).toMatch(new RegExp(`^${onDay.length} screenshots? match`));
  });

  it('says what happened: the server\'s words on every row, codes in words, readable thumbnails whose marks are whole', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${s.base}/#/activity`);
    const corner = page.locator('[data-testid="activity-row"]').filter({ has: page.locator('[data-testid="activity-message"]', { hasText: '45.00 EUR' }) });
    // A successful row says what the server said of it.
    await expect.poll(() => corner.getByTestId('activity-message').innerText()).toBe('Hit cell “45.00 EUR”. No visible change');
    // A code in words, the code beside it.
    const stale = page.locator('[data-testid="activity-row"][data-result="FRAME_STALE"]');
    expect(await stale.getByTestId('activity-error-code').innerText()).toBe('The screen changed since the screenshot');
    expect(await stale.innerText()).toContain('FRAME_STALE');
    // Thumbnails large enough to read, enlarged under the pointer.
    const before = corner.getByTestId('before-frame');
    const b = (await before.boundingBox())!;
    expect(b.width).toBeGreaterThanOrEqual(148);
    await before.hover();
    const zoom = page.getByTestId('peek-zoom');
    await zoom.waitFor();
    expect((await zoom.boundingBox())!.width).toBeGreaterThanOrEqual(400);
    await page.mouse.move(5, 5);
    await expect.poll(() => zoom.count()).toBe(0);
    // The click at the corner: its mark drawn whole inside the thumbnail, on the corner's side.
    const mark = (await before.getByTestId('click-mark').boundingBox())!;
    expect(mark.width).toBeGreaterThan(6);
    expect(mark.x).toBeGreaterThanOrEqual(b.x);
    expect(mark.y).toBeGreaterThanOrEqual(b.y);
    expect(mark.x + mark.width).toBeLessThanOrEqual(b.x + b.width);
    expect(mark.y + mark.height).toBeLessThanOrEqual(b.y + b.height);
    expect(mark.x - b.x).toBeLessThan(b.width / 4);
  });

  it('steps through the evidence in the Activity viewer and returns to the same place in the log', async () => {
    await page.setViewportSize({ width: 1280, height: 560 });
    await page.goto(`${s.base}/#/activity`);
    await expect.poll(() => page.getByTestId('activity-row').count()).toBe(5);
    // Down the log to its oldest row, and open that row's evidence.
    const oldest = page.getByTestId('activity-row').last();
    await oldest.scrollIntoViewIfNeeded();
    const scrolled = (await page.locator('.page').evaluate((el) => el.scrollTop)) as number;
    expect(scrolled).toBeGreaterThan(0);
    await oldest.getByTestId('before-frame').click();
    const dialog = page.getByTestId('activity-viewer');
    await dialog.waitFor();
    expect(await dialog.getByTestId('aviewer-position').innerText()).toBe('5 of 5');
    expect(await dialog.getByTestId('aviewer-earlier').isDisabled()).toBe(true);
    // Later, by button and by arrow key: the before and after of each action.
    await dialog.getByTestId('aviewer-later').click();
    await expect.poll(() => dialog.getByTestId('aviewer-position').innerText()).toBe('4 of 5');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => dialog.getByTestId('aviewer-position').innerText()).toBe('3 of 5');
    expect(await dialog.getByTestId('aviewer-title').innerText()).toMatch(/^scroll_into_view/);
    // Refused, it did nothing: no after, said plainly.
    expect(await dialog.getByTestId('aviewer-no-after').innerText()).toMatch(/did not happen/);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => dialog.getByTestId('aviewer-position').innerText()).toBe('1 of 5');
    expect(await dialog.getByTestId('aviewer-after').locator('a').getAttribute('data-ref')).toBe(notes[1]!.ref);
    await screenshot(page, 'activity-viewer');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    // Where the person was: the same scroll, the focus on the thumbnail that opened it.
    expect(await page.locator('.page').evaluate((el) => el.scrollTop)).toBe(scrolled);
    expect(await page.evaluate(`document.activeElement?.closest('[data-testid="activity-row"]') === [...document.querySelectorAll('[data-testid="activity-row"]')].at(-1)`)).toBe(true);
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('fits a phone-sized window on every screen, the pause switch in view', async () => {
    const phoneView = await openDashboard(browser, s.dashboardUrl, { width: 390, height: 844 });
    try {
      const fits = async (name: string): Promise<void> => {
        await phoneView.waitForTimeout(300);
        const m = (await phoneView.evaluate(`(() => {
          const sw = document.querySelector('[data-testid="pause-switch"]').getBoundingClientRect();
          const hit = document.elementFromPoint(sw.left + sw.width / 2, sw.top + sw.height / 2);
          // Every control shown lies inside the window: none cut off at its right edge.
          const cut = [...document.querySelectorAll('main button, main select, main input, main textarea, main a.btn')]
            .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
            .filter((el) => el.getBoundingClientRect().right > innerWidth + 0.5 || el.getBoundingClientRect().left < -0.5)
            .map((el) => el.getAttribute('data-testid') || el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30));
          return { page: document.documentElement.scrollWidth, body: document.body.scrollWidth, left: sw.left, right: sw.right, onTop: document.querySelector('[data-testid="pause-switch"]').contains(hit), cut };
        })()`)) as { page: number; body: number; left: number; right: number; onTop: boolean; cut: string[] };
        expect(m.cut, name).toEqual([]);
        expect(m.page, name).toBeLessThanOrEqual(390);
        expect(m.body, name).toBeLessThanOrEqual(390);
        expect(m.right, name).toBeLessThanOrEqual(390);
        expect(m.onTop, name).toBe(true);
      };
      await phoneView.goto(`${s.base}/#/timeline`);
      await phoneView.getByTestId('frame-row').first().waitFor();
      await fits('timeline');
      await screenshot(phoneView, 'timeline-390');
      // The viewer: the whole image in view, not cut.
      await phoneView.goto(`${s.base}/#/timeline/${tab[0]!.ref}`);
      const img = phoneView.getByTestId('viewer-image');
      await expect.poll(() => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).toBe(320);
      await fits('viewer');
      const shown = (await img.boundingBox())!;
      const stage = (await phoneView.getByTestId('viewer-stage').boundingBox())!;
      expect(shown.x).toBeGreaterThanOrEqual(stage.x);
      expect(shown.x + shown.width).toBeLessThanOrEqual(stage.x + stage.width);
      expect(shown.x + shown.width).toBeLessThanOrEqual(390);
      // Activity: every action keeps what it did, on what, and how it ended.
      await phoneView.goto(`${s.base}/#/activity`);
      await expect.poll(() => phoneView.getByTestId('activity-row').count()).toBe(5);
      await fits('activity');
      const row = phoneView.locator('[data-testid="activity-row"][data-result="FRAME_STALE"]');
      for (const cell of ['Action', 'Target', 'Point', 'Result', 'Took']) {
        const box = await row.locator(`td[data-label="${cell}"]`).boundingBox();
        expect(box, cell).not.toBeNull();
        expect(box!.width, cell).toBeGreaterThan(0);
        expect(box!.x + box!.width, cell).toBeLessThanOrEqual(390);
      }
      expect(await row.locator('td[data-label="Action"]').innerText()).toContain('scroll_into_view');
      expect(await row.locator('td[data-label="Target"]').innerText()).toContain('Rain radar · Weather');
      expect(await row.locator('td[data-label="Result"]').innerText()).toContain('The screen changed since the screenshot');
      await screenshot(phoneView, 'activity-390');
      for (const screen of ['targets', 'routines', 'setup', 'settings'] as const) {
        await phoneView.goto(`${s.base}/#/${screen}`);
        await phoneView.locator('main .page-head h1').waitFor();
        await fits(screen);
      }
      await screenshot(phoneView, 'settings-390');
      await phoneView.goto(`${s.base}/#/setup`);
      await phoneView.getByTestId('connect-agent').waitFor();
      await fits('setup');
      await screenshot(phoneView, 'setup-390');
    } finally {
      await phoneView.context().close();
    }
  });
});
