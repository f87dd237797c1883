/**
 * An action's outcome, told cheaply (no image): the input is raced with the tab's dialogs (a
 * dialog stops the page, so the action returns saying so instead of hanging), then one page call
 * waits until the DOM is quiet and reports the changed region, the title and the focused field;
 * a navigation the action set off is waited for (commit, then DOMContentLoaded, bounded).
 */
import type { ActionOutcome, AfterMode, PendingDialog, StoredFrame } from '../source.ts';
import type { Aimed } from './aiming.ts';
import { toFrameRect, type BrowserFrameState } from './frameState.ts';
import { SETTLE_FN, type FocusInfo, type SettleResult, type SettleSpec } from './pageActions.ts';
import type { NavMark, TabWatch } from './tabWatch.ts';
import type { Tab, TabSessions } from './tabs.ts';

/** How long the DOM may keep changing after an action before the outcome is read anyway. */
const SETTLE_MAX_MS = 150;
/** A navigation the action started must commit within this, and reach DOMContentLoaded within the next. */
const COMMIT_WAIT_MS = 10_000;
const DOM_READY_WAIT_MS = 5_000;

export interface ObserveContext {
  tabs: TabSessions;
  tab: Tab;
  after: AfterMode;
  frame?: StoredFrame<BrowserFrameState>;
  signal: AbortSignal;
}

/** What to read once the action is done. */
export interface ReadSpec {
  focus?: boolean;
  expect?: { text: string; exact: boolean };
  /** A hover's effect is mostly CSS: no DOM change then means "unknown", not "nothing". */
  cssEffects?: boolean;
}

/** An action stopped by a dialog, finished by handle_dialog. */
export interface Pending {
  ctx: ObserveContext;
  pre?: Aimed;
  mark: NavMark;
  read: ReadSpec;
  acting: Promise<unknown>;
}

export interface Observed<T> {
  value?: T;
  outcome: ActionOutcome;
  settle?: SettleResult;
}

const pendings = new WeakMap<Tab, Pending>();

export function pendingOf(tab: Tab): Pending | undefined {
  return pendings.get(tab);
}

export function dialogOf(w: TabWatch): PendingDialog | undefined {
  const d = w.dialog;
  if (!d) return undefined;
  return { type: d.type, message: d.message, ...(d.defaultPrompt !== undefined ? { defaultPrompt: d.defaultPrompt } : {}) };
}

/**
 * Run `act` and tell what it did. With after 'none' only a dialog and the re-mapping are told;
 * otherwise also the hit (from `pre`), navigation, title, changed region and the focused field.
 */
export async function observe<T>(ctx: ObserveContext, pre: Aimed | undefined, act: () => Promise<T>, read: ReadSpec = {}): Promise<Observed<T>> {
  const { tab } = ctx;
  const mark = tab.watch.mark();
  const acting = act();
  acting.catch(() => undefined);
  const guard = tab.watch.dialogGuard(tab.targetId);
  let raced: { value: T } | { dialog: true };
  try {
    raced = await Promise.race([acting.then((value) => ({ value })), guard.promise.catch(() => ({ dialog: true as const }))]);
  } finally {
    guard.stop();
  }
  const base: ActionOutcome = {};
  if (pre?.hit && ctx.after !== 'none') base.hit = pre.hit;
  if (pre?.remapped) base.remapped = pre.remapped;
  if ('dialog' in raced) {
    // The page is stopped: nothing more can be read until the dialog is answered.
    pendings.set(tab, { ctx, pre, mark, read, acting });
    const dialog = dialogOf(tab.watch);
    return { outcome: { ...base, ...(dialog ? { dialog } : {}) } };
  }
  if (ctx.after === 'none') return { value: raced.value, outcome: base };
  const { outcome, settle } = await finish(ctx, pre, mark, read);
  return { value: raced.value, outcome: { ...base, ...outcome }, ...(settle ? { settle } : {}) };
}

/** After handle_dialog: finish telling what the stopped action did. */
export async function finishPending(tab: Tab): Promise<ActionOutcome | undefined> {
  const p = pendings.get(tab);
  if (!p) return undefined;
  pendings.delete(tab);
  // The input call returns once the page runs again.
  await Promise.race([p.acting.catch(() => undefined), new Promise((r) => setTimeout(r, 1_000))]);
  if (p.ctx.after === 'none') return undefined;
  return (await finish(p.ctx, p.pre, p.mark, p.read)).outcome;
}

