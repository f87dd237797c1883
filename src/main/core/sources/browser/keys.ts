/**
 * `press_key` names → puppeteer KeyInput names. Validation uses puppeteer's own US layout
 * (`_keyDefinitions`), so there is no key table here, only a few spelling aliases.
 */
import type { KeyInput } from 'puppeteer-core';
// Puppeteer's own US layout (exported, but not from the package root's types).
import { _keyDefinitions } from 'puppeteer-core/internal/common/USKeyboardLayout.js';
import { SightlineError } from '../../../../shared/errors.ts';

export const MODIFIER_KEYS = ['Control', 'Shift', 'Alt', 'Meta'] as const;
export type ModifierKey = (typeof MODIFIER_KEYS)[number];

const ALIASES: Record<string, string> = {
  ctrl: 'Control',
  control: 'Control',
  cmd: 'Meta',
  command: 'Meta',
  super: 'Meta',
  win: 'Meta',
  meta: 'Meta',
  option: 'Alt',
  alt: 'Alt',
  shift: 'Shift',
  esc: 'Escape',
  return: 'Enter',
  del: 'Delete',
  ins: 'Insert',
  space: 'Space',
  spacebar: 'Space',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  pgup: 'PageUp',
  pgdn: 'PageDown',
  pagedown: 'PageDown',
  pageup: 'PageUp',
};

const KEY_NAMES = Object.keys(_keyDefinitions);
/** Multi-character names, case-folded ("enter" → "Enter"); single characters stay exact. */
const BY_LOWER = new Map(KEY_NAMES.filter((k) => k.length > 1).map((k) => [k.toLowerCase(), k]));

export const KEY_HINT =
  'Use DOM key names (Enter, Escape, Tab, Backspace, ArrowDown, PageDown, Home, F5, a, 1, …), optionally with modifiers: Control+A, Shift+Tab, Meta+ArrowLeft.';

function resolveOne(part: string, whole: string): KeyInput {
  if (part in _keyDefinitions) return part as KeyInput;
  const lower = part.toLowerCase();
  const named = ALIASES[lower] ?? BY_LOWER.get(lower);
  if (named && named in _keyDefinitions) return named as KeyInput;
  throw new SightlineError('INVALID_ARGUMENT', `Unknown key "${part}"${part === whole ? '' : ` in "${whole}"`}.`, KEY_HINT, { key: whole });
}

/**
 * Parse `Enter`, `a`, `Control+A`, `Control+Shift+ArrowLeft`, `Control++` into the keys to hold
 * (modifiers, in order) and the key to press. Throws INVALID_ARGUMENT naming the bad part.
 */
export function parseKeyCombo(key: string): { modifiers: ModifierKey[]; key: KeyInput } {
  if (typeof key !== 'string' || key.length === 0) {
    throw new SightlineError('INVALID_ARGUMENT', 'press_key needs a "key".', KEY_HINT);
  }
  if (key.length > 100) throw new SightlineError('INVALID_ARGUMENT', 'That key name is too long to be a key.', KEY_HINT);
  let parts: string[];
  if (key === '+' || key === ' ') parts = [key];
  else if (key.endsWith('++')) parts = [...key.slice(0, -2).split('+'), '+'];
  else parts = key.split('+');
  parts = parts.map((p) => (p === ' ' ? p : p.trim()));
  if (parts.some((p) => p.length === 0)) {
    throw new SightlineError('INVALID_ARGUMENT', `"${key}" is not a key or key combination.`, KEY_HINT, { key });
  }
  const keys = parts.map((p) => resolveOne(p, key));
  const last = keys[keys.length - 1]!;
  const modifiers: ModifierKey[] = [];
  for (const k of keys.slice(0, -1)) {
    if (!(MODIFIER_KEYS as readonly string[]).includes(k)) {
      throw new SightlineError('INVALID_ARGUMENT', `In "${key}", "${k}" is not a modifier: only the last key of a combination may be an ordinary key.`, KEY_HINT, { key });
    }
    if (!modifiers.includes(k as ModifierKey)) modifiers.push(k as ModifierKey);
  }
  // "Control+A" means the A key, as a keyboard sends it (key "a"); Shift+A stays upper case.
  let pressed = last;
  if (modifiers.length > 0 && !modifiers.includes('Shift') && /^[A-Z]$/.test(last)) pressed = last.toLowerCase() as KeyInput;
  return { modifiers, key: pressed };
}
