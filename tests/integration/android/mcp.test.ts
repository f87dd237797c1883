/**
 * The Android module through an MCP client (the SDK's, in memory) against the built-in module, the
 * real core and a fake device behind the real adb server: a node click lands on the node's true
 * centre at a non-integer scale, and the module's own tools (apps, links, installs, orientation)
 * pass the core's action gate and say what happened.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { androidModule } from '../../../src/main/core/sources/android/module.ts';
import { fakeApk, type FakeAdbDevice } from '../../support/fakeAdbDevice.ts';
import { startHarness, tempDir, textOf, type Harness } from '../../support/mcpHarness.ts';
import { startAdb, type AdbHarness } from './harness.ts';

let h: AdbHarness;
let mcp: Harness;
let uploads: string;

beforeEach(async () => {
  h = await startAdb();
  uploads = tempDir('sightline-uploads-');
  mcp = await startHarness({ env: h.env, modules: [androidModule], settings: { files: { uploadRoots: [uploads] } } });
});
afterEach(async () => {
  await mcp.close();
  await h.stop();
});

const ok = (r: CallToolResult): CallToolResult => {
  if (r.isError) throw new Error(textOf(r));
  return r;
};
const data = (r: CallToolResult): Record<string, unknown> => ok(r).structuredContent as Record<string, unknown>;
/** A module action's answer: the gate's result, the device's facts in `details`. */
const facts = (r: CallToolResult): Record<string, unknown> => {
  const s = data(r);
  return { note: s.note, ...(s.details as Record<string, unknown>) };
};

/** An OK button whose box is off every pixel grid: [101,203][356,428], centre (228.5, 315.5). */
const offGrid = (d: FakeAdbDevice): string =>
  `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="${d.rotation}"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.fake" content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,2400]"><node index="0" text="OK" resource-id="com.example.fake:id/ok" class="android.widget.Button" package="com.example.fake" content-desc="" clickable="true" enabled="true" bounds="[101,203][356,428]" /></node></hierarchy>`;

it('a node click lands within 0.5 px of the node’s true centre at a non-integer scale (2.4 device px per image px)', async () => {
  const d = await h.device({ uiXml: offGrid });
  const target = `android:${d.serial}`;
  const frame = data(await mcp.call('capture', { target })).frame as { scale: number };
  expect(frame.scale).toBe(2.4);
  const nodes = data(await mcp.call('get_ui_tree', { target })).nodes as { id: string; name: string; bounds: { x: number; y: number; width: number; height: number } }[];
  const button = nodes.find((n) => n.name === 'OK')!;
  // In image pixels the box is rounded (42,85 106×94): a centre read from it would land up to 1.2 device px off.
  expect(button.bounds).toEqual({ x: 42, y: 85, width: 106, height: 94 });
  ok(await mcp.call('click', { target, node: button.id }));
  const tap = d.inputs.at(-1) as { x: number; y: number };
  expect(Math.abs(tap.x - 228.5)).toBeLessThanOrEqual(0.5);
  expect(Math.abs(tap.y - 315.5)).toBeLessThanOrEqual(0.5);
  expect(tap).toEqual({ kind: 'tap', x: 228.5, y: 315.5 });
});

