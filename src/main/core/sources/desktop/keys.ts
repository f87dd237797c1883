/**
 * Key names agents send (DOM names such as Enter, ArrowDown, Control+A; single
 * characters) mapped onto nut-js' own Key enum names, which carry the per-platform
 * key tables. Pure: tested without a display.
 */
import { SightlineError } from '../../../../shared/errors.ts';
import { splitCombo } from '../../util/keyCombo.ts';

/** DOM / common names → nut-js Key enum member names. */
const ALIASES: Record<string, string> = {
  control: 'LeftControl',
  ctrl: 'LeftControl',
  shift: 'LeftShift',
  alt: 'LeftAlt',
  option: 'LeftAlt',
  meta: 'LeftSuper',
  super: 'LeftSuper',
  win: 'LeftSuper',
  cmd: 'LeftCmd',
  command: 'LeftCmd',
  enter: 'Return',
  return: 'Return',
  escape: 'Escape',
  esc: 'Escape',
  tab: 'Tab',
  backspace: 'Backspace',
  delete: 'Delete',
  del: 'Delete',
  insert: 'Insert',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  pagedown: 'PageDown',
  arrowup: 'Up',
  arrowdown: 'Down',
  arrowleft: 'Left',
  arrowright: 'Right',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  space: 'Space',
  ' ': 'Space',
  spacebar: 'Space',
  capslock: 'CapsLock',
  printscreen: 'Print',
  print: 'Print',
  pause: 'Pause',
  scrolllock: 'ScrollLock',
  numlock: 'NumLock',
  contextmenu: 'Menu',
  menu: 'Menu',
  audiovolumeup: 'AudioVolUp',
  audiovolumedown: 'AudioVolDown',
  audiovolumemute: 'AudioMute',
  mediaplaypause: 'AudioPlay',
  mediatracknext: 'AudioNext',
  mediatrackprevious: 'AudioPrev',
  '-': 'Minus',
  '=': 'Equal',
  '[': 'LeftBracket',
  ']': 'RightBracket',
  '\\': 'Backslash',
  ';': 'Semicolon',
  "'": 'Quote',
  ',': 'Comma',
  '.': 'Period',
  '/': 'Slash',
  '`': 'Grave',
};

/** Map one key name to a nut-js Key member name, given the names that enum has. */
export function keyName(name: string, known: ReadonlySet<string>, platform: NodeJS.Platform = process.platform): string {
  const lower = name.toLowerCase();
  let mapped = Object.hasOwn(ALIASES, name) ? ALIASES[name] : Object.hasOwn(ALIASES, lower) ? ALIASES[lower] : undefined;
  if (mapped === 'LeftSuper' && platform === 'darwin') mapped = 'LeftCmd';
  if (!mapped && /^[a-z]$/i.test(name)) mapped = name.toUpperCase();
  if (!mapped && /^[0-9]$/.test(name)) mapped = `Num${name}`;
  if (!mapped && /^f([1-9]|1[0-9]|2[0-4])$/i.test(name)) mapped = name.toUpperCase();
  if (!mapped && known.has(name)) mapped = name;
  if (!mapped || !known.has(mapped)) {
    throw new SightlineError('INVALID_ARGUMENT', `Unknown key "${name}".`, 'Use names such as Enter, Escape, Tab, ArrowDown, PageUp, F5, a single character, or combinations such as Control+A.');
  }
  return mapped;
}

/** "Control+Shift+T" → ['LeftControl', 'LeftShift', 'T']: the shared grammar, then nut-js names. */
export function parseCombo(combo: string, known: ReadonlySet<string>, platform: NodeJS.Platform = process.platform): string[] {
  const { modifiers, key } = splitCombo(combo);
  return [...modifiers.map((m) => keyName(m, known, platform)), keyName(key, known, platform)];
}
