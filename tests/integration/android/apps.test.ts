/**
 * Apps, links, orientation and installs end to end: the command builders and parsers of
 * apps.ts/orientation.ts, through AdbServer (adbkit) and the real adb server, against fake devices;
 * and two adb servers side by side on 127.0.0.1, as `android.servers` will use them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSightlineError, type SightlineError } from '../../../src/shared/errors.ts';
import { AdbServer } from '../../../src/main/core/sources/android/adb.ts';
import {
  forceStopCommand,
  installCommand,
  launchCommand,
  listPackagesCommand,
  looksLikeApk,
  openUrlCommand,
  parseAmStartOutput,
  parseForceStopOutput,
  parseInstallOutput,
  parsePackageList,
  parseQueryActivities,
  parseResolveActivity,
  queryLaunchersCommand,
  remoteApkPath,
  resolveLauncherCommand,
} from '../../../src/main/core/sources/android/apps.ts';
import { ORIENTATION_SETTINGS_COMMAND, checkOrientationApplied, orientationOf, parseOrientationSettings, setOrientationCommand } from '../../../src/main/core/sources/android/orientation.ts';
import { FOCUS_COMMAND, checkPng, displayCommand, parseDisplay, parseForegroundPackage } from '../../../src/main/core/sources/android/parse.ts';
import { fakeApk, type FakeAdbDevice } from '../../support/fakeAdbDevice.ts';
import { signal, startAdb, type AdbHarness } from './harness.ts';

const ADB = '/usr/bin/adb';
let h: AdbHarness;
let server: AdbServer;
let d: FakeAdbDevice;
let tmp: string;

async function open(harness: AdbHarness): Promise<AdbServer> {
  return (await AdbServer.open(ADB, { host: '127.0.0.1', port: harness.port }, harness.env, () => {})).server;
}

const sh = async (s: AdbServer, serial: string, command: string): Promise<string> =>
  (await s.run(serial, `shell:${command}`, { signal: signal(), timeoutMs: 15_000, label: command.split(' ').slice(0, 2).join(' ') })).toString('utf8');

/** adbkit's sync push; resolves when the device acknowledged the whole file. */
async function push(s: AdbServer, serial: string, local: string, remote: string): Promise<void> {
  const transfer = await s.client.getDevice(serial).push(local, remote);
  await new Promise<void>((resolve, reject) => {
    transfer.on('end', () => resolve());
    transfer.on('error', reject);
  });
}

async function rejection(p: Promise<unknown>): Promise<SightlineError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  if (!isSightlineError(e)) throw new Error(`expected a SightlineError, got ${String(e)}`);
  return e;
}

