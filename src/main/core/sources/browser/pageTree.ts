/**
 * The page's compact UI tree, and its visible text (the same walk, so a text item and a tree
 * node share their id). Run in Sightline's isolated world; see pageScripts.ts.
 */
import { SECRET_AUTOCOMPLETE } from '../../util/secrets.ts';
import { ELEMENTS_JS } from './pageScripts.ts';

/** A node of the page's tree as the script returns it; bounds in viewport CSS px. */
export interface PageNode {
  id: string;
  /** Index in the returned array of the nearest returned ancestor, or -1. */
  p: number;
  role: string;
  name: string;
  value?: string;
  x: number;
  y: number;
  w: number;
  h: number;
  inView: boolean;
  clickable: boolean;
  enabled?: boolean;
  attrs?: Record<string, string>;
  /** Text mode: the text a reader sees on the element (a field's value or placeholder). */
  text?: string;
  /** Text mode: the element takes typed text. */
  ed?: boolean;
  /** Text mode: acting on it does something (interactive, not a text field). */
  act?: boolean;
  /** Text mode: a form sets its value (a text field, select, checkbox, radio, switch, file input). */
  val?: boolean;
  /** Text mode: a control's accessible name when it differs from its text (aria-label, its label's words). */
  lb?: string;
  /** Words mode: the words of a text block, each with its own box (viewport CSS px). */
  words?: { t: string; x: number; y: number; w: number; h: number }[];
}

export interface PageTree {
  nodes: PageNode[];
  /** Matching nodes seen (a lower bound: the walk stops once maxNodes are in view). */
  total: number;
  sx: number;
  sy: number;
}

/**
 * Interactive elements and visible text blocks in document order, open shadow roots included,
 * iframes' contents not. Mode 'text' (and 'words', which adds each text block's words with their
 * own boxes) keeps only nodes in the viewport and gives each the text a
 * reader sees on it (a field's value, else its placeholder; not its label, which is its own node).
 */
