/**
 * Input to devices: `input` commands in device pixels (tap, long press, swipe, scroll as a
 * swipe, escaped text, key events), each checked for its exit status and error output. Text
 * `input text` cannot type goes through ADB Keyboard when it is the IME, else it is refused.
 */
import { SightlineError } from '../../../../shared/errors.ts';
import type { Point } from '../../../../shared/frame.ts';
import type { ActionDetails, InputPort, SourceAction } from '../source.ts';
import type { AndroidDevices } from './devices.ts';
import { ADB_KEYBOARD_IME, adbKeyboardCommand, batchCommands, describeChars, planInputText, stepCommand } from './inputText.ts';
import { KEY_EXAMPLES, parseKeys } from './keys.ts';
import type { AndroidFrameState } from './screen.ts';
import { requirePoint } from '../aim.ts';

export class AndroidInput implements InputPort<AndroidFrameState> {
  readonly actions = ['click', 'type_text', 'press_key', 'scroll', 'swipe'] as const;
  readonly #d: AndroidDevices;

  constructor(devices: AndroidDevices) {
    this.#d = devices;
  }

  async perform(action: SourceAction<AndroidFrameState>, signal: AbortSignal): Promise<ActionDetails> {
    const serial = this.#d.serial(action.target);
    return this.#d.exclusive(serial, signal, async () => {
      switch (action.kind) {
        case 'click': {
          if (action.button !== 'left') throw new SightlineError('UNSUPPORTED', `Android has no ${action.button} click.`, 'Use a plain click (a tap), or holdMs for a long press.');
          if (action.modifiers.length) throw new SightlineError('UNSUPPORTED', 'Android taps take no modifier keys.', 'Tap without modifiers; use press_key for key combinations.');
          const { x, y } = devicePoint(requirePoint(action));
          const cmd = action.holdMs ? `input swipe ${x} ${y} ${x} ${y} ${Math.max(1, Math.round(action.holdMs))}` : Array.from({ length: Math.max(1, action.clicks) }, () => `input tap ${x} ${y}`).join(' && ');
          await this.#input(serial, [cmd], signal, 'tap');
          return { note: action.holdMs ? `long press ${Math.round(action.holdMs)} ms at (${x}, ${y})` : `tap at (${x}, ${y})`, command: cmd };
        }
        case 'swipe': {
          const a = devicePoint(requirePoint(action));
          const b = devicePoint(action.to);
          const cmd = `input swipe ${a.x} ${a.y} ${b.x} ${b.y} ${Math.max(1, Math.round(action.durationMs))}`;
          await this.#input(serial, [cmd], signal, 'swipe');
          return { command: cmd };
        }
        case 'scroll': {
          // Content scrolls down when the finger moves up: swipe against the delta, kept on screen.
          const display = await this.#d.display(serial, signal);
          const { width, height } = display.size;
          const from = action.point ? devicePoint(action.point) : { x: Math.round(width / 2), y: Math.round(height / 2) };
          const clamp = (v: number, max: number): number => Math.min(max - 1, Math.max(0, Math.round(v)));
          const to = { x: clamp(from.x - action.deltaX, width), y: clamp(from.y - action.deltaY, height) };
          const cmd = `input swipe ${from.x} ${from.y} ${to.x} ${to.y} 300`;
          await this.#input(serial, [cmd], signal, 'scroll');
          return { command: cmd, note: to.x - from.x !== -action.deltaX || to.y - from.y !== -action.deltaY ? 'scroll distance limited to the screen' : undefined };
        }
        case 'type_text':
          return this.#typeText(serial, action.text, action.point, signal);
        case 'press_key': {
          let codes: number[];
          try {
            codes = parseKeys(action.key);
          } catch (e) {
            throw new SightlineError('INVALID_ARGUMENT', `press_key: ${(e as Error).message}.`, `Use a key name such as ${KEY_EXAMPLES}.`);
          }
          const cmd = codes.length === 1 ? `input keyevent ${codes[0]}` : `input keycombination ${codes.join(' ')}`;
          await this.#input(serial, [cmd], signal, 'press_key');
          return { command: cmd };
        }
        default:
          throw new SightlineError('UNSUPPORTED', `${action.kind} is not supported on Android.`, 'Use click, type_text, press_key, scroll, swipe or drag.');
      }
    });
  }

  async #typeText(serial: string, text: string, point: Point | undefined, signal: AbortSignal): Promise<ActionDetails> {
    const plan = planInputText(text);
    if (plan.invalid.length) {
      throw new SightlineError('INVALID_ARGUMENT', `type_text: control characters ${describeChars(plan.invalid)} cannot be typed.`, 'Remove them; use "\\n" for Enter and "\\t" for Tab, or press_key.');
    }
    const tap = point ? [`input tap ${devicePoint(point).x} ${devicePoint(point).y}`] : [];
    if (plan.unsupported.length) {
      // `input text` would drop these silently: type through ADB Keyboard when it is the IME, else refuse.
      const ime = (await this.#d.shell(serial, 'settings get secure default_input_method', signal, 'reading the keyboard')).trim();
      if (ime !== ADB_KEYBOARD_IME) {
        throw new SightlineError(
          'UNSUPPORTED',
          `type_text: ${describeChars(plan.unsupported)} cannot be typed with \`adb shell input text\` (printable ASCII only); nothing was typed.`,
          'Install ADB Keyboard (github.com/senzhk/ADBKeyBoard) and select it: `adb shell ime enable com.android.adbkeyboard/.AdbIME && adb shell ime set com.android.adbkeyboard/.AdbIME`; or type the ASCII parts only.',
        );
      }
      await this.#input(serial, [...tap, adbKeyboardCommand(text)], signal, 'type_text');
      return { note: 'typed through ADB Keyboard (non-ASCII text)', chars: [...text].length };
    }
    await this.#input(serial, [...tap, ...plan.steps.map(stepCommand)], signal, 'type_text');
    return { chars: [...text].length, commands: plan.steps.length };
  }

  /** Run `input` commands, checking each line's exit status and error output. */
  async #input(serial: string, commands: string[], signal: AbortSignal, label: string): Promise<void> {
    for (const line of batchCommands(commands)) {
      let out: string;
      try {
        out = await this.#d.shell(serial, `${line}; echo "__sl_rc=$?"`, signal, label);
      } catch (e) {
        throw await this.#d.explain(serial, e, (msg) => new SightlineError('INTERNAL', `${label} on android:${serial} failed: ${msg}.`, 'Check that the device is unlocked, then try again.'));
      }
      const m = /__sl_rc=(\d+)\s*$/.exec(out);
      const said = out.replace(/__sl_rc=\d+\s*$/, '').trim();
      if (!m || m[1] !== '0' || /^(Error|Exception)\b/m.test(said)) {
        const unknown = /Unknown command|Error: Unknown|unknown command/i.test(said);
        throw new SightlineError(
          unknown ? 'UNSUPPORTED' : 'INTERNAL',
          `${label} on android:${serial} failed${m ? ` (exit ${m[1]})` : ''}: ${said.split('\n').slice(0, 3).join(' ') || 'no output'}.`,
          unknown ? 'This Android version lacks that input command (key combinations need Android 12+).' : 'Check the device is unlocked and the app is in front.',
        );
      }
    }
  }

  // ── UI tree ─────────────────────────────────────────────────────────────────
}

/** Device pixels are integers; the core hands over exact source-space points. */
function devicePoint(p: Point): { x: number; y: number } {
  return { x: Math.round(p.x), y: Math.round(p.y) };
}
