/**
 * Page functions for form controls (Sightline's isolated world; see pageScripts.ts). Each finds
 * its control from what the agent aimed at — the control itself, its label, or the one control
 * of that kind inside the element — so aiming at a label or a wrapper works as a user expects.
 */
import { ELEMENTS_JS, type PageElement } from './pageScripts.ts';

/** Where the agent aimed: a node id, or a viewport point (already re-mapped). */
export interface ControlAim {
  node?: string;
  point?: { x: number; y: number };
}

const FIND_JS = `
  const aimed = (aim) => (aim.node !== undefined ? elOf(aim.node) : aim.point ? deepAt(aim.point.x, aim.point.y) : null);
  const findControl = (start, test) => {
    if (!start) return null;
    for (let e = start, i = 0; e && i < 4; e = parentOf(e), i++) {
      if (test(e)) return e;
      if (e.localName === 'label' && e.control && test(e.control)) return e.control;
      const inner = Array.from(e.querySelectorAll('*')).filter(test);
      if (inner.length === 1) return inner[0];
      if (inner.length > 1) return null;
    }
    return null;
  };
`;

export interface SelectResult {
  error?: 'not-select' | 'disabled' | 'no-option' | 'not-multiple' | 'option-disabled';
  el?: PageElement;
  missing?: string;
  options?: { value: string; label: string }[];
  selected?: { value: string; label: string }[];
  changed?: boolean;
}

/**
 * Choose options of a <select> by value or by label (exact, then ignoring case and spaces), or
 * by either (`by` 'any': the label first, then the value, as a form's value may be either), and
 * fire input and change, as a user's choice does.
 */
export const SELECT_FN = `function (aim, wanted, by) {
  ${ELEMENTS_JS}
  ${FIND_JS}
  const start = aimed(aim);
  const sel = findControl(start, (e) => e.localName === 'select');
  if (!sel) return { error: 'not-select', el: start ? describe(meaningful(start)) : undefined };
  const opts = Array.from(sel.options);
  const label = (o) => (o.label || o.text || '').replace(/\\s+/g, ' ').trim();
  const list = () => opts.slice(0, 30).map((o) => ({ value: o.value, label: label(o) }));
  if (sel.disabled) return { error: 'disabled', el: describe(sel) };
  if (wanted.length > 1 && !sel.multiple) return { error: 'not-multiple', el: describe(sel) };
  const loose = (s) => String(s).replace(/\\s+/g, ' ').trim().toLowerCase();
  const picks = [];
  for (const w of wanted) {
    const keys = by === 'value' ? [(o) => o.value] : by === 'any' ? [label, (o) => o.value] : [label];
    let o;
    for (const key of keys) if (!o) o = opts.find((x) => key(x) === w) || opts.find((x) => loose(key(x)) === loose(w));
    if (!o) return { error: 'no-option', missing: w, el: describe(sel), options: list() };
    if (o.disabled) return { error: 'option-disabled', missing: w, el: describe(sel) };
    picks.push(o);
  }
  const before = opts.map((o) => o.selected).join();
  if (sel.multiple) for (const o of opts) o.selected = picks.includes(o);
  else picks[0].selected = true;
  const changed = opts.map((o) => o.selected).join() !== before;
  if (changed) {
    sel.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    sel.dispatchEvent(new Event('change', { bubbles: true }));
  }
  return { el: describe(sel), changed, selected: Array.from(sel.selectedOptions, (o) => ({ value: o.value, label: label(o) })) };
}`;

export interface CheckInfo {
  error?: 'not-checkable';
  el?: PageElement;
  /** The control (checkbox, radio, switch), its state, and where a click toggles it (viewport CSS px). */
  control?: PageElement;
  kind?: 'checkbox' | 'radio' | 'aria';
  checked?: boolean | 'mixed';
  disabled?: boolean;
  clickAt?: { x: number; y: number } | null;
}

