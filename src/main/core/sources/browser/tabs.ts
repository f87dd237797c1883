/**
 * The tabs of one browser connection as the source uses them: one CDP session of ours per tab
 * with its event watch (dialogs, navigations, requests), a lock per tab (concurrent calls on one
 * tab never interleave), Sightline's isolated world for page scripts, and the errors that say
 * what happened (tab closed, connection lost, a dialog stops the page). Target ids are
 * `<prefix><CDP target id>`: `browser:` for the default connection, `browser:<name>/` for the
 * others (browser.endpoints).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Mutex } from 'async-mutex';
import type { Browser, CDPSession, Page, Target } from 'puppeteer-core';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import type { Point, TargetInfo } from '../../../../shared/frame.ts';
import { type BrowserConnection, abortable } from './connection.ts';
import { isListedPage, splitTabId } from './detect.ts';
import { METRICS_FN, type PageMetrics } from './pageScripts.ts';
import { TabWatch, dialogBlocks, guarded } from './tabWatch.ts';

const WORLD_NAME = 'sightline';
const OBJECT_GROUP = 'sightline';
export const TAB_HINT = 'Call list_targets (source "browser") for the tabs open now.';
export const LOST_HINT = 'Call again: Sightline reconnects to the browser (or launches it again) on the next call.';

interface World {
  ctx: number;
  loaderId: string;
}

export interface Tab {
  /** CDP target id. */
  id: string;
  /** Sightline's target id (`<prefix><id>`). */
  targetId: string;
  target: Target;
  session: CDPSession;
  watch: TabWatch;
  page?: Promise<Page>;
  world?: World;
}

/** How a page function is called: by value (default) or by reference, awaiting its promise or not. */
export interface CallOptions {
  awaitPromise?: boolean;
  byReference?: boolean;
  /**
   * Call in the current world without reading the loader id alongside (one CDP message less): for
   * calls that mean nothing in a new document, which fail with a context error instead.
   */
  sameDocument?: boolean;
}

export type CallKind = 'capture' | 'action' | 'dialog';

export interface Metrics {
  m: PageMetrics;
  loaderId: string;
}

export class TabSessions {
  readonly conn: BrowserConnection;
  /** `browser:` or `browser:<endpoint name>/`. */
  readonly prefix: string;
  /** The endpoint's name (undefined for the default connection). */
  readonly endpoint: string | undefined;
  #tabs = new Map<Target, Promise<Tab>>();
  readonly #mutexes = new Map<string, Mutex>();
  readonly #hooked = new WeakSet<Browser>();

