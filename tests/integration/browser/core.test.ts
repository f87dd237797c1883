/**
 * The browser source behind the real core: frames stored in the catalog, actions through the
 * one action gate (frame resolution, staleness, point checks, image → source mapping).
 */
import { actTool } from '../../support/actTool.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../src/main/core/index.ts';
import { sourceToImage } from '../../../src/main/core/image/mapping.ts';
import { navigateKind } from '../../../src/main/core/sources/browser/kinds.ts';
import { createBrowserSource } from '../../../src/main/core/sources/browser/browserSource.ts';
import { isSightlineError } from '../../../src/shared/errors.ts';
import type { Rect } from '../../../src/shared/frame.ts';
import { connectDriver, driverPage, resizeViewport, serveFixtures, startChromium, type FixtureServer, type RunningChromium } from '../../fixtures/browser/harness.ts';
import { moduleFor } from '../../support/modules.ts';

let srv: FixtureServer;
let chrome: RunningChromium;
let driver: Browser;
let page: Page;
let core: Core;
let target: string;
let dataDir: string;
const signal = new AbortController().signal;

beforeAll(async () => {
  srv = await serveFixtures();
  chrome = await startChromium({ url: srv.url('page.html'), deviceScaleFactor: 2 });
  dataDir = mkdtempSync(join(tmpdir(), 'sightline-browser-core-'));
  const source = createBrowserSource({ settings: { endpoint: chrome.endpoint, headless: true }, dataDir });
  core = await createCore({ dataDir, modules: [moduleFor(source)], settings: { sources: { browser: { enabled: true } } } });
  const { targets } = await core.targets.list('browser', signal);
  target = targets.find((t) => String(t.details?.url).endsWith('page.html'))!.id;
  driver = await connectDriver(chrome.endpoint);
  page = await driverPage(driver, target.slice('browser:'.length));
});

afterAll(async () => {
  await core?.close();
  await driver?.disconnect();
  await chrome?.kill();
  chrome?.cleanup();
  await srv?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  await page.goto(srv.url('page.html'));
  await resizeViewport(page, 1280, 800);
});

async function box(selector: string): Promise<Rect> {
  return page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
}

const state = async <T>(expr: string): Promise<T> => (await page.evaluate(expr)) as T;

describe('through the core (DPR 2)', () => {
  it('checks the frame and clicks under one lock: a navigation queued behind the click never comes between its check and its act', async () => {
    const { frame } = await core.frames.capture({ target, signal });
    const b = await box('#counter');
    const p = sourceToImage(frame, { x: b.x + b.width / 2, y: b.y + b.height / 2 });
    const idle = sourceToImage(frame, { x: 1200, y: 30 });
    await page.evaluate('window.downs = 0; addEventListener("mousedown", () => window.downs++)');
    // A long press on the empty header holds the tab: the click, then the navigation (from
    // another agent that never captured the tab, so it checks no frame) queue behind it in that
    // order. Checked under one lock and performed under another, the click would let the
    // navigation in between and land on the trap (or be refused as stale): under one lock it
    // lands on its button, then the navigation runs.
    const holder = actTool(core, 'click', { target, x: Math.round(idle.x), y: Math.round(idle.y), holdMs: 1500, after: 'none' }, { signal });
    for (let i = 0; i < 100 && (await state<number>('window.downs')) === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await state<number>('window.downs')).toBe(1);
    const click = actTool(core, 'click', { target, x: Math.round(p.x), y: Math.round(p.y) }, { signal });
    await new Promise((r) => setTimeout(r, 200));
    const otherAgent = { id: 'other', latest: () => undefined, remember: () => undefined };
    const nav = core.actions.act(navigateKind, z.object(navigateKind.input).parse({ target, url: srv.url('trap.html') }), { signal, session: otherAgent });
    await holder;
    expect((await click).hit).toMatchObject({ name: 'Clicked 0' });
    await nav;
    expect(page.url()).toBe(srv.url('trap.html'));
    expect(await state<number | undefined>('window.trapClicks')).toBeUndefined();
  });

  it('captures, then clicks in the image coordinates of the frame and of a crop', async () => {
    const { frame } = await core.frames.capture({ target, signal });
    expect(frame.image).toEqual({ width: 1000, height: 625 });
    expect(frame.scale).toBeCloseTo(1.28, 10);

    const counter = await box('#counter');
    const p = sourceToImage(frame, { x: counter.x + counter.width / 2, y: counter.y + counter.height / 2 });
    const res = await actTool(core, 'click', { target, x: Math.round(p.x), y: Math.round(p.y) }, { signal });
    expect(res.frameRef).toBe(frame.ref);
    expect(await state<number>('window.state.counter')).toBe(1);

    // A crop around the toggle button, in percent of the frame; click in the crop's own pixels.
    const crop = (await core.frames.crop({ ref: frame.ref, x: 10, y: 5, width: 30, height: 20 })).frame;
    expect(crop.parentRef).toBe(frame.ref);
    const toggle = await box('#toggle');
    const q = sourceToImage(crop, { x: toggle.x + toggle.width / 2, y: toggle.y + toggle.height / 2 });
    expect(q.x).toBeGreaterThan(0);
    expect(q.x).toBeLessThan(crop.image.width);
    await actTool(core, 'click', { ref: crop.ref, x: Math.round(q.x), y: Math.round(q.y) }, { signal });
    expect(await state<boolean>('window.state.toggle')).toBe(true);
  });

  it('clicks a UI-tree node by id, scrolls one into view, and refuses a point outside the frame', async () => {
    await core.frames.capture({ target, signal });
    const tree = await core.frames.uiTree({ target, maxNodes: 300, signal });
    const counter = tree.nodes.find((n) => n.name === 'Clicked 0')!;
    await actTool(core, 'click', { target, node: counter.id }, { signal });
    expect(await state<number>('window.state.counter')).toBe(1);

    const far = tree.nodes.find((n) => n.name === 'Far button')!;
    expect(far.inViewport).toBe(false);
    await actTool(core, 'scroll_into_view', { target, node: far.id }, { signal });
    await core.frames.capture({ target, signal });
    const after = await core.frames.uiTree({ target, maxNodes: 20, query: 'far button', signal });
    await actTool(core, 'click', { target, node: after.nodes[0]!.id }, { signal });
    expect(await state<number>('window.state.far')).toBe(1);

    const outside = await actTool(core, 'click', { target, x: 1000, y: 10 }, { signal }).catch((e: unknown) => e);
    expect(isSightlineError(outside) && outside.code).toBe('POINT_OUTSIDE_FRAME');
  });

  it('refuses a stale frame after navigation, and types exact text through the gate', async () => {
    const { frame } = await core.frames.capture({ target, signal });
    const text = await box('#text');
    const p = sourceToImage(frame, { x: text.x + 20, y: text.y + text.height / 2 });
    await actTool(core, 'type_text', { target, x: Math.round(p.x), y: Math.round(p.y), text: '!@#$%^&*()_+{}|:"<>?`~ héllo 世界' }, { signal });
    expect(await page.$eval('#text', (el) => (el as unknown as { value: string }).value)).toBe('!@#$%^&*()_+{}|:"<>?`~ héllo 世界');

    await page.goto(srv.url('other.html'));
    const stale = await actTool(core, 'click', { ref: frame.ref, x: 10, y: 10 }, { signal }).catch((e: unknown) => e);
    expect(isSightlineError(stale) && stale.code).toBe('FRAME_STALE');
  });
});
