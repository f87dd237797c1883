/**
 * Input to tabs through puppeteer's mouse and keyboard. Every action finds where it lands in
 * one page call (aiming.ts: a frame point re-mapped through page coordinates, or a node's
 * element at its current box, scrolled into view), acts, and tells its outcome (outcome.ts:
 * what was hit, what received the text, navigation, dialog, title, the changed region). The
 * module's own actions (forms, navigation, dialogs) are in forms.ts and navigation.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'puppeteer-core';
import { SightlineError } from '../../../../shared/errors.ts';
import type { Point } from '../../../../shared/frame.ts';
import { settle } from '../aim.ts';
import type { ActionDetails, ActionOutcome, AfterMode, InputPort, PendingAction, SourceAction, StoredFrame } from '../source.ts';
import { aimAt, aimOf, NODE_HINT, type AimAt, type Aimed } from './aiming.ts';
import { fillForm, isFormAction, performForm, type FormDeps } from './forms.ts';
import { guarded, hopJudge } from './hops.ts';
import { toFramePoint, type BrowserFrameState } from './frameState.ts';
import type { BrowserFleet } from './fleet.ts';
import { parseKeyCombo } from './keys.ts';
import type { BrowserModuleAction } from './kinds.ts';
import { isPageAction, pageFacts, performNavigation } from './navigation.ts';
import { observe, received, type ObserveContext } from './outcome.ts';
import { judgeFrame } from './screen.ts';
import { FIELD_FN, SCROLL_INTO_VIEW_FN, SELECT_ALL_FN, type FocusInfo } from './pageActions.ts';
import type { PageElement } from './pageScripts.ts';
import { shorten } from './tabWatch.ts';
import type { Tab, TabSessions } from './tabs.ts';

/** At most this many characters per call: longer text is refused, not truncated. */
export const MAX_TEXT_LENGTH = 10_000;
/** Up to this many characters are typed key by key (pages see keydown/keyup); longer text is inserted. */
const KEYED_TYPING_LIMIT = 200;
const INSERT_CHUNK = 2_000;

type Action = SourceAction<BrowserFrameState>;
type CdpCall = (method: string, params?: Record<string, unknown>) => Promise<unknown>;

const BUILTIN = ['click', 'type_text', 'press_key', 'scroll', 'scroll_into_view', 'hover', 'drag'] as const;

export class BrowserInput implements InputPort<BrowserFrameState, BrowserModuleAction> {
  readonly actions = BUILTIN;
  readonly #fleet: BrowserFleet;

  constructor(fleet: BrowserFleet) {
    this.#fleet = fleet;
  }