async function finish(ctx: ObserveContext, pre: Aimed | undefined, mark: NavMark, read: ReadSpec): Promise<{ outcome: ActionOutcome; settle?: SettleResult }> {
  const { tabs, tab, signal } = ctx;
  const w = tab.watch;
  const outcome: ActionOutcome = {};
  let settle: SettleResult | undefined;
  if (w.navStarted === mark.navStarted && w.navCommitted === mark.navCommitted) {
    const spec: SettleSpec = { maxMs: SETTLE_MAX_MS, focus: read.focus === true, ...(read.expect ? { expect: read.expect } : {}) };
    try {
      settle = await tabs.call<SettleResult>(tab, SETTLE_FN, [spec], { awaitPromise: true, sameDocument: true });
    } catch (e) {
      const dialog = dialogOf(w);
      if (dialog) return { outcome: { dialog } };
      // The document went away under the call: a navigation, told below.
      if (!/context|execution|navigat/i.test((e as Error).message)) throw e;
      tab.world = undefined;
      await w.until(() => w.navStarted !== mark.navStarted || w.navCommitted !== mark.navCommitted, 1_000, signal);
    }
  }
  const dialog = dialogOf(w);
  if (dialog) outcome.dialog = dialog;
  const navigated = await navigation(tab, mark, signal);
  if (navigated) outcome.navigated = { url: navigated.url, ...(navigated.title !== undefined ? { title: navigated.title } : {}) };
  const to = navigated?.title ?? settle?.title;
  if (pre && to !== undefined && to !== pre.title) outcome.title = { from: pre.title, to };
  if (settle && !navigated?.document) {
    const change = changedIn(settle, ctx.frame, read);
    Object.assign(outcome, change);
    if (settle.focus && read.focus) outcome.received = received(settle.focus);
  }
  return { outcome, ...(settle ? { settle } : {}) };
}

/** The changed region in the action frame's coordinates, or changedUnknown when it cannot be placed. */
export function changedIn(settle: SettleResult, frame: StoredFrame<BrowserFrameState> | undefined, read: ReadSpec): Pick<ActionOutcome, 'changed' | 'changedUnknown'> {
  if (settle.mutations === undefined) return { changedUnknown: true };
  // No visible DOM change: nothing changed, except what CSS alone may do (a hover's :hover rules).
  if (settle.mutations === 0 || !settle.changed) return read.cssEffects ? { changedUnknown: true } : {};
  const r = toFrameRect(settle.changed, settle.scroll, frame);
  return r ? { changed: round(r) } : { changedUnknown: true };
}

export function received(f: FocusInfo): NonNullable<ActionOutcome['received']> {
  const out: NonNullable<ActionOutcome['received']> = { role: f.role, name: f.name, node: f.node };
  if (f.value !== undefined) out.value = f.value;
  if (f.valueMatches !== undefined) out.valueMatches = f.valueMatches;
  if (f.password) out.password = true;
  return out;
}

/**
 * Whether the action navigated the main frame, waiting for a navigation it started to commit
 * (and its DOM to be ready); a same-document navigation (pushState, a fragment) counts too.
 */
async function navigation(tab: Tab, mark: NavMark, signal: AbortSignal): Promise<{ url: string; title?: string; document?: boolean } | undefined> {
  const w = tab.watch;
  if (w.navStarted !== mark.navStarted && w.navCommitted === mark.navCommitted) {
    await w.until(() => w.navCommitted !== mark.navCommitted || w.dialog !== undefined, COMMIT_WAIT_MS, signal);
  }
  if (w.navCommitted !== mark.navCommitted && w.lastCommit) {
    const commit = w.lastCommit;
    if (!commit.bfcache) await w.until(() => w.domContent > commit.domContentAt || w.dialog !== undefined, DOM_READY_WAIT_MS, signal);
    const title = await tabTitle(tab);
    return { url: commit.url, ...(title !== undefined ? { title } : {}), document: true };
  }
  if (w.sameDocument !== mark.sameDocument) {
    const info = await tab.session.send('Target.getTargetInfo').catch(() => undefined);
    if (info) return { url: info.targetInfo.url, title: info.targetInfo.title };
  }
  // Started but not committed in time (a slow server, a download): nothing certain to say.
  return undefined;
}

async function tabTitle(tab: Tab): Promise<string | undefined> {
  const info = await tab.session.send('Target.getTargetInfo').catch(() => undefined);
  return info?.targetInfo.title;
}

function round(r: { x: number; y: number; width: number; height: number }): { x: number; y: number; width: number; height: number } {
  const q = (n: number): number => Math.round(n * 100) / 100;
  return { x: q(r.x), y: q(r.y), width: q(r.width), height: q(r.height) };
}

