/**
 * The browser source: Chrome/Chromium/Edge/Brave tabs over the DevTools protocol
 * (puppeteer-core). Captures are scaled and encoded inside the browser (`clip.scale`), the
 * fastest path measured here; input goes through puppeteer's keyboard and mouse; the UI tree
 * is one function call in Sightline's isolated world.
 */
import { Mutex } from 'async-mutex';
import type { Browser, CDPSession, Page, Target } from 'puppeteer-core';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import type { ImageFormat, Point, SourceHealth, TargetInfo } from '../../../../shared/frame.ts';
import { fitSize } from '../../image/fit.ts';
import { probe } from '../../image/pipeline.ts';
import type { Settings } from '../../settings.ts';
import type { ActionDetails, CaptureOptions, CapturedImage, FrameCheck, Source, SourceAction, SourceUiNode, StoredFrame, UiTreeOptions } from '../source.ts';
import { BrowserConnection, REMEDIATION, abortable } from './connection.ts';
import { cdpTargetId, isListedPage } from './detect.ts';
import { captureRegion, documentToViewport, readState, scrollToShow, staleReason, type BrowserFrameState } from './frameState.ts';
import { parseKeyCombo } from './keys.ts';
import { METRICS_FN, SCROLL_FN, SCROLL_INTO_VIEW_FN, UI_TREE_FN, type PageMetrics, type PageTree } from './pageScripts.ts';

export { REMEDIATION } from './connection.ts';

export interface BrowserSourceOptions {
  settings: Settings['browser'];
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** Launch a browser when none answers (default true; never when browser.endpoint is set). */
  autoLaunch?: boolean;
}

export type BrowserSource = Source & {
  /** Launch Sightline's own browser (dedicated profile) and return its first tab's target id. */
  launch(): Promise<string>;
};

/** The seed's limit: longer text is refused, not truncated. */
export const MAX_TEXT_LENGTH = 10_000;
/** Up to this many characters are typed key by key (pages see keydown/keyup); longer text is inserted. */
const KEYED_TYPING_LIMIT = 200;
const INSERT_CHUNK = 2_000;
const WORLD_NAME = 'sightline';
const TAB_HINT = 'Call list_targets (source "browser") for the tabs open now.';
const LOST_HINT = 'Call again: Sightline reconnects to the browser (or launches it again) on the next call.';

interface World {
  ctx: number;
  loaderId: string;
}

interface Tab {
  /** CDP target id. */
  id: string;
  target: Target;
  session: CDPSession;
  page?: Promise<Page>;
  world?: World;
}

interface Metrics {
  m: PageMetrics;
  loaderId: string;
}

type CdpCall = (method: string, params?: Record<string, unknown>) => Promise<unknown>;

export function createBrowserSource(options: BrowserSourceOptions): BrowserSource {
  return new BrowserSourceImpl(options);
}

class BrowserSourceImpl implements BrowserSource {
  readonly name = 'browser' as const;
  readonly capabilities = {
    capture: true,
    actions: ['click', 'type_text', 'press_key', 'scroll', 'scroll_into_view'] as const,
    uiTree: true,
  };
  readonly #conn: BrowserConnection;
  #tabs = new Map<Target, Promise<Tab>>();
  readonly #mutexes = new Map<string, Mutex>();
  readonly #hooked = new WeakSet<Browser>();

