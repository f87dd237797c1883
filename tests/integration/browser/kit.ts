/**
 * Shared parts of the browser port tests: a real Chromium showing a fixture page, the browser
 * source connected to it, the test's own CDP client (the "driver") to read page state, and frames
 * built the way the core stores them.
 */
import { ready } from '../../../src/main/core/sources/aim.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { expect } from 'vitest';
import { createBrowserSource, type BrowserSource, type BrowserSourceOptions } from '../../../src/main/core/sources/browser/browserSource.ts';
import type { BrowserFrameState } from '../../../src/main/core/sources/browser/frameState.ts';
import type { ActionDetails, AfterMode, CaptureOptions, CapturedImage, SourceAction, StoredFrame } from '../../../src/main/core/sources/source.ts';
import type { BrowserModuleAction } from '../../../src/main/core/sources/browser/kinds.ts';
import { SightlineError } from '../../../src/shared/errors.ts';
import type { Point, Rect } from '../../../src/shared/frame.ts';
import { connectDriver, driverPage, resizeViewport, serveFixtures, startChromium, type FixtureServer, type RunningChromium } from '../../fixtures/browser/harness.ts';

export type Frame = StoredFrame<BrowserFrameState>;
export type Action = SourceAction<BrowserFrameState> | BrowserModuleAction;
export interface PerformOptions {
  after?: AfterMode;
}
export const signal = new AbortController().signal;
export const defaults: CaptureOptions = { maxDimension: 1000, format: 'jpeg', quality: 70, raw: false, signal };

export interface Ctx {
  srv: FixtureServer;
  chrome: RunningChromium;
  driver: Browser;
  source: BrowserSource;
  target: string;
  page: Page;
  dataDir: string;
  close(): Promise<void>;
}

/** A Chromium on `page` (a fixture), the source and the driver; viewport 1280×800. */
export async function open(pageName: string, o: { dpr?: number; source?: Partial<BrowserSourceOptions> } = {}): Promise<Ctx> {
  const srv = await serveFixtures();
  const chrome = await startChromium({ url: srv.url(pageName), ...(o.dpr ? { deviceScaleFactor: o.dpr } : {}) });
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-browser-'));
  const source = createBrowserSource({ settings: { endpoint: chrome.endpoint, headless: true }, dataDir, ...o.source });
  const driver = await connectDriver(chrome.endpoint);
  const tab = (await source.screen.listTargets(signal)).find((t) => String(t.details?.url).endsWith(pageName));
  expect(tab).toBeDefined();
  const page = await driverPage(driver, tab!.id.slice('browser:'.length));
  // The start page may still be loading: load it again, settled, then size the viewport.
  await page.goto(srv.url(pageName));
  await resizeViewport(page, 1280, 800);
  return {
    srv,
    chrome,
    driver,
    source,
    target: tab!.id,
    page,
    dataDir,
    async close() {
      await source.dispose?.();
      await driver.disconnect();
      await chrome.kill();
      chrome.cleanup();
      await srv.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Capture and store the frame as the core would (scale = source units per image pixel). */
export async function capture(c: Ctx, opts: Partial<CaptureOptions> = {}): Promise<{ cap: CapturedImage<BrowserFrameState>; frame: Frame }> {
  const cap = await c.source.screen.capture(c.target, { ...defaults, ...opts });
  const image = { width: cap.encoded!.width, height: cap.encoded!.height };
  const frame: Frame = {
    ref: `f${Math.random().toString(36).slice(2, 8)}`,
    source: 'browser',
    target: c.target,
    capturedAt: new Date().toISOString(),
    image,
    sourceSize: cap.sourceSize,
    origin: cap.origin,
    scale: cap.sourceSize.width / image.width,
    state: cap.state,
  };
  return { cap, frame };
}

export function act(c: Ctx, a: Action, options?: PerformOptions): Promise<ActionDetails> {
  return c.source.input.perform(ready(a, options?.after), signal);
}

export function click(c: Ctx, aim: { frame?: Frame; point?: Point; node?: string }, options?: PerformOptions): Promise<ActionDetails> {
  return act(c, { kind: 'click', target: c.target, button: 'left', clicks: 1, modifiers: [], ...aim }, options);
}

/** The viewport box of an element (CSS px), from the driver. */
export async function box(c: Ctx, selector: string): Promise<Rect> {
  return c.page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
}

export const centre = (r: Rect): Point => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });

/** Evaluate an expression in the page (a string: this project type-checks without DOM globals). */
export async function evalIn<T>(c: Ctx, expression: string): Promise<T> {
  return (await c.page.evaluate(expression)) as T;
}

export async function failure(p: Promise<unknown>): Promise<SightlineError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(SightlineError);
    return e as SightlineError;
  }
  throw new Error('expected a SightlineError');
}

/** A node id of the tab's UI tree by its accessible name (and role). */
export async function nodeNamed(c: Ctx, frame: Frame, name: string, role?: string): Promise<string> {
  const nodes = await c.source.tree.uiTree(c.target, frame, { maxNodes: 50, query: name, signal });
  const n = nodes.find((x) => x.name === name && (!role || x.role === role));
  expect(n, `node "${name}"`).toBeDefined();
  return n!.id;
}

export async function reload(c: Ctx, pageName: string): Promise<void> {
  await c.page.goto(c.srv.url(pageName));
  await resizeViewport(c.page, 1280, 800);
}
