/**
 * The keyboard and the focused field, read cheaply. `dumpsys input_method` (~50–150 ms on a
 * phone, against 1–3 s for a UI dump) says whether the input method window is shown
 * (`mInputShown`, what Appium reads too) and names the view the input method serves
 * (`mServedView=…EditText{… app:id/query …}`, the focused app's InputMethodManager). A shown
 * keyboard or an editable served view means a field has focus; anything else is settled by a UI
 * dump (`focused="true"` on an editable class). Pure.
 */
import type { SourceUiNode } from '../source.ts';

/** The lines worth reading (the whole dump is tens of KiB). */
export const IME_COMMAND = "dumpsys input_method | grep -E 'mInputShown|mServedView'";

export interface ImeState {
  /** `mInputShown`: the input method window is shown (undefined: the device does not say). */
  shown?: boolean;
  /** The served view: null when there is none, undefined when the device does not say. */
  served?: { className: string; idName?: string } | null;
}

export function parseImeState(text: string): ImeState {
  const out: ImeState = {};
  const shown = /mInputShown=(true|false)/.exec(text);
  if (shown) out.shown = shown[1] === 'true';
  // View.toString: `android.widget.EditText{a1b2c3 VFED..CL. .F...... 54,480-1026,624 #7f0a0120 app:id/query aid=…}`.
  const served = /mServedView=(?:null\b|([\w.$]+)\{([^}\n]*)\})/.exec(text);
  if (served) {
    const id = served[2] === undefined ? undefined : /\s[\w.]+:id\/([\w.]+)/.exec(served[2])?.[1];
    out.served = served[1] === undefined ? null : { className: served[1], ...(id ? { idName: id } : {}) };
  }
  return out;
}

/** Classes whose text the user edits (AppCompat, Material and Compose fields report one of these or a subclass name). */
export function isEditableClass(className: string): boolean {
  return /EditText|AutoCompleteTextView|TextInputEditText|SearchAutoComplete/.test(className);
}

/** Whether the state alone shows an editable field has focus (no dump needed). */
export function editorFocused(state: ImeState): boolean {
  return state.shown === true || (!!state.served && isEditableClass(state.served.className));
}

/** The focused editable node of a dump, if any. */
export function focusedEditable(nodes: readonly SourceUiNode[]): SourceUiNode | undefined {
  return nodes.find((n) => n.attributes?.focused === 'true' && isEditableClass(n.role));
}

/**
 * A field's value as the dump shows it: empty when it shows its hint (uiautomator reports an empty
 * field's hint as its text on Android 8+), undefined for a password field (dots, or nothing).
 */
export function fieldValue(n: SourceUiNode): string | undefined {
  if (n.attributes?.password === 'true') return undefined;
  const text = n.attributes?.text ?? '';
  return text && text === n.attributes?.hint ? '' : text;
}

/**
 * Whether `value` shows `typed`: the whole value when the field was cleared first, else somewhere
 * in it (the caret may be anywhere). Enter and Tab are keys: a one-line field keeps no newline.
 */
export function valueMatches(value: string, typed: string, cleared: boolean): boolean {
  const v = value.replace(/\r/g, '');
  const forms = [typed.replace(/\r/g, ''), typed.replace(/[\r\n\t]/g, '')];
  return forms.some((t) => (cleared ? v === t : v.includes(t)));
}
