/**
 * The module's page-level actions: navigate (a URL, back, forward, reload; waiting for the load
 * to settle), tabs (new, close, select) and handle_dialog (accept or dismiss the dialog that
 * stopped the page, then finish telling what the action that opened it did).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page, Protocol } from 'puppeteer-core';
import { SightlineError } from '../../../../shared/errors.ts';
import type { ActionDetails, ActionOutcome, PendingAction } from '../source.ts';
import type { BrowserFleet } from './fleet.ts';
import type { BrowserModuleAction, NavigateParams, WaitUntil } from './kinds.ts';
import { dialogOf, finishPending } from './outcome.ts';
import type { Tab } from './tabs.ts';
import { judgeHop, judgeUrl, type UrlRules } from './urlPolicy.ts';

type PageAction = Extract<BrowserModuleAction, { kind: 'navigate' | 'tabs' | 'handle_dialog' }>;

const DEFAULT_TIMEOUT_MS = 15_000;

export function isPageAction(kind: string): kind is PageAction['kind'] {
  return kind === 'navigate' || kind === 'tabs' || kind === 'handle_dialog';
}

/** Perform a page-level action. None aims at a point of a frame, so there is nothing to map. */
export async function performNavigation(fleet: BrowserFleet, pending: PendingAction<PageAction>, signal: AbortSignal): Promise<ActionDetails> {
  const a = pending.resolve({});
  switch (a.kind) {
    case 'navigate':
      return fleet.forTarget(a.target).withTab(a.target, signal, 'action', (tab) => navigate(tab, a.params, fleet.urlRules(), signal));
    case 'tabs':
      return tabsAction(fleet, a, signal);
    case 'handle_dialog':
      return fleet.forTarget(a.target).withTab(a.target, signal, 'dialog', (tab) => handleDialog(tab, a.params));
  }
}

/**
 * Judge every document request of the tab while a navigation runs, redirects included: a hop to
 * a URL the tab may not be sent to (Sightline's own dashboard, an /auth URL, an origin off the
 * allowlist) is failed before it reaches its server, and the first such hop of the main frame is
 * kept to report.
 */
async function guardRequests(tab: Tab, rules: UrlRules): Promise<{ refused(): SightlineError | undefined; stop(): Promise<void> }> {
  let refused: SightlineError | undefined;
  const main = (await tab.session.send('Page.getFrameTree')).frameTree.frame.id;
  const onPaused = (e: Protocol.Fetch.RequestPausedEvent): void => {
    try {
      // The page's own frames are judged by the allowlist too; a frame inside it only by the URL rules.
      if (e.frameId === main) judgeHop(e.request.url, rules);
      else judgeUrl(e.request.url, rules);
    } catch (err) {
      if (e.frameId === main) refused ??= err as SightlineError;
      void tab.session.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }).catch(() => undefined);
      return;
    }
    void tab.session.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => undefined);
  };
  tab.session.on('Fetch.requestPaused', onPaused);
  await tab.session.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Request' }] });
  return {
    refused: () => refused,
    async stop() {
      tab.session.off('Fetch.requestPaused', onPaused);
      await tab.session.send('Fetch.disable').catch(() => undefined);
    },
  };
}

