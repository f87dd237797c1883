/**
 * Functions run inside the page, in Sightline's own isolated world (same DOM, separate
 * globals: the page can neither see nor tamper with them). Kept as plain-JS strings because
 * a test runner's TypeScript transform may inject helpers into `fn.toString()` that the page
 * does not have.
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
}

export const METRICS_FN = `function () {
  const d = document.documentElement, b = document.body;
  return {
    w: innerWidth, h: innerHeight, dpr: devicePixelRatio, sx: scrollX, sy: scrollY,
    dw: Math.max(d ? d.scrollWidth : 0, b ? b.scrollWidth : 0, innerWidth),
    dh: Math.max(d ? d.scrollHeight : 0, b ? b.scrollHeight : 0, innerHeight),
    vis: document.visibilityState, url: location.href,
  };
}`;

/** Scroll by or to a position without smooth-scroll animation; returns the new scroll position. */
export const SCROLL_FN = `function (mode, x, y) {
  const opts = { left: x, top: y, behavior: 'instant' };
  if (mode === 'by') scrollBy(opts); else scrollTo(opts);
  return { sx: scrollX, sy: scrollY };
}`;

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
}

export interface PageTree {
  nodes: PageNode[];
  /** Matching nodes seen (a lower bound: the walk stops once maxNodes are in view). */
  total: number;
  sx: number;
  sy: number;
}

/**
 * The compact UI tree: interactive elements and visible text blocks in document order, open
 * shadow roots included, iframes' contents not. Each returned element is remembered in a
 * WeakRef registry under an id `<token>.<n>` that stays the same for the element's life in
 * this document; the token is new for every registry, so an id never names another element.
 */
