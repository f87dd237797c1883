/** Routines from the activity log, checked files, the replay's element matching and inputs, as pure functions. */
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../../src/shared/activity.ts';
import { buildRoutine } from '../../../src/main/core/routines/build.ts';
import { parseRoutine } from '../../../src/main/core/routines/format.ts';
import { matches, ocrMatches, resolveInputs } from '../../../src/main/core/routines/replay.ts';
import type { TextItem } from '../../../src/main/core/sources/source.ts';

const box = { x: 0, y: 0, width: 10, height: 10 };
let id = 0;
const entry = (e: Partial<ActivityEntry>): ActivityEntry => ({ id: ++id, at: '2026-01-01T00:00:00Z', tool: 'click', result: 'ok', durationMs: 1, source: 'browser', target: 'browser:T1', targetLabel: { document: 'https://shop.example/cart?x=1' }, ...e });

describe('a routine built from the activity log', () => {
  it('aims by what the element is, keeps the page reached, and makes secrets and form values inputs', () => {
    const r = buildRoutine(
      [
        entry({ tool: 'type_text', params: { target: 'browser:T1', field: 'Email', text: 'a@b.c' }, outcome: { received: { role: 'textbox', name: 'Email' } } }),
        entry({ tool: 'type_text', params: { target: 'browser:T1', node: 'n7', text: '[9 characters for a password field]' }, outcome: { received: { role: 'textbox', name: 'Password', password: true } } }),
        entry({ tool: 'click', result: 'NODE_NOT_FOUND', params: { text: 'Nope' } }),
        entry({ tool: 'scroll', params: { deltaY: 300 } }),
        entry({ tool: 'fill_form', params: { fields: [{ label: 'Card number', value: '(16 characters)' }, { label: 'Gift', value: true }] } }),
        entry({ tool: 'click', params: { x: 10, y: 20 }, outcome: { hit: { role: 'button', name: 'Pay' }, navigated: { url: 'https://shop.example/done?id=9#top' } } }),
      ],
      { name: 'pay', from: { run: 'r1' }, inputs: { email: 1 } },
    );
    expect(r.target).toEqual({ source: 'browser', origin: 'https://shop.example' });
    expect(r.steps.map((s) => s.kind)).toEqual(['type_text', 'type_text', 'fill_form', 'click']);
    expect(r.steps[0]).toMatchObject({ aim: { role: 'textbox', name: 'Email', purpose: 'field' }, params: { text: { input: 'email' } } });
    expect(r.steps[1]).toMatchObject({ aim: { name: 'Password', purpose: 'field' }, params: { text: { input: 'password' } } });
    expect(r.steps[1]!.expect).toBeUndefined();
    expect(r.steps[2]!.params.fields).toEqual([{ label: 'Card number', value: { input: 'card_number' } }, { label: 'Gift', value: true }]);
    expect(r.steps[3]).toMatchObject({ aim: { role: 'button', name: 'Pay', purpose: 'control' }, params: {}, expect: { url: 'https://shop.example/done' } });
    expect(r.inputs).toEqual([
      expect.objectContaining({ name: 'password', secret: true }),
      expect.objectContaining({ name: 'card_number', secret: true }),
      expect.objectContaining({ name: 'email', secret: false, default: 'a@b.c' }),
    ]);
    expect(JSON.stringify(r)).not.toMatch(/"node"|"x":|n7/);
    // It reads back as it was written.
    expect(parseRoutine(JSON.stringify(r), 'pay.json')).toEqual(r);
  });

  it('refuses a point with nothing named there, and actions on two targets', () => {
    expect(() => buildRoutine([entry({ params: { x: 1, y: 2 } })], { name: 'a', from: {} })).toThrow(/aimed at a point whose element has no name/);
    expect(() => buildRoutine([entry({ params: { text: 'A' } }), entry({ target: 'browser:T2', params: { text: 'B' } })], { name: 'a', from: {} })).toThrow(/2 targets/);
  });
});

