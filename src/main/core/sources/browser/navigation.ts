/**
 * The module's page-level actions: navigate (a URL, back, forward, reload; waiting for the load
 * to settle), tabs (new, close, select) and handle_dialog (accept or dismiss the dialog that
 * stopped the page, then finish telling what the action that opened it did).
 */
import type { Page } from 'puppeteer-core';
import { SightlineError } from '../../../../shared/errors.ts';
import type { ActionDetails, ActionOutcome, PendingAction, TargetFacts } from '../source.ts';
import type { BrowserFleet } from './fleet.ts';
import { blankTab, guarded, guardHops, hopJudge } from './hops.ts';
import type { BrowserModuleAction, NavigateParams, WaitUntil } from './kinds.ts';
import { dialogOf, finishPending } from './outcome.ts';
import type { Tab } from './tabs.ts';
import { judgeUrl, type UrlRules } from './urlPolicy.ts';

type PageAction = Extract<BrowserModuleAction, { kind: 'navigate' | 'tabs' | 'handle_dialog' }>;

const DEFAULT_TIMEOUT_MS = 15_000;

export function isPageAction(kind: string): kind is PageAction['kind'] {
  return kind === 'navigate' || kind === 'tabs' || kind === 'handle_dialog';
}

/** The tab as the action's judge reads it, under the tab's lock: the URL it shows now. */
export async function pageFacts(tab: Tab): Promise<TargetFacts> {
  return { kind: 'page', url: (await tab.session.send('Target.getTargetInfo')).targetInfo.url };
}

type HopJudge = (url: string, mainFrame: boolean) => void;

/**
 * Perform a page-level action, judged under the tab's lock like every action (a new tab by where
 * it opens); every hop of the navigation it starts is judged too. None aims at a point of a
 * frame, so there is nothing to map.
 */
export async function performNavigation(fleet: BrowserFleet, pending: PendingAction<PageAction>, signal: AbortSignal): Promise<ActionDetails> {
  const hops = hopJudge(fleet.urlRules(), pending);
  if (pending.kind === 'tabs') return tabsAction(fleet, pending, hops, signal);
  const sessions = fleet.forTarget(pending.target);
  const kind = pending.kind === 'handle_dialog' ? 'dialog' : 'action';
  return sessions.withTab(pending.target, signal, kind, async (tab) => {
    await pending.judge(() => pageFacts(tab));
    const a = pending.resolve({});
    if (a.kind === 'navigate') return navigate(tab, a.params, fleet.urlRules(), hops, signal);
    if (a.kind === 'handle_dialog') return guarded(tab, 'handle_dialog', hops, signal, () => handleDialog(tab, a.params));
    throw new SightlineError('INTERNAL', `${a.kind} is not a page action.`, 'This is a bug: report it.');
  });
}

async function navigate(tab: Tab, params: NavigateParams, rules: UrlRules, hops: HopJudge, signal: AbortSignal): Promise<ActionDetails> {
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
      // A page restored from the back-forward cache sends no request to judge: its URL is judged here.
      hops(entry.url, true);
      await tab.session.send('Page.navigateToHistoryEntry', { entryId: entry.id });
    }
  };
  const g = w.dialogGuard(tab.targetId);
  const guard = await guardHops(tab, hops);
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
    await blankTab(tab);
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

async function tabsAction(fleet: BrowserFleet, pending: PendingAction<PageAction>, hops: HopJudge, signal: AbortSignal): Promise<ActionDetails> {
  const sessions = fleet.forTarget(pending.target, { connection: true });
  if (sessions.localId(pending.target) === undefined) {
    // A browser, not a tab: only a new tab opens there, judged by where it opens.
    await pending.judge(() => {
      throw new SightlineError('INVALID_ARGUMENT', `${pending.target} is a browser, not a tab.`, 'Give a tab id from list_targets.');
    });
    return newTab(fleet, pending.resolve({}) as Extract<PageAction, { kind: 'tabs' }>, hops, signal);
  }
  return sessions.withTab(pending.target, signal, 'dialog', async (tab) => {
    await pending.judge(() => pageFacts(tab));
    const a = pending.resolve({}) as Extract<PageAction, { kind: 'tabs' }>;
    if (a.params.action === 'new') return newTab(fleet, a, hops, signal);
    if (a.params.action === 'select') {
      await tab.session.send('Page.bringToFront');
      return { target: tab.targetId };
    }
    await (await sessions.page(tab)).close({ runBeforeUnload: false });
    return { target: tab.targetId, closed: true };
  });
}

async function newTab(fleet: BrowserFleet, a: Extract<PageAction, { kind: 'tabs' }>, hops: HopJudge, signal: AbortSignal): Promise<ActionDetails> {
  // Judged before the tab exists: a refused URL leaves no tab behind.
  const rules = fleet.urlRules();
  if (a.params.url !== undefined) judgeUrl(a.params.url, rules);
  const sessions = fleet.forTarget(a.target, { connection: true });
  const browser = await sessions.browser(signal);
  const page: Page = await browser.newPage();
  const tab = await sessions.tab(page.target());
  tab.page = Promise.resolve(page);
  if (a.params.url === undefined) return { target: tab.targetId, url: page.url() };
  const params = { url: a.params.url, ...(a.params.waitUntil ? { waitUntil: a.params.waitUntil } : {}), ...(a.params.timeoutMs !== undefined ? { timeoutMs: a.params.timeoutMs } : {}) };
  const nav = await sessions.withTab(tab.targetId, signal, 'action', (t) => navigate(t, params, rules, hops, signal));
  // A new tab's first page is the answer itself, not an outcome (no older frame of it can be stale).
  const { navigated: _first, ...outcome } = nav.outcome ?? {};
  return { ...nav, outcome, target: tab.targetId };
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
