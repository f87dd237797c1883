/**
 * Functions run inside the page, in Sightline's own isolated world (same DOM, separate
 * globals: the page can neither see nor tamper with them). Kept as plain-JS strings because
 * a test runner's TypeScript transform may inject helpers into `fn.toString()` that the page
 * does not have. `ELEMENTS_JS` is the part they share (spliced into a function body): the node
 * registry and the role and accessible-name rules, so the UI tree, a click's "hit" and a typed
 * field's name all say the same thing about one element.
 */

/** What capture and the staleness check need, in one round trip (CSS px). */
export interface PageMetrics {
  /** Layout viewport including scrollbars: what a viewport screenshot shows. */
  w: number;
  h: number;
  dpr: number;
  sx: number;
  sy: number;
  /** Document size, for fullPage captures. */
  dw: number;
  dh: number;
  vis: string;
  url: string;
  title?: string;
}

export const METRICS_FN = `function () {
  const d = document.documentElement, b = document.body;
  return {
    w: innerWidth, h: innerHeight, dpr: devicePixelRatio, sx: scrollX, sy: scrollY,
    dw: Math.max(d ? d.scrollWidth : 0, b ? b.scrollWidth : 0, innerWidth),
    dh: Math.max(d ? d.scrollHeight : 0, b ? b.scrollHeight : 0, innerHeight),
    vis: document.visibilityState, url: location.href, title: document.title,
  };
}`;

/** Scroll by or to a position without smooth-scroll animation; returns the new scroll position. */
export const SCROLL_FN = `function (mode, x, y) {
  const opts = { left: x, top: y, behavior: 'instant' };
  if (mode === 'by') scrollBy(opts); else scrollTo(opts);
  return { sx: scrollX, sy: scrollY };
}`;

/** An element as the page scripts describe it (role, accessible name, node id). */
export interface PageElement {
  role: string;
  name: string;
  node: string;
}

/**
 * Shared declarations for a function body. Node ids live in a WeakRef registry under
 * `<token>.<n>`: the same id for an element's whole life in this document, and never another
 * element's (the token is new for every registry, so a new document's ids cannot collide).
 */
