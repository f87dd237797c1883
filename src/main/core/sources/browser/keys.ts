/**
 * `press_key` names → puppeteer KeyInput names. Validation uses puppeteer's own US layout
 * (`_keyDefinitions`), so there is no key table here, only a few spelling aliases.
 */
import type { KeyInput } from 'puppeteer-core';
// Puppeteer's own US layout (exported, but not from the package root's types).
import { _keyDefinitions } from 'puppeteer-core/internal/common/USKeyboardLayout.js';
import { SightlineError } from '../../../../shared/errors.ts';
import { modifierOf, splitCombo, type Modifier } from '../../util/keyCombo.ts';

/** Aliases for the key itself (modifier names are the grammar's, in util/keyCombo.ts). */
const ALIASES: Record<string, string> = {
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

/** A name puppeteer's layout defines as its own key (never one inherited from Object.prototype). */
const isKey = (name: string): name is KeyInput => Object.hasOwn(_keyDefinitions, name);
const KEY_NAMES = Object.keys(_keyDefinitions);
/** Multi-character names, case-folded ("enter" → "Enter"); single characters stay exact. */
const BY_LOWER = new Map(KEY_NAMES.filter((k) => k.length > 1).map((k) => [k.toLowerCase(), k]));

export const KEY_HINT =
  'Use DOM key names (Enter, Escape, Tab, Backspace, ArrowDown, PageDown, Home, F5, a, 1, …), optionally with modifiers: Control+A, Shift+Tab, Meta+ArrowLeft.';

function resolveKey(part: string, whole: string): KeyInput {
  if (isKey(part)) return part;
  const lower = part.toLowerCase();
  const named = modifierOf(part) ?? ALIASES[lower] ?? BY_LOWER.get(lower);
  if (named && isKey(named)) return named;
  throw new SightlineError('INVALID_ARGUMENT', `Unknown key "${part}"${part === whole ? '' : ` in "${whole}"`}.`, KEY_HINT, { key: whole });
}

/**
 * Parse `Enter`, `a`, `Control+A`, `Control+Shift+ArrowLeft`, `Control++` into the keys to hold
 * (modifiers, in order) and the key to press. Throws INVALID_ARGUMENT naming the bad part.
 */
export function parseKeyCombo(combo: string): { modifiers: Modifier[]; key: KeyInput } {
  const { modifiers, key } = splitCombo(combo);
  const last = resolveKey(key, combo);
  // "Control+A" means the A key, as a keyboard sends it (key "a"); Shift+A stays upper case.
  let pressed = last;
  if (modifiers.length > 0 && !modifiers.includes('Shift') && /^[A-Z]$/.test(last)) pressed = last.toLowerCase() as KeyInput;
  return { modifiers, key: pressed };
}
