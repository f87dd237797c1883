import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprint, hierarchyPlaces, relocate, type NodeFingerprint } from '../../../src/main/core/sources/android/nodeIdentity.ts';
import { normalizeText } from '../../../src/main/core/sources/android/textQuery.ts';
import { parseUiDump } from '../../../src/main/core/sources/android/uiDump.ts';
import type { SourceUiNode } from '../../../src/main/core/sources/source.ts';

/** A view in a test screen; `key` is the element's identity, which the dump does not carry. */
interface View {
  key: string;
  cls: string;
  id?: string;
  text?: string;
  desc?: string;
  children: View[];
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** `uiautomator dump` XML: children stacked top to bottom in their parent's box, shifted down by `dy`. */
function dumpXml(root: View, dy = 0): { xml: string; keys: string[] } {
  const keys: string[] = [];
  const render = (v: View, index: number, x: number, y: number, w: number, h: number): string => {
    keys.push(v.key);
    const step = v.children.length ? Math.floor(h / v.children.length) : 0;
    const inner = v.children.map((c, i) => render(c, i, x + 10, y + i * step, Math.max(0, w - 20), step)).join('');
    const attrs = `index="${index}" text="${esc(v.text ?? '')}" resource-id="${esc(v.id ?? '')}" class="${v.cls}" package="com.example" content-desc="${esc(v.desc ?? '')}" clickable="false" enabled="true" bounds="[${x},${y + dy}][${x + w},${y + dy + h}]"`;
    return inner ? `<node ${attrs}>${inner}</node>` : `<node ${attrs} />`;
  };
  const body = render(root, 0, 0, 0, 1080, 2400);
  return { xml: `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${body}</hierarchy>`, keys };
}

function dump(root: View, dy = 0): { nodes: SourceUiNode[]; keyOf: (n: SourceUiNode) => string; idOf: (key: string) => string | undefined } {
  const { xml, keys } = dumpXml(root, dy);
  const nodes = parseUiDump(xml).nodes;
  return { nodes, keyOf: (n) => keys[Number(n.id)]!, idOf: (key) => (keys.includes(key) ? String(keys.indexOf(key)) : undefined) };
}

const v = (key: string, cls: string, a: Partial<Omit<View, 'key' | 'cls'>> = {}): View => ({ key, cls, children: [], ...a });

/** A settings-like list: a toolbar, rows sharing resource-ids, an OK button with a unique id, an anonymous icon. */
function screen(rows: string[], extra: { banner?: boolean; okText?: string; ok?: boolean } = {}): View {
  return v('root', 'android.widget.FrameLayout', {
    children: [
      ...(extra.banner ? [v('banner', 'android.widget.TextView', { text: 'Update available' })] : []),
      v('toolbar', 'android.widget.LinearLayout', { children: [v('back', 'android.widget.ImageButton', { desc: 'Navigate up' }), v('title', 'android.widget.TextView', { text: 'Photos' }), v('icon', 'android.widget.ImageView')] }),
      v('list', 'androidx.recyclerview.widget.RecyclerView', {
        id: 'com.example:id/list',
        children: rows.map((r) => v(`row:${r}`, 'android.widget.LinearLayout', { children: [v(`label:${r}`, 'android.widget.TextView', { id: 'com.example:id/label', text: r }), v(`check:${r}`, 'android.widget.CheckBox', { id: 'com.example:id/check' })] })),
      }),
      ...(extra.ok === false ? [] : [v('ok', 'android.widget.Button', { id: 'com.example:id/ok', text: extra.okText ?? 'OK' })]),
    ],
  });
}

function fp(d: ReturnType<typeof dump>, key: string): NodeFingerprint {
  const f = fingerprint(d.nodes, d.idOf(key)!);
  if (!f) throw new Error(`no node ${key}`);
  return f;
}

const found = (r: ReturnType<typeof relocate>, d: ReturnType<typeof dump>): string | undefined => (r && 'node' in r ? d.keyOf(r.node) : undefined);

describe('fingerprint', () => {
  it('records id, label, class, index and class paths, box and how many share the id', () => {
    const d = dump(screen(['A', 'B']));
    expect(fp(d, 'label:B')).toEqual({
      className: 'android.widget.TextView',
      resourceId: 'com.example:id/label',
      text: 'B',
      indexPath: [0, 1, 1, 0],
      classPath: ['android.widget.FrameLayout', 'androidx.recyclerview.widget.RecyclerView', 'android.widget.LinearLayout', 'android.widget.TextView'],
      bounds: expect.objectContaining({ x: 30 }),
      idCount: 2,
    });
    expect(fp(d, 'ok')).toMatchObject({ resourceId: 'com.example:id/ok', idCount: 1, indexPath: [0, 2] });
    expect(fingerprint(d.nodes, 'nope')).toBeUndefined();
    // A list filtered by a query keeps working: a node whose parent is missing starts a path of its own.
    const filtered = d.nodes.filter((n) => n.role === 'android.widget.Button');
    expect(hierarchyPlaces(filtered).get(filtered[0]!.id)).toEqual({ indexPath: [0], classPath: ['android.widget.Button'] });
  });
});

describe('relocate', () => {
  it('finds every node of an unchanged dump as itself', () => {
    const d = dump(screen(['A', 'B', 'C']));
    for (const n of d.nodes) expect(found(relocate(fingerprint(d.nodes, n.id)!, d.nodes), d)).toBe(d.keyOf(n));
  });

  it('follows a layout shift: a banner pushes everything down and one index up', () => {
    const before = dump(screen(['A', 'B', 'C']));
    const after = dump(screen(['A', 'B', 'C'], { banner: true }), 60);
    expect(relocate(fp(before, 'ok'), after.nodes)).toMatchObject({ via: 'id' });
    expect(found(relocate(fp(before, 'ok'), after.nodes), after)).toBe('ok');
    expect(found(relocate(fp(before, 'label:B'), after.nodes), after)).toBe('label:B');
    expect(found(relocate(fp(before, 'back'), after.nodes), after)).toBe('back');
    expect(relocate(fp(before, 'title'), after.nodes)).toMatchObject({ via: 'label' });
    // The anonymous icon moved with its place: lost, not guessed.
    expect(relocate(fp(before, 'icon'), after.nodes)).toBeUndefined();
  });

  it('does not take another anonymous view that now sits at an anonymous node\'s place in another box', () => {
    const img = (key: string): View => v(key, 'android.widget.ImageView');
    const before = dump(v('root', 'android.widget.FrameLayout', { children: [img('a'), img('b')] }));
    const after = dump(v('root', 'android.widget.FrameLayout', { children: [img('new'), img('a'), img('b')] }));
    expect(found(relocate(fp(before, 'a'), after.nodes), after)).toBeUndefined();
    // Same place, same box (a recycled list row): the same view as far as anyone can tell.
    expect(found(relocate(fp(before, 'a'), dump(v('root', 'android.widget.FrameLayout', { children: [img('c'), img('d')] })).nodes), before)).toBe('a');
  });

  it('keeps a node whose text changed when its id is unique, not when rows share it', () => {
    const before = dump(screen(['A', 'B']));
    const renamed = dump(screen(['A', 'B'], { okText: 'Done (3)' }));
    expect(relocate(fp(before, 'ok'), renamed.nodes)).toMatchObject({ via: 'id-path' });
    // The list scrolled: row B now sits where row A was. Same id, same place, but it is B.
    const scrolled = dump(screen(['B', 'C']));
    expect(found(relocate(fp(before, 'label:A'), scrolled.nodes), scrolled)).toBeUndefined();
    expect(relocate(fp(before, 'label:B'), scrolled.nodes)).toMatchObject({ via: 'id' });
    expect(found(relocate(fp(before, 'label:B'), scrolled.nodes), scrolled)).toBe('label:B');
  });

  it('says gone when the element was removed, and never hands over a neighbour', () => {
    const before = dump(screen(['A', 'B', 'C']));
    const after = dump(screen(['A', 'C'], { ok: false }));
    expect(relocate(fp(before, 'ok'), after.nodes)).toBeUndefined();
    expect(relocate(fp(before, 'label:B'), after.nodes)).toBeUndefined();
    expect(found(relocate(fp(before, 'label:C'), after.nodes), after)).toBe('label:C');
  });

  it('reports two equally good candidates as ambiguous', () => {
    const twin = (key: string): View => v(key, 'android.widget.Button', { text: 'Delete' });
    const before = dump(v('root', 'android.widget.FrameLayout', { children: [v('gap1', 'android.view.View'), twin('del'), v('gap2', 'android.view.View')] }));
    // The old button is gone; identical ones now sit in the two slots either side of its place.
    const after = dump(v('root', 'android.widget.FrameLayout', { children: [twin('x'), v('gap', 'android.view.View'), twin('y')] }));
    const r = relocate(fp(before, 'del'), after.nodes);
    expect(r && 'ambiguous' in r && r.ambiguous.map(after.keyOf).sort()).toEqual(['x', 'y']);
  });
});

// ── properties over generated screens ──

const CLASSES = ['android.widget.TextView', 'android.widget.Button', 'android.widget.LinearLayout', 'android.widget.ImageView'];
let serial = 0;
const viewArb = fc.letrec<{ view: View }>((tie) => ({
  view: fc
    .record({
      cls: fc.constantFrom(...CLASSES),
      id: fc.option(fc.constantFrom('com.example:id/a', 'com.example:id/b', 'com.example:id/c', 'com.example:id/d'), { nil: undefined }),
      text: fc.option(fc.constantFrom('OK', 'Cancel', 'Save', 'Item', 'Élan', 'Ok'), { nil: undefined }),
      desc: fc.option(fc.constantFrom('More options', 'Search'), { nil: undefined }),
      children: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant<View[]>([]), fc.array(tie('view'), { maxLength: 3 })),
    })
    .map((r): View => ({ key: '', cls: r.cls, children: r.children, ...(r.id ? { id: r.id } : {}), ...(r.text ? { text: r.text } : {}), ...(r.desc ? { desc: r.desc } : {}) })),
})).view;

