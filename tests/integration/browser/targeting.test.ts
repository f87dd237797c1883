/**
 * Text aims pick what an agent means, on a real Chromium through a real MCP client: a `field`
 * is a text field (never a link or a button that reads the same), a label and its control are
 * one place, a click prefers a button or link to a heading, and a whole label beats a part of a
 * longer one. Several equal matches are listed with role, name and node, so the next call can
 * act on one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { evalIn, open, reload, type Ctx } from './kit.ts';

let c: Ctx;
let h: Harness;
let files: string;

beforeAll(async () => {
  files = mkdtempSync(join(tmpdir(), 'sightline-targeting-'));
  writeFileSync(join(files, 'invoice.pdf'), 'pdf');
  c = await open('signin.html');
  h = await startHarness({ sources: [c.source], settings: { sources: { browser: { enabled: true } }, files: { uploadRoots: [files] } } });
});

afterAll(async () => {
  await h?.close();
  await c?.close();
  if (files) rmSync(files, { recursive: true, force: true });
});

beforeEach(async () => {
  await reload(c, 'signin.html');
});

async function ok(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await h.call(name, { target: c.target, ...args });
  expect(r.isError, textOf(r)).toBeFalsy();
  return r.content.map((x) => (x.type === 'text' ? x.text : '')).join('\n');
}

async function refused(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await h.call(name, { target: c.target, ...args });
  expect(r.isError, textOf(r)).toBe(true);
  return textOf(r);
}

const value = (id: string): Promise<string> => evalIn<string>(c, `document.getElementById(${JSON.stringify(id)}).value`);

describe('text aims', () => {
  it('a field is a text field: "Password" is not the "Forgot password?" link, "Search" not the Search button', async () => {
    await ok('type_text', { field: 'Username', text: 'ada' });
    await ok('type_text', { field: 'Password', text: 'hunter2' });
    expect(await value('user')).toBe('ada');
    expect(await value('pw')).toBe('hunter2');
    // The search field is named by its aria-label only; its placeholder says something else.
    await ok('type_text', { field: 'Search', text: 'marmalade' });
    expect(await value('q')).toBe('marmalade');
    expect(await evalIn(c, 'window.state.clicks')).toEqual([]);
    // Text that is on screen but names no text field is refused, saying what it does name.
    expect(await refused('type_text', { field: 'Forgot', text: 'x' })).toMatch(/^NODE_NOT_FOUND: No text field "Forgot": it matches only link "Forgot password\?"/);
  });

  it('a click prefers the button to the heading that reads the same', async () => {
    await ok('click', { text: 'Sign in' });
    expect(await evalIn(c, 'window.state.clicks')).toEqual(['signin']);
  });

  it('a label and the control it labels are one place', async () => {
    await ok('upload_file', { text: 'Attachment', paths: [join(files, 'invoice.pdf')] });
    expect(await evalIn(c, 'document.getElementById("att").files[0].name')).toBe('invoice.pdf');
    await ok('select_option', { text: 'Country', label: 'Japan' });
    expect(await value('country')).toBe('jp');
    await ok('set_checked', { text: 'I agree to the terms', checked: true });
    expect(await evalIn(c, 'document.getElementById("terms").checked')).toBe(true);
    // A checkbox drawn hidden behind its label: the label is what is clicked.
    await ok('click', { text: 'Gift wrap' });
    expect(await evalIn(c, 'document.getElementById("gift").checked')).toBe(true);
  });

  it('equal matches are listed with role, name and node, and the next call acts on one by node', async () => {
    const text = await refused('click', { text: 'Delete' });
    // The paragraph that reads "Delete" is not listed: two buttons do something.
    const m = /^AMBIGUOUS_TEXT: "Delete" matches 2 places: 1\. button "Delete" node (\S+) at \(\d+, \d+\); 2\. button "Delete" node (\S+) at \(\d+, \d+\)\./.exec(text);
    expect(m, text).not.toBeNull();
    expect(text).toMatch(/Hint: Act on one by its node/);
    await ok('click', { node: m![2] });
    expect(await evalIn(c, 'window.state.clicks')).toEqual(['del2']);
    await ok('click', { text: 'Delete', index: 1 });
    expect(await evalIn(c, 'window.state.clicks')).toEqual(['del2', 'del1']);
  });
});

describe('fill_form', () => {
  it('sets a text field, a drop-down, a checkbox, a radio, a file and a text area in one call, by label or node', async () => {
    const text = await ok('fill_form', {
      fields: [
        { label: 'Full name', value: 'Ada Lovelace' },
        { label: 'Country', value: 'Peru' },
        { label: 'I agree to the terms', value: true },
        { label: 'Gift wrap', value: true },
        { label: 'Express', value: true },
        { label: 'Attachment', value: [join(files, 'invoice.pdf')] },
        { label: 'Comment', value: 'Leave at the door' },
      ],
    });
    expect(text).toMatch(/^fill_form: ok\./);
    expect(text).toMatch(/Filled 7: "Full name" = "Ada Lovelace", "Country" = "Peru", "I agree to the terms" = "true", "Gift wrap" = "true", "Express" = "true", "Attachment" = "invoice.pdf", "Comment" = "Leave at the door"\./);
    await ok('click', { text: 'Place order' });
    expect(await evalIn(c, 'window.state.order')).toEqual({ name: 'Ada Lovelace', country: 'pe', terms: true, gift: true, ship: 'express', files: ['invoice.pdf'], comment: 'Leave at the door' });
  });

  it('replaces what a field held, takes an option by its value, and never shows a password', async () => {
    await ok('type_text', { field: 'Username', text: 'old' });
    const text = await ok('fill_form', { fields: [{ label: 'Username', value: 'ada' }, { label: 'Password', value: 'hunter2' }, { label: 'Country', value: 'jp' }] });
    expect(text).toMatch(/"Password" = \(hidden\)/);
    expect(text).not.toMatch(/hunter2/);
    expect(await value('user')).toBe('ada');
    expect(await value('pw')).toBe('hunter2');
    expect(await value('country')).toBe('jp');
    const log = h.core.catalog.activity.list({ tool: 'fill_form' });
    expect(log.length).toBeGreaterThan(0);
    expect(JSON.stringify(log)).not.toMatch(/hunter2/);
  });

  it('refuses a value of the wrong kind, or a label that names no field, before touching anything', async () => {
    expect(await refused('fill_form', { fields: [{ label: 'Full name', value: 'Ada' }, { label: 'I agree to the terms', value: 'yes' }] })).toMatch(/^INVALID_ARGUMENT: Field "I agree to the terms" is checkbox .*: its value is true or false/);
    expect(await refused('fill_form', { fields: [{ label: 'Full name', value: 'Ada' }, { label: 'Forgot', value: 'x' }] })).toMatch(/^NODE_NOT_FOUND: Field "Forgot": No form control "Forgot": it matches only link "Forgot password\?"/);
    expect(await refused('fill_form', { fields: [{ value: 'Ada' }] })).toMatch(/^INVALID_ARGUMENT: fields\[0\]: give "label" or "node"/);
    expect(await value('fullname')).toBe('');
  });
});

describe('find_text', () => {
  it('gives the box of the words found, not of the line around them', async () => {
    const r = await h.call('find_text', { target: c.target, text: 'marmalade' });
    expect(r.isError, textOf(r)).toBeFalsy();
    const found = r.structuredContent as { frameRef: string; matches: { box: { x: number; y: number; width: number; height: number }; node?: string }[] };
    expect(found.matches).toHaveLength(1);
    const frame = h.core.frames.get(found.frameRef);
    const word = await evalIn<{ x: number; width: number }>(c, `(() => { const p = document.getElementById('note'); const t = p.firstChild; const i = t.data.indexOf('marmalade'); const r = document.createRange(); r.setStart(t, i); r.setEnd(t, i + 9); const b = r.getBoundingClientRect(); return { x: b.x, width: b.width }; })()`);
    const line = await evalIn<{ width: number }>(c, `({ width: document.getElementById('note').getBoundingClientRect().width })`);
    const box = found.matches[0]!.box;
    // Image px of the frame against the word's own CSS box: within a pixel or two of the scale.
    expect(Math.abs(box.x - word.x / frame.scale)).toBeLessThanOrEqual(2);
    expect(Math.abs(box.width - word.width / frame.scale)).toBeLessThanOrEqual(2);
    expect(box.width).toBeLessThan(line.width / frame.scale / 4);
    // A phrase across a link's edge is the union of its words.
    const phrase = (await h.call('find_text', { target: c.target, text: 'on our terms' })).structuredContent as typeof found;
    expect(phrase.matches).toHaveLength(1);
    expect(phrase.matches[0]!.box.width).toBeLessThan(line.width / frame.scale / 3);
  });
});