async function navigate(tab: Tab, params: NavigateParams, rules: UrlRules, signal: AbortSignal): Promise<ActionDetails> {
  const { action, url } = params;
  const waitUntil: WaitUntil = params.waitUntil ?? 'load';
  const timeoutMs = params.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Refused before anything starts: the page is never asked for.
  if (url !== undefined) judgeUrl(url, rules);
  const w = tab.watch;
  await w.trackNetwork().catch(() => undefined);
  const mark = w.mark();
  const started = Date.now();
  let loadError: string | undefined;
  const start = async (): Promise<void> => {
    if (url !== undefined) {
      const r = await tab.session.send('Page.navigate', { url });
      if (r.errorText) loadError = r.errorText;
    } else if (action === 'reload') {
      await tab.session.send('Page.reload', { ignoreCache: false });
    } else if (action === 'back' || action === 'forward') {
      const h = await tab.session.send('Page.getNavigationHistory');
      const entry = h.entries[h.currentIndex + (action === 'back' ? -1 : 1)];
      if (!entry) throw new SightlineError('INVALID_ARGUMENT', `There is no page to go ${action} to in this tab's history.`, action === 'back' ? 'Navigate to a URL instead.' : 'Go back first, or navigate to a URL.');
      judgeUrl(entry.url, rules);
      await tab.session.send('Page.navigateToHistoryEntry', { entryId: entry.id });
    }
  };
  const g = w.dialogGuard(tab.targetId);
  const guard = await guardRequests(tab, rules);
  const outcome: ActionOutcome = {};
  let note: string | undefined;
  try {
    await Promise.race([start(), g.promise]);
    const left = (): number => Math.max(0, timeoutMs - (Date.now() - started));
    const committed = await w.until(() => w.navCommitted !== mark.navCommitted || w.sameDocument !== mark.sameDocument || !!w.dialog || !!loadError, left(), signal);
    const commit = w.navCommitted !== mark.navCommitted ? w.lastCommit : undefined;
    if (!committed) note = `the navigation did not commit within ${timeoutMs} ms`;
    else if (commit && !commit.bfcache && waitUntil !== 'commit') {
      const loaded = (): boolean => (waitUntil === 'domcontentloaded' ? w.domContent > commit.domContentAt : w.loaded > commit.loadedAt);
      if (!(await w.until(() => loaded() || !!w.dialog, left(), signal))) note = `still loading after ${timeoutMs} ms`;
      else if (waitUntil === 'networkidle' && !w.dialog) {
        if (!(await w.until(() => w.inflight === 0 && w.networkQuietFor() >= 500, left(), signal, 25))) note = `the network was not idle within ${timeoutMs} ms (${w.inflight} requests in flight)`;
      }
    }
  } catch (e) {
    if (!w.dialog) throw e;
  } finally {
    g.stop();
    await guard.stop();
  }
  const refused = guard.refused();
  if (refused) {
    // The tab is left blank, not on an error page that names Sightline's URL.
    await tab.session.send('Page.navigate', { url: 'about:blank' }).catch(() => undefined);
    for (let i = 0; i < 40 && (await tab.session.send('Target.getTargetInfo').catch(() => undefined))?.targetInfo.url !== 'about:blank'; i++) await sleep(50);
    throw new SightlineError(refused.code, `The page led to a URL that is not opened, and was stopped: ${refused.message}`, refused.hint);
  }
  const dialog = dialogOf(w);
  if (dialog) outcome.dialog = dialog;
  const info = (await tab.session.send('Target.getTargetInfo')).targetInfo;
  const status = w.lastCommit && w.navCommitted !== mark.navCommitted ? w.documentStatus.get(w.lastCommit.loaderId) : undefined;
  if (w.navCommitted !== mark.navCommitted || w.sameDocument !== mark.sameDocument) outcome.navigated = { url: info.url, title: info.title };
  if (loadError) note = [`the page failed to load: ${loadError}`, note].filter(Boolean).join('; ');
  else if (status !== undefined && status >= 400) note = [`the server answered HTTP ${status}`, note].filter(Boolean).join('; ');
  return { url: info.url, title: info.title, ...(status !== undefined ? { status } : {}), waitedMs: Date.now() - started, outcome, ...(note ? { note } : {}) };
}

async function tabsAction(fleet: BrowserFleet, a: Extract<PageAction, { kind: 'tabs' }>, signal: AbortSignal): Promise<ActionDetails> {
  const action = a.params.action;
  if (action === 'new') {
    // Judged before the tab exists: a refused URL leaves no tab behind.
    const rules = fleet.urlRules();
    if (a.params.url !== undefined) judgeUrl(a.params.url, rules);
    const sessions = fleet.forTarget(a.target, { connection: true });
    const browser = await sessions.browser(signal);
    const page: Page = await browser.newPage();
    const tab = await sessions.tab(page.target());
    tab.page = Promise.resolve(page);
    if (a.params.url === undefined) return { target: tab.targetId, url: page.url() };
    const nav = await sessions.withTab(tab.targetId, signal, 'action', (t) => navigate(t, { url: a.params.url, ...(a.params.waitUntil ? { waitUntil: a.params.waitUntil } : {}), ...(a.params.timeoutMs !== undefined ? { timeoutMs: a.params.timeoutMs } : {}) }, rules, signal));
    // A new tab's first page is the answer itself, not an outcome (no older frame of it can be stale).
    const { navigated: _first, ...outcome } = nav.outcome ?? {};
    return { ...nav, outcome, target: tab.targetId };
  }
  {
    const sessions = fleet.forTarget(a.target);
    return sessions.withTab(a.target, signal, 'dialog', async (tab) => {
      if (action === 'select') {
        await tab.session.send('Page.bringToFront');
        return { target: tab.targetId };
      }
      await (await sessions.page(tab)).close({ runBeforeUnload: false });
      return { target: tab.targetId, closed: true };
    });
  }
}

async function handleDialog(tab: Tab, params: { accept: boolean; promptText?: string }): Promise<ActionDetails> {
  const { accept, promptText } = params;
  const open = dialogOf(tab.watch);
  try {
    await tab.session.send('Page.handleJavaScriptDialog', { accept, ...(promptText !== undefined ? { promptText } : {}) });
  } catch (e) {
    if (/no dialog/i.test((e as Error).message)) {
      throw new SightlineError('INVALID_ARGUMENT', `No dialog is open on ${tab.targetId}${open ? '' : ' (or it opened before Sightline attached to the tab)'}.`, 'list_targets shows state "dialog" for a tab with one open.');
    }
    throw e;
  }
  const outcome = (await finishPending(tab)) ?? {};
  const handled = open ? { type: open.type, message: open.message } : undefined;
  const verb = accept ? 'accepted' : 'dismissed';
  return { handled, accepted: accept, ...(promptText !== undefined && accept ? { promptText } : {}), outcome, note: `${verb} the ${open?.type ?? 'dialog'}${open ? ` "${open.message.slice(0, 80)}"` : ''}` };
}