/** Fresh keys, pre-order. */
function keyed(root: View): View {
  const k = (x: View): View => ({ ...x, key: `k${serial++}`, children: x.children.map(k) });
  return k(root);
}

const rootArb = viewArb.map((r) => keyed({ key: '', cls: 'android.widget.FrameLayout', children: [r] }));

/** Its id is unique, or no other node without an id has the same class and an agreeing label. */
function identifiable(nodes: SourceUiNode[], n: SourceUiNode): boolean {
  const rid = (m: SourceUiNode): string | undefined => m.attributes?.['resource-id'];
  if (rid(n)) return nodes.filter((m) => rid(m) === rid(n)).length === 1;
  const same = (a?: string, b?: string): boolean => !!a && !!b && normalizeText(a) === normalizeText(b);
  const agrees = (m: SourceUiNode): boolean => same(m.attributes?.text, n.attributes?.text) || same(m.attributes?.['content-desc'], n.attributes?.['content-desc']);
  return !!(n.attributes?.text || n.attributes?.['content-desc']) && nodes.filter((m) => m.role === n.role && !rid(m) && agrees(m)).length === 1;
}

function walk(v: View, f: (v: View, parent?: View) => void, parent?: View): void {
  f(v, parent);
  for (const c of v.children) walk(c, f, v);
}

