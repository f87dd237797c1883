/**
 * Turning text into device commands that type exactly that text. Pure.
 *
 * `input text ARG` has three traps: the argument passes through the device's `sh -c` (so it is
 * single-quoted here), `input` turns every `%s` into a space (so spaces are sent as `%s`, and a
 * literal `%` followed by `s` is split across two calls), and it only carries characters the
 * virtual keyboard map has keys for, printable ASCII (anything else is dropped without an error).
 * Newlines and tabs become ENTER and TAB key events.
 */

export type TextStep = { kind: 'text'; arg: string } | { kind: 'key'; code: number };

export const KEYCODE_ENTER = 66;
export const KEYCODE_TAB = 61;

/** Longest argument per `input text` call: old adbd limits a whole command to 4 KiB. */
const MAX_ARG = 1000;

export interface TextPlan {
  steps: TextStep[];
  /** Characters `input text` cannot carry (empty when the plan types the text exactly). */
  unsupported: string[];
  /** Control characters nothing can type. */
  invalid: string[];
}

export function planInputText(text: string): TextPlan {
  const steps: TextStep[] = [];
  const unsupported = new Set<string>();
  const invalid = new Set<string>();
  let arg = '';
  const flush = (): void => {
    if (arg) steps.push({ kind: 'text', arg });
    arg = '';
  };
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\r' || c === '\n') {
      if (c === '\r' && chars[i + 1] === '\n') i++;
      flush();
      steps.push({ kind: 'key', code: KEYCODE_ENTER });
    } else if (c === '\t') {
      flush();
      steps.push({ kind: 'key', code: KEYCODE_TAB });
    } else if (c < ' ' || c === '\x7f') {
      invalid.add(c);
    } else if (c > '~') {
      unsupported.add(c);
    } else {
      arg += c === ' ' ? '%s' : c;
      // A literal "%s" would become a space: end the call after the "%".
      if ((c === '%' && chars[i + 1] === 's') || arg.length >= MAX_ARG) flush();
    }
  }
  flush();
  return { steps, unsupported: [...unsupported], invalid: [...invalid] };
}

/** Quote one word for the device's `sh -c` (mksh and toybox sh follow POSIX here). */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function stepCommand(step: TextStep): string {
  return step.kind === 'text' ? `input text ${shellQuote(step.arg)}` : `input keyevent ${step.code}`;
}

/**
 * Group commands into shell lines of bounded length joined with `&&` (each `input` start costs
 * a process on the device; one line per call saves round trips, and `&&` stops at a failure).
 */
export function batchCommands(commands: readonly string[], maxLength = 3000): string[] {
  const lines: string[] = [];
  let line = '';
  for (const c of commands) {
    if (line && line.length + 4 + c.length > maxLength) {
      lines.push(line);
      line = '';
    }
    line = line ? `${line} && ${c}` : c;
  }
  if (line) lines.push(line);
  return lines;
}

/** ADB Keyboard (com.android.adbkeyboard) types any Unicode text it receives as base64. */
export const ADB_KEYBOARD_IME = 'com.android.adbkeyboard/.AdbIME';

export function adbKeyboardCommand(text: string): string {
  return `am broadcast -a ADB_INPUT_B64 --es msg ${shellQuote(Buffer.from(text, 'utf8').toString('base64'))}`;
}

export function describeChars(chars: readonly string[]): string {
  return chars
    .slice(0, 8)
    .map((c) => `"${c}" (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`)
    .join(', ') + (chars.length > 8 ? ` and ${chars.length - 8} more` : '');
}
