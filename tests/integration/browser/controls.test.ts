/**
 * The browser module's own tools through a real MCP client (select_option, set_checked,
 * upload_file, handle_dialog, navigate, tabs), and hover and drag at the port, on a real
 * Chromium: each control is found from what the agent aimed at, changed as a user would, and
 * read back.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { act, box, capture, centre, evalIn, nodeNamed, open, reload, type Ctx } from './kit.ts';

let c: Ctx;
let h: Harness;
let files: string;
let outside: string;

beforeAll(async () => {
  files = mkdtempSync(join(tmpdir(), 'sightline-uploads-'));
  outside = mkdtempSync(join(tmpdir(), 'sightline-elsewhere-'));
  writeFileSync(join(files, 'report.txt'), 'hello');
  writeFileSync(join(files, 'photo-1.png'), 'png');
  writeFileSync(join(files, 'photo-2.png'), 'png');
  writeFileSync(join(outside, 'secret.txt'), 'no');
  mkdirSync(join(files, 'links'));
  symlinkSync(join(outside, 'secret.txt'), join(files, 'links', 'escape.txt'));
  c = await open('controls.html');
  h = await startHarness({ sources: [c.source], settings: { sources: { browser: { enabled: true } }, files: { uploadRoots: [files] } } });
});

afterAll(async () => {
  await h?.close();
  await c?.close();
  for (const d of [files, outside]) if (d) rmSync(d, { recursive: true, force: true });
});

beforeEach(async () => {
  await reload(c, 'controls.html');
});

type Structured = Record<string, unknown> & { received?: { value?: string; valueMatches?: boolean; name?: string }; details?: Record<string, unknown> };

async function call(name: string, args: Record<string, unknown>): Promise<{ r: CallToolResult; s: Structured; d: Record<string, unknown>; text: string }> {
  const r = await h.call(name, args);
  const s = (r.structuredContent ?? {}) as Structured;
  const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { r, s, d: s.details ?? {}, text: text || textOf(r) };
}

async function ok(name: string, args: Record<string, unknown>): Promise<{ s: Structured; d: Record<string, unknown>; text: string }> {
  const res = await call(name, args);
  expect(res.r.isError, res.text).toBeFalsy();
  return res;
}

async function refused(name: string, args: Record<string, unknown>): Promise<string> {
  const res = await call(name, args);
  expect(res.r.isError, res.text).toBe(true);
  return res.text;
}

/** A node id from get_ui_tree over MCP, by name and role. */
async function node(name: string, role?: string): Promise<string> {
  const { s } = await ok('get_ui_tree', { target: c.target, query: name, maxNodes: 40 });
  const found = (s.nodes as { id: string; name: string; role: string }[]).find((n) => n.name === name && (!role || n.role === role));
  expect(found, `${role ?? 'node'} "${name}"`).toBeDefined();
  return found!.id;
}

const state = <T>(expr: string): Promise<T> => evalIn<T>(c, expr);

