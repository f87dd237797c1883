/**
 * The browser's tabs as the source uses them: one CDP session of ours per tab, a lock per tab
 * (concurrent calls on one tab never interleave), Sightline's isolated world for page scripts,
 * and the errors that say what happened (tab closed, connection lost). The screen, input and
 * tree ports all work through this.
 */
import { Mutex } from 'async-mutex';
import type { Browser, CDPSession, Page, Target } from 'puppeteer-core';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import type { Point, TargetInfo } from '../../../../shared/frame.ts';
import { type BrowserConnection, abortable } from './connection.ts';
import { cdpTargetId, isListedPage } from './detect.ts';
import { documentToViewport, scrollToShow, type BrowserFrameState } from './frameState.ts';
import { METRICS_FN, SCROLL_FN, type PageMetrics } from './pageScripts.ts';

const WORLD_NAME = 'sightline';
export const TAB_HINT = 'Call list_targets (source "browser") for the tabs open now.';
export const LOST_HINT = 'Call again: Sightline reconnects to the browser (or launches it again) on the next call.';

interface World {
  ctx: number;
  loaderId: string;
}

export interface Tab {
  /** CDP target id. */
  id: string;
  target: Target;
  session: CDPSession;
  page?: Promise<Page>;
  world?: World;
}

export interface Metrics {
  m: PageMetrics;
  loaderId: string;
}

export class TabSessions {
  readonly conn: BrowserConnection;
  #tabs = new Map<Target, Promise<Tab>>();
  readonly #mutexes = new Map<string, Mutex>();
  readonly #hooked = new WeakSet<Browser>();

  constructor(conn: BrowserConnection) {
    this.conn = conn;
    conn.onLost(() => {
      // Sessions die with the connection; the next call attaches afresh.
      this.#tabs = new Map();
    });
  }

  async browser(signal: AbortSignal | undefined): Promise<Browser> {
    const browser = await this.conn.get(signal);
    this.hook(browser);
    return browser;
  }

  hook(browser: Browser): void {
    if (this.#hooked.has(browser)) return;
    this.#hooked.add(browser);
    browser.on('targetdestroyed', (t: Target) => {
      this.#tabs.delete(t);
    });
  }

  /** The tab behind a puppeteer Target: one CDP session of ours, created once. */
  tab(target: Target): Promise<Tab> {
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

  /** The page targets a user would call tabs. */
  pages(browser: Browser): Target[] {
    return browser.targets().filter((t) => t.type() === 'page' && isListedPage(t.url()));
  }

  async #find(browser: Browser, id: string): Promise<Tab> {
    const pages = this.pages(browser);
    for (const t of pages) {
      const known = this.#tabs.get(t);
      if (known) {
        const tab = await known.catch(() => undefined);
        if (tab?.id === id) return tab;
      }
    }
    const fresh = await Promise.all(pages.filter((t) => !this.#tabs.has(t)).map((t) => this.tab(t).catch(() => undefined)));
    const tab = fresh.find((t) => t?.id === id);
    if (!tab) throw new SightlineError('TAB_NOT_FOUND', `No open tab has the id ${id}.`, TAB_HINT, { target: `browser:${id}` });
    return tab;
  }

  page(tab: Tab): Promise<Page> {
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

  /** Forget the locks of tabs that are gone (only once there are many). */
  prune(listed: (TargetInfo | undefined)[]): void {
    if (this.#mutexes.size < 64) return;
    const live = new Set(listed.map((t) => t && cdpTargetId(t.id)));
    for (const [id, m] of this.#mutexes) if (!live.has(id) && !m.isLocked()) this.#mutexes.delete(id);
  }

  /**
   * Run `fn` on a tab with the tab's lock held, so concurrent calls on one tab never
   * interleave. An aborted caller is released at once; the lock is held until the work ends.
   */
  async withTab<T>(target: string, signal: AbortSignal, kind: 'capture' | 'action', fn: (tab: Tab) => Promise<T>): Promise<T> {
    const id = cdpTargetId(target);
    if (!id) throw new SightlineError('TAB_NOT_FOUND', `"${target}" is not a browser tab id.`, TAB_HINT, { target });
    const browser = await this.browser(signal);
    const mutex = this.#mutex(id);
    const acquiring = mutex.acquire();
    let release: () => void;
    try {
      release = await abortable(acquiring, signal);
    } catch (e) {
      void acquiring.then((r) => r());
      throw e;
    }
    const work = (async () => fn(await this.#find(browser, id)))();
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
      return new SightlineError('CDP_CONNECTION_LOST', `The connection to the browser (${this.conn.via}) was lost during the call.`, LOST_HINT, { target }, { cause: err });
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
  async callWithLoader<T>(tab: Tab, fn: string, args: unknown[]): Promise<{ value: T; loaderId: string }> {
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

  async call<T>(tab: Tab, fn: string, args: unknown[]): Promise<T> {
    return (await this.callWithLoader<T>(tab, fn, args)).value;
  }

  async metrics(tab: Tab): Promise<Metrics> {
    const { value, loaderId } = await this.callWithLoader<PageMetrics>(tab, METRICS_FN, []);
    return { m: value, loaderId };
  }

  /** A frame point as a viewport point: full-page (document) points are scrolled into view first. */
  async toViewport(tab: Tab, state: BrowserFrameState | undefined, point: Point): Promise<{ point: Point; note?: string }> {
    if (!Number.isFinite(point.x) || !Number.isFinite(point.y)) throw new SightlineError('INVALID_ARGUMENT', 'The point must have finite x and y.', 'Give x, y in image pixels of the frame.');
    if (!state?.fullPage) return { point };
    const { m } = await this.metrics(tab);
    const viewport = { width: m.w, height: m.h };
    let scroll = { x: m.sx, y: m.sy };
    const to = scrollToShow(point, scroll, viewport);
    if (to) {
      const r = await this.call<{ sx: number; sy: number }>(tab, SCROLL_FN, ['to', to.x, to.y]);
      scroll = { x: r.sx, y: r.sy };
    }
    const p = documentToViewport(point, scroll, viewport);
    return to ? { point: p, note: `scrolled to (${Math.round(scroll.x)}, ${Math.round(scroll.y)}) to reach the full-page point` } : { point: p };
  }

  /** Wheel scrolling is applied asynchronously (and may animate): wait until it stops moving. */
  async settledScroll(tab: Tab, before: Point, signal: AbortSignal): Promise<Point> {
    let last = before;
    let still = 0;
    for (let i = 0; i < 30 && !signal.aborted; i++) {
      await new Promise((r) => setTimeout(r, 16));
      const { m } = await this.metrics(tab);
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
export function isTargetClosed(e: Error): boolean {
  return e.name === 'TargetCloseError';
}

export async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
