/**
 * What happens in a tab between our calls, from the events of our own CDP session: JavaScript
 * dialogs (a dialog stops the page, so every page call races it), navigations of the main frame
 * (so an action can say it navigated), and requests in flight (wait_for networkIdle). Page
 * events are on from the tab's first use; network tracking from its first action.
 */
import type { CDPSession } from 'puppeteer-core';
import { SightlineError } from '../../../../shared/errors.ts';
import type { PendingDialog } from '../source.ts';

export interface OpenDialog extends PendingDialog {
  url?: string;
  openedAt: number;
}

type Listener = () => void;

/** The error every call into a page blocked by a dialog gets, at once instead of hanging. */
export function dialogBlocks(target: string, d: PendingDialog): SightlineError {
  return new SightlineError(
    'DIALOG_OPEN',
    `A ${d.type} dialog is open on ${target} ("${shorten(d.message)}"): the page is stopped until it is answered.`,
    `Call handle_dialog with target "${target}" and accept true or false${d.type === 'prompt' ? ' (and promptText)' : ''}.`,
    { target, dialog: d },
  );
}

export function shorten(s: string, n = 120): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

export class TabWatch {
  readonly #session: CDPSession;
  #dialog: OpenDialog | undefined;
  /** Dialogs opened so far (an action stops once one opened during it, even if answered since). */
  dialogsOpened = 0;
  mainFrameId: string | undefined;
  /** Counters of main-frame events, compared before and after an action. */
  navStarted = 0;
  navCommitted = 0;
  sameDocument = 0;
  domContent = 0;
  loaded = 0;
  lastCommit: { url: string; loaderId: string; bfcache: boolean; domContentAt: number; loadedAt: number } | undefined;
  /** HTTP status of each document (by loader id), when network tracking saw its response. */
  readonly documentStatus = new Map<string, number>();
  readonly #inflight = new Map<string, number>();
  #lastNetwork = Date.now();
  #network: Promise<void> | undefined;
  readonly #listeners = new Set<Listener>();

