/**
 * The module's page-level actions: navigate (a URL, back, forward, reload; waiting for the load
 * to settle), tabs (new, close, select) and handle_dialog (accept or dismiss the dialog that
 * stopped the page, then finish telling what the action that opened it did).
 */
import type { Page, Protocol } from 'puppeteer-core';
import { SightlineError } from '../../../../shared/errors.ts';
import type { ActionDetails, ActionOutcome, CustomAction } from '../source.ts';
import type { BrowserFleet } from './fleet.ts';
import type { BrowserFrameState } from './frameState.ts';
import { dialogOf, finishPending } from './outcome.ts';
import type { Tab } from './tabs.ts';
import { judgeHop, judgeUrl, type UrlRules } from './urlPolicy.ts';

type Custom = CustomAction<BrowserFrameState>;

export const NAV_KINDS = ['browser:navigate', 'browser:tabs', 'browser:handle_dialog'] as const;
const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle', 'commit'] as const;
type WaitUntil = (typeof WAIT_UNTIL)[number];
const DEFAULT_TIMEOUT_MS = 15_000;

/** Perform a page-level action; undefined when `a` is not one (a form action). */
export async function performNavigation(fleet: BrowserFleet, a: Custom, signal: AbortSignal): Promise<ActionDetails | undefined> {
  switch (a.kind) {
    case 'browser:navigate': {
      const sessions = fleet.forTarget(a.target);
      return sessions.withTab(a.target, signal, 'action', (tab) => navigate(tab, a.params, fleet.urlRules(), signal));
    }
    case 'browser:tabs':
      return tabsAction(fleet, a, signal);
    case 'browser:handle_dialog':
      return fleet.forTarget(a.target).withTab(a.target, signal, 'dialog', (tab) => handleDialog(tab, a.params));
    default:
      return undefined;
  }
}

/** A URL to open: a bare host (with or without a port) gets https://; which URLs may be opened is urlPolicy's to judge. */
export function normaliseUrl(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new SightlineError('INVALID_ARGUMENT', '"url" must be a non-empty string.', 'Give a URL such as https://example.com/path.');
  let s = raw.trim();
  if (!/^[a-z][a-z0-9+.-]*:/i.test(s) || /^[^/:?#]+:\d+(?:[/?#]|$)/.test(s)) s = `https://${s}`;
  try {
    return new URL(s).toString();
  } catch {
    throw new SightlineError('INVALID_ARGUMENT', `"${raw}" is not a URL.`, 'Give a full URL such as https://example.com/path.');
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

function waitUntilOf(v: unknown): WaitUntil {
  if (v === undefined) return 'load';
  if (typeof v === 'string' && (WAIT_UNTIL as readonly string[]).includes(v)) return v as WaitUntil;
  throw new SightlineError('INVALID_ARGUMENT', `waitUntil must be one of ${WAIT_UNTIL.join(', ')}.`, 'Leave it out to wait for the load event.');
}

function timeoutOf(v: unknown): number {
  if (v === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 120_000) throw new SightlineError('INVALID_ARGUMENT', 'timeoutMs must be between 0 and 120000.', 'Leave it out for 15000 ms.');
  return v;
}

async function navigate(tab: Tab, params: Record<string, unknown>, rules: UrlRules, signal: AbortSignal): Promise<ActionDetails> {
  const action = params.action;
  if (params.url !== undefined && action !== undefined) throw new SightlineError('INVALID_ARGUMENT', 'Give "url" or "action", not both.', 'url opens a page; action moves in the history or reloads.');
  if (params.url === undefined && action === undefined) throw new SightlineError('INVALID_ARGUMENT', 'navigate needs "url", or "action" back, forward or reload.', 'Give url: "https://…" or action: "back".');
  const waitUntil = waitUntilOf(params.waitUntil);
  const timeoutMs = timeoutOf(params.timeoutMs);
  // Refused before anything starts: the page is never asked for.
  const url = params.url !== undefined ? normaliseUrl(params.url) : undefined;
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
      await tab.session.send('Page.reload', { ignoreCache: params.ignoreCache === true });
    } else if (action === 'back' || action === 'forward') {
      const h = await tab.session.send('Page.getNavigationHistory');
      const entry = h.entries[h.currentIndex + (action === 'back' ? -1 : 1)];
      if (!entry) throw new SightlineError('INVALID_ARGUMENT', `There is no page to go ${action} to in this tab's history.`, action === 'back' ? 'Navigate to a URL instead.' : 'Go back first, or navigate to a URL.');
      judgeUrl(entry.url, rules);
      await tab.session.send('Page.navigateToHistoryEntry', { entryId: entry.id });
    } else throw new SightlineError('INVALID_ARGUMENT', `Unknown navigate action "${String(action)}".`, 'Use back, forward or reload.');
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
    for (let i = 0; i < 40 && (await tab.session.send('Target.getTargetInfo').catch(() => undefined))?.targetInfo.url !== 'about:blank'; i++) await new Promise((r) => setTimeout(r, 50));
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

async function tabsAction(fleet: BrowserFleet, a: Custom, signal: AbortSignal): Promise<ActionDetails> {
  const action = a.params.action;
  if (action === 'new') {
    // Judged before the tab exists: a refused URL leaves no tab behind.
    const rules = fleet.urlRules();
    if (a.params.url !== undefined) judgeUrl(normaliseUrl(a.params.url), rules);
    const sessions = fleet.forTarget(a.target, { connection: true });
    const browser = await sessions.browser(signal);
    const page: Page = await browser.newPage();
    const tab = await sessions.tab(page.target());
    tab.page = Promise.resolve(page);
    if (a.params.url === undefined) return { target: tab.targetId, url: page.url() };
    const nav = await sessions.withTab(tab.targetId, signal, 'action', (t) => navigate(t, { url: a.params.url, waitUntil: a.params.waitUntil, timeoutMs: a.params.timeoutMs }, rules, signal));
    // A new tab's first page is the answer itself, not an outcome (no older frame of it can be stale).
    const { navigated: _first, ...outcome } = nav.outcome ?? {};
    return { ...nav, outcome, target: tab.targetId };
  }
  if (action === 'close' || action === 'select') {
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
  throw new SightlineError('INVALID_ARGUMENT', `Unknown tabs action "${String(action)}".`, 'Use new, close or select.');
}

async function handleDialog(tab: Tab, params: Record<string, unknown>): Promise<ActionDetails> {
  const accept = params.accept;
  if (typeof accept !== 'boolean') throw new SightlineError('INVALID_ARGUMENT', '"accept" must be true or false.', 'accept: true presses OK (Leave); false presses Cancel (Stay).');
  const promptText = params.promptText;
  if (promptText !== undefined && typeof promptText !== 'string') throw new SightlineError('INVALID_ARGUMENT', '"promptText" must be a string.', 'Give the answer to the prompt as text.');
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
