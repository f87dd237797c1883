/**
 * What the routine builder and the dashboard's "Save as routine" both read off the activity log:
 * how it writes text it hid (typed into a password field) or shortened, and how an input is named
 * after the field it fills. One definition, so the dialog offers what a save will do.
 */

/** Text typed into a password field, as the gate logs it (its length only). */
export const HIDDEN_PASSWORD = /^\[\d+ characters? for a password field\]$/;
/** Long typed text, as the gate logs it (its start and its length). */
export const SHORTENED = /… \(\d+ chars\)$/;
/** A routine input's name. */
export const INPUT_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** An input name made of a field's label (letters, digits and _, starting with a letter); `fallback` when none is left. */
export function inputNameOf(label: string, fallback: string): string {
  const stem = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(\d)/, 'v$1')
    .slice(0, 56);
  return stem || fallback;
}
