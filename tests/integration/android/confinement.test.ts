/**
 * A hostile agent against the real adb server and the fake device, through an MCP client: an app
 * action is judged by the package it will start, resolved before anything starts (an activity of
 * another package, a link another app opens), and starts exactly what was judged.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { androidModule } from '../../../src/main/core/sources/android/module.ts';
import { defaultPackages } from '../../support/fakeAdb/packages.ts';
import { startHarness, tempDir, textOf, type Harness } from '../../support/mcpHarness.ts';
import { startAdb, type AdbHarness } from './harness.ts';

let h: AdbHarness;
let mcp: Harness;

beforeEach(async () => {
  h = await startAdb();
  mcp = await startHarness({ env: h.env, modules: [androidModule], settings: { files: { uploadRoots: [tempDir('sightline-uploads-')] } } });
});
afterEach(async () => {
  await mcp.close();
  await h.stop();
});

const ok = (r: CallToolResult): Record<string, unknown> => {
  if (r.isError) throw new Error(textOf(r));
  const s = r.structuredContent as Record<string, unknown>;
  return { note: s.note, ...(s.details as Record<string, unknown>) };
};

it('launch_app with an activity of another package is refused; nothing starts', async () => {
  const d = await h.device();
  const target = `android:${d.serial}`;
  mcp.core.settings.update({ input: { allowlist: ['com.example.notes'] } });
  const r = await mcp.call('launch_app', { target, package: 'com.example.notes', activity: 'com.example.fake/.MainActivity' });
  expect(textOf(r)).toBe(
    'NOT_ALLOWED: The activity com.example.fake/.MainActivity belongs to com.example.fake, not to com.example.notes: launch_app starts activities of its package only. Hint: Give an activity of com.example.notes (".MainActivity"), or launch com.example.fake itself.',
  );
  expect(d.apps.started).toEqual([]);
  // Its own activities start, by short or full name.
  expect(ok(await mcp.call('launch_app', { target, package: 'com.example.notes', activity: '.EditActivity' })).started).toBe('com.example.notes/.EditActivity');
  expect(ok(await mcp.call('launch_app', { target, package: 'com.example.notes', activity: 'com.example.notes/com.example.notes.NotesActivity' })).started).toBe('com.example.notes/.NotesActivity');
});

it("open_url resolves the link's app first: one off the allowlist is refused before anything starts", async () => {
  const d = await h.device();
  const target = `android:${d.serial}`;
  // The app in front (com.example.fake) is allowed; the browser that opens web links is not.
  mcp.core.settings.update({ input: { allowlist: ['com.example.fake'] } });
  const r = await mcp.call('open_url', { target, url: 'https://example.com/login' });
  expect(textOf(r)).toBe(
    'NOT_ALLOWED: https://example.com/login would open in com.android.chrome, not in the input allowlist. Hint: The user can add "com.android.chrome" to input.allowlist; or give package: an allowed app that opens the link.',
  );
  expect(d.apps.started).toEqual([]);
  const opened = ok(await mcp.call('open_url', { target, url: 'fake://item/1', wait: false }));
  expect(opened).toMatchObject({ handler: 'com.example.fake', url: 'fake://item/1', started: 'com.example.fake/.MainActivity' });
  // Started in exactly the activity that was judged (am start -n), not wherever Android would send the link by then.
  expect(d.apps.started).toEqual([expect.objectContaining({ component: 'com.example.fake/.MainActivity', data: 'fake://item/1', resolved: 'com.example.fake/.MainActivity' })]);
});

it('open_url of a link no app opens starts nothing, with or without an allowlist', async () => {
  const d = await h.device();
  const target = `android:${d.serial}`;
  for (const allowlist of [['com.example.fake'], []]) {
    mcp.core.settings.update({ input: { allowlist } });
    expect(textOf(await mcp.call('open_url', { target, url: 'zoommtg://join?confno=1' }))).toBe(
      'UNSUPPORTED: No app on the device opens "zoommtg://join?confno=1". Nothing was started. Hint: Install an app that handles zoommtg links; for a deep link, check the scheme and host the app declares.',
    );
  }
  expect(d.apps.started).toEqual([]);
});

it('a link several apps open (the chooser) is refused unless every one of them is allowed', async () => {
  const d = await h.device({ packages: [...defaultPackages(), { name: 'com.evil.reader', launchers: ['.Main'], opens: ['fake:'] }] });
  const target = `android:${d.serial}`;
  mcp.core.settings.update({ input: { allowlist: ['com.example.fake'] } });
  expect(textOf(await mcp.call('open_url', { target, url: 'fake://item/2' }))).toMatch(/^NOT_ALLOWED: fake:\/\/item\/2 would open in com\.evil\.reader, not in the input allowlist\./);
  expect(d.apps.started).toEqual([]);
  // All of them allowed: still no chooser, which would start whichever app is there by then; the agent names one.
  mcp.core.settings.update({ input: { allowlist: ['com.example.fake', 'com.evil.reader'] } });
  expect(textOf(await mcp.call('open_url', { target, url: 'fake://item/2' }))).toBe(
    'INVALID_ARGUMENT: fake://item/2 opens in several apps (com.example.fake, com.evil.reader): under input.allowlist Sightline starts only the app it judged, not Android\'s chooser. Nothing was started. Hint: Call open_url again with package: one of com.example.fake, com.evil.reader.',
  );
  expect(d.apps.started).toEqual([]);
  // Named, the allowed app opens it.
  expect(ok(await mcp.call('open_url', { target, url: 'fake://item/2', package: 'com.example.fake', wait: false })).handler).toBe('com.example.fake');
});

it('outside the upload roots, an existing path and a missing one get the same answer', async () => {
  const d = await h.device();
  const target = `android:${d.serial}`;
  const existing = textOf(await mcp.call('install_apk', { target, path: '/etc/hostname' }));
  const missing = textOf(await mcp.call('install_apk', { target, path: '/etc/hostnamx' }));
  expect(existing).toMatch(/^PATH_REFUSED: \/etc\/hostname is not inside a folder allowed for APKs/);
  expect(missing).toBe(existing.replace('/etc/hostname', '/etc/hostnamx'));
  // Inside a root, a missing file is named as such.
  const root = mcp.core.settings.values().files.uploadRoots[0]!;
  expect(textOf(await mcp.call('install_apk', { target, path: `${root}/none.apk` }))).toMatch(/^FILE_UNAVAILABLE: .*none\.apk does not exist/);
});