describe('relocate, properties', () => {
  it('an unchanged dump: every node is found as itself', () => {
    fc.assert(
      fc.property(rootArb, (root) => {
        const d = dump(root);
        for (const n of d.nodes) expect(found(relocate(fingerprint(d.nodes, n.id)!, d.nodes), d)).toBe(d.keyOf(n));
      }),
      { numRuns: 150 },
    );
  });

  it('a layout shift (a view inserted first in some parent, everything moved down): identifiable nodes are found, none is mistaken', () => {
    let checked = 0;
    fc.assert(
      fc.property(rootArb, fc.nat(), fc.integer({ min: 1, max: 400 }), (root, pick, dy) => {
        const before = dump(root);
        const parents: View[] = [];
        walk(root, (x) => parents.push(x));
        const shifted = structuredClone(root);
        const targets: View[] = [];
        walk(shifted, (x) => targets.push(x));
        // Anonymous and of a class the screens use: it takes the place of an anonymous node's first sibling.
        targets[pick % targets.length]!.children.unshift({ key: 'inserted', cls: 'android.widget.ImageView', children: [] });
        const after = dump(shifted, dy);
        for (const n of before.nodes) {
          const r = relocate(fingerprint(before.nodes, n.id)!, after.nodes);
          const key = found(r, after);
          if (identifiable(before.nodes, n)) {
            expect(key).toBe(before.keyOf(n));
            checked++;
          }
          // An anonymous or twin node may be lost or ambiguous, but a match is never the inserted view.
          expect(key).not.toBe('inserted');
        }
      }),
      { numRuns: 150 },
    );
    expect(checked).toBeGreaterThan(150);
  });

  it('a removed element: gone when it was identifiable; the others are still found', () => {
    let gone = 0;
    fc.assert(
      fc.property(rootArb, fc.nat(), (root, pick) => {
        const before = dump(root);
        const candidates = before.nodes.filter((n) => n.parentId !== undefined);
        if (candidates.length === 0) return;
        const victim = candidates[pick % candidates.length]!;
        const removedKeys = new Set<string>();
        const pruned = structuredClone(root);
        walk(pruned, (x) => {
          const i = x.children.findIndex((c) => c.key === before.keyOf(victim));
          if (i >= 0) walk(x.children.splice(i, 1)[0]!, (gone) => removedKeys.add(gone.key));
        });
        const after = dump(pruned);
        for (const n of before.nodes) {
          const key = found(relocate(fingerprint(before.nodes, n.id)!, after.nodes), after);
          if (removedKeys.has(before.keyOf(n)) && identifiable(before.nodes, n)) {
            expect(key).toBeUndefined();
            gone++;
          }
          if (key !== undefined && identifiable(before.nodes, n)) expect(key).toBe(before.keyOf(n));
        }
      }),
      { numRuns: 150 },
    );
    expect(gone).toBeGreaterThan(20);
  });
});
