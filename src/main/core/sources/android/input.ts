/**
 * Input to devices: `input` commands in device pixels (tap, long press, swipe, scroll as a swipe,
 * drag, escaped text, key events), aimed at a point or at a node id that is found again first
 * (nodeAim.ts), each checked for its exit status and error output, and reporting what it can tell
 * cheaply (outcome.ts): the node a tap hit, the field that received text and its value read back
 * (typing.ts), whether the keyboard came or went. `after: 'none'` skips every read that is not
 * needed to act. Each action is judged (the package in front), judges its frame, resolves and acts
 * under the device's lock.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import type { Point } from '../../../../shared/frame.ts';
import { settle } from '../aim.ts';
import type { ActionDetails, ActionOutcome, AfterMode, Aim, InputPort, PendingAction, SourceAction, StoredFrame } from '../source.ts';
import { deviceFacts } from './appControl.ts';
import type { AndroidDevices, DeviceRef } from './devices.ts';
import type { DeviceDumps } from './dumps.ts';
import { dragCommand, dragMethod, longPressCommand, motionCommand, swipeCommand, tapCommand, type DragMethod } from './gestures.ts';
import { IME_COMMAND, isEditableClass, parseImeState, type ImeState } from './ime.ts';
import { parseKeys } from './keys.ts';
import { NodeAims, type Aimed } from './nodeAim.ts';
import { dumpForFrame, elementRef, hitAt, joinNotes, keyboardNote } from './outcome.ts';
import type { AndroidFrameState, AndroidScreen } from './screen.ts';
import { runInput } from './shellInput.ts';
import { typeText } from './typing.ts';

type Action = SourceAction<AndroidFrameState>;

export class AndroidInput implements InputPort<AndroidFrameState> {
  readonly actions = ['click', 'type_text', 'press_key', 'scroll', 'swipe', 'drag', 'scroll_into_view'] as const;
  readonly unsupported = {
    hover: { message: 'Android touch screens have no hover.', hint: 'Tap with click, long-press with click holdMs, or read the node with get_ui_tree.' },
  };
  readonly #d: AndroidDevices;
  readonly #dumps: DeviceDumps;
  readonly #screen: AndroidScreen;
  readonly #aims: NodeAims;
  /** Devices whose `input` turned out to lack `motionevent` (older than its SDK says, or trimmed). */
  readonly #noMotionEvent = new Set<string>();

  constructor(devices: AndroidDevices, dumps: DeviceDumps, screen: AndroidScreen) {
    this.#d = devices;
    this.#dumps = dumps;
    this.#screen = screen;
    this.#aims = new NodeAims(dumps, (ref, from, to, signal) => this.#scrollSwipe(ref, from, to, signal));
  }

  async perform(pending: PendingAction<Action>, signal: AbortSignal): Promise<ActionDetails> {
    const ref = this.#d.device(pending.target);
    const after = pending.after;
    return this.#d.exclusive(ref, signal, async () => {
      const action = await settle(
        pending,
        (need) => deviceFacts(this.#d, ref, signal, need),
        (frame) => this.#screen.checkFrame(frame as StoredFrame<AndroidFrameState>, signal),
      );
      switch (action.kind) {
        case 'click':
          return this.#click(ref, action, after, signal);
        case 'type_text':
          return typeText({ d: this.#d, dumps: this.#dumps, aims: this.#aims, ime: (r, s) => this.#ime(r, s) }, ref, action, after, signal);
        case 'swipe': {
          const from = await this.#aim(ref, action, signal);
          const cmd = swipeCommand(from.point, action.to, action.durationMs);
          await runInput(this.#d, ref, [cmd], signal, 'swipe');
          return this.#done(from, after, { command: cmd });
        }
        case 'scroll':
          return this.#scroll(ref, action, after, signal);
        case 'drag':
          return this.#drag(ref, action, after, signal);
        case 'scroll_into_view': {
          const aimed = await this.#aims.resolve(ref, action.node, signal);
          return { point: aimed.point, note: aimed.scrolls ? `scrolled ${aimed.scrolls} time(s)` : 'already in view', outcome: { hit: elementRef(aimed.node), ...(aimed.scrolls ? { remapped: scrolledNote(aimed) } : {}) } };
        }
        case 'press_key': {
          const codes = parseKeys(action.key);
          const cmd = codes.length === 1 ? `input keyevent ${codes[0]}` : `input keycombination ${codes.join(' ')}`;
          const before = after === 'none' ? undefined : await this.#ime(ref, signal);
          await runInput(this.#d, ref, [cmd], signal, 'press_key');
          return this.#withKeyboard(ref, withChanged({ command: cmd }, after), before, after, false, signal);
        }
        default:
          throw new SightlineError('UNSUPPORTED', `${action.kind} is not supported on Android.`, 'Use click, type_text, press_key, scroll, swipe or drag.');
      }
    });
  }

  async #click(ref: DeviceRef, action: Extract<Action, { kind: 'click' }>, after: AfterMode, signal: AbortSignal): Promise<ActionDetails> {
    if (action.button !== 'left') throw new SightlineError('UNSUPPORTED', `Android has no ${action.button} click.`, 'Use a plain click (a tap), or holdMs for a long press.');
    if (action.modifiers.length) throw new SightlineError('UNSUPPORTED', 'Android taps take no modifier keys.', 'Tap without modifiers; use press_key for key combinations.');
    const aimed = await this.#aim(ref, action, signal);
    const p = aimed.point;
    const cmd = action.holdMs ? longPressCommand(p, action.holdMs) : tapCommand(p, action.clicks);
    // What is under the point: the dump the node was found in, else the latest one if it is not older than the frame.
    const known = aimed.dump ?? (after === 'none' ? undefined : dumpForFrame(this.#dumps.last(ref), action.frame));
    const hit = known ? hitAt(known, p) : undefined;
    const before = after === 'none' ? undefined : await this.#ime(ref, signal);
    await runInput(this.#d, ref, [cmd], signal, 'tap');
    const details: ActionDetails = { command: cmd, note: action.holdMs ? `long press ${Math.round(action.holdMs)} ms` : 'tap' };
    if (hit && after !== 'none') details.outcome = { hit: elementRef(hit) };
    return this.#withKeyboard(ref, this.#done(aimed, after, details), before, after, !!hit && isEditableClass(hit.role), signal);
  }

  async #scroll(ref: DeviceRef, action: Extract<Action, { kind: 'scroll' }>, after: AfterMode, signal: AbortSignal): Promise<ActionDetails> {
    // Content scrolls down when the finger moves up: swipe against the delta, kept on screen.
    const display = await this.#d.display(ref, signal);
    const { width, height } = display.size;
    const aimed = action.point || action.node !== undefined ? await this.#aim(ref, action, signal) : undefined;
    const from = aimed?.point ?? { x: width / 2, y: height / 2 };
    const clamp = (v: number, max: number): number => Math.min(max - 1, Math.max(0, v));
    const to = { x: clamp(from.x - action.deltaX, width), y: clamp(from.y - action.deltaY, height) };
    const cmd = swipeCommand(from, to, 300);
    await runInput(this.#d, ref, [cmd], signal, 'scroll');
    const limited = Math.abs(to.x - from.x + action.deltaX) > 0.01 || Math.abs(to.y - from.y + action.deltaY) > 0.01;
    const details: ActionDetails = { command: cmd, ...(limited ? { note: 'scroll distance limited to the screen' } : {}) };
    return aimed ? this.#done(aimed, after, details) : withChanged(details, after);
  }

  async #drag(ref: DeviceRef, action: Extract<Action, { kind: 'drag' }>, after: AfterMode, signal: AbortSignal): Promise<ActionDetails> {
    const from = await this.#aim(ref, action, signal);
    let to = action.to;
    if (action.toNode !== undefined) {
      // The drop target is looked up in the same fresh screen; it is not scrolled to (that would move the start).
      const dump = from.dump ?? (await this.#dumps.dump(ref, signal));
      const found = this.#dumps.handles(ref).find(action.toNode, dump);
      if (!found || 'ambiguous' in found || !found.node.inViewport) {
        throw new SightlineError('NODE_NOT_FOUND', `Drop target "${action.toNode}" is not on screen of ${ref.id}.`, 'Bring both ends into view (scroll), call get_ui_tree, and drag again.');
      }
      const b = found.node.bounds;
      to = { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    }
    if (!to) throw new SightlineError('INVALID_ARGUMENT', 'drag needs an end: "to" (x, y) or "toNode".', 'Give where to drop.');
    const sdk = (await this.#d.deviceProps(ref, signal)).sdk;
    const opts = { durationMs: action.durationMs, ...(action.holdMs !== undefined ? { holdMs: action.holdMs } : {}) };
    let method = pickDrag(sdk, action.holdMs, !this.#noMotionEvent.has(ref.id));
    try {
      await runInput(this.#d, ref, [dragCommand(method, from.point, to, opts)], signal, 'drag');
    } catch (e) {
      if (method !== 'motionevent' || !isSightlineError(e) || e.details?.unknownCommand !== true) throw e;
      // `input motionevent` is missing: nothing was pressed; use what Android 7–10 have.
      this.#noMotionEvent.add(ref.id);
      method = pickDrag(sdk, action.holdMs, false);
      await runInput(this.#d, ref, [dragCommand(method, from.point, to, opts)], signal, 'drag');
    }
    const how = method === 'motionevent' ? `motion events${action.holdMs ? `, held ${Math.round(action.holdMs)} ms` : ''}` : method === 'draganddrop' ? 'input draganddrop (held for the long-press timeout)' : 'input swipe';
    return this.#done(from, after, { note: `drag by ${how}`, method, to });
  }

  /** The point an action aims at: given, or the centre of a node found again (scrolled into view). */
  async #aim(ref: DeviceRef, action: Aim<AndroidFrameState> & { kind: string }, signal: AbortSignal): Promise<Partial<Aimed> & { point: Point }> {
    if (action.node !== undefined) return this.#aims.resolve(ref, action.node, signal);
    if (action.point) return { point: action.point };
    throw new SightlineError('INVALID_ARGUMENT', `${action.kind} needs a point or a node.`, 'Give x, y in image pixels of the frame you saw, or a node id from get_ui_tree.');
  }

  #done(aimed: Partial<Aimed> & { point: Point }, after: AfterMode, details: ActionDetails): ActionDetails {
    const out: ActionDetails = { ...details, point: aimed.point };
    // Said even with after: none (it costs nothing): the screen moved under the agent's frame.
    if (aimed.scrolls) out.outcome = { ...out.outcome, remapped: scrolledNote(aimed as Aimed) };
    return withChanged(out, after);
  }

  /** Read the keyboard after an action; an editable hit gets a moment for the keyboard to come up. */
  async #withKeyboard(ref: DeviceRef, details: ActionDetails, before: ImeState | undefined, after: AfterMode, editable: boolean, signal: AbortSignal): Promise<ActionDetails> {
    if (after === 'none' || !before) return details;
    let now = await this.#ime(ref, signal);
    for (let i = 0; editable && now.shown === before.shown && i < 3; i++) {
      await sleep(150);
      now = await this.#ime(ref, signal);
    }
    const outcome: ActionOutcome = { ...details.outcome, ...(now.shown !== undefined ? { keyboardShown: now.shown } : {}) };
    const note = joinNotes(details.note, keyboardNote(before, now));
    return { ...details, outcome, ...(note ? { note } : {}) };
  }

  async #ime(ref: DeviceRef, signal: AbortSignal): Promise<ImeState> {
    return parseImeState(await this.#d.shell(ref, IME_COMMAND, signal, 'reading the keyboard state').catch(() => ''));
  }

  /** A swipe that stops before it lifts (no fling) where the device has motion events. */
  async #scrollSwipe(ref: DeviceRef, from: Point, to: Point, signal: AbortSignal): Promise<void> {
    const sdk = (await this.#d.deviceProps(ref, signal)).sdk;
    if (pickDrag(sdk, 0, !this.#noMotionEvent.has(ref.id)) === 'motionevent') {
      try {
        return await runInput(this.#d, ref, [motionCommand(from, to, 300, 0)], signal, 'scroll into view');
      } catch (e) {
        if (!isSightlineError(e) || e.details?.unknownCommand !== true) throw e;
        this.#noMotionEvent.add(ref.id);
      }
    }
    await runInput(this.#d, ref, [swipeCommand(from, to, 600)], signal, 'scroll into view');
  }
}

function pickDrag(sdk: number | undefined, holdMs: number | undefined, motionEventWorks: boolean): DragMethod {
  const m = dragMethod(sdk, holdMs, motionEventWorks);
  if (typeof m === 'object') throw new SightlineError('UNSUPPORTED', m.unsupported, 'Drag without holdMs (a plain swipe), or use a newer device.');
  return m;
}

function scrolledNote(a: Pick<Aimed, 'scrolls' | 'node'>): string {
  return `scrolled ${a.scrolls} time${a.scrolls > 1 ? 's' : ''} to bring node ${a.node.id} into view`;
}

/** Android cannot say cheaply what changed: the core captures and compares when asked for a summary. */
function withChanged(details: ActionDetails, after: AfterMode): ActionDetails {
  return after === 'none' ? details : { ...details, outcome: { ...details.outcome, changedUnknown: true } };
}