/** Find a checkbox, radio or ARIA switch and where to click it (itself, or its label when it is drawn hidden). */
export const CHECK_INFO_FN = `function (aim) {
  ${ELEMENTS_JS}
  ${FIND_JS}
  const start = aimed(aim);
  const ROLES = new Set(['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio']);
  const native = (e) => e.localName === 'input' && (e.type === 'checkbox' || e.type === 'radio');
  const test = (e) => native(e) || ROLES.has((e.getAttribute('role') || '').trim());
  const c = findControl(start, test);
  if (!c) return { error: 'not-checkable', el: start ? describe(meaningful(start)) : undefined };
  const isNative = native(c);
  const aria = c.getAttribute('aria-checked');
  const checked = isNative ? (c.indeterminate ? 'mixed' : c.checked) : aria === 'mixed' ? 'mixed' : aria === 'true';
  const disabled = isNative ? c.disabled : c.getAttribute('aria-disabled') === 'true';
  const vw = innerWidth, vh = innerHeight;
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    if (r.width < 4 || r.height < 4 || !e.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return null;
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x >= vw || y >= vh) return null;
    const h = deepAt(x, y);
    return h && (deepContains(e, h) || (h.localName === 'label' && h.control === e) || deepContains(h, e)) ? { x, y } : null;
  };
  let clickAt = shown(c);
  if (!clickAt && isNative && c.labels) for (const l of c.labels) { clickAt = shown(l); if (clickAt) break; }
  return { control: describe(c), kind: isNative ? c.type : 'aria', checked, disabled, clickAt };
}`;

/** Read a control's checked state again by its node id. */
export const CHECK_STATE_FN = `function (id) {
  ${ELEMENTS_JS}
  const c = elOf(id);
  if (!c) return null;
  if (c.localName === 'input') return c.indeterminate ? 'mixed' : c.checked;
  const a = c.getAttribute('aria-checked');
  return a === 'mixed' ? 'mixed' : a === 'true';
}`;

/** Toggle a control with the DOM's own click() (when no real click point reaches it). */
export const CHECK_CLICK_FN = `function (id) {
  ${ELEMENTS_JS}
  const c = elOf(id);
  if (c) c.click();
  return !!c;
}`;

export interface FileInputInfo {
  error?: 'not-file-input' | 'disabled';
  el?: PageElement;
  input?: PageElement;
  multiple?: boolean;
  accept?: string;
  /** Found as the page's only file input, not from the aim itself. */
  onlyOne?: boolean;
}

/** The file input an aim names: itself, its label's control, the one inside it, else the page's only one. */
export const FILE_INPUT_FN = `function (aim) {
  ${ELEMENTS_JS}
  ${FIND_JS}
  const start = aimed(aim);
  const test = (e) => e.localName === 'input' && e.type === 'file';
  let input = findControl(start, test);
  let onlyOne = false;
  if (!input) {
    const all = Array.from(document.querySelectorAll('input[type=file]'));
    if (all.length === 1) { input = all[0]; onlyOne = true; }
  }
  if (!input) return { error: 'not-file-input', el: start ? describe(meaningful(start)) : undefined };
  if (input.disabled) return { error: 'disabled', input: describe(input) };
  return { input: describe(input), multiple: input.multiple, accept: input.accept || undefined, onlyOne };
}`;

/** The element behind a node id, returned by reference (for DOM.setFileInputFiles). */
export const ELEMENT_FN = `function (id) {
  ${ELEMENTS_JS}
  return elOf(id);
}`;

export const FILE_NAMES_FN = `function (id) {
  ${ELEMENTS_JS}
  const el = elOf(id);
  return el && el.files ? Array.from(el.files, (f) => f.name) : null;
}`;

/** What a form field is, so fill_form sets it the way its own tool would. */
export interface FieldKind {
  kind: 'text' | 'select' | 'check' | 'file' | 'other' | 'gone';
  el?: PageElement;
  multiple?: boolean;
}

export const FIELD_KIND_FN = `function (node) {
  ${ELEMENTS_JS}
  const found = elOf(node);
  if (!found) return { kind: 'gone' };
  // A label names its control (a styled checkbox's label is its handle): the control says what it is.
  const el = found.localName === 'label' && found.control ? found.control : found;
  const tag = el.localName, type = typeOf(el, tag), role = roleOf(el, tag, type);
  const d = describe(el);
  if (tag === 'select') return { kind: 'select', el: d, multiple: el.multiple };
  if (tag === 'input' && type === 'file') return { kind: 'file', el: d, multiple: el.multiple };
  if (role === 'checkbox' || role === 'radio' || role === 'switch') return { kind: 'check', el: d };
  if (isEditable(el)) return { kind: 'text', el: d };
  return { kind: 'other', el: d };
}`;
