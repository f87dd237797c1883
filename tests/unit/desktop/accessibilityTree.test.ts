/**
 * The desktop tree's pure parts: node ids that survive a fresh read, the shared role vocabulary,
 * text items (a label means its field; a password's value never shows), the macOS and Windows
 * backends' parsers on hand-written output of their scripts' shape (no real capture yet), and the
 * covered-window arithmetic.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coverage, unionArea } from '../../../src/main/core/sources/desktop/geometry.ts';
import { parseAx } from '../../../src/main/core/sources/desktop/tree/ax.ts';
import { textItems, toNodes } from '../../../src/main/core/sources/desktop/tree/desktopTree.ts';
import { TreeHandles } from '../../../src/main/core/sources/desktop/tree/handles.ts';
import { sharedRole } from '../../../src/main/core/sources/desktop/tree/roles.ts';
import type { AxElement } from '../../../src/main/core/sources/desktop/tree/types.ts';
import { parseUia, uiaCommand } from '../../../src/main/core/sources/desktop/tree/uia.ts';

const fixture = (name: string): string => readFileSync(resolve(import.meta.dirname, '../../fixtures/desktop', name), 'utf8');

function el(role: string, name: string, parent: number | undefined, x: number, y: number, extra: Partial<AxElement> = {}): AxElement {
  return { role, platformRole: role, name, ...(parent !== undefined ? { parent } : {}), bounds: { x, y, width: 80, height: 30 }, states: { enabled: true, showing: true }, ...extra };
}

const form = (): AxElement[] => [
  el('window', 'Form', undefined, 0, 0, { key: ':1.0/1', bounds: { x: 0, y: 0, width: 400, height: 300 } }),
  el('label', 'Email', 0, 10, 10, { key: ':1.0/2', labelFor: 2 }),
  el('textbox', 'Email', 0, 100, 10, { key: ':1.0/3', value: 'a@b.c' }),
  el('button', 'Save', 0, 10, 200, { key: ':1.0/4' }),
  el('button', 'Cancel', 0, 100, 200, { key: ':1.0/5' }),
  el('group', '', 0, 200, 100, { key: ':1.0/6' }),
];

describe('tree handles', () => {
  it('keeps every id when the same elements come back', () => {
    const h = new TreeHandles({ prefix: 't' });
    const a = h.adopt(form());
    const b = h.adopt(form());
    expect(b.ids).toEqual(a.ids);
    expect(new Set(a.ids).size).toBe(a.ids.length);
  });

  it('follows an element re-created under another object path by its role and name, and a moved one', () => {
    const h = new TreeHandles({ prefix: 't' });
    const a = h.adopt(form());
    const next = form();
    // The toolkit rebuilt the buttons (new paths) and swapped them.
    next[3] = el('button', 'Cancel', 0, 10, 200, { key: ':1.0/40' });
    next[4] = el('button', 'Save', 0, 100, 200, { key: ':1.0/41' });
    const b = h.adopt(next);
    expect(b.ids[4]).toBe(a.ids[3]); // Save
    expect(b.ids[3]).toBe(a.ids[4]); // Cancel
  });

  it('never gives a new element an old id, and finds an id from an older read', () => {
    const h = new TreeHandles({ prefix: 't' });
    const a = h.adopt(form());
    const without = form().slice(0, 3);
    const b = h.adopt(without);
    expect(b.ids).toEqual(a.ids.slice(0, 3));
    const c = h.adopt([...form(), el('button', 'Help', 0, 300, 200, { key: ':1.0/9' })]);
    // Save came back (same path): found through its older record; Help is new.
    const found = h.find(a.ids[3]!, c);
    expect(found && 'index' in found && c.elements[found.index]!.name).toBe('Save');
    expect(a.ids).not.toContain(c.ids[6]);
  });

  it('a nameless element is only the same at its place over much the same box', () => {
    const h = new TreeHandles({ prefix: 't' });
    const a = h.adopt(form().map((e) => ({ ...e, key: undefined })) as AxElement[]);
    const moved = form().map((e) => ({ ...e, key: undefined })) as AxElement[];
    moved[5] = el('group', '', 0, 260, 160);
    const b = h.adopt(moved);
    expect(b.ids[5]).not.toBe(a.ids[5]);
    expect(b.ids[3]).toBe(a.ids[3]);
  });
});

describe('roles', () => {
  it('names AT-SPI, AX and UIA roles alike, keeping an unknown one', () => {
    expect(sharedRole('atspi', 'push button')).toBe('button');
    expect(sharedRole('ax', 'AXButton')).toBe('button');
    expect(sharedRole('uia', 'Button')).toBe('button');
    expect(sharedRole('atspi', 'password text')).toBe('password');
    expect(sharedRole('ax', 'AXSecureTextField')).toBe('password');
    expect(sharedRole('atspi', 'terminal')).toBe('terminal');
    expect(sharedRole('ax', 'AXRuler')).toBe('ruler');
  });
});

describe('nodes and text of a window', () => {
  const window = { id: 1, title: 'Form', bounds: { x: 0, y: 0, width: 400, height: 300 } };

  it('a label is text for its field; the field’s own name is the same hit; a password field’s value never shows', () => {
    const elements = [...form(), el('password', 'PIN', 0, 100, 60, { key: ':1.0/7', value: '1234', states: { enabled: true, showing: true, password: true } })];
    const read = new TreeHandles({ prefix: 't' }).adopt(elements);
    const items = textItems({ window, read });
    const email = items.filter((i) => i.text === 'Email');
    expect(email.map((i) => i.node)).toEqual([read.ids[2], read.ids[2]]);
    expect(items.some((i) => i.text === '1234')).toBe(false);
    expect(items.find((i) => i.text === 'a@b.c')?.node).toBe(read.ids[2]);
    // The window's title is the frame's, not the client area's.
    expect(items.some((i) => i.text === 'Form')).toBe(false);
    const nodes = toNodes({ window, read }, { x: 5, y: -5 });
    const pin = nodes.find((n) => n.name === 'PIN')!;
    expect(pin.value).toBeUndefined();
    expect(pin.attributes).toMatchObject({ password: 'true' });
    expect(nodes[1]!.attributes?.labelFor).toBe(read.ids[2]);
    // Shifted into the frame's space (the window moved by (5, -5) since).
    expect(nodes[3]!.bounds).toEqual({ x: 5, y: 205, width: 80, height: 30 });
    expect(nodes[3]).toMatchObject({ role: 'button', clickable: true, enabled: true, inViewport: true, parentId: read.ids[0] });
  });
});

describe('macOS AX output (a hand-written fixture, not a capture from a Mac)', () => {
  it('parses JSON shaped as the JXA script prints it into elements, a secure field without its value', () => {
    const snap = parseAx(fixture('ax-form.handwritten.json'))!;
    expect(snap.app).toBe('TextEdit');
    const by = (name: string): AxElement => snap.elements.find((e) => e.name === name && e.role !== 'label')!;
    // Static text carries its words in AXValue: they become its name.
    expect(snap.elements[1]).toMatchObject({ role: 'label', name: 'Email', parent: 0 });
    expect(snap.elements[2]).toMatchObject({ role: 'textbox', value: 'ada@example.org', states: { focused: true, editable: true } });
    expect(by('Password')).toMatchObject({ role: 'password', platformRole: 'AXSecureTextField', states: { password: true } });
    expect(by('Password').value).toBeUndefined();
    expect(by('Subscribe')).toMatchObject({ role: 'checkbox', states: { checked: true } });
    expect(by('Cancel').states.enabled).toBe(false);
    expect(snap.elements[8]!.states.showing).toBe(false);
  });

  it('says there is no tree when the script found no window', () => {
    expect(parseAx('{"error":"no window"}')).toBeUndefined();
  });
});

describe('Windows UIA output (a hand-written fixture, not a capture from Windows)', () => {
  it('parses JSON shaped as the PowerShell script prints it: runtime ids as keys, toggles, passwords, offscreen elements', () => {
    const snap = parseUia(fixture('uia-form.handwritten.json'), 'notepad')!;
    const [win, label, email, password, check, save, hidden] = snap.elements;
    expect(win).toMatchObject({ role: 'window', key: '42.1181094' });
    expect(win!.parent).toBeUndefined();
    expect(label).toMatchObject({ role: 'label', name: 'Email', parent: 0 });
    expect(email).toMatchObject({ role: 'textbox', value: 'ada@example.org', states: { focused: true } });
    expect(password).toMatchObject({ role: 'password', states: { password: true } });
    expect(password!.value).toBeUndefined();
    expect(check).toMatchObject({ role: 'checkbox', states: { checked: true } });
    expect(save!.bounds).toEqual({ x: 480, y: 430, width: 80, height: 32 });
    expect(hidden!.bounds).toEqual({ x: 0, y: 0, width: 0, height: 0 });
    expect(hidden!.states.showing).toBe(false);
  });

  it('reads a one-element answer (ConvertTo-Json unwraps it) and a BOM', () => {
    const one = '\uFEFF{"elements":{"parent":-1,"type":"ControlType.Window","name":"X","value":null,"toggle":null,"password":false,"enabled":true,"focused":true,"offscreen":false,"id":"1","x":0,"y":0,"w":10,"h":10}}';
    expect(parseUia(one)!.elements).toHaveLength(1);
  });

  it('passes the script as -EncodedCommand (UTF-16LE Base64) with the window handle and limit', () => {
    const text = Buffer.from(uiaCommand(132456, 3000), 'base64').toString('utf16le');
    expect(text).toMatch(/^& \{ [\s\S]*ConvertTo-Json[\s\S]* \} 132456 3000$/);
  });
});

describe('covered windows', () => {
  it('counts overlapping covers once and names each', () => {
    const w = { x: 0, y: 0, width: 100, height: 100 };
    const c = coverage(w, [
      { by: 'a', rect: { x: 50, y: 0, width: 100, height: 100 } },
      { by: 'b', rect: { x: 50, y: 50, width: 100, height: 100 } },
      { by: 'c', rect: { x: 200, y: 200, width: 10, height: 10 } },
    ]);
    expect(c.covers.map((x) => x.by)).toEqual(['a', 'b']);
    expect(c.covers[1]!.rect).toEqual({ x: 50, y: 50, width: 50, height: 50 });
    expect(c.fraction).toBeCloseTo(0.5, 6);
    expect(unionArea([])).toBe(0);
    expect(coverage(w, [{ by: 'all', rect: { x: -10, y: -10, width: 200, height: 200 } }]).fraction).toBe(1);
  });
});