  constructor(conn: BrowserConnection, endpoint?: string) {
    this.conn = conn;
    this.endpoint = endpoint;
    this.prefix = endpoint ? `browser:${endpoint}/` : 'browser:';
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
        const watch = new TabWatch(session);
        watch.start();
        return { id: targetInfo.targetId, targetId: this.prefix + targetInfo.targetId, target, session, watch };
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
    if (!tab) throw new SightlineError('TAB_NOT_FOUND', `No open tab has the id ${this.prefix}${id}.`, TAB_HINT, { target: `${this.prefix}${id}` });
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
    const live = new Set(listed.map((t) => t && this.localId(t.id)));
    for (const [id, m] of this.#mutexes) if (!live.has(id) && !m.isLocked()) this.#mutexes.delete(id);
  }

  /** The CDP target id in one of this connection's target ids; undefined for anything else. */
  localId(target: string): string | undefined {
    const t = splitTabId(target);
    return t && t.endpoint === this.endpoint ? t.id : undefined;
  }

  /**
   * Run `fn` on a tab with the tab's lock held, so concurrent calls on one tab never
   * interleave. An aborted caller is released at once; the lock is held until the work ends.
   * While a dialog stops the page, only `dialog` calls run; the others are refused at once.
   */
  async withTab<T>(target: string, signal: AbortSignal, kind: CallKind, fn: (tab: Tab) => Promise<T>): Promise<T> {
    const id = this.localId(target);
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
    const work = (async () => {
      const tab = await this.#find(browser, id);
      const open = tab.watch.dialog;
      if (open && kind !== 'dialog') throw dialogBlocks(tab.targetId, open);
      return fn(tab);
    })();
    void work.then(release, release);
    try {
      return await abortable(work, signal);
    } catch (e) {
      throw this.#mapError(e, browser, target, kind);
    }
  }

  #mapError(e: unknown, browser: Browser, target: string, kind: CallKind): Error {
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
    tab.watch.mainFrameId = frameTree.frame.id;
    const { executionContextId } = await tab.session.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: WORLD_NAME, grantUniveralAccess: false });
    tab.world = { ctx: executionContextId, loaderId: frameTree.frame.loaderId };
    return tab.world;
  }

  /**
   * Node ids live in our world's registry. After a reconnect (or from another Sightline on this
   * browser) an id names a registry of an earlier world of the same document: find that world by
   * its name and token (Runtime.enable lists every context) and use it from now on. Only tried
   * when an id's token is not ours, so the usual path pays nothing.
   */
  async adoptWorld(tab: Tab, nodeId: string): Promise<boolean> {
    const token = /^([a-z0-9]+)\.\d+$/.exec(nodeId)?.[1];
    if (!token) return false;
    const contexts: { id: number; frameId?: string }[] = [];
    const onContext = (e: { context: { id: number; name: string; auxData?: { frameId?: string; type?: string } } }): void => {
      if (e.context.name === WORLD_NAME && e.context.auxData?.type === 'isolated') contexts.push({ id: e.context.id, frameId: e.context.auxData.frameId });
    };
    tab.session.on('Runtime.executionContextCreated', onContext);
    try {
      await tab.session.send('Runtime.enable');
      await tab.session.send('Runtime.disable');
    } catch {
      return false;
    } finally {
      tab.session.off('Runtime.executionContextCreated', onContext);
    }
    const { frameTree } = await tab.session.send('Page.getFrameTree');
    for (const c of contexts) {
      if (c.frameId !== frameTree.frame.id || c.id === tab.world?.ctx) continue;
      const r = await tab.session
        .send('Runtime.evaluate', { expression: 'globalThis.__sightline && globalThis.__sightline.token', contextId: c.id, returnByValue: true })
        .catch(() => undefined);
      if (r?.result.value === token) {
        tab.world = { ctx: c.id, loaderId: frameTree.frame.loaderId };
        return true;
      }
    }
    return false;
  }

  /**
   * Call a page function in Sightline's isolated world. The main frame's loader id is read in
   * the same batch: a new document means a new world, so the call is made again there. A dialog
   * that opens meanwhile fails the call at once (the page is stopped until it is answered).
   */
  async callWithLoader<T>(tab: Tab, fn: string, args: unknown[], o: CallOptions = {}): Promise<{ value: T; loaderId: string; objectId?: string }> {
    if (o.sameDocument && tab.world) {
      const r = await guarded(
        tab.watch,
        tab.targetId,
        tab.session.send('Runtime.callFunctionOn', { functionDeclaration: fn, executionContextId: tab.world.ctx, arguments: args.map((value) => ({ value })), returnByValue: true, awaitPromise: o.awaitPromise === true }),
      );
      if (r.exceptionDetails) throw new Error(`Page script failed: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return { value: r.result.value as T, loaderId: tab.world.loaderId };
    }
    for (let attempt = 0; ; attempt++) {
      const world = tab.world ?? (await guarded(tab.watch, tab.targetId, this.#createWorld(tab)));
      const [tree, res] = await guarded(
        tab.watch,
        tab.targetId,
        Promise.all([
          tab.session.send('Page.getFrameTree'),
          tab.session
            .send('Runtime.callFunctionOn', {
              functionDeclaration: fn,
              executionContextId: world.ctx,
              arguments: args.map((value) => ({ value })),
              returnByValue: !o.byReference,
              awaitPromise: o.awaitPromise === true,
              ...(o.byReference ? { objectGroup: OBJECT_GROUP } : {}),
            })
            .then((r) => ({ r }), (error: unknown) => ({ error })),
        ]),
      );
      const loaderId = tree.frameTree.frame.loaderId;
      const failed = 'error' in res ? res.error : undefined;
      const worldGone = loaderId !== world.loaderId || (failed instanceof Error && /context|execution/i.test(failed.message) && !isTargetClosed(failed));
      if (worldGone && attempt < 2) {
        tab.world = undefined;
        continue;
      }
      if (failed) throw failed;
      const { r } = res as { r: { result: { value?: unknown; objectId?: string }; exceptionDetails?: { text: string; exception?: { description?: string } } } };
      if (r.exceptionDetails) throw new Error(`Page script failed: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return { value: r.result.value as T, loaderId, ...(r.result.objectId ? { objectId: r.result.objectId } : {}) };
    }
  }

  async call<T>(tab: Tab, fn: string, args: unknown[], o?: CallOptions): Promise<T> {
    return (await this.callWithLoader<T>(tab, fn, args, o)).value;
  }

  /** Drop the objects returned by reference (they would keep elements alive). */
  release(tab: Tab): void {
    tab.session.send('Runtime.releaseObjectGroup', { objectGroup: OBJECT_GROUP }).catch(() => undefined);
  }

  async metrics(tab: Tab): Promise<Metrics> {
    const { value, loaderId } = await this.callWithLoader<PageMetrics>(tab, METRICS_FN, []);
    return { m: value, loaderId };
  }

  /** Wheel scrolling is applied asynchronously (and may animate): wait until it stops moving. */
  async settledScroll(tab: Tab, before: Point, signal: AbortSignal): Promise<Point> {
    let last = before;
    let still = 0;
    for (let i = 0; i < 30 && !signal.aborted; i++) {
      await sleep(16);
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