export const UI_TREE_FN = `function (maxNodes, query, mode) {
  ${ELEMENTS_JS}
  const withWords = mode === 'words';
  const textMode = mode === 'text' || withWords;
  const vw = innerWidth, vh = innerHeight;
  const q = query ? String(query).toLowerCase() : '';
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base', 'math', 'br', 'wbr', 'slot']);
  const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'br', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'i', 'ins', 'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr', 'font', 'label']);
  const MAX_VISIT = 200000;
  const attrsOf = (el, tag, type, role) => {
    const a = {};
    let any = false;
    const set = (k, v) => { a[k] = v; any = true; };
    if (tag === 'input' && (type === 'checkbox' || type === 'radio')) set('checked', String(el.checked));
    else { const c = el.getAttribute('aria-checked'); if (c) set('checked', c); }
    for (const k of ['expanded', 'selected', 'pressed']) { const v = el.getAttribute('aria-' + k); if (v) set(k, v); }
    if (tag === 'option' && el.selected) set('selected', 'true');
    if (role === 'heading') set('level', el.getAttribute('aria-level') || (/^h[1-6]$/.test(tag) ? tag[1] : '2'));
    if (el.getRootNode().activeElement === el) set('focused', 'true');
    if (tag === 'input' && type !== 'text' && !INPUT_ROLES[type] && type) set('type', type);
    const ac = secretAutocomplete(el, tag);
    if (ac) set('autocomplete', ac);
    return any ? a : undefined;
  };
  // Payment and one-time-code fields: their value is a secret (masked in images, never given as text).
  const SECRET_AC = new Set(${JSON.stringify(SECRET_AUTOCOMPLETE)});
  const secretAutocomplete = (el, tag) => {
    if (tag !== 'input' && tag !== 'textarea') return '';
    const t = (el.getAttribute('autocomplete') || '').toLowerCase().split(/\\s+/).find((x) => SECRET_AC.has(x));
    return t || '';
  };
  const readerText = (c) => {
    const el = c.el;
    if (c.tag === 'input' || c.tag === 'textarea') {
      if (secretAutocomplete(el, c.tag)) return '';
      if (c.type === 'password' || c.type === 'checkbox' || c.type === 'radio' || c.type === 'file') return c.type === 'file' ? nameOf(el, c.tag, c.type, 300) : '';
      if (c.type === 'button' || c.type === 'submit' || c.type === 'reset' || c.type === 'image') return nameOf(el, c.tag, c.type, 300);
      return clip(el.value || el.getAttribute('placeholder') || '', 300);
    }
    if (c.tag === 'select') return clip(Array.from(el.selectedOptions, (o) => o.label || o.text).join(', '), 300);
    return c.kind === 't' && c.name && !c.blockText ? c.name : nameOf(el, c.tag, c.type, 300);
  };

  // Candidates are cheap to find; their names, styles and states are computed only for the
  // nodes returned. In-view nodes win over the rest, so the walk stops once maxNodes are in view.
  const VIS = { opacityProperty: true, visibilityProperty: true };
  const inViewList = [];
  const outList = [];
  const cands = [];
  let total = 0;
  let visited = 0;
  // Stack entries: [node, parent candidate index, inside interactive, inside a text block].
  const stack = [[document.documentElement, -1, false, false]];
  while (stack.length && visited < MAX_VISIT && inViewList.length < maxNodes) {
    const [el, parent, inI, inT] = stack.pop();
    if (!el || el.nodeType !== 1) continue;
    visited++;
    const tag = el.localName;
    if (SKIP.has(tag)) continue;
    if ((textMode || (!q && outList.length >= maxNodes)) && (tag === 'tr' || tag === 'li')) {
      // Enough off-screen nodes already (or none wanted): skip whole off-screen rows of long tables and lists.
      const r = el.getBoundingClientRect();
      if (r.bottom <= 0 || r.top >= vh || r.right <= 0 || r.left >= vw) continue;
    }
    const type = typeOf(el, tag);
    if (type === 'hidden') continue;
    let role = roleOf(el, tag, type);
    const interactive = isInteractive(el, tag, role);
    let kind = '';
    let name = '';
    let blockText = false;
    if (interactive) kind = 'i';
    else if (tag === 'svg') {
      if (el.getAttribute('aria-label') || el.querySelector('title')) { kind = 't'; role = 'img'; }
    } else if (tag === 'img') {
      if (el.getAttribute('alt')) kind = 't';
    } else if (tag === 'iframe') {
      kind = 't';
    } else if (!inT && !inI) {
      if (role === 'heading') { kind = 't'; blockText = true; }
      else {
        let direct = '';
        let inlineOnly = true;
        for (const c of el.childNodes) {
          if (c.nodeType === 3) direct += c.data;
          else if (c.nodeType === 1 && !INLINE.has(c.localName)) inlineOnly = false;
        }
        if (/\\S/.test(direct)) {
          kind = 't';
          if (inlineOnly) blockText = true;
          else name = clip(direct, textMode ? 300 : 100);
          if (!role) role = 'text';
        }
      }
    }
    let idx = parent;
    if (kind && !(textMode && (tag === 'img' || tag === 'svg' || tag === 'iframe'))) {
      const r = el.getBoundingClientRect();
      if (r.width > 1 && r.height > 1) {
        const ix = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0));
        const iy = Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
        const inView = ix * iy >= 0.5 * r.width * r.height;
        let keep = !textMode || ix * iy > 0;
        let value;
        if (q && keep) {
          if (!name) name = nameOf(el, tag, type);
          value = kind === 'i' ? valueOf(el, tag, type, role) : undefined;
          keep = (name + ' ' + (value || '') + ' ' + role).toLowerCase().includes(q);
        }
        if (keep && (inView || textMode)) keep = el.checkVisibility(VIS);
        if (keep) {
          total++;
          if (inView || textMode || outList.length < maxNodes) {
            idx = cands.length;
            cands.push({ el, p: parent, kind, tag, type, role: role || tag, name, value, r, inView, named: !!q, blockText });
            (inView || textMode ? inViewList : outList).push(idx);
          }
        }
      }
    }
    if (tag === 'svg' || tag === 'iframe' || tag === 'select') continue;
    const nI = inI || kind === 'i';
    const nT = inT || blockText;
    const kids = [];
    if (el.shadowRoot) for (const c of el.shadowRoot.children) kids.push(c);
    for (const c of el.children) kids.push(c);
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], idx, nI, nT]);
  }

  // A text block's words with their own boxes, from DOM ranges (all its text for a block of
  // inline text, else its own text nodes only): a word inside a line is found where it is.
  let wordBudget = 20000;
  const range = document.createRange();
  const wordsOf = (el, block) => {
    const out = [];
    const texts = [];
    if (block) { const tw = document.createTreeWalker(el, NodeFilter.SHOW_TEXT); for (let n = tw.nextNode(); n; n = tw.nextNode()) texts.push(n); }
    else for (const n of el.childNodes) if (n.nodeType === 3) texts.push(n);
    for (const n of texts) {
      const re = /\\S+/g;
      let m;
      while ((m = re.exec(n.data)) && wordBudget > 0) {
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const r = range.getBoundingClientRect();
        if (r.width > 0 && r.height > 0) { out.push({ t: m[0], x: r2(r.left), y: r2(r.top), w: r2(r.width), h: r2(r.height) }); wordBudget--; }
      }
    }
    return out;
  };
  let picked = inViewList.slice(0, maxNodes);
  for (const i of outList) {
    if (picked.length >= maxNodes) break;
    if (cands[i].el.checkVisibility(VIS)) picked.push(i);
  }
  if (!textMode) {
    // A label whose control is listed says nothing the control's name does not (the control is
    // the better handle); a label of a control drawn hidden (a styled checkbox) stays.
    const els = new Set(picked.map((i) => cands[i].el));
    picked = picked.filter((i) => { const c = cands[i]; return !(c.tag === 'label' && c.el.control && els.has(c.el.control)); });
  }
  picked.sort((a, b) => a - b);
  const outIndex = new Map(picked.map((c, i) => [c, i]));
  if (reg.els.size > 50000) for (const [k, ref] of reg.els) if (!ref.deref()) reg.els.delete(k);
  const r2 = (v) => Math.round(v * 100) / 100;
  const nodes = [];
  for (const ci of picked) {
    const c = cands[ci];
    const el = c.el;
    let p = c.p;
    while (p >= 0 && !outIndex.has(p)) p = cands[p].p;
    const box = { x: r2(c.r.left), y: r2(c.r.top), w: r2(c.r.width), h: r2(c.r.height) };
    if (textMode) {
      const text = readerText(c);
      // A label is one place with its control: its words aim at the control, as a click on it
      // would, unless the control is drawn hidden (a styled checkbox): the label is what a user
      // clicks then, and stays the handle, with its control's role.
      const control = c.tag === 'label' && el.control ? el.control : null;
      const cr = control ? control.getBoundingClientRect() : null;
      const ctl = control && cr.width > 2 && cr.height > 2 && control.checkVisibility(VIS) ? control : null;
      const t = control || el;
      const tTag = t.localName, tType = typeOf(t, tTag);
      const interactive = control ? true : c.kind === 'i';
      const ed = tTag !== 'select' && isEditable(t);
      const tRole = control ? roleOf(t, tTag, tType) || tTag : c.role;
      const val = ed || tTag === 'select' || tType === 'file' || tRole === 'checkbox' || tRole === 'radio' || tRole === 'switch';
      const o = { id: idOf(ctl || el), p: -1, role: tRole, name: '', text, ...box, inView: c.inView, clickable: interactive, ed, act: interactive && !ed, val };
      if (!control && interactive) {
        const lb = nameOf(el, c.tag, c.type, 300);
        if (lb && lb !== text) o.lb = lb;
      }
      if (withWords && c.kind === 't' && text) {
        const w = wordsOf(el, c.blockText);
        if (w.length) o.words = w;
      }
      if (text || o.lb) nodes.push(o);
      continue;
    }
    const isI = c.kind === 'i';
    const name = c.named || c.name ? c.name : nameOf(el, c.tag, c.type);
    const value = c.named ? c.value : isI ? valueOf(el, c.tag, c.type, c.role) : undefined;
    const clickable = isI || (c.kind === 't' && getComputedStyle(el).cursor === 'pointer');
    const o = { id: idOf(el), p: p >= 0 ? outIndex.get(p) : -1, role: c.role, name, ...box, inView: c.inView, clickable };
    if (value !== undefined) o.value = value;
    if (isI) o.enabled = !(el.matches(':disabled') || el.closest('[aria-disabled="true"]'));
    const attrs = isI || c.role === 'heading' ? attrsOf(el, c.tag, c.type, c.role) : undefined;
    if (attrs) o.attrs = attrs;
    nodes.push(o);
  }
  return { nodes, total, sx: scrollX, sy: scrollY };
}`;
