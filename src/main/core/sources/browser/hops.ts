/**
 * Where an action takes a tab, judged hop by hop. While an action runs (a navigation, a click on
 * a link, a key that submits a form), every document request of the tab, redirects included, is
 * paused (CDP `Fetch` on the tab's own session) and judged before it is sent: the URL rules of
 * urlPolicy.ts, and for the tab's own frame also the action's judgement of the place (Sightline's
 * own, the allowlist). A refused hop never reaches its server; the action then leaves the tab
 * blank, not on an error page that names the URL, and says why.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Protocol } from 'puppeteer-core';
import { SightlineError } from '../../../../shared/errors.ts';
import type { PendingAction } from '../source.ts';
import type { Tab } from './tabs.ts';
import { judgeUrl, type UrlRules } from './urlPolicy.ts';

/** How long a navigation an action started may take to commit (or be stopped) before the action returns anyway. */
const COMMIT_WAIT_MS = 10_000;

export interface HopGuard {
  /** The first hop of the tab's own frame that was refused. */
  refused(): SightlineError | undefined;
  stop(): Promise<void>;
}

/** The judge of a hop: the URL rules for every frame, the action's place judgement for the tab's own. */
export function hopJudge(rules: UrlRules, pending: Pick<PendingAction<unknown>, 'judgePlace'>): (url: string, mainFrame: boolean) => void {
  return (url, mainFrame) => {
    judgeUrl(url, rules);
    if (mainFrame) pending.judgePlace({ kind: 'page', url });
  };
}

export async function guardHops(tab: Tab, judge: (url: string, mainFrame: boolean) => void): Promise<HopGuard> {
  let refused: SightlineError | undefined;
  tab.watch.mainFrameId ??= (await tab.session.send('Page.getFrameTree')).frameTree.frame.id;
  const main = tab.watch.mainFrameId;
  const onPaused = (e: Protocol.Fetch.RequestPausedEvent): void => {
    const own = e.frameId === main;
    try {
      judge(e.request.url, own);
    } catch (err) {
      if (own) refused ??= err as SightlineError;
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
      // Not waited for: the session runs commands in order, so the next action's Fetch.enable comes after it.
      void tab.session.send('Fetch.disable').catch(() => undefined);
    },
  };
}

/**
 * Run an input action with its hops guarded. A navigation it set off is judged before the guard
 * is lifted (waiting, bounded, for it to commit or be stopped), also when the action reports
 * nothing; one refused leaves the tab blank and fails the action with NOT_ALLOWED, saying the
 * input itself was made.
 */
export async function guarded<T>(tab: Tab, kind: string, judge: (url: string, mainFrame: boolean) => void, signal: AbortSignal, act: () => Promise<T>): Promise<T> {
  const w = tab.watch;
  const mark = w.mark();
  const guard = await guardHops(tab, judge);
  let value: T;
  try {
    value = await act();
    if (w.navStarted !== mark.navStarted && w.navCommitted === mark.navCommitted && !guard.refused()) {
      await w.until(() => w.navCommitted !== mark.navCommitted || !!guard.refused() || !!w.dialog, COMMIT_WAIT_MS, signal);
    }
  } catch (e) {
    await guard.stop();
    // The action failed on its own; a hop it set off that was refused still leaves the tab blank.
    if (guard.refused()) await blankTab(tab);
    throw e;
  }
  await guard.stop();
  const refused = guard.refused();
  if (refused) {
    await blankTab(tab);
    throw new SightlineError(refused.code, `The input was sent (${kind}), but the page it led to is not opened, and was stopped (the tab is blank now): ${refused.message}`, refused.hint);
  }
  return value;
}

/** Leave the tab on about:blank (after a refused hop), waiting until it shows it. */
export async function blankTab(tab: Tab): Promise<void> {
  await tab.session.send('Page.navigate', { url: 'about:blank' }).catch(() => undefined);
  for (let i = 0; i < 40 && (await tab.session.send('Target.getTargetInfo').catch(() => undefined))?.targetInfo.url !== 'about:blank'; i++) await sleep(50);
}
