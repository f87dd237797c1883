/**
 * Actions an agent can trust, on fake devices through the real adb server: node ids that
 * stay valid across dumps and follow their element, nodes found again and scrolled into view before
 * a tap, NODE_NOT_FOUND for what is gone, what a tap hit, what received typed text and its value
 * read back, NO_FOCUSED_INPUT, the keyboard, readText, and drags chosen by SDK.
 */
import { ready } from '../../../src/main/core/sources/aim.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSightlineError, type SightlineError } from '../../../src/shared/errors.ts';
import { createAndroidSource, type AndroidSource } from '../../../src/main/core/sources/android/androidSource.ts';
import type { AndroidFrameState } from '../../../src/main/core/sources/android/screen.ts';
import type { AfterMode, SourceAction as AnyAction, StoredFrame } from '../../../src/main/core/sources/source.ts';
import { ROW_HEIGHT, type FakeAdbDevice } from '../../support/fakeAdbDevice.ts';
import { signal, startAdb, type AdbHarness } from './harness.ts';

type SourceAction = AnyAction<AndroidFrameState>;
let h: AdbHarness;
let source: AndroidSource;

beforeEach(async () => {
  h = await startAdb();
  source = createAndroidSource({ settings: {}, env: h.env });
});
afterEach(async () => {
  await source.dispose?.();
  await h.stop();
});

async function rejection(p: Promise<unknown>): Promise<SightlineError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  if (!isSightlineError(e)) throw new Error(`expected a SightlineError, got ${String(e)}`);
  return e;
}

/** A frame as the core stores it (only what the source reads: target, size, state, time). */
async function frameOf(d: FakeAdbDevice): Promise<StoredFrame<AndroidFrameState>> {
  const cap = await source.screen.capture(`android:${d.serial}`, { maxDimension: 1000, format: 'jpeg', quality: 70, raw: false, signal: signal() });
  return { ref: `f-${Math.random()}`, source: 'android', target: cap.target, capturedAt: new Date().toISOString(), image: { width: 450, height: 1000 }, sourceSize: cap.sourceSize, origin: cap.origin, scale: cap.sourceSize.width / 450, state: cap.state };
}

const tree = async (d: FakeAdbDevice) => source.tree.uiTree(`android:${d.serial}`, await frameOf(d), { maxNodes: 500, signal: signal() });
const act = (a: SourceAction, after?: AfterMode) => source.input.perform(ready(a, after), signal());
const click = (d: FakeAdbDevice, aim: { node?: string; point?: { x: number; y: number }; frame?: StoredFrame<AndroidFrameState> }, after?: AfterMode) =>
  act({ kind: 'click', target: `android:${d.serial}`, button: 'left', clicks: 1, modifiers: [], ...aim }, after);
const dumps = (d: FakeAdbDevice): number => d.services.filter((s) => s.includes('uiautomator dump')).length;

