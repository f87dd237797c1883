/**
 * Page functions around an action (Sightline's isolated world; see pageScripts.ts). AIM_FN runs
 * before it: it finds where to act (a frame point re-mapped through page coordinates, or a node's
 * element at its current place), scrolls that into view, names what is there and what has focus,
 * and starts watching the DOM. SETTLE_FN runs after: it waits until the DOM is quiet (bounded)
 * and says what changed and what the focused field holds.
 */
import type { Point, Rect } from '../../../../shared/frame.ts';
import { ELEMENTS_JS, type PageElement } from './pageScripts.ts';

export interface AimSpec {
  /** One aim, or two for a drag (from, to): a node id, or a point in the frame's CSS px. */
  aims: ({ node: string } | { point: Point })[];
  /** The frame the points are in: its scroll at capture, and whether it is a full-page frame. */
  frame?: { sx: number; sy: number; fullPage: boolean };
  /** Scroll what is off screen into view (else it is an error). */
  scroll: boolean;
  hit: boolean;
  /** Name what is under the second aim too (a drag's drop target). */
  dropHit: boolean;
  focus: boolean;
  observe: boolean;
}

export interface FocusInfo extends PageElement {
  editable: boolean;
  /** Focus is inside a cross-origin frame: the page cannot see which field. */
  opaque: boolean;
  tag: string;
  password?: boolean;
  value?: string;
  valueMatches?: boolean;
}

export type AimError =
  | { error: 'node-gone'; which: number }
  | { error: 'node-hidden'; which: number; el: PageElement }
  | { error: 'outside'; which: number; doc: Point }
  | { error: 'apart' };

export interface AimOk {
  error?: undefined;
  points: Point[];
  /** The page scrolled since the frame (CSS px), and whether a fixed element kept the point. */
  moved?: { dx: number; dy: number };
  fixed?: PageElement;
  /** Sightline scrolled to bring an aim into view. */
  scrolled?: { from: Point; to: Point; which: number };
  hit?: PageElement;
  dropHit?: PageElement;
  focus?: FocusInfo | null;
  title: string;
  url: string;
  scroll: Point;
  viewport: { w: number; h: number };
}

export type AimResult = AimOk | AimError;

const FOCUS_JS = `
  const focusInfo = () => {
    const { el, opaque } = deepActive();
    if (!el || el === document.body || el === document.documentElement) return null;
    const tag = el.localName;
    const o = { ...describe(el), editable: opaque || isEditable(el), opaque, tag };
    if (tag === 'input' && typeOf(el, tag) === 'password') o.password = true;
    return o;
  };
  // The focused field and what it holds, compared with the typed text when one is expected.
  const focusRead = (expect) => {
    const info = focusInfo();
    if (!info || info.opaque) return info;
    const v = fieldValue(deepActive().el);
    if (v === undefined) return info;
    const norm = (s) => String(s).replace(/\\r\\n?/g, '\\n');
    if (expect) {
      let want = norm(expect.text);
      if (info.tag === 'input') want = want.replace(/\\n/g, '');
      let have = norm(v);
      if (info.tag !== 'input' && info.tag !== 'textarea') { have = have.replace(/\\n+$/, ''); want = want.replace(/\\n+$/, ''); }
      info.valueMatches = expect.exact ? have === want : have.includes(want);
    }
    if (!info.password) info.value = v.length > 200 ? v.slice(0, 199) + '…' : v;
    return info;
  };
`;

