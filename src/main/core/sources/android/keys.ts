/**
 * Key names → Android key codes. Accepts Android names (`BACK`, `APP_SWITCH`, `KEYCODE_HOME`,
 * `VolumeUp`), key codes as numbers (`4`), DOM names (`Enter`, `Escape`, `ArrowDown`,
 * `Backspace`) and combinations joined by `+` (`Control+A`). Pure.
 */
import { createRequire } from 'node:module';
import { SightlineError } from '../../../../shared/errors.ts';
import { splitCombo } from '../../util/keyCombo.ts';

// adbkit ships the full KEYCODE_* table (generated from KeyEvent.java); it is CommonJS.
const { KeyCodes } = createRequire(import.meta.url)('@devicefarmer/adbkit') as { KeyCodes: Record<string, number> };

/** DOM key names and common aliases, in the form the Android names use. */
const ALIASES: Record<string, string> = {
  RETURN: 'ENTER',
  ESC: 'ESCAPE',
  BACKSPACE: 'DEL',
  DELETE: 'FORWARD_DEL',
  ' ': 'SPACE',
  ARROW_UP: 'DPAD_UP',
  ARROW_DOWN: 'DPAD_DOWN',
  ARROW_LEFT: 'DPAD_LEFT',
  ARROW_RIGHT: 'DPAD_RIGHT',
  UP: 'DPAD_UP',
  DOWN: 'DPAD_DOWN',
  LEFT: 'DPAD_LEFT',
  RIGHT: 'DPAD_RIGHT',
  END: 'MOVE_END',
  CONTROL: 'CTRL_LEFT',
  CTRL: 'CTRL_LEFT',
  SHIFT: 'SHIFT_LEFT',
  ALT: 'ALT_LEFT',
  OPTION: 'ALT_LEFT',
  META: 'META_LEFT',
  CMD: 'META_LEFT',
  COMMAND: 'META_LEFT',
  SUPER: 'META_LEFT',
  RECENTS: 'APP_SWITCH',
  RECENT_APPS: 'APP_SWITCH',
  OVERVIEW: 'APP_SWITCH',
  MUTE: 'VOLUME_MUTE',
  AUDIO_VOLUME_UP: 'VOLUME_UP',
  AUDIO_VOLUME_DOWN: 'VOLUME_DOWN',
  AUDIO_VOLUME_MUTE: 'VOLUME_MUTE',
  LOCK: 'SLEEP',
  CONTEXT_MENU: 'MENU',
  '+': 'PLUS',
};

export function keyCode(name: string): number | undefined {
  const raw = name === ' ' ? name : name.trim();
  if (/^\d{1,3}$/.test(raw)) return Number(raw);
  if (raw.length === 1 && !/[a-z0-9]/i.test(raw) && raw !== ' ' && raw !== '+') return undefined;
  // VolumeUp → VOLUME_UP, ArrowDown → ARROW_DOWN, app-switch → APP_SWITCH.
  let n = raw === ' ' ? ' ' : raw.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[\s-]+/g, '_').toUpperCase();
  n = n.replace(/^KEYCODE_/, '');
  n = ALIASES[n] ?? n;
  const code = KeyCodes[`KEYCODE_${n}`];
  return typeof code === 'number' ? code : undefined;
}

/** `Control+A` → [113, 29]: the shared grammar, then Android key codes. Throws INVALID_ARGUMENT. */
export function parseKeys(combo: string): number[] {
  const { modifiers, key } = splitCombo(combo);
  return [...modifiers, key].map((name) => {
    const code = keyCode(name);
    if (code === undefined) throw new SightlineError('INVALID_ARGUMENT', `Unknown key "${name}"${name === combo ? '' : ` in "${combo}"`}.`, `Use a key name such as ${KEY_EXAMPLES}.`, { key: combo });
    return code;
  });
}

export const KEY_EXAMPLES = 'BACK, HOME, ENTER, DEL, TAB, APP_SWITCH, POWER, VOLUME_UP, KEYCODE_CAMERA, 4, Enter, Escape, ArrowDown, Control+A';