/** A screen of our own: an optional banner pushes an OK button (box off the pixel grid of any image) down by 300 px. */
function shiftingScreen(state: { banner: boolean; ok: boolean }) {
  return (d: FakeAdbDevice): string => {
    const dy = state.banner ? 300 : 0;
    const kids = [
      ...(state.banner ? [`<node index="0" text="Update available" resource-id="" class="android.widget.TextView" package="com.example.fake" content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,300]" />`] : []),
      ...(state.ok ? [`<node index="${state.banner ? 1 : 0}" text="OK" resource-id="com.example.fake:id/ok" class="android.widget.Button" package="com.example.fake" content-desc="" clickable="true" enabled="true" bounds="[101,${203 + dy}][356,${428 + dy}]" />`] : []),
    ].join('');
    return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="${d.rotation}"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.fake" content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,2400]">${kids}</node></hierarchy>`;
  };
}

describe('node ids are handles', () => {
  it('an id stays valid across dumps and a layout shift; a click finds the element and presses its current centre exactly', async () => {
    const state = { banner: false, ok: true };
    const d = await h.device({ uiXml: shiftingScreen(state) });
    const ok = (await tree(d)).find((n) => n.name === 'OK')!;
    expect(ok.bounds).toEqual({ x: 101, y: 203, width: 255, height: 225 });
    state.banner = true;
    const r = await click(d, { node: ok.id });
    // The true centre of [101,503][356,728], not rounded: input takes floats.
    expect(d.inputs).toEqual([{ kind: 'tap', x: 228.5, y: 615.5 }]);
    expect(r).toMatchObject({ point: { x: 228.5, y: 615.5 }, outcome: { hit: { role: 'android.widget.Button', name: 'OK', node: ok.id }, changedUnknown: true } });
    // The next tree hands out the same id for the same element.
    expect((await tree(d)).find((n) => n.name === 'OK')!.id).toBe(ok.id);

    state.ok = false;
    const gone = await rejection(click(d, { node: ok.id }));
    expect(gone).toMatchObject({ code: 'NODE_NOT_FOUND', message: expect.stringMatching(/is gone/), hint: expect.stringMatching(/get_ui_tree/) });
    expect((await rejection(click(d, { node: 'zzz9' }))).message).toMatch(/not a node id of android:/);
    expect(d.inputs).toHaveLength(1);
  });

  it('a row scrolled out of its list is scrolled back into view (motion events, no fling) and tapped', async () => {
    const d = await h.device();
    d.ui.screen = 'list';
    const nodes = await tree(d);
    const row2 = nodes.find((n) => n.name === 'Item 2')!.parentId!;
    d.ui.scroll = 8 * ROW_HEIGHT; // the user scrolled on
    const r = await click(d, { node: row2 });
    expect(d.ui.pressed).toEqual(['Item 2']);
    expect(r.outcome).toMatchObject({ remapped: `scrolled 1 time to bring node ${row2} into view`, hit: { node: row2 } });
    expect(d.inputs.filter((i) => i.kind === 'motion').map((i) => (i as { action: string }).action)).toEqual(['DOWN', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'MOVE', 'UP']);

    // Half of it clipped at the top: scrolled until it shows, then pressed at its centre.
    d.ui.scroll = ROW_HEIGHT + 100;
    const half = await click(d, { node: row2 });
    expect(d.ui.pressed).toEqual(['Item 2', 'Item 2']);
    expect(half.point!.y - 240 + d.ui.scroll).toBe(ROW_HEIGHT + ROW_HEIGHT / 2);

    // Far away (no row in common with the last dump): nothing says where it went.
    d.ui.scroll = 20 * ROW_HEIGHT;
    expect((await rejection(click(d, { node: row2 }))).code).toBe('NODE_NOT_FOUND');
  });

  it('on Android 9 the scroll into view is a slow input swipe', async () => {
    const d = await h.device({ sdk: 28 });
    d.ui.screen = 'list';
    const row2 = (await tree(d)).find((n) => n.name === 'Item 2')!.parentId!;
    d.ui.scroll = 8 * ROW_HEIGHT;
    await click(d, { node: row2 });
    expect(d.ui.pressed).toEqual(['Item 2']);
    expect(d.inputs[0]).toMatchObject({ kind: 'swipe', ms: 600 });
    expect(d.services.some((s) => s.includes('motionevent'))).toBe(false);
  });
});

describe('outcomes', () => {
  it('a tap reports the node under it from a dump not older than its frame, and that the keyboard appeared', async () => {
    const d = await h.device();
    const nodes = await tree(d);
    const field = nodes.find((n) => n.role === 'android.widget.EditText')!;
    const frame = { ...(await frameOf(d)), capturedAt: new Date(Date.now() - 60_000).toISOString() };
    const r = await click(d, { point: { x: 540, y: 552 }, frame });
    expect(r).toMatchObject({ outcome: { hit: { role: 'android.widget.EditText', name: 'com.example.fake:id/query', node: field.id }, keyboardShown: true }, note: 'tap; the keyboard appeared' });
    // A frame newer than any dump: the tree may not show what was tapped, so no hit is claimed.
    const fresh = await frameOf(d);
    expect((await click(d, { point: { x: 540, y: 1200 }, frame: fresh })).outcome).toEqual({ keyboardShown: true, changedUnknown: true });
    const before = d.services.length;
    expect(await click(d, { point: { x: 540, y: 1200 }, frame: fresh }, 'none')).toEqual({ command: 'input tap 540 1200', note: 'tap', point: { x: 540, y: 1200 } });
    expect(d.services.slice(before).filter((s) => !s.includes('wm size'))).toEqual(['shell:input tap 540 1200; echo "__sl_rc=$?"']);
  });

  it('type_text into a node: the field that received it, its value read back, the keyboard; clear and submit', async () => {
    const d = await h.device();
    const field = (await tree(d)).find((n) => n.role === 'android.widget.EditText')!;
    const target = `android:${d.serial}`;
    const r = await act({ kind: 'type_text', target, node: field.id, text: 'hello world' });
    expect(r.outcome).toEqual({ received: { role: 'android.widget.EditText', name: 'hello world', node: field.id, value: 'hello world', valueMatches: true }, keyboardShown: true, changedUnknown: true });
    expect(r.note).toBe('the keyboard appeared');

    // Replace it (Ctrl+A, DEL on Android 12+) and press Enter.
    const again = await act({ kind: 'type_text', target, text: 'new', clear: true, submit: true });
    expect(again.outcome?.received).toMatchObject({ node: field.id, value: 'new', valueMatches: true });
    expect(d.ui.submitted).toEqual(['new']);
    expect(d.inputs.filter((i) => i.kind === 'combo')).toEqual([{ kind: 'combo', codes: [113, 29] }]);

    // The app shows something else than what was typed: said, not hidden.
    const shown = d.uiXml().replace('text="new"', 'text="ne"');
    d.failNext(/uiautomator dump/, { output: shown });
    const differs = await act({ kind: 'type_text', target, text: 'w' });
    expect(differs.outcome?.received).toMatchObject({ value: 'ne', valueMatches: false });
    expect(differs.note).toMatch(/the field shows "ne", not what was typed/);

    // after: none reads nothing back.
    const dumped = dumps(d);
    expect((await act({ kind: 'type_text', target, text: '!' }, 'none')).outcome).toBeUndefined();
    expect(dumps(d)).toBe(dumped);
  });

  it('clears on Android 9 by deleting as many characters as the field holds', async () => {
    const d = await h.device({ sdk: 28 });
    d.ui.values.set('com.example.fake:id/query', 'old text');
    const field = (await tree(d)).find((n) => n.role === 'android.widget.EditText')!;
    const r = await act({ kind: 'type_text', target: `android:${d.serial}`, node: field.id, text: 'fresh', clear: true });
    expect(r.outcome?.received).toMatchObject({ value: 'fresh', valueMatches: true });
    expect(d.inputs.filter((i) => i.kind === 'key').map((i) => (i as { code: number }).code)).toEqual([123, ...Array(8).fill(67)]);
  });

  it('NO_FOCUSED_INPUT when nothing editable has focus; a hardware keyboard is settled by the served view, else by a dump', async () => {
    const d = await h.device();
    const target = `android:${d.serial}`;
    const e = await rejection(act({ kind: 'type_text', target, text: 'lost' }));
    expect(e).toMatchObject({ code: 'NO_FOCUSED_INPUT', hint: expect.stringMatching(/Tap the field first/) });
    expect(d.inputs).toEqual([]);

    d.ui.hardwareKeyboard = true;
    await click(d, { point: { x: 540, y: 552 } }, 'none');
    let dumped = dumps(d);
    await act({ kind: 'type_text', target, text: 'typed' }, 'none');
    expect([d.ui.values.get('com.example.fake:id/query'), dumps(d) - dumped]).toEqual(['typed', 0]);

    d.ui.servedView = false; // a build whose dumpsys does not name the served view: one dump decides
    dumped = dumps(d);
    await act({ kind: 'type_text', target, text: '+' }, 'none');
    expect([d.ui.values.get('com.example.fake:id/query'), dumps(d) - dumped]).toEqual(['typed+', 1]);
  });

  it('readText lists labels with device-px boxes and node ids; findText ranks them', async () => {
    const d = await h.device();
    const items = await source.text.readText(`android:${d.serial}`, signal());
    expect(items.map((i) => i.text)).toEqual(['Wi-Fi & “network” é', 'OK', 'Settings']);
    const ok = items[1]!;
    expect(ok).toMatchObject({ bounds: { x: 324, y: 1080, width: 432, height: 240 }, confidence: 1 });
    await click(d, { node: ok.node! });
    expect(d.ui.pressed).toEqual(['OK']);
    const found = await source.text.findText(`android:${d.serial}`, 'ok', { signal: signal() });
    expect(found.chosen?.target.id).toBe(ok.node);
  });
});

describe('drag and hover', () => {
  const drag = (d: FakeAdbDevice, holdMs?: number) =>
    act({ kind: 'drag', target: `android:${d.serial}`, point: { x: 100, y: 1500 }, to: { x: 100, y: 900 }, durationMs: 300, ...(holdMs !== undefined ? { holdMs } : {}) });

  it('Android 11+: motion events with the hold asked for; where motionevent is missing, draganddrop from then on', async () => {
    const d = await h.device();
    const r = await drag(d, 700);
    expect(r).toMatchObject({ method: 'motionevent', note: 'drag by motion events, held 700 ms' });
    expect(d.inputs.at(0)).toEqual({ kind: 'motion', action: 'DOWN', x: 100, y: 1500 });
    expect(d.inputs.at(-1)).toEqual({ kind: 'motion', action: 'UP', x: 100, y: 900 });
    expect(d.services.find((s) => s.includes('motionevent DOWN'))).toMatch(/DOWN 100 1500 && sleep 0.7 && input motionevent MOVE/);

    d.inputs.length = 0;
    d.failNext(/motionevent DOWN/, { output: 'Error: Unknown command: motionevent\n__sl_rc=1\n' });
    expect(await drag(d, 700)).toMatchObject({ method: 'draganddrop' });
    expect(await drag(d, 700)).toMatchObject({ method: 'draganddrop' });
    expect(d.inputs).toEqual([
      { kind: 'drag', x1: 100, y1: 1500, x2: 100, y2: 900, ms: 300 },
      { kind: 'drag', x1: 100, y1: 1500, x2: 100, y2: 900, ms: 300 },
    ]);
  });

  it('Android 9: draganddrop for a long-press drag, a swipe without; Android 6 refuses a long-press drag; hover is unsupported', async () => {
    const p = await h.device({ sdk: 28 });
    expect(await drag(p, 500)).toMatchObject({ method: 'draganddrop' });
    expect(await drag(p)).toMatchObject({ method: 'swipe' });
    expect(p.inputs.map((i) => i.kind)).toEqual(['drag', 'swipe']);
    const old = await h.device({ sdk: 23 });
    expect(await rejection(drag(old, 500))).toMatchObject({ code: 'UNSUPPORTED', message: expect.stringMatching(/Android 7/) });
    expect(old.inputs).toEqual([]);
    const hover = await rejection(act({ kind: 'hover', target: `android:${old.serial}`, point: { x: 1, y: 1 } }));
    expect(hover).toMatchObject({ code: 'UNSUPPORTED', hint: expect.stringMatching(/click/) });
  });

  it('drags a node onto another node', async () => {
    const d = await h.device();
    d.ui.screen = 'list';
    const nodes = await tree(d);
    const row = nodes.find((n) => n.name === 'Item 3')!.parentId!;
    const done = nodes.find((n) => n.name === 'Done')!.id;
    const r = await act({ kind: 'drag', target: `android:${d.serial}`, node: row, toNode: done, durationMs: 300, holdMs: 500 });
    expect(r.point).toEqual({ x: 540, y: 240 + 2.5 * ROW_HEIGHT });
    expect(d.inputs.at(-1)).toEqual({ kind: 'motion', action: 'UP', x: 540, y: 2280 });
  });
});
