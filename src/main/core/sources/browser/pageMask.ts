/**
 * Secrets masked inside the page, for the screenshot Chromium scales and encodes itself: one page
 * call finds the boxes of password and payment fields, of fields whose value is a secret, and of
 * text matching the mask patterns (Range boxes of the DOM's own text, open shadow roots included),
 * and draws one solid box over each in the top layer; the screenshot is taken; a second call
 * removes them. That costs the walk alone, done inside the capture's own metrics call
 * (docs/benchmarks.md, "Browser capture"), where decoding, filling and encoding the image again in
 * Node would cost about as much as the whole capture. Text inside images and canvases is not text the page has, and iframes are documents
 * of their own: neither is masked.
 */
import { MASK_COLOUR } from '../../image/pipeline.ts';
import { METRICS_FN, type PageMetrics } from './pageScripts.ts';
import { SECRET_AUTOCOMPLETE, SECRET_FINDER_JS } from '../../util/secrets.ts';

/** A secret's box in CSS px of the document. */
export interface PageBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * MASK_FN(patterns, region, draw): the boxes inside `region` (document CSS px) holding secrets,
 * drawn over when `draw`. Returns the boxes (document CSS px).
 */
export const MASK_FN = `function (patterns, region, draw) {
  const SECRET_AC = new Set(${JSON.stringify(SECRET_AUTOCOMPLETE)});
  const find = (${SECRET_FINDER_JS})(patterns);
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);
  const sx = scrollX, sy = scrollY;
  const rx0 = region.x, ry0 = region.y, rx1 = region.x + region.width, ry1 = region.y + region.height;
  const boxes = [];
  const add = (r) => {
    if (r.width <= 0 || r.height <= 0) return;
    const x = r.left + sx, y = r.top + sy;
    if (x >= rx1 || y >= ry1 || x + r.width <= rx0 || y + r.height <= ry0) return;
    boxes.push({ x, y, w: r.width, h: r.height });
  };
  const secretField = (el, tag) => {
    if (tag === 'input') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'password') return true;
      if (type === 'hidden' || type === 'checkbox' || type === 'radio' || type === 'button' || type === 'submit' || type === 'reset' || type === 'image' || type === 'file') return false;
    }
    const ac = (el.getAttribute('autocomplete') || '').toLowerCase().split(/\\s+/);
    if (ac.some((t) => SECRET_AC.has(t))) return true;
    return find(el.value).length > 0;
  };
  const range = document.createRange();
  const roots = [document.documentElement];
  for (let i = 0; i < roots.length; i++) {
    // No filter callback: calling into JS for every node costs ten times the walk itself (measured
    // on a 45,000-element page); the rare text that matches is checked for a script parent instead.
    const walker = document.createTreeWalker(roots[i], NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = walker.currentNode; n; n = walker.nextNode()) {
      if (n.nodeType === 3) {
        const t = n.data;
        if (t.length < 8) continue;
        const hits = find(t);
        if (hits.length === 0 || (n.parentNode && SKIP.has(n.parentNode.localName))) continue;
        for (const [a, b] of hits) {
          range.setStart(n, a);
          range.setEnd(n, b);
          for (const r of range.getClientRects()) add(r);
        }
        continue;
      }
      const tag = n.localName;
      if (n.shadowRoot) roots.push(n.shadowRoot);
      if ((tag === 'input' || tag === 'textarea') && secretField(n, tag)) add(n.getBoundingClientRect());
    }
  }
  if (draw && boxes.length) {
    const host = document.createElement('sightline-mask');
    const css = 'inset:auto;position:absolute;left:0;top:0;width:0;height:0;margin:0;padding:0;border:0;overflow:visible;background:transparent;pointer-events:none;z-index:2147483647;display:block;opacity:1;visibility:visible;transform:none;filter:none';
    for (const d of css.split(';')) { const [k, v] = d.split(':'); host.style.setProperty(k, v, 'important'); }
    const root = host.attachShadow({ mode: 'closed' });
    const fill = 'rgb(${MASK_COLOUR.r}, ${MASK_COLOUR.g}, ${MASK_COLOUR.b})';
    // Elements, not innerHTML: a page enforcing Trusted Types refuses HTML strings.
    for (const b of boxes) {
      // Whole CSS px, a pixel wider each way: anti-aliased edges of the text must not show.
      const x = Math.floor(b.x) - 1, y = Math.floor(b.y) - 1, w = Math.ceil(b.x + b.w) + 1 - x, h = Math.ceil(b.y + b.h) + 1 - y;
      const d = document.createElement('div');
      d.style.cssText = 'position:absolute;left:' + x + 'px;top:' + y + 'px;width:' + w + 'px;height:' + h + 'px;background:' + fill;
      root.appendChild(d);
    }
    document.documentElement.appendChild(host);
    // The top layer is drawn above every stacking context of the page (z-index alone is not).
    if (host.showPopover) { host.setAttribute('popover', 'manual'); try { host.showPopover(); } catch (e) { /* stays in the page, on top by z-index */ } }
    globalThis.__sightlineMask = host;
  }
  return boxes;
}`;

/** Remove the boxes MASK_FN drew (after the screenshot). */
export const UNMASK_FN = `function () {
  const host = globalThis.__sightlineMask;
  globalThis.__sightlineMask = undefined;
  if (host) host.remove();
  return true;
}`;

/**
 * A capture's page metrics (METRICS_FN) and its secrets covered, in one round trip: the region is
 * the viewport, or the whole document for a full-page capture.
 */
export const MASKED_METRICS_FN = `function (patterns, fullPage) {
  const m = (${METRICS_FN}).call(this);
  const region = fullPage ? { x: 0, y: 0, width: m.dw, height: m.dh } : { x: m.sx, y: m.sy, width: m.w, height: m.h };
  m.boxes = (${MASK_FN}).call(this, patterns, region, true);
  return m;
}`;

export type MaskedMetrics = PageMetrics & { boxes: PageBox[] };