export const AIM_FN = `function (spec) {
  ${ELEMENTS_JS}
  ${FOCUS_JS}
  const vw = innerWidth, vh = innerHeight;
  const f = spec.frame;
  const inside = (p) => p.x >= 0 && p.y >= 0 && p.x < vw && p.y < vh;
  const out = { title: document.title, url: location.href };
  const inFixed = (el) => {
    for (let e = el; e && e !== document.documentElement; e = parentOf(e)) {
      const cs = getComputedStyle(e);
      if (cs.position === 'fixed') return true;
      if (cs.position === 'sticky' && Math.abs(e.getBoundingClientRect().top - (parseFloat(cs.top) || 0)) < 1) return true;
    }
    return false;
  };
  // A node's point: the centre of its part on screen, or another point of it when something covers the centre.
  const nodePoint = (el) => {
    const r = el.getBoundingClientRect();
    const l = Math.max(r.left, 0), t = Math.max(r.top, 0), rr = Math.min(r.right, vw), b = Math.min(r.bottom, vh);
    if (rr - l < 1 || b - t < 1) return null;
    // Mostly off screen: scroll it in rather than press a sliver at the edge.
    if ((rr - l) * (b - t) < 0.5 * Math.min(r.width * r.height, vw * vh)) return null;
    const pts = [[0.5, 0.5], [0.25, 0.5], [0.75, 0.5], [0.5, 0.25], [0.5, 0.75], [0.25, 0.25], [0.75, 0.75], [0.25, 0.75], [0.75, 0.25]];
    for (const [fx, fy] of pts) {
      const x = l + (rr - l) * fx, y = t + (b - t) * fy;
      const h = deepAt(x, y);
      if (h && deepContains(el, h)) return { x, y };
    }
    return { x: (l + rr) / 2, y: (t + b) / 2, covered: true };
  };
  // A re-mapped point that a fixed header or footer now covers was not covered in the frame: scroll it clear.
  const coveredByFixed = (v) => { const h = deepAt(v.x, v.y); return !!h && inFixed(h); };
  const aims = [];
  for (let i = 0; i < spec.aims.length; i++) {
    const a = spec.aims[i];
    if (a.node !== undefined) {
      const el = elOf(a.node);
      if (!el) return { error: 'node-gone', which: i };
      if (!el.getClientRects().length) return { error: 'node-hidden', which: i, el: describe(el) };
      aims.push({
        at: (first) => { const p = nodePoint(el); return p && p.covered && first ? null : p && { x: p.x, y: p.y }; },
        show: () => el.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' }),
      });
      continue;
    }
    const p = a.point;
    let doc;
    if (!f) doc = { x: p.x + scrollX, y: p.y + scrollY };
    else if (f.fullPage) doc = { x: p.x, y: p.y };
    else {
      doc = { x: p.x + f.sx, y: p.y + f.sy };
      if (scrollX !== f.sx || scrollY !== f.sy) {
        out.moved = { dx: scrollX - f.sx, dy: scrollY - f.sy };
        // Fixed content is drawn at the same viewport place at any scroll: the agent saw it there.
        const under = inside(p) ? deepAt(p.x, p.y) : null;
        if (under && inFixed(under)) { doc = { x: p.x + scrollX, y: p.y + scrollY }; out.fixed = describe(meaningful(under)); }
      }
    }
    aims.push({
      doc,
      at: (first) => {
        const v = { x: doc.x - scrollX, y: doc.y - scrollY };
        if (!inside(v)) return null;
        return first && out.moved && !out.fixed && coveredByFixed(v) ? null : v;
      },
      show: () => {
        const v = { x: doc.x - scrollX, y: doc.y - scrollY };
        const covered = inside(v) && coveredByFixed(v);
        const x = v.x < 0 || v.x >= vw ? Math.max(0, Math.round(doc.x - vw / 2)) : scrollX;
        const y = v.y < 0 || v.y >= vh || covered ? Math.max(0, Math.round(doc.y - vh / 2)) : scrollY;
        scrollTo({ left: x, top: y, behavior: 'instant' });
      },
    });
  }
  const points = [];
  for (let i = 0; i < aims.length; i++) {
    let p = aims[i].at(true);
    if (!p && spec.scroll) {
      const from = { x: scrollX, y: scrollY };
      aims[i].show();
      p = aims[i].at(false);
      if (scrollX !== from.x || scrollY !== from.y) out.scrolled = { from, to: { x: scrollX, y: scrollY }, which: i };
    }
    if (!p) return { error: 'outside', which: i, doc: aims[i].doc || { x: 0, y: 0 } };
    points.push(p);
  }
  // Bringing a later aim into view must not have pushed an earlier one off screen (a drag needs both).
  for (let i = 0; i < aims.length - 1; i++) {
    const p = aims[i].at(false);
    if (!p) return { error: 'apart' };
    points[i] = p;
  }
  out.points = points;
  if (spec.hit && points[0]) { const h = deepAt(points[0].x, points[0].y); if (h) out.hit = describe(meaningful(h)); }
  if (spec.dropHit && points[1]) { const h = deepAt(points[1].x, points[1].y); if (h) out.dropHit = describe(meaningful(h)); }
  if (spec.focus) out.focus = focusInfo();
  if (spec.observe) {
    if (g.__sightlineObs) g.__sightlineObs.obs.disconnect();
    const st = { els: new Set(), count: 0 };
    st.add = (recs) => {
      for (const m of recs) {
        st.count++;
        if (st.els.size >= 400) continue;
        const t = m.target.nodeType === 1 ? m.target : m.target.parentElement;
        if (m.type !== 'childList') { if (t) st.els.add(t); continue; }
        // An added element is the change, not its (maybe page-sized) parent; a removed one was between its siblings.
        let placed = false;
        for (const n of m.addedNodes) { if (n.nodeType === 1) { st.els.add(n); placed = true; } }
        if (m.removedNodes.length) for (const n of [m.previousSibling, m.nextSibling]) { if (n && n.nodeType === 1) { st.els.add(n); placed = true; } }
        if (!placed && t) st.els.add(t);
      }
    };
    st.obs = new MutationObserver(st.add);
    st.obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    g.__sightlineObs = st;
  }
  out.scroll = { x: scrollX, y: scrollY };
  out.viewport = { w: vw, h: vh };
  return out;
}`;