describe('a routine file', () => {
  it('must declare every input a step reads, and never give a secret a default', () => {
    const base = { format: 'sightline-routine', version: 1, name: 'r', createdAt: 'now', target: { source: 'browser', origin: 'https://a.example' } };
    const step = { kind: 'type_text', params: { text: { input: 'pin' } } };
    expect(() => parseRoutine(JSON.stringify({ ...base, inputs: [], steps: [step] }), 'r.json')).toThrow(/step 1 reads input "pin"/);
    expect(() => parseRoutine(JSON.stringify({ ...base, inputs: [{ name: 'pin', secret: true, default: '1234' }], steps: [step] }), 'r.json')).toThrow(/secret input has no default/);
    expect(() => parseRoutine(JSON.stringify({ ...base, version: 2, inputs: [], steps: [step] }), 'r.json')).toThrow(/version/);
    expect(() => parseRoutine(JSON.stringify({ ...base, inputs: [], steps: [{ kind: 'click', params: { x: 1, y: 2 } }] }), 'r.json')).toThrow(/names no target, ref, x, y, node/);
  });

  it('refuses a missing input before anything, naming it', () => {
    const r = parseRoutine(
      JSON.stringify({ format: 'sightline-routine', version: 1, name: 'r', createdAt: 'now', target: { source: 'browser', origin: 'https://a.example' }, inputs: [{ name: 'pin', secret: true }, { name: 'who', secret: false, default: 'me' }], steps: [{ kind: 'type_text', params: { text: { input: 'pin' } } }, { kind: 'type_text', params: { text: { input: 'who' } } }] }),
      'r.json',
    );
    expect(() => resolveInputs(r, {})).toThrow(/needs "pin": nothing was done/);
    expect([...resolveInputs(r, { pin: '1' })]).toEqual([['pin', '1'], ['who', 'me']]);
    expect(() => resolveInputs(r, { pin: '1', nope: '2' })).toThrow(/no input "nope"/);
  });
});

describe('the element a step aims at', () => {
  const item = (text: string, node: string, more: Partial<TextItem> = {}): TextItem => ({ text, node, bounds: box, ...more });
  it('is the one whose whole name is the step\'s, a field only among text fields, the role narrowing several', () => {
    const items = [item('Place order', 'b1', { role: 'button', actionable: true }), item('Place order now', 'b2', { role: 'button', actionable: true }), item('Place order', 'h1', { role: 'heading' })];
    expect(matches(items, { name: 'place ORDER', purpose: 'control' }).map((i) => i.node)).toEqual(['b1']);
    expect(matches([item('Email', 'l1', { role: 'text' }), item('', 'i1', { label: 'Email', editable: true })], { name: 'Email', purpose: 'field' }).map((i) => i.node)).toEqual(['i1']);
    expect(matches([item('OK', 'a', { role: 'button', actionable: true }), item('OK', 'b', { role: 'button', actionable: true })], { role: 'button', name: 'OK', purpose: 'control' })).toHaveLength(2);
    expect(matches([item('Send', 'a', { role: 'button' })], { name: 'Submit', purpose: 'control' })).toHaveLength(0);
    // Android's text names a class by its short name, an action's hit by its full one.
    const two = [item('Sign in', 'v1', { role: 'TextView' }), item('Sign in', 'v2', { role: 'Button' })];
    expect(matches(two, { role: 'android.widget.Button', name: 'Sign in', purpose: 'control' }).map((i) => i.node)).toEqual(['v2']);
  });

  it('read by OCR, is the aim\'s name as whole words, never a near miss or a part of a word', () => {
    const line = (text: string, y: number): TextItem => ({ text, bounds: { x: 0, y, width: 100, height: 10 } });
    expect(ocrMatches([line('Click me', 0), line('Clicked', 20)], { name: 'click me', purpose: 'control' })).toHaveLength(1);
    expect(ocrMatches([line('Click rne', 0)], { name: 'Click me', purpose: 'control' })).toHaveLength(0);
    expect(ocrMatches([line('Save', 0), line('Save as', 20)], { name: 'Save', purpose: 'control' })).toHaveLength(2);
  });
});

describe('an Android routine', () => {
  it('that starts by launching an app acts on that app, whatever was in front when it was recorded', () => {
    const on = { source: 'android' as const, target: 'android:emulator-5554', targetLabel: { app: 'com.android.launcher3' } };
    const r = buildRoutine([entry({ ...on, tool: 'launch_app', params: { target: on.target, package: 'com.example.notes' } }), entry({ ...on, params: { text: 'New note' }, outcome: { hit: { role: 'android.widget.Button', name: 'New note' } } })], { name: 'notes', from: {} });
    expect(r.target).toEqual({ source: 'android', package: 'com.example.notes' });
    expect(r.steps[0]).toEqual({ kind: 'launch_app', params: { package: 'com.example.notes' } });
    expect(buildRoutine([entry({ ...on, params: { text: 'New note' } })], { name: 'home', from: {} }).target).toEqual({ source: 'android', package: 'com.android.launcher3' });
  });
});