it('list_apps, launch_app, stop_app, open_url: what is installed, which activity is in front after', async () => {
  const d = await h.device();
  const target = `android:${d.serial}`;
  // With no device the device tools are not listed; the next health check (every 30 s) lists them.
  await mcp.core.sources.health();
  const tools = (await mcp.client.listTools()).tools.map((t) => t.name);
  expect(tools).toEqual(expect.arrayContaining(['swipe', 'list_apps', 'launch_app', 'stop_app', 'open_url', 'install_apk', 'set_orientation']));

  expect(data(await mcp.call('list_apps', { target }))).toEqual({ target, count: 3, apps: ['com.example.fake', 'com.example.notes', 'com.example.widget'].map((p) => ({ package: p, system: false })) });
  expect((data(await mcp.call('list_apps', { target, system: true, filter: 'COM.android' })).apps as { package: string }[]).map((a) => a.package)).toEqual(['com.android.chrome', 'com.android.launcher3', 'com.android.settings', 'com.android.systemui']);

  const launched = await mcp.call('launch_app', { target, package: 'com.example.notes' });
  expect(textOf(ok(launched))).toBe(`launch_app: ok (com.example.notes/.NotesActivity in front (cold start, 412 ms)).`);
  expect(launched.structuredContent).toMatchObject({ ok: true, details: { package: 'com.example.notes', activity: 'com.example.notes/.NotesActivity', foreground: 'com.example.notes/.NotesActivity', launchState: 'COLD', totalTimeMs: 412 } });
  expect(textOf(ok(await mcp.call('launch_app', { target, package: 'com.example.notes' })))).toMatch(/in front \(was running: brought to the front\)/);
  const missing = await mcp.call('launch_app', { target, package: 'com.example.missing' });
  expect(textOf(missing)).toMatch(/^INVALID_ARGUMENT: com.example.missing is not installed/);

  expect(textOf(ok(await mcp.call('stop_app', { target, package: 'com.example.notes' })))).toBe(`stop_app: ok (stopped com.example.notes; com.android.launcher3/.uioverride.QuickstepLauncher in front).`);
  expect(d.apps.stopped).toEqual(['com.example.notes']);

  const opened = await mcp.call('open_url', { target, url: 'https://example.com/a?b=c' });
  expect(facts(opened)).toMatchObject({ url: 'https://example.com/a?b=c', foreground: 'com.android.chrome/com.google.android.apps.chrome.Main', chooser: false });
  d.apps.add({ name: 'org.mozilla.firefox', launchers: ['org.mozilla.fenix.HomeActivity'], opens: ['https:'] });
  expect(textOf(ok(await mcp.call('open_url', { target, url: 'https://example.com/' })))).toMatch(/chooser is in front/);
  expect(textOf(ok(await mcp.call('open_url', { target, url: 'fake://item/1', package: 'com.example.fake', wait: false })))).toMatch(/opened in com.example.fake\/.MainActivity/);
});

it('the allowlist judges launch_app and stop_app by the package they name, not the app in front', async () => {
  const d = await h.device();
  const target = `android:${d.serial}`;
  mcp.core.settings.update({ input: { allowlist: ['com.example.notes'] } });
  // The launcher is in front and is not allowed; the app being started is.
  expect(textOf(ok(await mcp.call('launch_app', { target, package: 'com.example.notes' })))).toMatch(/NotesActivity in front/);
  expect(textOf(ok(await mcp.call('stop_app', { target, package: 'com.example.notes' })))).toMatch(/stopped com.example.notes/);
  const refused = await mcp.call('launch_app', { target, package: 'com.example.widget' });
  expect(textOf(refused)).toBe('NOT_ALLOWED: Input to com.example.widget (android) is not in the input allowlist. Hint: The user can add "com.example.widget" to input.allowlist in settings.');
  expect(d.apps.stopped).toEqual(['com.example.notes']);
});

it('hover on a touch screen says why not and what to do instead', async () => {
  const d = await h.device();
  const target = `android:${d.serial}`;
  await mcp.call('capture', { target });
  expect(textOf(await mcp.call('hover', { target, x: 10, y: 10 }))).toBe('UNSUPPORTED: Android touch screens have no hover. Hint: Tap with click, long-press with click holdMs, or read the node with get_ui_tree.');
  expect(d.inputs).toEqual([]);
});

it('install_apk takes files inside files.uploadRoots only; set_orientation reads the rotation back; the gate applies', async () => {
  const d = await h.device();
  const target = `android:${d.serial}`;
  const apk = join(uploads, 'app.apk');
  writeFileSync(apk, fakeApk('com.example.installed'));
  expect(facts(await mcp.call('install_apk', { target, path: apk }))).toMatchObject({ note: 'installed com.example.installed from app.apk', packages: ['com.example.installed'], file: 'app.apk' });
  expect(d.apps.installs.at(-1)).toMatchObject({ package: 'com.example.installed', result: 'Success' });
  expect([...d.files.keys()]).toEqual([]);

  const outside = join(tempDir('sightline-elsewhere-'), 'x.apk');
  writeFileSync(outside, fakeApk('com.example.x'));
  expect(textOf(await mcp.call('install_apk', { target, path: outside }))).toMatch(/^PATH_REFUSED: .* is not inside a folder allowed for APKs/);
  mkdirSync(join(uploads, 'sub'));
  writeFileSync(join(uploads, 'sub', 'notes.apk'), 'not a zip');
  expect(textOf(await mcp.call('install_apk', { target, path: join(uploads, 'sub', 'notes.apk') }))).toMatch(/^INVALID_ARGUMENT: notes.apk is not an APK/);
  expect(d.pushes).toHaveLength(1);

  const turned = facts(await mcp.call('set_orientation', { target, orientation: 'landscape' }));
  expect(turned).toMatchObject({ orientation: 'landscape', rotation: 1, autoRotate: false, screen: { width: 2400, height: 1080 } });
  expect(turned.note).toBe('landscape (90°), auto-rotate off; frames captured before are stale');
  expect(facts(await mcp.call('set_orientation', { target, orientation: 'auto' }))).toMatchObject({ autoRotate: true });
  const listed = data(await mcp.call('list_targets', {})).targets as { details: Record<string, unknown> }[];
  expect(listed[0]!.details).toMatchObject({ rotation: 1, orientation: 'landscape' });

  // Read-only mode refuses the module's actions like any other input, and logs them.
  mcp.core.settings.update({ input: { readOnly: true } });
  expect(textOf(await mcp.call('stop_app', { target, package: 'com.example.fake' }))).toMatch(/^READ_ONLY:/);
  expect(d.apps.stopped).toEqual([]);
  expect(mcp.core.activity.list({ limit: 1 })[0]).toMatchObject({ tool: 'stop_app', result: 'READ_ONLY' });
});