describe('forms through MCP', () => {
  it('select_option by label or value, by node or by x, y; a missing option lists the ones there are', async () => {
    const colour = await node('Colour', 'combobox');
    const blue = await ok('select_option', { target: c.target, node: colour, label: 'Blue' });
    expect(blue.d.selected).toEqual([{ value: 'b', label: 'Blue' }]);
    expect(blue.s.received).toMatchObject({ name: 'Colour', value: 'Blue', valueMatches: true });
    expect(blue.text).toMatch(/combobox “Colour” now holds "Blue"/);
    expect(await state('document.getElementById("colour").value')).toBe('b');
    expect(await state('window.state.changes')).toEqual(['colour']);

    await ok('select_option', { target: c.target, node: colour, value: 'g' });
    expect(await state('document.getElementById("colour").value')).toBe('g');
    // Aimed by its visible label.
    await ok('select_option', { target: c.target, text: 'Colour', label: 'Red' });
    expect(await state('document.getElementById("colour").value')).toBe('r');

    // x, y in image pixels of the latest capture, on the multiple select.
    const { frame } = await h.core.frames.capture({ target: c.target });
    const sizes = centre(await box(c, '#sizes'));
    const multi = await ok('select_option', { ref: frame.ref, x: Math.round(sizes.x / frame.scale), y: Math.round(sizes.y / frame.scale), label: ['S', 'L'] });
    expect(multi.d.selected).toEqual([
      { value: 'S', label: 'S' },
      { value: 'L', label: 'L' },
    ]);

    const missing = await refused('select_option', { target: c.target, node: colour, label: 'Purple' });
    expect(missing).toMatch(/^INVALID_ARGUMENT: .*no option labelled "Purple".*Hint: Its options: "Red" \(value "r"\), "Green" \(value "g"\), "Blue" \(value "b"\)/);
    expect(await refused('select_option', { target: c.target, node: colour, label: 'Unavailable' })).toMatch(/is disabled/);
    expect(await refused('select_option', { target: c.target, node: await node('I agree', 'checkbox'), label: 'x' })).toMatch(/is not a drop-down/);
  });

  it('set_checked: a checkbox, one drawn hidden behind its label, a switch and radios; read back each time', async () => {
    const agree = await node('I agree', 'checkbox');
    const on = await ok('set_checked', { target: c.target, node: agree, checked: true });
    expect(on.d.checked).toBe(true);
    expect(on.s.received).toMatchObject({ value: 'true', valueMatches: true });
    expect(await ok('set_checked', { target: c.target, node: agree, checked: true }).then((r) => r.text)).toMatch(/already checked/);
    expect(await state('window.state.changes')).toEqual(['agree']);

    // The real input is 1 px and transparent: its label is clicked, as a user would.
    const news = await ok('set_checked', { target: c.target, node: await node('Newsletter'), checked: true });
    expect(news.d.checked).toBe(true);
    expect(await state('document.getElementById("news").checked')).toBe(true);

    expect((await ok('set_checked', { target: c.target, text: 'Dark mode', checked: true })).d.checked).toBe(true);
    expect(await state('document.getElementById("dark").getAttribute("aria-checked")')).toBe('true');

    const pro = await node('Pro', 'radio');
    await ok('set_checked', { target: c.target, node: pro, checked: true });
    expect(await state('document.getElementById("basic").checked')).toBe(false);
    expect(await refused('set_checked', { target: c.target, node: pro, checked: false })).toMatch(/radio button: it is unchecked by checking another one/);
  });

  it('upload_file: only from files.uploadRoots, one file or several as the input allows', async () => {
    const attachment = await node('Attachment', 'button');
    const one = await ok('upload_file', { target: c.target, node: attachment, paths: [join(files, 'report.txt')] });
    expect(one.d.files).toEqual(['report.txt']);
    expect(one.s.received).toMatchObject({ valueMatches: true });
    expect(await state('document.getElementById("file").files[0].name')).toBe('report.txt');
    expect(await state('window.state.changes')).toEqual(['file']);

    const photos = await ok('upload_file', { target: c.target, node: await node('Photos', 'button'), paths: [join(files, 'photo-1.png'), join(files, 'photo-2.png')] });
    expect(photos.d.files).toEqual(['photo-1.png', 'photo-2.png']);

    expect(await refused('upload_file', { target: c.target, node: attachment, paths: [join(outside, 'secret.txt')] })).toMatch(/^PATH_REFUSED: .*not inside a folder allowed for uploads/);
    expect(await refused('upload_file', { target: c.target, node: attachment, paths: [join(files, 'links', 'escape.txt')] })).toMatch(/^PATH_REFUSED/);
    expect(await refused('upload_file', { target: c.target, node: attachment, paths: ['relative.txt'] })).toMatch(/^INVALID_ARGUMENT/);
    expect(await refused('upload_file', { target: c.target, node: attachment, paths: [join(files, 'photo-1.png'), join(files, 'photo-2.png')] })).toMatch(/takes one file, not 2/);
    expect(await state('document.getElementById("file").files[0].name')).toBe('report.txt');
  });
});