export const ELEMENTS_JS = `
  const g = globalThis;
  const reg = g.__sightline || (g.__sightline = { token: Math.random().toString(36).slice(2, 7).padEnd(5, '0'), next: 1, ids: new WeakMap(), els: new Map() });
  const idOf = (el) => {
    let n = reg.ids.get(el);
    if (!n) { n = reg.next++; reg.ids.set(el, n); }
    reg.els.set(n, new WeakRef(el));
    return reg.token + '.' + n;
  };
  const elOf = (id) => {
    const m = /^([a-z0-9]+)\\.(\\d+)$/.exec(String(id));
    if (!m || m[1] !== reg.token) return null;
    const ref = reg.els.get(Number(m[2]));
    const el = ref && ref.deref();
    return el && el.isConnected ? el : null;
  };
  const INTERACTIVE_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'textbox', 'searchbox', 'combobox', 'listbox', 'slider', 'spinbutton', 'treeitem', 'scrollbar']);
  const INPUT_ROLES = { checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button', color: 'button', range: 'slider', number: 'spinbutton', search: 'searchbox' };
  const TAG_ROLES = { button: 'button', summary: 'button', textarea: 'textbox', option: 'option', img: 'img', li: 'listitem', td: 'cell', th: 'columnheader', label: 'label', p: 'paragraph', dialog: 'dialog', iframe: 'iframe', video: 'video', audio: 'audio', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading' };
  const TEXT_INPUTS = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', 'datetime-local', 'month', 'week', 'time']);
  const clip = (s, n) => {
    s = String(s || '').replace(/\\s+/g, ' ').trim();
    return s.length > n ? s.slice(0, n - 1) + '…' : s;
  };
  const typeOf = (el, tag) => (tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '');
  const roleOf = (el, tag, type) => {
    let role = (el.getAttribute('role') || '').trim().split(/\\s+/)[0].toLowerCase();
    if (role === 'presentation' || role === 'none') role = '';
    if (!role) {
      if (tag === 'a' || tag === 'area') role = el.hasAttribute('href') ? 'link' : '';
      else if (tag === 'input') role = INPUT_ROLES[type] || 'textbox';
      else if (tag === 'select') role = el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      else role = TAG_ROLES[tag] || '';
      if (!role && el.hasAttribute('contenteditable') && el.isContentEditable) role = 'textbox';
    }
    return role;
  };
  const isInteractive = (el, tag, role) => INTERACTIVE_ROLES.has(role) || tag === 'button' || tag === 'select' || tag === 'textarea' || tag === 'input' ||
    el.hasAttribute('onclick') || (el.hasAttribute('tabindex') && el.tabIndex >= 0 && tag !== 'body' && tag !== 'html');
  const labelText = (label, control) => {
    let t = '';
    for (const c of label.childNodes) {
      if (c.nodeType === 3) t += c.data;
      else if (c.nodeType === 1 && c !== control && !c.contains(control) && !/^(input|select|textarea|button)$/.test(c.localName)) t += ' ' + c.textContent;
    }
    return t;
  };
  const nameOf = (el, tag, type, n) => {
    n = n || 100;
    let s = el.getAttribute('aria-label');
    if (s && s.trim()) return clip(s, n);
    s = el.getAttribute('aria-labelledby');
    if (s) {
      const root = el.getRootNode();
      const t = s.split(/\\s+/).map((id) => { const x = root.getElementById ? root.getElementById(id) : document.getElementById(id); return x ? x.textContent : ''; }).join(' ');
      if (t.trim()) return clip(t, n);
    }
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      if (tag === 'input' && (type === 'button' || type === 'submit' || type === 'reset')) return clip(el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''), n);
      if (tag === 'input' && type === 'image') return clip(el.getAttribute('alt') || el.value || 'Submit', n);
      const labels = el.labels;
      if (labels && labels.length) {
        const t = Array.from(labels, (l) => labelText(l, el)).join(' ');
        if (t.trim()) return clip(t, n);
      }
      return clip(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || el.getAttribute('title') || '', n);
    }
    if (tag === 'img' || tag === 'area') return clip(el.getAttribute('alt') || el.getAttribute('title') || '', n);
    if (tag === 'svg') { const t = el.querySelector('title'); return clip(t ? t.textContent : '', n); }
    if (tag === 'iframe') return clip(el.getAttribute('title') || el.getAttribute('src') || '', n);
    s = clip(el.textContent, n);
    if (!s) { const img = el.querySelector('img[alt]'); if (img) s = clip(img.getAttribute('alt'), n); }
    if (!s) s = clip(el.getAttribute('title') || el.getAttribute('placeholder') || '', n);
    return s;
  };
  const valueOf = (el, tag, type, role) => {
    if (tag === 'input') {
      if (type === 'password') return el.value ? '••••••' : '';
      if (type === 'checkbox' || type === 'radio' || type === 'button' || type === 'submit' || type === 'reset' || type === 'image') return undefined;
      if (type === 'file') return el.files && el.files.length ? clip(Array.from(el.files, (f) => f.name).join(', '), 200) : '';
      return clip(el.value, 200);
    }
    if (tag === 'textarea') return clip(el.value, 200);
    if (tag === 'select') return clip(Array.from(el.selectedOptions, (o) => o.label || o.text).join(', '), 200);
    if (el.isContentEditable) return clip(el.textContent, 200);
    const vt = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
    if (vt && (role === 'slider' || role === 'spinbutton' || role === 'scrollbar' || role === 'progressbar')) return clip(vt, 100);
    return undefined;
  };
  const describe = (el) => {
    const tag = el.localName, type = typeOf(el, tag);
    return { role: roleOf(el, tag, type) || tag, name: nameOf(el, tag, type), node: idOf(el) };
  };
  const parentOf = (el) => el.parentElement || (el.getRootNode() instanceof ShadowRoot ? el.getRootNode().host : null);
  /** The element a user would say they clicked: the nearest interactive ancestor, else the element. */
  const meaningful = (el) => {
    for (let e = el, i = 0; e && i < 8; e = parentOf(e), i++) {
      const tag = e.localName;
      if (tag === 'body' || tag === 'html') break;
      if (isInteractive(e, tag, roleOf(e, tag, typeOf(e, tag))) || tag === 'a' || tag === 'label') return e;
    }
    return el;
  };
  const deepAt = (x, y) => {
    let el = document.elementFromPoint(x, y);
    while (el && el.shadowRoot) {
      const inner = el.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  };
  const deepContains = (outer, el) => {
    for (let e = el; e; e = parentOf(e)) if (e === outer) return true;
    return false;
  };
  /** The focused element, through shadow roots and same-origin frames; cross-origin frames stay opaque. */
  const deepActive = () => {
    let a = document.activeElement;
    for (let i = 0; a && i < 20; i++) {
      if (a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
      if (a.localName === 'iframe' || a.localName === 'frame') {
        let d = null;
        try { d = a.contentDocument; } catch (e) { d = null; }
        if (!d) return { el: a, opaque: true };
        if (!d.activeElement || d.activeElement === d.body) return { el: a, opaque: false };
        a = d.activeElement;
        continue;
      }
      break;
    }
    return { el: a, opaque: false };
  };
  const isEditable = (el) => {
    if (!el) return false;
    const tag = el.localName;
    if (tag === 'textarea') return !el.readOnly && !el.disabled;
    if (tag === 'input') return TEXT_INPUTS.has(typeOf(el, tag)) && !el.readOnly && !el.disabled;
    if (tag === 'select') return !el.disabled;
    return !!el.isContentEditable;
  };
  /** What a field holds now (innerText for contenteditable, so line breaks survive). */
  const fieldValue = (el) => {
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea') return el.value;
    if (tag === 'select') return Array.from(el.selectedOptions, (o) => o.label || o.text).join(', ');
    if (el.isContentEditable) return el.innerText;
    return undefined;
  };
`;