export interface SettleSpec {
  /** Wait until the DOM is quiet (a frame without mutations), at most this long. 0: read at once. */
  maxMs: number;
  /** Describe the focused element; with `expect`, compare its value with the typed text. */
  focus: boolean;
  expect?: { text: string; exact: boolean };
}

export interface SettleResult {
  title: string;
  url: string;
  scroll: Point;
  viewport: { w: number; h: number };
  /** Mutations seen since AIM_FN (undefined: nothing was watching, e.g. a new document). */
  mutations?: number;
  /** Their region on screen now, viewport CSS px; null when all of it is off screen or invisible. */
  changed?: Rect | null;
  focus?: FocusInfo | null;
}

export const SETTLE_FN = `async function (spec) {
  ${ELEMENTS_JS}
  ${FOCUS_JS}
  const st = g.__sightlineObs;
  const out = { title: document.title, url: location.href };
  if (st) {
    g.__sightlineObs = undefined;
    st.add(st.obs.takeRecords());
    if (spec.maxMs > 0) {
      // Frameworks update the DOM during the event or in its microtasks (done before the input was
      // acknowledged); while it still changes, wait frame by frame until a frame passes quietly.
      // Nothing changed: nothing to wait for, so a click that changes nothing costs one round trip.
      const frame = () => new Promise((r) => { let done = false; const f = () => { if (!done) { done = true; r(); } }; requestAnimationFrame(f); setTimeout(f, 40); });
      const end = Date.now() + spec.maxMs;
      while (st.count && Date.now() < end) {
        const n = st.count;
        await frame();
        st.add(st.obs.takeRecords());
        if (st.count === n) break;
      }
    }
    st.obs.disconnect();
    out.mutations = st.count;
    if (st.count) {
      const vw = innerWidth, vh = innerHeight;
      let l = Infinity, t = Infinity, r = -Infinity, b = -Infinity;
      for (const el of st.els) {
        if (!el.isConnected) continue;
        const x = el.getBoundingClientRect();
        if (x.width <= 0 || x.height <= 0) continue;
        const cl = Math.max(x.left, 0), ct = Math.max(x.top, 0), cr = Math.min(x.right, vw), cb = Math.min(x.bottom, vh);
        if (cr <= cl || cb <= ct) continue;
        l = Math.min(l, cl); t = Math.min(t, ct); r = Math.max(r, cr); b = Math.max(b, cb);
      }
      out.changed = r > l ? { x: l, y: t, width: r - l, height: b - t } : null;
    }
  }
  if (spec.focus) out.focus = focusRead(spec.expect);
  out.scroll = { x: scrollX, y: scrollY };
  out.viewport = { w: innerWidth, h: innerHeight };
  return out;
}`;

/** The focused field and its value (type_text reads it back before pressing Enter). */
export const FIELD_FN = `function (expect) {
  ${ELEMENTS_JS}
  ${FOCUS_JS}
  return focusRead(expect);
}`;

/** Select the focused field's whole content (type_text clear), so one Backspace empties it as a user would. */
export const SELECT_ALL_FN = `function () {
  ${ELEMENTS_JS}
  const { el, opaque } = deepActive();
  if (!el || opaque) return { had: false };
  const v = fieldValue(el);
  if (!v) return { had: false };
  if (el.localName === 'input' || el.localName === 'textarea') el.select();
  else if (el.isContentEditable) {
    const r = document.createRange();
    r.selectNodeContents(el);
    const s = getSelection();
    s.removeAllRanges();
    s.addRange(r);
  } else return { had: false };
  return { had: true };
}`;

/** Scroll a registered node into view; null when the id names no live element of this document. */
export const SCROLL_INTO_VIEW_FN = `function (id, block, inline) {
  ${ELEMENTS_JS}
  const el = elOf(id);
  if (!el) return null;
  el.scrollIntoView({ block, inline, behavior: 'instant' });
  const r = el.getBoundingClientRect();
  return { x: r.x, y: r.y, w: r.width, h: r.height, sx: scrollX, sy: scrollY, el: describe(el) };
}`;
