/**
 * The fake device's `input` command (InputShellCommand): taps, swipes, drag and drop, raw motion
 * events, text and keys, recorded in device pixels for tests to assert.
 */
import type { CmdResult } from './shell.ts';

export type RecordedInput =
  | { kind: 'tap'; x: number; y: number }
  | { kind: 'swipe'; x1: number; y1: number; x2: number; y2: number; ms: number }
  /** `input draganddrop`: a long press at the start, then a move to the end (Android 7+). */
  | { kind: 'drag'; x1: number; y1: number; x2: number; y2: number; ms: number }
  /** `input motionevent DOWN|MOVE|UP|CANCEL x y` (Android 11+): one event of a hand-made gesture. */
  | { kind: 'motion'; action: 'DOWN' | 'MOVE' | 'UP' | 'CANCEL'; x: number; y: number }
  | { kind: 'text'; text: string; via: 'input' | 'adbkeyboard' }
  | { kind: 'key'; code: number; longpress?: boolean }
  | { kind: 'combo'; codes: number[] };


const SOURCES = ['touchscreen', 'keyboard', 'touchpad', 'mouse', 'stylus', 'dpad', 'gamepad', 'joystick', 'trackball', 'touchnavigation', 'rotaryencoder'];

/** Runs `input ARGS`, appending what it did to `inputs`. */
export function runInput(args: string[], inputs: RecordedInput[]): CmdResult {
  let a = SOURCES.includes(args[0] ?? '') ? args.slice(1) : args;
  if (a[0] === '-d') a = a.slice(2); // the display id: only display 0 is modelled
  const nums = (xs: string[]): number[] => xs.map((x) => {
    const n = Number(x);
    if (!Number.isFinite(n) || x.trim() === '') throw new Error(`input: not a number: ${x}`);
    return n;
  });
  const key = (k: string): number => (/^\d+$/.test(k) ? Number(k) : (KEYS[k.replace(/^KEYCODE_/, '')] ?? -1));
  try {
    switch (a[0]) {
      case 'tap': {
        const [x, y] = nums(a.slice(1, 3));
        inputs.push({ kind: 'tap', x: x!, y: y! });
        break;
      }
      case 'swipe':
      case 'draganddrop': {
        if (a.length < 5) throw new Error(`input ${a[0]}: needs x1 y1 x2 y2 [duration(ms)]`);
        const [x1, y1, x2, y2, ms] = nums(a.slice(1, 6));
        inputs.push({ kind: a[0] === 'swipe' ? 'swipe' : 'drag', x1: x1!, y1: y1!, x2: x2!, y2: y2!, ms: ms ?? 300 });
        break;
      }
      case 'motionevent': {
        const action = (a[1] ?? '').toUpperCase();
        if (action !== 'DOWN' && action !== 'MOVE' && action !== 'UP' && action !== 'CANCEL') throw new Error(`Unknown action: ${a[1] ?? ''}`);
        const [x, y] = nums(a.slice(2, 4));
        inputs.push({ kind: 'motion', action, x: x!, y: y! });
        break;
      }
      case 'text':
        if (a[1] === undefined) throw new Error('input text: missing text');
        inputs.push({ kind: 'text', text: androidInputText(a[1]), via: 'input' });
        break;
      case 'keyevent': {
        const longpress = a.includes('--longpress');
        for (const k of a.slice(1).filter((x) => !x.startsWith('--'))) {
          const code = key(k);
          if (code < 0) throw new Error(`Unknown keycode: ${k}`);
          inputs.push(longpress ? { kind: 'key', code, longpress } : { kind: 'key', code });
        }
        break;
      }
      case 'keycombination':
        inputs.push({ kind: 'combo', codes: a.slice(1).map(key) });
        break;
      default:
        throw new Error(`Unknown command: ${a[0] ?? ''}`);
    }
    return { out: Buffer.alloc(0), err: '', rc: 0 };
  } catch (e) {
    return { out: Buffer.alloc(0), err: `Error: ${(e as Error).message}\n`, rc: 1 };
  }
}

/** `am broadcast …`: ADB Keyboard (when installed and selected) types the base64 text of ADB_INPUT_B64. */
export function broadcast(args: string[], adbKeyboard: boolean, inputs: RecordedInput[]): CmdResult {
  const msg = args[args.indexOf('--es') + 2];
  if (args.includes('ADB_INPUT_B64') && msg !== undefined && adbKeyboard) inputs.push({ kind: 'text', text: Buffer.from(msg, 'base64').toString('utf8'), via: 'adbkeyboard' });
  return { out: Buffer.from('Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 }\nBroadcast completed: result=0\n'), err: '', rc: 0 };
}

/**
 * What Android's `input text` does with its argument (InputShellCommand.sendText): every `%s`
 * becomes a space, any other `%` stays; then characters the virtual keyboard has no keys for
 * (anything outside printable ASCII) vanish without an error.
 */
export function androidInputText(arg: string): string {
  const b = [...arg];
  let escape = false;
  for (let i = 0; i < b.length; i++) {
    if (escape) {
      escape = false;
      if (b[i] === 's') {
        b[i] = ' ';
        b.splice(--i, 1);
      }
    }
    if (b[i] === '%') escape = true;
  }
  return b.filter((c) => c >= ' ' && c <= '~').join('');
}

const KEYS: Record<string, number> = {
  HOME: 3, BACK: 4, CALL: 5, DPAD_UP: 19, DPAD_DOWN: 20, DPAD_LEFT: 21, DPAD_RIGHT: 22, VOLUME_UP: 24, VOLUME_DOWN: 25, POWER: 26,
  CAMERA: 27, TAB: 61, SPACE: 62, ENTER: 66, DEL: 67, MENU: 82, SEARCH: 84, ESCAPE: 111, FORWARD_DEL: 112, CTRL_LEFT: 113,
  SHIFT_LEFT: 59, ALT_LEFT: 57, META_LEFT: 117, A: 29, C: 31, V: 50, APP_SWITCH: 187, WAKEUP: 224, SLEEP: 223, MOVE_HOME: 122, MOVE_END: 123,
};