  constructor(o: BrowserSourceOptions) {
    this.#conn = new BrowserConnection({ settings: o.settings, dataDir: o.dataDir, env: o.env ?? process.env, autoLaunch: o.autoLaunch ?? true });
    this.#conn.onLost(() => {
      // Sessions die with the connection; the next call attaches afresh.
      this.#tabs = new Map();
    });
  }

  async health(): Promise<SourceHealth> {
    const base = { source: 'browser' as const, enabled: true };
    try {
      const p = await this.#conn.probe();
      if (p.endpoint) {
        return { ...base, available: true, degraded: false, checks: [{ id: 'browser.endpoint', label: 'Browser debugging endpoint', status: 'ok', detail: p.via }] };
      }
      if (p.executable) {
        return {
          ...base,
          available: true,
          degraded: false,
          checks: [
            { id: 'browser.endpoint', label: 'Browser debugging endpoint', status: 'warning', detail: 'No browser with remote debugging is running.', fix: REMEDIATION },
            { id: 'browser.executable', label: 'Browser to launch', status: 'ok', detail: `${p.executable.path} (launched on first use, profile ${this.#conn.profileDir})` },
          ],
        };
      }
      return {
        ...base,
        available: false,
        degraded: false,
        reason: p.problem ?? 'no browser found',
        remediation: REMEDIATION,
        checks: [{ id: 'browser.endpoint', label: 'Browser debugging endpoint', status: 'error', detail: p.problem, fix: REMEDIATION }],
      };
    } catch (e) {
      return { ...base, available: false, degraded: false, reason: (e as Error).message, remediation: REMEDIATION };
    }
  }

  async launch(): Promise<string> {
    const browser = await this.#conn.launch();
    this.#hook(browser);
    const target = browser.targets().find((t) => t.type() === 'page') ?? (await browser.waitForTarget((t) => t.type() === 'page', { timeout: 10_000 }));
    const tab = await this.#tab(target);
    return `browser:${tab.id}`;
  }

  async listTargets(signal: AbortSignal): Promise<TargetInfo[]> {
    const browser = await this.#browser(signal);
    const pages = browser.targets().filter((t) => t.type() === 'page' && isListedPage(t.url()));
    const infos = await abortable(
      Promise.all(
        pages.map(async (t): Promise<TargetInfo | undefined> => {
          try {
            const tab = await withTimeout(this.#tab(t), 5_000);
            const { targetInfo: info } = await tab.session.send('Target.getTargetInfo');
            if (info.subtype === 'prerender' || !isListedPage(info.url)) return undefined;
            // A busy page must not hold up the list: its viewport is left out instead.
            const metrics = await withTimeout(this.#metrics(tab), 1_000).catch(() => undefined);
            const details: Record<string, unknown> = { url: info.url };
            if (metrics) {
              details.viewport = { width: metrics.m.w, height: metrics.m.h };
              details.devicePixelRatio = metrics.m.dpr;
            }
            const out: TargetInfo = { id: `browser:${tab.id}`, source: 'browser', kind: 'tab', title: info.title || info.url, details };
            if (metrics) out.state = metrics.m.vis;
            return out;
          } catch {
            return undefined; // closed while listing
          }
        }),
      ),
      signal,
    );
    if (!browser.connected) {
      throw new SightlineError('CDP_CONNECTION_LOST', `The connection to the browser (${this.#conn.via}) was lost while listing its tabs.`, LOST_HINT);
    }
    this.#pruneMutexes(infos);
    return infos.filter((t): t is TargetInfo => t !== undefined);
  }

  async capture(target: string, o: CaptureOptions): Promise<CapturedImage> {
    return this.#withTab(target, o.signal, 'capture', async (tab) => {
      const warnings: string[] = [];
      if (o.scrollOffset && (o.scrollOffset.x || o.scrollOffset.y)) {
        const { x, y } = o.scrollOffset;
        if (!Number.isFinite(x) || !Number.isFinite(y)) throw new SightlineError('INVALID_ARGUMENT', 'scrollOffset x and y must be numbers (CSS px).');
        await this.#call(tab, SCROLL_FN, ['by', x, y]);
      }
      let { m, loaderId } = await this.#metrics(tab);
      if (m.vis === 'hidden') {
        // A background tab produces no frames, so its screenshot would never come.
        await tab.session.send('Page.bringToFront');
        warnings.push('The tab was in the background: it was brought to the front to capture it.');
        ({ m, loaderId } = await this.#metrics(tab));
      }
      const fullPage = o.fullPage === true;
      const { region, clipped } = captureRegion(m, fullPage);
      if (clipped) warnings.push(`The page is larger than a browser can render at once; the top-left ${Math.round(region.width)}×${Math.round(region.height)} CSS px were captured.`);
      const native = { width: Math.max(1, Math.round(region.width * m.dpr)), height: Math.max(1, Math.round(region.height * m.dpr)) };
      const out = o.raw ? native : fitSize(native, { maxDimension: o.maxDimension, maxPixels: o.maxPixels });
      // Output px = clip CSS px × scale × devicePixelRatio, rounded to nearest. Planned along the
      // long edge, which then comes out exact; the short edge is within half a pixel.
      const landscape = native.width >= native.height;
      const scale = landscape ? out.width / (region.width * m.dpr) : out.height / (region.height * m.dpr);
      const params: Record<string, unknown> = {
        format: o.format,
        clip: { ...region, scale },
        captureBeyondViewport: fullPage,
      };
      // Faster zlib settings for PNG; JPEG and WebP encode the same either way.
      if (o.format === 'png') params.optimizeForSpeed = true;
      if (o.format !== 'png') params.quality = Math.round(o.quality);
      const shot = (await tab.session.send('Page.captureScreenshot', params)) as { data: string };
      const data = Buffer.from(shot.data, 'base64');
      if (data.length === 0) throw new SightlineError('SCREENSHOT_FAILED', 'The browser returned an empty screenshot.', 'Capture again.');
      const size = await probe({ kind: 'encoded', data });
      // Image px per CSS px. The image shows exactly the clip region; when it came back at another
      // size than planned (a device emulation by another DevTools client, which Chrome drops for
      // the capture), its own size gives the density.
      let density = scale * m.dpr;
      const long = landscape ? size.width : size.height;
      const regionLong = landscape ? region.width : region.height;
      if (Math.abs(long - regionLong * density) > 2) {
        density = long / regionLong;
        warnings.push(
          `The image came back at ${size.width}×${size.height} instead of ${out.width}×${out.height}: another DevTools client is emulating a device on this tab (Chrome drops that emulation while capturing). Coordinates are still mapped correctly.`,
        );
      }
      const state: BrowserFrameState = {
        loaderId,
        url: m.url,
        viewport: { width: m.w, height: m.h },
        dpr: m.dpr,
        scroll: { x: m.sx, y: m.sy },
        fullPage,
      };
      const result: CapturedImage = {
        target,
        encoded: { data, format: o.format as ImageFormat, width: size.width, height: size.height },
        // The CSS px the image covers (the region, give or take the rounding of the last pixel).
        sourceSize: { width: size.width / density, height: size.height / density },
        origin: { x: 0, y: 0 },
        state: { ...state },
      };
      if (warnings.length) result.warnings = warnings;
      return result;
    });
  }

  async checkFrame(frame: StoredFrame, signal: AbortSignal): Promise<FrameCheck> {
    const st = readState(frame.state);
    return this.#withTab(frame.target, signal, 'action', async (tab) => {
      if (!st) throw new SightlineError('FRAME_STALE', `Frame ${frame.ref} carries no browser state.`, `Capture ${frame.target} again.`);
      const { m, loaderId } = await this.#metrics(tab);
      const why = staleReason(st, { loaderId, url: m.url, viewport: { width: m.w, height: m.h } });
      if (why) throw new SightlineError('FRAME_STALE', `Frame ${frame.ref} is stale: ${why}.`, `Capture ${frame.target} again and use the new frame's coordinates.`, { ref: frame.ref });
      return {};
    });
  }

  async perform(action: SourceAction, signal: AbortSignal): Promise<ActionDetails> {
    switch (action.kind) {
      case 'click':
      case 'type_text':
      case 'press_key':
      case 'scroll':
      case 'scroll_into_view':
        break;
      default:
        throw new SightlineError('UNSUPPORTED', `${action.kind} is not supported by the browser source.`, 'Use click, type_text, press_key, scroll or scroll_into_view.');
    }
    // Bad input is refused before anything is touched.
    if (action.kind === 'type_text') checkText(action.text);
    const combo = action.kind === 'press_key' ? parseKeyCombo(action.key) : undefined;
    if (action.kind === 'click') checkClick(action.clicks, action.button, action.modifiers);

    return this.#withTab(action.target, signal, 'action', async (tab) => {
      const page = await this.#page(tab);
      switch (action.kind) {
        case 'click': {
          const { point, note } = await this.#toViewport(tab, action.frame, action.point);
          await holding(page, action.modifiers, () => page.mouse.click(point.x, point.y, { button: action.button, count: action.clicks, delay: action.holdMs }));
          return withNote({ viewportPoint: point }, note);
        }
        case 'type_text': {
          let note: string | undefined;
          if (action.point) {
            const v = await this.#toViewport(tab, action.frame, action.point);
            note = v.note;
            await page.mouse.click(v.point.x, v.point.y);
          }
          const how = await typeText(page, (method, params) => tab.session.send(method as 'Input.insertText', params as { text: string }), action.text, signal);
          return withNote({ characters: [...action.text].length, method: how }, note);
        }
        case 'press_key': {
          await holding(page, combo!.modifiers, () => page.keyboard.press(combo!.key));
          return { key: [...combo!.modifiers, combo!.key].join('+') };
        }
        case 'scroll': {
          if (!Number.isFinite(action.deltaX) || !Number.isFinite(action.deltaY)) throw new SightlineError('INVALID_ARGUMENT', 'deltaX and deltaY must be numbers.');
          let point: Point;
          let note: string | undefined;
          if (action.point) ({ point, note } = await this.#toViewport(tab, action.frame, action.point));
          const before = (await this.#metrics(tab)).m;
          // No point: the wheel turns over the middle of the viewport (deltas are CSS px).
          point ??= { x: before.w / 2, y: before.h / 2 };
          await page.mouse.move(point.x, point.y);
          await page.mouse.wheel({ deltaX: action.deltaX, deltaY: action.deltaY });
          const after = await this.#settledScroll(tab, { x: before.sx, y: before.sy }, signal);
          return withNote({ viewportPoint: point, scroll: after }, note);
        }
        case 'scroll_into_view': {
          const r = await this.#call<{ x: number; y: number; w: number; h: number; sx: number; sy: number } | null>(tab, SCROLL_INTO_VIEW_FN, [action.node, action.block, action.inline]);
          if (!r) {
            throw new SightlineError('NODE_NOT_FOUND', `Node "${action.node}" is not on the page any more (or is not a node id from get_ui_tree).`, 'Call get_ui_tree again and use an id from it.', { node: action.node });
          }
          return { bounds: { x: r.x, y: r.y, width: r.w, height: r.h }, scroll: { x: r.sx, y: r.sy } };
        }
        default:
          throw new SightlineError('UNSUPPORTED', 'Unsupported action.');
      }
    });
  }

  async uiTree(target: string, frame: StoredFrame, options: UiTreeOptions): Promise<SourceUiNode[]> {
    const maxNodes = Math.floor(options.maxNodes);
    if (!(maxNodes >= 1)) throw new SightlineError('INVALID_ARGUMENT', `maxNodes must be at least 1 (got ${options.maxNodes}).`);
    const query = options.query?.trim() || undefined;
    const st = readState(frame.state);
    return this.#withTab(target, options.signal, 'action', async (tab) => {
      const tree = await this.#call<PageTree>(tab, UI_TREE_FN, [maxNodes, query ?? null]);
      // A full-page frame is in document coordinates: shift the viewport boxes by the scroll.
      const dx = st?.fullPage ? tree.sx : 0;
      const dy = st?.fullPage ? tree.sy : 0;
      return tree.nodes.map((n) => {
        const out: SourceUiNode = {
          id: n.id,
          role: n.role,
          name: n.name,
          bounds: { x: n.x + dx, y: n.y + dy, width: n.w, height: n.h },
          inViewport: n.inView,
          clickable: n.clickable,
        };
        const parent = n.p >= 0 ? tree.nodes[n.p] : undefined;
        if (parent) out.parentId = parent.id;
        if (n.value !== undefined) out.value = n.value;
        if (n.enabled !== undefined) out.enabled = n.enabled;
        if (n.attrs) out.attributes = n.attrs;
        return out;
      });
    });
  }

  async dispose(): Promise<void> {
    await this.#conn.close();
  }

  // ── connection and tabs ───────────────────────────────────────────────

  async #browser(signal: AbortSignal | undefined): Promise<Browser> {
    const browser = await this.#conn.get(signal);
    this.#hook(browser);
    return browser;
  }

  #hook(browser: Browser): void {
    if (this.#hooked.has(browser)) return;
    this.#hooked.add(browser);
    browser.on('targetdestroyed', (t: Target) => {
      this.#tabs.delete(t);
    });
  }

  /** The tab behind a puppeteer Target: one CDP session of ours, created once. */
  #tab(target: Target): Promise<Tab> {
    let p = this.#tabs.get(target);
    if (!p) {
      const tabs = this.#tabs;
      p = (async (): Promise<Tab> => {
        const session = await target.createCDPSession();
        const { targetInfo } = await session.send('Target.getTargetInfo');
        return { id: targetInfo.targetId, target, session };
      })();
      tabs.set(target, p);
      p.catch(() => {
        if (tabs.get(target) === p) tabs.delete(target);
      });
    }
    return p;
  }

  async #findTab(browser: Browser, id: string): Promise<Tab> {
    const pages = browser.targets().filter((t) => t.type() === 'page' && isListedPage(t.url()));
    for (const t of pages) {
      const known = this.#tabs.get(t);
      if (known) {
        const tab = await known.catch(() => undefined);
        if (tab?.id === id) return tab;
      }
    }
    const fresh = await Promise.all(pages.filter((t) => !this.#tabs.has(t)).map((t) => this.#tab(t).catch(() => undefined)));
    const tab = fresh.find((t) => t?.id === id);
    if (!tab) throw new SightlineError('TAB_NOT_FOUND', `No open tab has the id ${id}.`, TAB_HINT, { target: `browser:${id}` });
    return tab;
  }

  #page(tab: Tab): Promise<Page> {
    tab.page ??= tab.target.page().then((p) => {
      if (!p) throw new SightlineError('TAB_NOT_FOUND', `Target ${tab.id} is not a page.`, TAB_HINT);
      return p;
    });
    return tab.page;
  }

  #mutex(id: string): Mutex {
    let m = this.#mutexes.get(id);
    if (!m) {
      m = new Mutex();
      this.#mutexes.set(id, m);
    }
    return m;
  }

  #pruneMutexes(listed: (TargetInfo | undefined)[]): void {
    if (this.#mutexes.size < 64) return;
    const live = new Set(listed.map((t) => t && cdpTargetId(t.id)));
    for (const [id, m] of this.#mutexes) if (!live.has(id) && !m.isLocked()) this.#mutexes.delete(id);
  }

  /**
   * Run `fn` on a tab with the tab's lock held, so concurrent calls on one tab never
   * interleave. An aborted caller is released at once; the lock is held until the work ends.
   */
  async #withTab<T>(target: string, signal: AbortSignal, kind: 'capture' | 'action', fn: (tab: Tab) => Promise<T>): Promise<T> {
    const id = cdpTargetId(target);
    if (!id) throw new SightlineError('TAB_NOT_FOUND', `"${target}" is not a browser tab id.`, TAB_HINT, { target });
    const browser = await this.#browser(signal);
    const mutex = this.#mutex(id);
    const acquiring = mutex.acquire();
    let release: () => void;
    try {
      release = await abortable(acquiring, signal);
    } catch (e) {
      void acquiring.then((r) => r());
      throw e;
    }
    const work = (async () => fn(await this.#findTab(browser, id)))();
    void work.then(release, release);
    try {
      return await abortable(work, signal);
    } catch (e) {
      throw this.#mapError(e, browser, target, kind);
    }
  }

  #mapError(e: unknown, browser: Browser, target: string, kind: 'capture' | 'action'): Error {
    if (isSightlineError(e)) return e;
    const err = e instanceof Error ? e : new Error(String(e));
    if (!browser.connected) {
      return new SightlineError('CDP_CONNECTION_LOST', `The connection to the browser (${this.#conn.via}) was lost during the call.`, LOST_HINT, { target }, { cause: err });
    }
    if (isTargetClosed(err) || /session closed|target closed|no target with given id|no session with given id/i.test(err.message)) {
      return new SightlineError('TAB_NOT_FOUND', `The tab ${target} was closed.`, TAB_HINT, { target }, { cause: err });
    }
    if (kind === 'capture') return new SightlineError('SCREENSHOT_FAILED', `The browser could not capture ${target}: ${err.message}`, 'Capture again; if the page is busy, wait for it first.', { target }, { cause: err });
    return err;
  }

  // ── page calls ────────────────────────────────────────────────────────

  async #createWorld(tab: Tab): Promise<World> {
    const { frameTree } = await tab.session.send('Page.getFrameTree');
    const { executionContextId } = await tab.session.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: WORLD_NAME, grantUniveralAccess: false });
    tab.world = { ctx: executionContextId, loaderId: frameTree.frame.loaderId };
    return tab.world;
  }

  /**
   * Call a page function in Sightline's isolated world. The main frame's loader id is read in
   * the same batch: a new document means a new world, so the call is made again there.
   */
  async #callWithLoader<T>(tab: Tab, fn: string, args: unknown[]): Promise<{ value: T; loaderId: string }> {
    for (let attempt = 0; ; attempt++) {
      const world = tab.world ?? (await this.#createWorld(tab));
      const [tree, res] = await Promise.all([
        tab.session.send('Page.getFrameTree'),
        tab.session
          .send('Runtime.callFunctionOn', { functionDeclaration: fn, executionContextId: world.ctx, arguments: args.map((value) => ({ value })), returnByValue: true })
          .then((r) => ({ r }), (error: unknown) => ({ error })),
      ]);
      const loaderId = tree.frameTree.frame.loaderId;
      const failed = 'error' in res ? res.error : undefined;
      const worldGone = loaderId !== world.loaderId || (failed instanceof Error && /context|execution/i.test(failed.message) && !isTargetClosed(failed));
      if (worldGone && attempt < 2) {
        tab.world = undefined;
        continue;
      }
      if (failed) throw failed;
      const { r } = res as { r: { result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } } };
      if (r.exceptionDetails) throw new Error(`Page script failed: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return { value: r.result.value as T, loaderId };
    }
  }

  async #call<T>(tab: Tab, fn: string, args: unknown[]): Promise<T> {
    return (await this.#callWithLoader<T>(tab, fn, args)).value;
  }

  async #metrics(tab: Tab): Promise<Metrics> {
    const { value, loaderId } = await this.#callWithLoader<PageMetrics>(tab, METRICS_FN, []);
    return { m: value, loaderId };
  }

  /** A frame point as a viewport point: full-page (document) points are scrolled into view first. */
  async #toViewport(tab: Tab, frame: StoredFrame | undefined, point: Point): Promise<{ point: Point; note?: string }> {
    if (!Number.isFinite(point.x) || !Number.isFinite(point.y)) throw new SightlineError('INVALID_ARGUMENT', 'The point must have finite x and y.');
    const st = readState(frame?.state);
    if (!st?.fullPage) return { point };
    const { m } = await this.#metrics(tab);
    const viewport = { width: m.w, height: m.h };
    let scroll = { x: m.sx, y: m.sy };
    const to = scrollToShow(point, scroll, viewport);
    if (to) {
      const r = await this.#call<{ sx: number; sy: number }>(tab, SCROLL_FN, ['to', to.x, to.y]);
      scroll = { x: r.sx, y: r.sy };
    }
    const p = documentToViewport(point, scroll, viewport);
    return to ? { point: p, note: `scrolled to (${Math.round(scroll.x)}, ${Math.round(scroll.y)}) to reach the full-page point` } : { point: p };
  }

  /** Wheel scrolling is applied asynchronously (and may animate): wait until it stops moving. */
  async #settledScroll(tab: Tab, before: Point, signal: AbortSignal): Promise<Point> {
    let last = before;
    let still = 0;
    for (let i = 0; i < 30 && !signal.aborted; i++) {
      await new Promise((r) => setTimeout(r, 16));
      const { m } = await this.#metrics(tab);
      const now = { x: m.sx, y: m.sy };
      if (now.x === last.x && now.y === last.y) {
        // Not moved yet right after the wheel: give the compositor a few frames.
        if (++still >= (now.x === before.x && now.y === before.y ? 6 : 2)) return now;
      } else still = 0;
      last = now;
    }
    return last;
  }
}

/** Puppeteer's TargetCloseError (not in its public types): the session's tab went away. */
function isTargetClosed(e: Error): boolean {
  return e.name === 'TargetCloseError';
}

function withNote(details: ActionDetails, note: string | undefined): ActionDetails {
  return note ? { ...details, note } : details;
}

function checkText(text: string): void {
  if (typeof text !== 'string' || text.length === 0) throw new SightlineError('INVALID_ARGUMENT', 'type_text needs a non-empty "text".');
  const n = [...text].length;
  if (n > MAX_TEXT_LENGTH) {
    throw new SightlineError('INVALID_ARGUMENT', `The text is ${n} characters long; at most ${MAX_TEXT_LENGTH} are typed in one call.`, `Split it into several type_text calls of at most ${MAX_TEXT_LENGTH} characters.`, { length: n });
  }
}

function checkClick(clicks: number, button: string, modifiers: readonly string[]): void {
  if (!Number.isInteger(clicks) || clicks < 1 || clicks > 3) throw new SightlineError('INVALID_ARGUMENT', `clicks must be 1, 2 or 3 (got ${clicks}).`);
  if (!['left', 'right', 'middle'].includes(button)) throw new SightlineError('INVALID_ARGUMENT', `Unknown mouse button "${button}".`, 'Use left, right or middle.');
  for (const m of modifiers) {
    if (!['Shift', 'Control', 'Alt', 'Meta'].includes(m)) throw new SightlineError('INVALID_ARGUMENT', `Unknown modifier "${m}".`, 'Use Shift, Control, Alt or Meta.');
  }
}

/** Hold modifier keys around an input; they are released even when it fails. */
async function holding(page: Page, modifiers: readonly string[], act: () => Promise<void>): Promise<void> {
  const held: string[] = [];
  try {
    for (const m of modifiers) {
      await page.keyboard.down(m as 'Shift');
      held.push(m);
    }
    await act();
  } finally {
    for (const m of held.reverse()) await page.keyboard.up(m as 'Shift').catch(() => undefined);
  }
}

/**
 * Type exactly `text`. Short text goes key by key through puppeteer's keyboard (pages see
 * keydown/keypress/keyup; characters without a key are inserted). Long text would take ~3 ms
 * per character that way, so it is inserted in chunks, with Enter and Tab still pressed as keys.
 */
async function typeText(page: Page, send: CdpCall, text: string, signal: AbortSignal): Promise<'keys' | 'insert'> {
  const normalised = text.replace(/\r\n?/g, '\n');
  if ([...normalised].length <= KEYED_TYPING_LIMIT) {
    await page.keyboard.type(normalised);
    return 'keys';
  }
  for (const part of normalised.split(/([\n\t])/)) {
    if (signal.aborted) return 'insert';
    if (part === '\n') await page.keyboard.press('Enter');
    else if (part === '\t') await page.keyboard.press('Tab');
    else for (let i = 0; i < part.length; i += INSERT_CHUNK) await send('Input.insertText', { text: sliceCodePoints(part, i, INSERT_CHUNK) });
  }
  return 'insert';
}

/** `s.slice(i, i + n)` that does not split a surrogate pair at either end. */
function sliceCodePoints(s: string, i: number, n: number): string {
  let start = i;
  if (start > 0 && isLowSurrogate(s.charCodeAt(start))) start += 1;
  let end = Math.min(s.length, i + n);
  if (end < s.length && isLowSurrogate(s.charCodeAt(end))) end += 1;
  return s.slice(start, end);
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