beforeEach(async () => {
  h = await startAdb();
  d = await h.device();
  server = await open(h);
  tmp = mkdtempSync(join(tmpdir(), 'sightline-apk-'));
});
afterEach(async () => {
  server.dispose();
  await h.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('apps', () => {
  it('lists user apps by default, system apps on request', async () => {
    const user = parsePackageList(await sh(server, d.serial, listPackagesCommand()), 'user');
    expect(user).toEqual([
      { package: 'com.example.fake', system: false },
      { package: 'com.example.notes', system: false },
      { package: 'com.example.widget', system: false },
    ]);
    const all = parsePackageList(await sh(server, d.serial, listPackagesCommand('all')), 'all');
    expect(all.filter((p) => p.system).map((p) => p.package)).toContain('com.android.settings');
    expect(all).toHaveLength(9);
    expect(d.services.at(-1)).toBe('shell:pm list packages -3; echo @system; pm list packages -s');
  });

  it('resolves the launcher activity, launches it, brings it back, and stops it', async () => {
    const resolved = parseResolveActivity(await sh(server, d.serial, resolveLauncherCommand('com.example.notes')), 'com.example.notes');
    if (!('component' in resolved)) throw new Error('one launcher expected');
    const first = parseAmStartOutput(await sh(server, d.serial, launchCommand(resolved.component)), { kind: 'launch', package: 'com.example.notes' });
    expect(first).toMatchObject({ activity: 'com.example.notes/.NotesActivity', launchState: 'COLD', totalTimeMs: 412, chooser: false });
    expect(d.apps.started).toEqual([
      { action: 'android.intent.action.MAIN', categories: ['android.intent.category.LAUNCHER'], component: 'com.example.notes/.NotesActivity', wait: true, resolved: 'com.example.notes/.NotesActivity', result: 'started' },
    ]);
    // The source's own way of reading the app in front sees it.
    expect(parseForegroundPackage(await sh(server, d.serial, FOCUS_COMMAND))).toBe('com.example.notes');

    const again = parseAmStartOutput(await sh(server, d.serial, launchCommand(resolved.component)), { kind: 'launch', package: 'com.example.notes' });
    expect(again.warning).toBe('Activity not started, its current task has been brought to the front');

    parseForceStopOutput(await sh(server, d.serial, forceStopCommand('com.example.notes')), 'com.example.notes');
    expect(d.apps.stopped).toEqual(['com.example.notes']);
    expect(parseForegroundPackage(await sh(server, d.serial, FOCUS_COMMAND))).toBe('com.android.launcher3');
    // Stopped, it starts cold again.
    expect(parseAmStartOutput(await sh(server, d.serial, launchCommand(resolved.component)), { kind: 'launch', package: 'com.example.notes' }).launchState).toBe('COLD');
  });

  it('explains a package that is missing, has no launcher activity, or has several', async () => {
    const missing = await sh(server, d.serial, resolveLauncherCommand('com.example.missing'));
    expect(() => parseResolveActivity(missing, 'com.example.missing')).toThrow(/com.example.missing is not installed/);
    const widget = await sh(server, d.serial, resolveLauncherCommand('com.example.widget'));
    expect(() => parseResolveActivity(widget, 'com.example.widget')).toThrow(/no launcher activity/);

    d.apps.add({ name: 'com.example.suite', launchers: ['.Mail', '.Calendar'] });
    expect(parseResolveActivity(await sh(server, d.serial, resolveLauncherCommand('com.example.suite')), 'com.example.suite')).toEqual({ several: true });
    const all = parseQueryActivities(await sh(server, d.serial, queryLaunchersCommand('com.example.suite')));
    expect(all.map((c) => c.className)).toEqual(['com.example.suite.Mail', 'com.example.suite.Calendar']);
    const started = parseAmStartOutput(await sh(server, d.serial, launchCommand(all[1]!)), { kind: 'launch', package: 'com.example.suite' });
    expect(started.activity).toBe('com.example.suite/.Calendar');
  });

  it('opens a URL in the app that handles it, a deep link in its app, and says when none does', async () => {
    const url = "https://example.com/search?q=it's a b&lang=fr#top";
    const r = parseAmStartOutput(await sh(server, d.serial, openUrlCommand(url)), { kind: 'url', uri: url });
    expect(r).toMatchObject({ intent: 'Intent { act=android.intent.action.VIEW dat=https://example.com/... }', activity: 'com.android.chrome/com.google.android.apps.chrome.Main' });
    expect(d.apps.started.at(-1)).toMatchObject({ data: url, resolved: 'com.android.chrome/com.google.android.apps.chrome.Main' });
    expect(d.foreground).toBe('com.android.chrome');

    const deep = 'fake://item/42?ref=sightline';
    expect(parseAmStartOutput(await sh(server, d.serial, openUrlCommand(deep, { package: 'com.example.fake' })), { kind: 'url', uri: deep, package: 'com.example.fake' }).activity).toBe('com.example.fake/.MainActivity');
    expect(d.apps.started.at(-1)).toMatchObject({ data: deep, package: 'com.example.fake' });

    const wrongApp = await sh(server, d.serial, openUrlCommand(deep, { package: 'com.example.notes' }));
    expect((await rejection(Promise.resolve().then(() => parseAmStartOutput(wrongApp, { kind: 'url', uri: deep, package: 'com.example.notes' })))).message).toMatch(/com.example.notes does not open fake links/);
    const none = await sh(server, d.serial, openUrlCommand('zoommtg://join?confno=1'));
    expect((await rejection(Promise.resolve().then(() => parseAmStartOutput(none, { kind: 'url', uri: 'zoommtg://join?confno=1' })))).code).toBe('UNSUPPORTED');

    // Two browsers: Android asks the user.
    d.apps.add({ name: 'org.mozilla.firefox', launchers: ['org.mozilla.fenix.HomeActivity'], opens: ['https:'] });
    expect(parseAmStartOutput(await sh(server, d.serial, openUrlCommand(url)), { kind: 'url', uri: url }).chooser).toBe(true);
  });

  it('installs an APK from a file through sync push, and refuses a file that is not one', async () => {
    const apk = join(tmp, 'new.apk');
    writeFileSync(apk, fakeApk('com.example.installed', { launcher: '.Welcome' }));
    expect(looksLikeApk(fakeApk('x.y'))).toBe(true);
    const remote = remoteApkPath('itest1');
    await push(server, d.serial, apk, remote);
    expect(d.pushes).toEqual([{ path: remote, mode: 0o100644, bytes: fakeApk('com.example.installed', { launcher: '.Welcome' }).length }]);
    parseInstallOutput(await sh(server, d.serial, installCommand(remote)), 'new.apk');
    expect(d.apps.installs.at(-1)).toMatchObject({ path: remote, package: 'com.example.installed', result: 'Success' });
    expect(d.files.has(remote)).toBe(false);
    expect(parsePackageList(await sh(server, d.serial, listPackagesCommand()), 'user').map((p) => p.package)).toContain('com.example.installed');
    expect(parseResolveActivity(await sh(server, d.serial, resolveLauncherCommand('com.example.installed')), 'com.example.installed')).toEqual({ component: { package: 'com.example.installed', className: 'com.example.installed.Welcome' } });

    const notApk = join(tmp, 'notes.txt');
    writeFileSync(notApk, 'just text');
    const remote2 = remoteApkPath('itest2');
    await push(server, d.serial, notApk, remote2);
    const e = await rejection(sh(server, d.serial, installCommand(remote2)).then((out) => parseInstallOutput(out, 'notes.txt')));
    expect(e).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^notes.txt was not installed: INSTALL_PARSE_FAILED_NOT_APK/) });
  });

  it('the fake also takes adbkit install and the adb CLI push', async () => {
    const apk = join(tmp, 'other.apk');
    writeFileSync(apk, fakeApk('com.example.other'));
    await expect(server.client.getDevice(d.serial).install(apk)).resolves.toBe(true);
    expect(d.apps.installs.at(-1)).toMatchObject({ path: '/data/local/tmp/other.apk', package: 'com.example.other', result: 'Success' });
    const r = await h.adb('-s', d.serial, 'push', apk, '/data/local/tmp/cli.apk');
    expect(r.code, r.stderr).toBe(0);
    expect(d.files.get('/data/local/tmp/cli.apk')?.length).toBe(fakeApk('com.example.other').length);
    const refused = await h.adb('-s', d.serial, 'push', apk, '/system/app/x.apk');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr + refused.stdout).toMatch(/Permission denied/);
  });
});