  async perform(pending: PendingAction<Action | BrowserModuleAction>, signal: AbortSignal): Promise<ActionDetails> {
    const after = pending.after;
    if (isPageAction(pending.kind)) return performNavigation(this.#fleet, pending as PendingAction<Extract<BrowserModuleAction, { kind: 'navigate' | 'tabs' | 'handle_dialog' }>>, signal);
    const sessions = this.#fleet.forTarget(pending.target);
    // One lock from the judgement and the frame's check to the last event: a scroll or navigation
    // by another call cannot come between the point's mapping and the click, and a call waiting
    // for the tab is judged on the page it will act on (after a pause pressed meanwhile, not at all).
    return sessions.withTab(pending.target, signal, 'action', async (tab) => {
      const settled = await settle(pending, () => pageFacts(tab), (frame) => judgeFrame(sessions, tab, frame as StoredFrame<BrowserFrameState>));
      // A page the input leads to (a link clicked, a form submitted by a key) is judged before it is asked for.
      return guarded(tab, pending.kind, hopJudge(this.#fleet.urlRules(), pending), signal, () => this.#act(sessions, tab, settled, after, { file: (path) => pending.allowedFile(path, 'upload') }, signal));
    });
  }

  async #act(sessions: TabSessions, tab: Tab, settled: Action | BrowserModuleAction, after: AfterMode, forms: FormDeps, signal: AbortSignal): Promise<ActionDetails> {
    const frame = 'frame' in settled ? (settled.frame as StoredFrame<BrowserFrameState> | undefined) : undefined;
    const ctx = this.#ctx(settled.target, tab, after, signal, frame);
    if (isFormAction(settled)) return performForm(ctx, settled, forms);
    if (settled.kind === 'fill_form') {
      const page = await sessions.page(tab);
      const quiet: ObserveContext = { ...ctx, after: 'none' };
      return fillForm(ctx, settled, forms, async (node, text) => {
        const d = await typeInto(quiet, page, { kind: 'type_text', target: settled.target, node, text, clear: true }, false);
        // The field keeps the focus after typing: read back what it holds.
        const now = d.outcome?.dialog ? undefined : await sessions.call<FocusInfo | null>(tab, FIELD_FN, [{ text, exact: true }]);
        return now ? { ...d, outcome: { ...d.outcome, received: received(now) } } : d;
      });
    }
    // Page-level actions were performed above; what is left is a pointer or keyboard action.
    const action = settled as Action;
    if (action.kind === 'type_text') checkText(action.text, action.clear === true);
    const combo = action.kind === 'press_key' ? parseKeyCombo(action.key) : undefined;
    await tab.watch.trackNetwork().catch(() => undefined);
    const page = await sessions.page(tab);
    const summary = after !== 'none';
    switch (action.kind) {
      case 'click': {
        const pre = await aimAt(sessions, tab, { frame, from: required(action), hit: summary, observe: summary });
        const p = pre.points[0]!;
        const { outcome } = await observe(ctx, pre, () => holding(page, action.modifiers, () => page.mouse.click(p.x, p.y, { button: action.button, count: action.clicks, delay: action.holdMs })));
        return details(ctx, pre, outcome, p);
      }
      case 'hover': {
        const pre = await aimAt(sessions, tab, { frame, from: required(action), hit: summary, observe: summary });
        const p = pre.points[0]!;
        const { outcome } = await observe(ctx, pre, () => page.mouse.move(p.x, p.y, { steps: 2 }), { cssEffects: true });
        return details(ctx, pre, outcome, p);
      }
      case 'drag':
        return drag(ctx, page, action, summary);
      case 'type_text':
        return typeInto(ctx, page, action, summary);
      case 'press_key': {
        const { modifiers, key } = combo!;
        const pre = summary ? await aimAt(sessions, tab, { observe: true }) : undefined;
        const { outcome } = await observe(ctx, pre, () => holding(page, modifiers, () => page.keyboard.press(key)));
        return { key: [...modifiers, key].join('+'), outcome };
      }
      case 'scroll':
        return scroll(ctx, page, action);
      case 'scroll_into_view': {
        type Shown = { x: number; y: number; w: number; h: number; sx: number; sy: number; el: PageElement } | null;
        const args = [action.node, action.block, action.inline];
        let r = await sessions.call<Shown>(tab, SCROLL_INTO_VIEW_FN, args);
        if (!r && (await sessions.adoptWorld(tab, action.node))) r = await sessions.call<Shown>(tab, SCROLL_INTO_VIEW_FN, args);
        if (!r) throw new SightlineError('NODE_NOT_FOUND', `Node "${action.node}" is no longer on the page (or is not a node id from get_ui_tree).`, NODE_HINT, { node: action.node });
        const point = { x: r.x + r.w / 2, y: r.y + r.h / 2 };
        return { bounds: { x: r.x, y: r.y, width: r.w, height: r.h }, scroll: { x: r.sx, y: r.sy }, point, outcome: { hit: r.el } };
      }
      default:
        throw new SightlineError('UNSUPPORTED', 'Unsupported action.', `Use ${BUILTIN.join(', ')}.`);
    }
  }

  #ctx(target: string, tab: Tab, after: AfterMode, signal: AbortSignal, frame: StoredFrame<BrowserFrameState> | undefined): ObserveContext {
    return { tabs: this.#fleet.forTarget(target), tab, after, signal, ...(frame ? { frame } : {}) };
  }
}

function required(a: { kind: string; node?: string; point?: Point }): AimAt {
  const aim = aimOf(a);
  if (!aim) throw new SightlineError('INVALID_ARGUMENT', `${a.kind} needs x, y or a node.`, 'Give x, y in image pixels of the frame you saw, or a node id from get_ui_tree.');
  return aim;
}

/**
 * What a pointer action reports: where it landed in the frame's coordinates (the core maps that
 * into the frame's image) and in the viewport now; the re-mapping is in the outcome, told once.
 */
function details(ctx: ObserveContext, pre: Aimed, outcome: ActionOutcome, point: Point, extra: Record<string, unknown> = {}): ActionDetails {
  return { ...extra, point: toFramePoint(point, pre.scroll, ctx.frame), viewportPoint: point, outcome };
}

async function drag(ctx: ObserveContext, page: Page, a: Extract<Action, { kind: 'drag' }>, summary: boolean): Promise<ActionDetails> {
  const to: AimAt | undefined = a.toNode ? { node: a.toNode } : a.to ? { point: a.to } : undefined;
  if (!to) throw new SightlineError('INVALID_ARGUMENT', 'drag needs an end: toX, toY or toNode.', 'Give the end point in image pixels of the same frame, or a node id.');
  const pre = await aimAt(ctx.tabs, ctx.tab, { frame: ctx.frame, from: required(a), to, hit: summary, dropHit: summary, observe: summary });
  const [from, end] = [pre.points[0]!, pre.points[1]!];
  const duration = Math.max(0, Math.min(10_000, Number.isFinite(a.durationMs) ? a.durationMs : 300));
  // Enough intermediate moves for drag thresholds and dragover handlers (HTML5 drag and drop included).
  const steps = Math.max(5, Math.min(40, Math.round(duration / 16)));
  const { outcome } = await observe(ctx, pre, async () => {
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    try {
      if (a.holdMs) await sleep(a.holdMs);
      for (let i = 1; i <= steps; i++) {
        await page.mouse.move(from.x + ((end.x - from.x) * i) / steps, from.y + ((end.y - from.y) * i) / steps);
        if (duration) await sleep(duration / steps);
      }
    } finally {
      await page.mouse.up();
    }
  });
  return details(ctx, pre, outcome, from, { to: end, ...(pre.dropHit ? { drop: pre.dropHit } : {}) });
}

async function scroll(ctx: ObserveContext, page: Page, a: Extract<Action, { kind: 'scroll' }>): Promise<ActionDetails> {
  const aim = aimOf(a);
  const pre = await aimAt(ctx.tabs, ctx.tab, { frame: ctx.frame, ...(aim ? { from: aim } : {}) });
  // No point: the wheel turns over the middle of the viewport (deltas are CSS px).
  const point = pre.points[0] ?? { x: pre.viewport.w / 2, y: pre.viewport.h / 2 };
  const { outcome, value } = await observe(ctx, pre, async () => {
    await page.mouse.move(point.x, point.y);
    await page.mouse.wheel({ deltaX: a.deltaX, deltaY: a.deltaY });
    return ctx.tabs.settledScroll(ctx.tab, pre.scroll, ctx.signal);
  });
  const after = value ?? pre.scroll;
  const moved = after.x !== pre.scroll.x || after.y !== pre.scroll.y;
  if (ctx.after !== 'none' && !outcome.dialog && !outcome.navigated) {
    // The whole view moved when the page scrolled; a scrolled box inside it cannot be told apart.
    delete outcome.changed;
    delete outcome.changedUnknown;
    if (moved) outcome.changed = ctx.frame ? { x: 0, y: 0, ...ctx.frame.sourceSize } : { x: 0, y: 0, width: pre.viewport.w, height: pre.viewport.h };
    else if (a.deltaX || a.deltaY) outcome.changedUnknown = true;
  }
  return details(ctx, pre, outcome, point, { scroll: after });
}

async function typeInto(ctx: ObserveContext, page: Page, a: Extract<Action, { kind: 'type_text' }>, summary: boolean): Promise<ActionDetails> {
  const { tabs, tab, signal } = ctx;
  const aim = aimOf(a);
  const pre = await aimAt(tabs, tab, { frame: ctx.frame, ...(aim ? { from: aim } : {}), hit: summary && !!aim, focus: !aim, observe: summary });
  if (!aim) refuseUnlessEditable(pre.focus, tab.targetId);
  const expect = { text: a.text, exact: a.clear === true };
  let method: 'keys' | 'insert' | 'none' = 'none';
  const dialogs = tab.watch.dialogsOpened;
  let before: FocusInfo | null | undefined;
  const { outcome } = await observe(
    ctx,
    pre,
    async () => {
      if (aim) {
        const p = pre.points[0]!;
        await page.mouse.click(p.x, p.y);
        refuseUnlessEditable(await tabs.call<FocusInfo | null>(tab, FIELD_FN, [null]), tab.targetId, p);
      }
      if (a.clear) {
        const sel = await tabs.call<{ had: boolean }>(tab, SELECT_ALL_FN, []);
        if (sel.had) await page.keyboard.press('Backspace');
      }
      if (a.text) method = await typeText(page, (m, p) => tab.session.send(m as 'Input.insertText', p as { text: string }), a.text, signal, () => tab.watch.dialogsOpened !== dialogs);
      if (a.submit && tab.watch.dialogsOpened === dialogs) {
        // Read the field before Enter: submitting may clear it or leave the page.
        if (summary) before = await tabs.call<FocusInfo | null>(tab, FIELD_FN, [expect]);
        await page.keyboard.press('Enter');
      }
    },
    { focus: !a.submit, expect },
  );
  if (before) outcome.received = received(before);
  else if (!outcome.received && !aim && pre.focus && summary) outcome.received = { role: pre.focus.role, name: pre.focus.name, node: pre.focus.node, ...(pre.focus.password ? { password: true } : {}) };
  const r = outcome.received;
  const notes = [r?.valueMatches === false && r.password ? 'the password field does not hold the typed text (a length limit or a script changed it)' : r?.valueMatches === false ? `the field now holds "${shorten(r.value ?? '', 80)}", not the typed text (a mask, a length limit or a script changed it)` : undefined];
  const out: ActionDetails = { characters: [...a.text].length, method, outcome, ...(pre.points[0] ? { point: toFramePoint(pre.points[0], pre.scroll, ctx.frame), viewportPoint: pre.points[0] } : {}) };
  const note = notes.filter(Boolean).join('; ');
  if (note) out.note = note;
  return out;
}

/** NO_FOCUSED_INPUT unless a field that takes text has the focus (nothing is typed then). */
function refuseUnlessEditable(f: FocusInfo | null | undefined, target: string, clicked?: Point): void {
  if (f?.editable) return;
  const what = f ? `${f.role}${f.name ? ` "${shorten(f.name, 60)}"` : ''}${f.tag === 'input' || f.tag === 'textarea' ? ' (read-only or disabled)' : ''}` : 'nothing';
  const where = clicked ? `Clicking (${Math.round(clicked.x)}, ${Math.round(clicked.y)}) focused ${what}` : `${what[0]!.toUpperCase()}${what.slice(1)} has the focus`;
  throw new SightlineError(
    'NO_FOCUSED_INPUT',
    `${where} on ${target}: no text field would receive the text, so nothing was typed.`,
    clicked ? 'Aim at the field itself (node from get_ui_tree, or x, y inside it).' : 'Give the field as node (from get_ui_tree) or x, y, or click it first.',
  );
}

function checkText(text: string, clear: boolean): void {
  if (typeof text !== 'string' || (text.length === 0 && !clear)) throw new SightlineError('INVALID_ARGUMENT', 'type_text needs a non-empty "text".', 'Give the text to type (or clear: true to empty the field).');
  const n = [...text].length;
  if (n > MAX_TEXT_LENGTH) {
    throw new SightlineError('INVALID_ARGUMENT', `The text is ${n} characters long; at most ${MAX_TEXT_LENGTH} are typed in one call.`, `Split it into several type_text calls of at most ${MAX_TEXT_LENGTH} characters.`, { length: n });
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
async function typeText(page: Page, send: CdpCall, text: string, signal: AbortSignal, stopped: () => boolean): Promise<'keys' | 'insert'> {
  const normalised = text.replace(/\r\n?/g, '\n');
  if ([...normalised].length <= KEYED_TYPING_LIMIT) {
    // Key by key, so nothing more is typed once a key opened a dialog (it would land after the answer).
    for (const ch of normalised) {
      if (signal.aborted || stopped()) break;
      await page.keyboard.type(ch);
    }
    return 'keys';
  }
  for (const part of normalised.split(/([\n\t])/)) {
    if (signal.aborted || stopped()) return 'insert';
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

