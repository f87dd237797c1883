/**
 * type_text on a device: where the text goes (a node, found again and tapped; a point, tapped;
 * else the focused field, or NO_FOCUSED_INPUT), typing it exactly (`input text` for printable
 * ASCII, ADB Keyboard for the rest, else UNSUPPORTED), optionally clearing the field first and
 * pressing Enter after, and reading the field back.
 *
 * Costs: with nothing to tap, `dumpsys input_method` says cheaply whether a field has focus (the
 * keyboard is shown, or the served view is a text field); only when it cannot tell (a hardware
 * keyboard, a Compose screen with the keyboard hidden) is a UI dump read to decide. With `after`
 * 'summary' or 'image', one dump after typing reads the field's value back (1–3 s on a phone:
 * that is what verification costs); `after: 'none'` skips it and the keyboard reads.
 */
import { SightlineError } from '../../../../shared/errors.ts';
import type { Point } from '../../../../shared/frame.ts';
import type { ActionDetails, AfterMode, SourceUiNode } from '../source.ts';
import type { AndroidDevices, DeviceRef } from './devices.ts';
import type { DeviceDumps } from './dumps.ts';
import { tapCommand } from './gestures.ts';
import { editorFocused, fieldValue, focusedEditable, valueMatches, type ImeState } from './ime.ts';
import { ADB_KEYBOARD_IME, adbKeyboardCommand, describeChars, planInputText, stepCommand, KEYCODE_ENTER } from './inputText.ts';
import type { NodeAims } from './nodeAim.ts';
import { elementRef, joinNotes, keyboardNote } from './outcome.ts';
import { runInput } from './shellInput.ts';

/** Ctrl+A (select all) needs `input keycombination`, Android 12+. */
const KEYCOMBINATION_SDK = 31;
const KEYCODE_DEL = 67;
const KEYCODE_MOVE_END = 123;

export interface TypingKit {
  d: AndroidDevices;
  dumps: DeviceDumps;
  aims: NodeAims;
  ime(ref: DeviceRef, signal: AbortSignal): Promise<ImeState>;
}

export interface TypeRequest {
  text: string;
  point?: Point;
  node?: string;
  submit?: boolean;
  clear?: boolean;
}

export const NO_FOCUS_HINT = 'Tap the field first (click its node or x, y), or give type_text a node or x, y to tap before typing.';