describe('orientation', () => {
  it('sets landscape and reads it back: settings, dumpsys, screen size and screenshot all agree', async () => {
    expect(parseOrientationSettings(await sh(server, d.serial, ORIENTATION_SETTINGS_COMMAND))).toEqual({ autoRotate: false, userRotation: 0 });
    await sh(server, d.serial, setOrientationCommand('landscape'));
    const display = parseDisplay(await sh(server, d.serial, displayCommand({ density: false })));
    checkOrientationApplied('landscape', display.rotation);
    expect(orientationOf(display.rotation!)).toBe('landscape');
    expect(display.size).toEqual({ width: 2400, height: 1080 });
    expect(parseOrientationSettings(await sh(server, d.serial, ORIENTATION_SETTINGS_COMMAND))).toEqual({ autoRotate: false, userRotation: 1 });
    const png = checkPng(await server.run(d.serial, 'exec:screencap -p', { signal: signal(), timeoutMs: 20_000, label: 'screencap' }));
    expect([png.width, png.height]).toEqual([2400, 1080]);
  });
});

describe('two adb servers side by side', () => {
  it('each lists and drives its own devices; a device on both is listed by both', async () => {
    const h2 = await startAdb();
    try {
      const d2 = await h2.device({ model: 'Pixel Two', width: 720, height: 1600 });
      const server2 = await open(h2);
      try {
        expect(h2.port).not.toBe(h.port);
        expect([...(await server.devices()).keys()]).toEqual([d.serial]);
        expect([...(await server2.devices()).keys()]).toEqual([d2.serial]);
        expect(await server.state(d2.serial)).toBeUndefined();

        // Both at once: each command reaches its own device only.
        const url = 'https://example.com/two';
        const [a, b] = await Promise.all([sh(server, d.serial, setOrientationCommand('landscape')), sh(server2, d2.serial, openUrlCommand(url))]);
        expect([a, parseAmStartOutput(b, { kind: 'url', uri: url }).activity]).toEqual(['', 'com.android.chrome/com.google.android.apps.chrome.Main']);
        expect([d.rotation, d2.rotation]).toEqual([1, 0]);
        expect([d.apps.started.length, d2.apps.started.length]).toEqual([0, 1]);
        expect(parseDisplay(await sh(server2, d2.serial, displayCommand({ density: false }))).size).toEqual({ width: 720, height: 1600 });
        await expect(rejection(sh(server, d2.serial, 'true'))).resolves.toMatchObject({ code: 'TARGET_NOT_FOUND' });

        // The same phone attached to both servers has the same serial on each: targets need the server in their id.
        await h2.adb('connect', d.serial);
        await h2.waitForState(d.serial, 'device');
        expect([...(await server2.devices()).keys()].sort()).toEqual([d.serial, d2.serial].sort());
      } finally {
        server2.dispose();
      }
    } finally {
      await h2.stop();
    }
  });
});