  constructor(session: CDPSession) {
    this.#session = session;
    session.on('Page.javascriptDialogOpening', (e) => {
      const type = (['alert', 'confirm', 'prompt', 'beforeunload'] as const).find((t) => t === e.type) ?? 'alert';
      this.#dialog = { type, message: e.message, openedAt: Date.now(), url: e.url, ...(type === 'prompt' ? { defaultPrompt: e.defaultPrompt ?? '' } : {}) };
      this.dialogsOpened++;
      this.#emit();
    });
    session.on('Page.javascriptDialogClosed', () => {
      this.#dialog = undefined;
      this.#emit();
    });
    session.on('Page.frameStartedNavigating', (e) => this.#main(e.frameId) && this.#bump('navStarted'));
    session.on('Page.frameRequestedNavigation', (e) => this.#main(e.frameId) && e.disposition === 'currentTab' && this.#bump('navStarted'));
    session.on('Page.frameNavigated', (e) => {
      if (e.frame.parentId) return;
      this.mainFrameId = e.frame.id;
      this.lastCommit = { url: e.frame.url + (e.frame.urlFragment ?? ''), loaderId: e.frame.loaderId, bfcache: e.type === 'BackForwardCacheRestore', domContentAt: this.domContent, loadedAt: this.loaded };
      this.#bump('navCommitted');
    });
    session.on('Page.navigatedWithinDocument', (e) => this.#main(e.frameId) && this.#bump('sameDocument'));
    session.on('Page.domContentEventFired', () => this.#bump('domContent'));
    session.on('Page.loadEventFired', () => this.#bump('loaded'));
    session.on('Network.requestWillBeSent', (e) => {
      // A redirect keeps its request id: still one request in flight.
      if (this.#inflight.size < 10_000) this.#inflight.set(e.requestId, Date.now());
      this.#touchNetwork();
    });
    session.on('Network.responseReceived', (e) => {
      if (e.type === 'Document' && e.loaderId) this.documentStatus.set(e.loaderId, e.response.status);
      if (this.documentStatus.size > 50) this.documentStatus.delete(this.documentStatus.keys().next().value!);
    });
    const done = (e: { requestId: string }): void => {
      this.#inflight.delete(e.requestId);
      this.#touchNetwork();
    };
    session.on('Network.loadingFinished', done);
    session.on('Network.loadingFailed', done);
  }

  /** Start the page events (not awaited: Page.enable waits while a dialog from before is open). */
  start(): void {
    this.#session.send('Page.enable').catch(() => undefined);
  }

  get dialog(): OpenDialog | undefined {
    return this.#dialog;
  }

  /** Track requests from now on (idempotent); requests already in flight are not seen. */
  trackNetwork(): Promise<void> {
    this.#network ??= this.#session.send('Network.enable').then(
      () => undefined,
      (e: unknown) => {
        this.#network = undefined;
        throw e;
      },
    );
    return this.#network;
  }

  get networkTracked(): boolean {
    return this.#network !== undefined;
  }

  get inflight(): number {
    return this.#inflight.size;
  }

  /** Milliseconds since the last request started or ended (or since `since`, if later). */
  networkQuietFor(since = 0): number {
    return Date.now() - Math.max(this.#lastNetwork, since);
  }

  /** A snapshot of the counters, to see what an action set off. */
  mark(): NavMark {
    return { navStarted: this.navStarted, navCommitted: this.navCommitted, sameDocument: this.sameDocument, domContent: this.domContent, loaded: this.loaded };
  }

  /**
   * Resolve as soon as `test` holds (checked now, after every event, and every `pollMs` when a
   * test depends on time passing), or with false after `ms` or when `signal` aborts.
   */
  until(test: () => boolean, ms: number, signal?: AbortSignal, pollMs?: number): Promise<boolean> {
    if (test()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (v: boolean): void => {
        clearTimeout(timer);
        clearInterval(poll);
        this.#listeners.delete(check);
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      };
      const check = (): void => {
        if (test()) finish(true);
      };
      const onAbort = (): void => finish(false);
      const timer = setTimeout(() => finish(test()), Math.max(0, ms));
      const poll = pollMs ? setInterval(check, pollMs) : undefined;
      this.#listeners.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A promise that rejects with the dialog error once a dialog is open (and a way to stop listening). */
  dialogGuard(target: string): { promise: Promise<never>; stop: () => void } {
    let stop = (): void => undefined;
    const promise = new Promise<never>((_, reject) => {
      const check = (): void => {
        if (this.#dialog) {
          this.#listeners.delete(check);
          reject(dialogBlocks(target, this.#dialog));
        }
      };
      this.#listeners.add(check);
      stop = () => this.#listeners.delete(check);
      check();
    });
    promise.catch(() => undefined);
    return { promise, stop };
  }

  #main(frameId: string): boolean {
    return this.mainFrameId === undefined || frameId === this.mainFrameId;
  }

  #bump(k: 'navStarted' | 'navCommitted' | 'sameDocument' | 'domContent' | 'loaded'): boolean {
    this[k]++;
    this.#emit();
    return true;
  }

  #touchNetwork(): void {
    this.#lastNetwork = Date.now();
    this.#emit();
  }

  #emit(): void {
    for (const l of [...this.#listeners]) l();
  }
}

export interface NavMark {
  navStarted: number;
  navCommitted: number;
  sameDocument: number;
  domContent: number;
  loaded: number;
}

/** Race a call into the page with the tab's dialogs: a dialog fails it at once, never hangs it. */
export async function guarded<T>(watch: TabWatch, target: string, p: Promise<T>): Promise<T> {
  const g = watch.dialogGuard(target);
  try {
    return await Promise.race([p, g.promise]);
  } finally {
    g.stop();
  }
}
