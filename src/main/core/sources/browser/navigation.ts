/**
 * The module's page-level actions: navigate (a URL, back, forward, reload; waiting for the load
 * to settle), tabs (new, close, select) and handle_dialog (accept or dismiss the dialog that
 * stopped the page, then finish telling what the action that opened it did).
 */
import type { Page } from 'puppeteer-core';
import { SightlineError } from '../../../../shared/errors.ts';
import type { ActionDetails, ActionOutcome, PendingAction } from '../source.ts';
import type { BrowserFleet } from './fleet.ts';
import type { BrowserModuleAction, NavigateParams, WaitUntil } from './kinds.ts';
import { dialogOf, finishPending } from './outcome.ts';
import type { Tab } from './tabs.ts';

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
      return fleet.forTarget(a.target).withTab(a.target, signal, 'action', (tab) => navigate(tab, a.params, signal));
    case 'tabs':
      return tabsAction(fleet, a, signal);
    case 'handle_dialog':
      return fleet.forTarget(a.target).withTab(a.target, signal, 'dialog', (tab) => handleDialog(tab, a.params));
  }
}

async function navigate(tab: Tab, params: NavigateParams, signal: AbortSignal): Promise<ActionDetails> {
  const action = params.action;
  const waitUntil: WaitUntil = params.waitUntil ?? 'load';
  const timeoutMs = params.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const w = tab.watch;
  await w.trackNetwork().catch(() => undefined);
  const mark = w.mark();
  const started = Date.now();
  let loadError: string | undefined;
  const start = async (): Promise<void> => {
    if (params.url !== undefined) {
      const r = await tab.session.send('Page.navigate', { url: params.url });
      if (r.errorText) loadError = r.errorText;
    } else if (action === 'reload') {
      await tab.session.send('Page.reload', { ignoreCache: false });
    } else if (action === 'back' || action === 'forward') {
      const h = await tab.session.send('Page.getNavigationHistory');
      const entry = h.entries[h.currentIndex + (action === 'back' ? -1 : 1)];
      if (!entry) throw new SightlineError('INVALID_ARGUMENT', `There is no page to go ${action} to in this tab's history.`, action === 'back' ? 'Navigate to a URL instead.' : 'Go back first, or navigate to a URL.');
      await tab.session.send('Page.navigateToHistoryEntry', { entryId: entry.id });
    }
  };
  const g = w.dialogGuard(tab.targetId);
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
    const sessions = fleet.forTarget(a.target, { connection: true });
    const browser = await sessions.browser(signal);
    const page: Page = await browser.newPage();
    const tab = await sessions.tab(page.target());
    tab.page = Promise.resolve(page);
    if (a.params.url === undefined) return { target: tab.targetId, url: page.url() };
    const nav = await sessions.withTab(tab.targetId, signal, 'action', (t) => navigate(t, { url: a.params.url, waitUntil: a.params.waitUntil, timeoutMs: a.params.timeoutMs }, signal));
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
