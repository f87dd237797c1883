import { describe, expect, it } from 'vitest';
import { NodeHandles, type HandledDump } from '../../../src/main/core/sources/android/handles.ts';
import { contentsOf, fingerprint, relocate } from '../../../src/main/core/sources/android/nodeIdentity.ts';
import { parseUiDump } from '../../../src/main/core/sources/android/uiDump.ts';
import { FakeUi, ROW_HEIGHT } from '../../support/fakeAdb/ui.ts';

const size = { width: 1080, height: 2400 };
const host = { size, rotation: 0 as const, foreground: 'com.example.fake' };

function screen(setup: (ui: FakeUi) => void = () => {}): FakeUi {
  const ui = new FakeUi(host);
  setup(ui);
  return ui;
}

const adopt = (h: NodeHandles, ui: FakeUi): HandledDump => h.adopt(parseUiDump(ui.xml(), size).nodes, { screen: size });
const byText = (d: HandledDump, text: string): string => {
  const label = d.nodes.find((n) => n.attributes?.text === text);
  if (!label) throw new Error(`no ${text}`);
  return label.id;
};
/** The clickable row around a label. */
const rowOf = (d: HandledDump, text: string): string => d.byId.get(byText(d, text))!.parentId!;

describe('node handles', () => {
  it('an unchanged screen keeps every id; ids are new and prefixed', () => {
    const h = new NodeHandles({ prefix: 't' });
    const ui = screen();
    const a = adopt(h, ui);
    const b = adopt(h, ui);
    expect(a.nodes.map((n) => n.id)).toEqual(['t1', 't2', 't3', 't4', 't5']);
    expect(b.nodes.map((n) => n.id)).toEqual(a.nodes.map((n) => n.id));
    expect(b.nodes.map((n) => n.parentId)).toEqual([undefined, 't1', 't1', 't1', 't1']);
    expect(new NodeHandles().last()).toBeUndefined();
    expect(adopt(new NodeHandles(), ui).nodes[0]!.id).toMatch(/^[a-z]{3}1$/);
  });

  it('a field that got text keeps its id (its resource-id is unique)', () => {
    const h = new NodeHandles();
    const ui = screen();
    const field = adopt(h, ui).nodes.find((n) => n.role === 'android.widget.EditText')!.id;
    ui.values.set('com.example.fake:id/query', 'hello');
    const after = adopt(h, ui);
    expect(after.byId.get(field)?.attributes?.text).toBe('hello');
  });

  it('rows keep their ids while the list scrolls, by what they show, not by where they sit', () => {
    const h = new NodeHandles();
    const ui = screen((u) => (u.screen = 'list'));
    const before = adopt(h, ui);
    const row3 = rowOf(before, 'Item 3');
    const label3 = byText(before, 'Item 3');
    ui.scroll = ROW_HEIGHT; // one row up: row 4 now sits where row 3 was
    const after = adopt(h, ui);
    expect(rowOf(after, 'Item 3')).toBe(row3);
    expect(byText(after, 'Item 3')).toBe(label3);
    expect(after.byId.get(row3)!.bounds.y).toBe(before.byId.get(row3)!.bounds.y - ROW_HEIGHT);
    // The row now at row 3's old place is another element with its own id.
    expect(rowOf(after, 'Item 4')).not.toBe(row3);
  });

  it('a row scrolled out is gone from the dump; scrolled back, its old id finds it again', () => {
    const h = new NodeHandles();
    const ui = screen((u) => (u.screen = 'list'));
    const first = adopt(h, ui);
    const row1 = rowOf(first, 'Item 1');
    ui.scroll = 10 * ROW_HEIGHT;
    const away = adopt(h, ui);
    expect(away.byId.has(row1)).toBe(false);
    expect(h.find(row1, away)).toBeUndefined();
    ui.scroll = 0;
    const back = adopt(h, ui);
    // Not tracked (absent from the previous dump): it got a new id, and the old one moves onto it.
    expect(back.byId.has(row1)).toBe(false);
    const found = h.find(row1, back);
    expect(found).toMatchObject({ how: 'relocated', node: { id: row1 } });
    expect(back.byId.get(row1)?.bounds).toEqual(first.byId.get(row1)!.bounds);
    expect(back.nodes.filter((n) => n.parentId === row1).map((n) => n.attributes?.text)).toEqual(['Item 1']);
    expect(h.knows(row1)).toBe(true);
  });

  it('keeps at most `cap` records, the most recent', () => {
    const h = new NodeHandles({ cap: 20 });
    const ui = screen((u) => (u.screen = 'list'));
    for (let i = 0; i < 5; i++) {
      ui.scroll = i * 8 * ROW_HEIGHT;
      adopt(h, ui);
    }
    expect(h.size).toBeLessThanOrEqual(20);
    for (const n of h.last()!.nodes) expect(h.knows(n.id)).toBe(true);
  });
});

describe('a row is known by its content', () => {
  it('a recycled row at the old place showing another item is another element; the row that moved is found', () => {
    const ui = screen((u) => (u.screen = 'list'));
    const before = parseUiDump(ui.xml(), size).nodes;
    const row2 = before.find((n) => n.attributes?.text === 'Item 2')!.parentId!;
    const fp = fingerprint(before, row2)!;
    expect(fp.content).toBe('item 2');
    expect(contentsOf(before).get(row2)).toBe('item 2');
    ui.scroll = ROW_HEIGHT;
    const after = parseUiDump(ui.xml(), size).nodes;
    const r = relocate(fp, after);
    expect(r && 'node' in r ? after.find((n) => n.parentId === r.node.id)?.attributes?.text : undefined).toBe('Item 2');
    ui.scroll = 5 * ROW_HEIGHT;
    expect(relocate(fp, parseUiDump(ui.xml(), size).nodes)).toBeUndefined();
  });
});