it('through the gate: click by text, type into a node with its value read back, NO_FOCUSED_INPUT, a node scrolled back into view', async () => {
  const d = await h.device();
  const target = `android:${d.serial}`;
  ok(await mcp.call('capture', { target }));
  // The core reads the tree's text (readText) and hands the node over; the source acts on it in
  // that same dump (read a moment ago, no input since): one uiautomator dump, not two. (The
  // capture after the click, which finds what changed, reads one beside its screencap to mask secrets.)
  const dumps = (): number => d.services.filter((s) => s.includes('uiautomator dump')).length;
  const before = dumps();
  const clicked = data(await mcp.call('click', { target, text: 'OK' }));
  expect(d.ui.pressed).toEqual(['OK']);
  expect(dumps() - before).toBe(2);
  expect(clicked).toMatchObject({ hit: { role: 'android.widget.Button', name: 'OK' }, sourcePoint: { x: 540, y: 1200 }, imagePoint: { x: 225, y: 500 } });

  const refused = await mcp.call('type_text', { target, text: 'lost' });
  expect(textOf(refused)).toMatch(/^NO_FOCUSED_INPUT: Nothing editable has focus .* Hint: Tap the field first/);

  type Node = { id: string; role: string; name: string };
  const field = (data(await mcp.call('get_ui_tree', { target })).nodes as Node[]).find((n) => n.role === 'android.widget.EditText')!;
  const typed = await mcp.call('type_text', { target, node: field.id, text: 'hello' });
  expect(data(typed)).toMatchObject({ received: { node: field.id, value: 'hello', valueMatches: true }, keyboardShown: true });
  expect(textOf(typed)).toMatch(/: ok \(the keyboard appeared\)\. android.widget.EditText “hello” now holds "hello"\. The on-screen keyboard is up/);

  d.ui.screen = 'list';
  ok(await mcp.call('capture', { target }));
  const row = (data(await mcp.call('get_ui_tree', { target })).nodes as Node[]).find((n) => n.name === 'Item 2')!;
  const rowId = (data(await mcp.call('get_ui_tree', { target })).nodes as (Node & { parentId?: string })[]).find((n) => n.id === row.id)!.parentId!;
  d.ui.scroll = 1600;
  const back = await mcp.call('click', { target, node: rowId, after: 'none' });
  expect(textOf(ok(back))).toMatch(/Scrolled 1 time to bring node .* into view/);
  expect(d.ui.pressed).toEqual(['OK', 'Item 2']);
});

it('find_text reads the UI tree: the label, its node and its centre in image pixels', async () => {
  const d = await h.device({ uiXml: offGrid });
  const target = `android:${d.serial}`;
  const found = data(await mcp.call('find_text', { target, text: 'ok' })) as { via: string; frameRef: string; matches: { text: string; center: { x: number; y: number }; node?: string }[] };
  expect(found.via).toBe('tree');
  expect(found.matches).toHaveLength(1);
  // (228.5, 315.5) device px at 2.4 device px per image px.
  expect(found.matches[0]).toMatchObject({ text: 'OK', center: { x: 95.2, y: 131.5 } });
  expect(found.matches[0]!.node).toBeDefined();
  ok(await mcp.call('click', { target, node: found.matches[0]!.node }));
  expect(d.inputs.at(-1)).toEqual({ kind: 'tap', x: 228.5, y: 315.5 });
  // scroll_into_view is offered for Android too; a node already in view needs no swipe.
  ok(await mcp.call('scroll_into_view', { target, node: found.matches[0]!.node }));
  expect(d.inputs).toHaveLength(1);
});