export async function typeText(k: TypingKit, ref: DeviceRef, req: TypeRequest, after: AfterMode, signal: AbortSignal): Promise<ActionDetails> {
  const plan = planInputText(req.text);
  if (plan.invalid.length) {
    throw new SightlineError('INVALID_ARGUMENT', `type_text: control characters ${describeChars(plan.invalid)} cannot be typed.`, 'Remove them; use "\\n" for Enter and "\\t" for Tab, or press_key.');
  }
  let point = req.point;
  let field: SourceUiNode | undefined;
  let remapped: string | undefined;
  if (req.node !== undefined) {
    const aimed = await k.aims.resolve(ref, req.node, signal);
    point = aimed.point;
    field = aimed.node;
    if (aimed.scrolls) remapped = `scrolled ${aimed.scrolls} time${aimed.scrolls > 1 ? 's' : ''} to bring node ${req.node} into view`;
  }
  const imeBefore = !point || after !== 'none' ? await k.ime(ref, signal) : undefined;
  if (!point && !editorFocused(imeBefore!)) {
    // The keyboard is hidden and the served view says nothing: the dump decides.
    field = focusedEditable((await k.dumps.dump(ref, signal)).nodes);
    if (!field) throw new SightlineError('NO_FOCUSED_INPUT', `Nothing editable has focus on ${ref.id}: the text would go nowhere, so nothing was typed.`, NO_FOCUS_HINT);
  }
  let typing: string[];
  let via: 'input' | 'adbkeyboard' = 'input';
  if (plan.unsupported.length) {
    // `input text` would drop these silently: type through ADB Keyboard when it is the IME, else refuse.
    const ime = (await k.d.shell(ref, 'settings get secure default_input_method', signal, 'reading the keyboard')).trim();
    if (ime !== ADB_KEYBOARD_IME) {
      throw new SightlineError(
        'UNSUPPORTED',
        `type_text: ${describeChars(plan.unsupported)} cannot be typed with \`adb shell input text\` (printable ASCII only); nothing was typed.`,
        'Install ADB Keyboard (github.com/senzhk/ADBKeyBoard) and select it: `adb shell ime enable com.android.adbkeyboard/.AdbIME && adb shell ime set com.android.adbkeyboard/.AdbIME`; or type the ASCII parts only.',
      );
    }
    typing = [adbKeyboardCommand(req.text)];
    via = 'adbkeyboard';
  } else typing = plan.steps.map(stepCommand);

  const first = point ? [tapCommand(point)] : [];
  if (req.clear) {
    const sdk = (await k.d.deviceProps(ref, signal)).sdk ?? 0;
    if (sdk >= KEYCOMBINATION_SDK) first.push('input keycombination 113 29', `input keyevent ${KEYCODE_DEL}`);
    else {
      // No select-all: go to the end and delete as many characters as the field holds (read from a dump).
      if (first.length) await runInput(k.d, ref, first.splice(0), signal, 'type_text');
      const now = focusedEditable((await k.dumps.dump(ref, signal)).nodes) ?? field;
      const n = now ? (fieldValue(now) ?? '').length : 0;
      if (n) first.push(`input keyevent ${KEYCODE_MOVE_END}`, `input keyevent ${Array.from({ length: n }, () => KEYCODE_DEL).join(' ')}`);
    }
  }
  await runInput(k.d, ref, [...first, ...typing], signal, 'type_text');

  const details: ActionDetails = { chars: [...req.text].length, commands: first.length + typing.length, ...(via === 'adbkeyboard' ? { via } : {}) };
  let readBack: string | undefined;
  if (after !== 'none') {
    const dump = await k.dumps.dump(ref, signal);
    let node = focusedEditable(dump.nodes);
    if (!node && field) {
      const again = k.dumps.handles(ref).find(field.id, dump);
      if (again && 'node' in again) node = again.node;
    }
    if (node) {
      const value = fieldValue(node);
      const matches = value === undefined ? undefined : valueMatches(value, req.text, !!req.clear);
      // `received` names the element only (the core's schema has no app for it).
      const { app: _app, ...element } = elementRef(node);
      const password = node.attributes?.password === 'true' ? { password: true } : {};
      details.outcome = { received: { ...element, ...(value !== undefined ? { value: value.slice(0, 500), valueMatches: matches } : {}), ...password } };
      readBack = value === undefined ? 'a password field: its value is not read back' : matches ? undefined : `the field shows ${JSON.stringify(value.slice(0, 120))}, not what was typed`;
    } else readBack = 'no focused field to read back';
  }
  if (req.submit) await runInput(k.d, ref, [`input keyevent ${KEYCODE_ENTER}`], signal, 'type_text');
  if (after !== 'none') {
    const imeAfter = await k.ime(ref, signal);
    details.outcome = { ...details.outcome, ...(imeAfter.shown !== undefined ? { keyboardShown: imeAfter.shown } : {}), changedUnknown: true, ...(remapped ? { remapped } : {}) };
    const note = joinNotes(via === 'adbkeyboard' ? 'typed through ADB Keyboard (non-ASCII text)' : undefined, readBack, keyboardNote(imeBefore, imeAfter));
    if (note) details.note = note;
  } else {
    if (via === 'adbkeyboard') details.note = 'typed through ADB Keyboard (non-ASCII text)';
    if (remapped) details.outcome = { remapped };
  }
  if (point) details.point = point;
  return details;
}