describe('dialogs, navigation and tabs through MCP', () => {
  it('a confirm dialog opened by a click: the click returns, list_targets shows it, handle_dialog answers it', async () => {
    await reload(c, 'actions.html');
    await ok('capture', { target: c.target });
    const confirmNode = await node('Confirm', 'button');
    const t = performance.now();
    // The core's click tool (the gate passes the node's point; the browser reports the dialog).
    const clicked = await call('click', { target: c.target, node: confirmNode });
    expect(clicked.r.isError, clicked.text).toBeFalsy();
    expect(performance.now() - t).toBeLessThan(10_000);
    const listed = await ok('list_targets', { source: 'browser' });
    const tab = (listed.s.targets as { id: string; state?: string; details?: { dialog?: unknown } }[]).find((x) => x.id === c.target);
    expect(tab).toMatchObject({ state: 'dialog', details: { dialog: { type: 'confirm', message: 'Delete everything?' } } });
    expect(listed.text).toMatch(/\[dialog: A confirm dialog stops this page: call handle_dialog\.\]/);

    const answered = await ok('handle_dialog', { target: c.target, accept: true });
    expect(answered.d).toMatchObject({ accepted: true, handled: { type: 'confirm', message: 'Delete everything?' } });
    expect(answered.text).toMatch(/accepted the confirm "Delete everything\?"/);
    // What the page did next: the heading says so.
    expect(answered.s.changed).toBeDefined();
    expect(await state('window.state.confirmed')).toBe(true);
    expect(await refused('handle_dialog', { target: c.target, accept: true })).toMatch(/^INVALID_ARGUMENT: No dialog is open/);
  });

  it('navigate to a URL, back, forward and reload, waiting for the load; tabs new, select and close', async () => {
    const to = await ok('navigate', { target: c.target, url: c.srv.url('other.html') });
    expect(to.d).toMatchObject({ url: c.srv.url('other.html'), status: 200 });
    expect(to.s.navigated).toMatchObject({ url: c.srv.url('other.html') });
    const back = await ok('navigate', { target: c.target, action: 'back' });
    expect(back.d.url).toBe(c.srv.url('controls.html'));
    expect(await state('document.readyState')).toBe('complete');
    expect((await ok('navigate', { target: c.target, action: 'forward' })).d.url).toBe(c.srv.url('other.html'));
    expect((await ok('navigate', { target: c.target, action: 'reload', waitUntil: 'networkidle' })).d.url).toBe(c.srv.url('other.html'));
    const missing = await ok('navigate', { target: c.target, url: c.srv.url('missing.html') });
    expect(missing.d.status).toBe(404);
    expect(missing.text).toMatch(/HTTP 404/);
    expect(await refused('navigate', { target: c.target, url: 'javascript:alert(1)' })).toMatch(/^NOT_ALLOWED/);

    const opened = await ok('tabs', { action: 'new', url: c.srv.url('page.html') });
    const id = opened.d.target as string;
    expect(opened.text).toMatch(/New tab browser:[A-F0-9]+: "Sightline browser test page"\./);
    expect(opened.s.navigated).toBeUndefined();
    expect(id).toMatch(/^browser:[A-F0-9]+$/);
    expect(id).not.toBe(c.target);
    const list = (await ok('list_targets', { source: 'browser' })).s.targets as { id: string; title: string }[];
    expect(list.find((x) => x.id === id)?.title).toBe('Sightline browser test page');
    await ok('tabs', { action: 'select', target: id });
    await ok('tabs', { action: 'close', target: id });
    expect(((await ok('list_targets', { source: 'browser' })).s.targets as { id: string }[]).some((x) => x.id === id)).toBe(false);
  });
});

describe('hover and drag (browser mouse)', () => {
  it('hover shows a tooltip: the result names the element and the region that changed; a CSS-only effect is "unknown"', async () => {
    const { frame } = await capture(c);
    const help = await nodeNamed(c, frame, 'Help', 'button');
    const d = await act(c, { kind: 'hover', target: c.target, node: help });
    expect(d.outcome?.hit).toMatchObject({ role: 'button', name: 'Help' });
    const tip = await box(c, '#tip');
    expect(tip.width).toBeGreaterThan(0);
    const ch = d.outcome!.changed!;
    for (const k of ['x', 'y', 'width', 'height'] as const) expect(ch[k]).toBeCloseTo(tip[k], 1);

    const css = centre(await box(c, '#css'));
    const plain = await act(c, { kind: 'hover', target: c.target, frame, point: css });
    expect(plain.outcome?.changedUnknown).toBe(true);
    expect(await state('getComputedStyle(document.querySelector(".css-tip")).display')).toBe('inline');
  });

  it('drags a list item onto another (HTML5 drag and drop), by node and by points', async () => {
    const { frame } = await capture(c);
    const apple = await nodeNamed(c, frame, 'Apple');
    const cherry = await nodeNamed(c, frame, 'Cherry');
    const d = await act(c, { kind: 'drag', target: c.target, node: apple, toNode: cherry, durationMs: 200 });
    expect(await state('window.order()')).toBe('Banana,Cherry,Apple');
    expect(d.outcome?.hit).toMatchObject({ name: 'Apple' });
    expect(d.drop).toMatchObject({ name: 'Cherry' });
    expect(d.outcome?.changed).toBeDefined();

    const { frame: f2 } = await capture(c);
    const banana = centre(await box(c, '#item-b'));
    const appleNow = centre(await box(c, '#item-a'));
    await act(c, { kind: 'drag', target: c.target, frame: f2, point: banana, to: appleNow, durationMs: 150 });
    expect(await state('window.order()')).toBe('Cherry,Apple,Banana');
    expect(await state('window.state.drops')).toEqual(['item-a>item-c', 'item-b>item-a']);
  });
});