export const UI_TREE_FN = `function (maxNodes, query) {
  const g = globalThis;
  let reg = g.__sightline;
  if (!reg) {
    reg = g.__sightline = { token: Math.random().toString(36).slice(2, 7).padEnd(5, '0'), next: 1, ids: new WeakMap(), els: new Map() };
  }
  const vw = innerWidth, vh = innerHeight;
  const q = query ? String(query).toLowerCase() : '';
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base', 'math', 'br', 'wbr', 'slot']);
  const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'br', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'i', 'ins', 'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr', 'font', 'label']);
  const INTERACTIVE_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'textbox', 'searchbox', 'combobox', 'listbox', 'slider', 'spinbutton', 'treeitem', 'scrollbar']);
  const INPUT_ROLES = { checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button', color: 'button', range: 'slider', number: 'spinbutton', search: 'searchbox' };
  const TAG_ROLES = { button: 'button', summary: 'button', textarea: 'textbox', option: 'option', img: 'img', li: 'listitem', td: 'cell', th: 'columnheader', label: 'label', p: 'paragraph', dialog: 'dialog', iframe: 'iframe', video: 'video', audio: 'audio', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading' };
  const MAX_VISIT = 200000;

  const clip = (s, n) => {
    s = String(s || '').replace(/\\s+/g, ' ').trim();
    return s.length > n ? s.slice(0, n - 1) + '…' : s;
  };
  const labelText = (label, control) => {
    let t = '';
    for (const c of label.childNodes) {
      if (c.nodeType === 3) t += c.data;
      else if (c.nodeType === 1 && c !== control && !c.contains(control) && !/^(input|select|textarea|button)$/.test(c.localName)) t += ' ' + c.textContent;
    }
    return t;
  };
  const nameOf = (el, tag, type) => {
    let s = el.getAttribute('aria-label');
    if (s && s.trim()) return clip(s, 100);
    s = el.getAttribute('aria-labelledby');
    if (s) {
      const root = el.getRootNode();
      const t = s.split(/\\s+/).map((id) => { const n = root.getElementById ? root.getElementById(id) : document.getElementById(id); return n ? n.textContent : ''; }).join(' ');
      if (t.trim()) return clip(t, 100);
    }
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      if (tag === 'input' && (type === 'button' || type === 'submit' || type === 'reset')) return clip(el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''), 100);
      if (tag === 'input' && type === 'image') return clip(el.getAttribute('alt') || el.value || 'Submit', 100);
      const labels = el.labels;
      if (labels && labels.length) {
        const t = Array.from(labels, (l) => labelText(l, el)).join(' ');
        if (t.trim()) return clip(t, 100);
      }
      return clip(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || el.getAttribute('title') || '', 100);
    }
    if (tag === 'img' || tag === 'area') return clip(el.getAttribute('alt') || el.getAttribute('title') || '', 100);
    if (tag === 'svg') { const t = el.querySelector('title'); return clip(t ? t.textContent : '', 100); }
    if (tag === 'iframe') return clip(el.getAttribute('title') || el.getAttribute('src') || '', 100);
    s = clip(el.textContent, 100);
    if (!s) { const img = el.querySelector('img[alt]'); if (img) s = clip(img.getAttribute('alt'), 100); }
    if (!s) s = clip(el.getAttribute('title') || el.getAttribute('placeholder') || '', 100);
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
    return any ? a : undefined;
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
    if (!q && outList.length >= maxNodes && (tag === 'tr' || tag === 'li')) {
      // Enough off-screen nodes already: skip whole off-screen rows of long tables and lists.
      const r = el.getBoundingClientRect();
      if (r.bottom <= 0 || r.top >= vh || r.right <= 0 || r.left >= vw) continue;
    }
    const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
    if (type === 'hidden') continue;
    let role = (el.getAttribute('role') || '').trim().split(/\\s+/)[0].toLowerCase();
    if (role === 'presentation' || role === 'none') role = '';
    if (!role) {
      if (tag === 'a' || tag === 'area') role = el.hasAttribute('href') ? 'link' : '';
      else if (tag === 'input') role = INPUT_ROLES[type] || 'textbox';
      else if (tag === 'select') role = el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      else role = TAG_ROLES[tag] || '';
      if (!role && el.hasAttribute('contenteditable') && el.isContentEditable) role = 'textbox';
    }
    const interactive = INTERACTIVE_ROLES.has(role) || tag === 'button' || tag === 'select' || tag === 'textarea' || tag === 'input' ||
      el.hasAttribute('onclick') || (el.hasAttribute('tabindex') && el.tabIndex >= 0 && tag !== 'body' && tag !== 'html');
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
          else name = clip(direct, 100);
          if (!role) role = 'text';
        }
      }
    }
    let idx = parent;
    if (kind) {
      const r = el.getBoundingClientRect();
      if (r.width > 1 && r.height > 1) {
        const ix = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0));
        const iy = Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
        const inView = ix * iy >= 0.5 * r.width * r.height;
        let keep = true;
        let value;
        if (q) {
          if (!name) name = nameOf(el, tag, type);
          value = kind === 'i' ? valueOf(el, tag, type, role) : undefined;
          keep = (name + ' ' + (value || '') + ' ' + role).toLowerCase().includes(q);
        }
        if (keep && inView) keep = el.checkVisibility(VIS);
        if (keep) {
          total++;
          if (inView || outList.length < maxNodes) {
            idx = cands.length;
            cands.push({ el, p: parent, kind, tag, type, role: role || tag, name, value, r, inView, named: !!q });
            (inView ? inViewList : outList).push(idx);
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

  const picked = inViewList.slice(0, maxNodes);
  for (const i of outList) {
    if (picked.length >= maxNodes) break;
    if (cands[i].el.checkVisibility(VIS)) picked.push(i);
  }
  picked.sort((a, b) => a - b);
  const outIndex = new Map(picked.map((c, i) => [c, i]));
  if (reg.els.size > 50000) for (const [k, ref] of reg.els) if (!ref.deref()) reg.els.delete(k);
  const r2 = (v) => Math.round(v * 100) / 100;
  const nodes = picked.map((ci) => {
    const c = cands[ci];
    const el = c.el;
    let n = reg.ids.get(el);
    if (!n) { n = reg.next++; reg.ids.set(el, n); }
    reg.els.set(n, new WeakRef(el));
    let p = c.p;
    while (p >= 0 && !outIndex.has(p)) p = cands[p].p;
    const isI = c.kind === 'i';
    const name = c.named || c.name ? c.name : nameOf(el, c.tag, c.type);
    const value = c.named ? c.value : isI ? valueOf(el, c.tag, c.type, c.role) : undefined;
    const clickable = isI || (c.kind === 't' && getComputedStyle(el).cursor === 'pointer');
    const o = { id: reg.token + '.' + n, p: p >= 0 ? outIndex.get(p) : -1, role: c.role, name, x: r2(c.r.left), y: r2(c.r.top), w: r2(c.r.width), h: r2(c.r.height), inView: c.inView, clickable };
    if (value !== undefined) o.value = value;
    if (isI) o.enabled = !(el.matches(':disabled') || el.closest('[aria-disabled="true"]'));
    const attrs = isI || c.role === 'heading' ? attrsOf(el, c.tag, c.type, c.role) : undefined;
    if (attrs) o.attrs = attrs;
    return o;
  });
  return { nodes, total, sx: scrollX, sy: scrollY };
}`;

/** Scroll a registered node into view; null when the id names no live element of this document. */
export const SCROLL_INTO_VIEW_FN = `function (id, block, inline) {
  const reg = globalThis.__sightline;
  const m = /^([a-z0-9]+)\\.(\\d+)$/.exec(id);
  if (!reg || !m || m[1] !== reg.token) return null;
  const ref = reg.els.get(Number(m[2]));
  const el = ref && ref.deref();
  if (!el || !el.isConnected) return null;
  el.scrollIntoView({ block, inline, behavior: 'instant' });
  const r = el.getBoundingClientRect();
  return { x: r.x, y: r.y, w: r.width, h: r.height, sx: scrollX, sy: scrollY };
}`;
