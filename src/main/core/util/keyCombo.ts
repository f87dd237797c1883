/**
 * The one grammar of `press_key` combinations, shared by every source: modifiers joined by "+",
 * then one key (`Enter`, `Control+A`, `Control+Shift+ArrowLeft`, `Control++`, `+`). Each source
 * then names the key in its own table; the grammar, and what it refuses, is the same everywhere.
 */
import { SightlineError } from '../../../shared/errors.ts';

export const MODIFIERS = ['Control', 'Shift', 'Alt', 'Meta'] as const;
export type Modifier = (typeof MODIFIERS)[number];

const MODIFIER_NAMES = new Map<string, Modifier>([
  ['control', 'Control'],
  ['ctrl', 'Control'],
  ['shift', 'Shift'],
  ['alt', 'Alt'],
  ['option', 'Alt'],
  ['meta', 'Meta'],
  ['cmd', 'Meta'],
  ['command', 'Meta'],
  ['super', 'Meta'],
  ['win', 'Meta'],
]);

export const COMBO_HINT = 'Join keys with "+", modifiers (Control, Shift, Alt, Meta) first and one key last: Enter, Control+A, Shift+Tab, Control++.';

/** The modifier a name stands for (`Ctrl` → Control), if it is one. */
export function modifierOf(name: string): Modifier | undefined {
  return MODIFIER_NAMES.get(name.toLowerCase());
}

/**
 * Split a combination into the modifiers to hold (canonical names, in order, once each) and the
 * one key to press, as written. Refuses an empty part (`+Control`, `Control+`, `a++b`) and an
 * ordinary key before the last place (`a+b`).
 */
export function splitCombo(combo: string): { modifiers: Modifier[]; key: string } {
  if (typeof combo !== 'string' || combo.length === 0) throw new SightlineError('INVALID_ARGUMENT', 'press_key needs a "key".', COMBO_HINT);
  if (combo.length > 100) throw new SightlineError('INVALID_ARGUMENT', 'That key name is too long to be a key.', COMBO_HINT);
  let parts: string[];
  if (combo === '+' || combo === ' ') parts = [combo];
  else if (combo.endsWith('++')) parts = [...combo.slice(0, -2).split('+'), '+'];
  else parts = combo.split('+');
  parts = parts.map((p) => (p === ' ' ? p : p.trim()));
  if (parts.some((p) => p.length === 0)) throw new SightlineError('INVALID_ARGUMENT', `"${combo}" is not a key or key combination.`, COMBO_HINT, { key: combo });
  const modifiers: Modifier[] = [];
  for (const p of parts.slice(0, -1)) {
    const m = modifierOf(p);
    if (!m) throw new SightlineError('INVALID_ARGUMENT', `In "${combo}", "${p}" is not a modifier: only the last key of a combination may be an ordinary key.`, COMBO_HINT, { key: combo });
    if (!modifiers.includes(m)) modifiers.push(m);
  }
  return { modifiers, key: parts[parts.length - 1]! };
}
