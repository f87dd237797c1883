import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSightlineError, type SightlineError } from '../../../src/shared/errors.ts';
import {
  checkPackageName,
  checkUri,
  forceStopCommand,
  formatComponent,
  installCommand,
  isPackageName,
  launchCommand,
  listPackagesCommand,
  looksLikeApk,
  openUrlCommand,
  parseAmStartOutput,
  parseComponent,
  parseForceStopOutput,
  parseInstallOutput,
  parsePackageList,
  parseQueryActivities,
  parseResolveActivity,
  queryLaunchersCommand,
  remoteApkPath,
  resolveLauncherCommand,
} from '../../../src/main/core/sources/android/apps.ts';
import { FakeAdbDevice, fakeApk } from '../../support/fakeAdbDevice.ts';

function thrown(f: () => unknown): SightlineError {
  try {
    f();
  } catch (e) {
    if (isSightlineError(e)) return e;
    throw e;
  }
  throw new Error('expected a SightlineError');
}

/** The argv the real /bin/sh (POSIX quoting, as the device's mksh) hands to `am`. */
function argvByRealShell(line: string): string[] {
  const r = spawnSync('/bin/sh', ['-c', `am() { printf '%s\\0' "$@"; }; ${line}`], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\0').slice(0, -1);
}

describe('names', () => {
  it('accepts Android package names and nothing a shell could misread', () => {
    for (const ok of ['com.example.app', 'com.android.chrome', 'a.b', 'org.mozilla.firefox_beta', 'Com.Ex4mple.A_1']) expect(isPackageName(ok), ok).toBe(true);
    for (const bad of ['android', '', 'com..example', '.com.example', 'com.example.', 'com.1example', 'com.example;reboot', 'com.example app', 'com.exämple', `com.${'a'.repeat(260)}`, 'com.example/.Main', '-n.x']) {
      expect(isPackageName(bad), bad).toBe(false);
    }
    const e = thrown(() => checkPackageName('com.example;reboot'));
    expect(e).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('"com.example;reboot"'), hint: expect.stringMatching(/list_apps/) });
    fc.assert(fc.property(fc.string(), (s) => !isPackageName(s) || /^[A-Za-z0-9_.]+$/.test(s)));
  });

  it('parses components relative and absolute, and flattens them as Android does', () => {
    expect(parseComponent('com.example.app/.MainActivity')).toEqual({ package: 'com.example.app', className: 'com.example.app.MainActivity' });
    expect(parseComponent('com.android.chrome/com.google.android.apps.chrome.Main')).toEqual({ package: 'com.android.chrome', className: 'com.google.android.apps.chrome.Main' });
    expect(formatComponent(parseComponent('com.example.app/com.example.app.ui.Home'))).toBe('com.example.app/.ui.Home');
    expect(formatComponent(parseComponent('com.example.app/.Main$Alias'))).toBe('com.example.app/.Main$Alias');
    for (const bad of ['com.example.app', 'com.example.app/', '/.Main', 'com.example.app/.Main;id', 'com.example.app/.Ma in', 'com.example.app/..Main']) {
      expect(thrown(() => parseComponent(bad)).code, bad).toBe('INVALID_ARGUMENT');
    }
  });

  it('refuses URIs with control characters or no scheme, and overlong ones', () => {
    expect(checkUri('https://example.com/a?b=1&c=2#x')).toBe('https://example.com/a?b=1&c=2#x');
    expect(checkUri('myapp://item/42')).toBe('myapp://item/42');
    expect(thrown(() => checkUri('https://example.com/\nreboot'))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/U\+000A\) at position 20/), hint: expect.stringMatching(/%0A/) });
    expect(thrown(() => checkUri('https://x/\u0085')).code).toBe('INVALID_ARGUMENT');
    expect(thrown(() => checkUri('example.com/page')).message).toMatch(/no scheme/);
    expect(thrown(() => checkUri('-d:x')).code).toBe('INVALID_ARGUMENT');
    expect(thrown(() => checkUri(`https://e.com/${'a'.repeat(4000)}`)).message).toMatch(/at most 3800/);
  });
});

describe('commands survive the device shell', () => {
  const uri = fc
    .tuple(fc.constantFrom('https://', 'http://', 'myapp://', 'intent:', 'geo:', 'market://details?id='), fc.string({ unit: 'grapheme', maxLength: 60 }))
    // eslint-disable-next-line no-control-regex
    .map(([scheme, rest]) => scheme + rest.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ''))
    .filter((u) => /:./su.test(u));

  it('hands am exactly the URI, whatever it holds (real /bin/sh)', () => {
    fc.assert(
      fc.property(uri, fc.option(fc.constantFrom('com.android.chrome', 'com.example.app'), { nil: undefined }), (u, pkg) => {
        const argv = argvByRealShell(openUrlCommand(u, pkg ? { package: pkg } : {}));
        expect(argv).toEqual(['start', '-W', '-a', 'android.intent.action.VIEW', '-d', u, ...(pkg ? [pkg] : [])]);
      }),
      { numRuns: 100 },
    );
    expect(argvByRealShell(openUrlCommand(`https://e.com/it's "q" $HOME \`id\` $(id) a;b&c|d >x`))).toContain(`https://e.com/it's "q" $HOME \`id\` $(id) a;b&c|d >x`);
    expect(argvByRealShell(launchCommand(parseComponent('com.example.app/.Main$Alias')))).toEqual(['start', '-W', '-a', 'android.intent.action.MAIN', '-c', 'android.intent.category.LAUNCHER', '-f', '0x10200000', '-n', 'com.example.app/.Main$Alias']);
  });

  describe('against the fake device', () => {
    let d: FakeAdbDevice;
    beforeAll(async () => {
      d = await FakeAdbDevice.start({ prerender: false });
    });
    afterAll(() => d.close());
    const sh = async (line: string): Promise<string> => {
      const r = await d.run(line);
      return r.out.toString() + r.err; // plain `shell:` merges the streams
    };

    it('lists, resolves, launches, opens, stops', async () => {
      expect((await d.run(listPackagesCommand('user'))).out.toString()).toMatch(/^package:com\.example\.fake\n/);
      expect(parsePackageList(await sh(listPackagesCommand('user')), 'user').map((p) => p.package)).toEqual(['com.example.fake', 'com.example.notes', 'com.example.widget']);
      const all = parsePackageList(await sh(listPackagesCommand('all')), 'all');
      expect(all.find((p) => p.package === 'com.android.settings')).toEqual({ package: 'com.android.settings', system: true });
      expect(all.find((p) => p.package === 'com.example.notes')).toEqual({ package: 'com.example.notes', system: false });

      const chrome = parseResolveActivity(await sh(resolveLauncherCommand('com.android.chrome')), 'com.android.chrome');
      expect(chrome).toEqual({ component: { package: 'com.android.chrome', className: 'com.google.android.apps.chrome.Main' } });
      expect(thrown(() => parseResolveActivity('No activity found\n', 'x.y')).message).toMatch(/not installed/);
      const widget = await sh(resolveLauncherCommand('com.example.widget'));
      expect(thrown(() => parseResolveActivity(widget, 'com.example.widget')).message).toMatch(/no launcher activity/);
      const nope = await sh(resolveLauncherCommand('com.example.nope'));
      expect(thrown(() => parseResolveActivity(nope, 'com.example.nope')).message).toMatch(/is not installed/);

      const notes = parseResolveActivity(await sh(resolveLauncherCommand('com.example.notes')), 'com.example.notes');
      if (!('component' in notes)) throw new Error('expected one launcher');
      const started = parseAmStartOutput(await sh(launchCommand(notes.component)), { kind: 'launch', package: 'com.example.notes' });
      expect(started).toMatchObject({ activity: 'com.example.notes/.NotesActivity', status: 'ok', launchState: 'COLD', chooser: false });
      expect(d.foreground).toBe('com.example.notes');
      const again = parseAmStartOutput(await sh(launchCommand(notes.component)), { kind: 'launch', package: 'com.example.notes' });
      expect(again.warning).toMatch(/brought to the front/);
      expect(again.totalTimeMs).toBeUndefined();

      const url = 'https://example.com/a?b=1&c=2';
      expect(parseAmStartOutput(await sh(openUrlCommand(url)), { kind: 'url', uri: url })).toMatchObject({ activity: 'com.android.chrome/com.google.android.apps.chrome.Main' });
      expect(d.apps.started.at(-1)).toMatchObject({ action: 'android.intent.action.VIEW', data: url, resolved: 'com.android.chrome/com.google.android.apps.chrome.Main' });
      const deep = 'nothing://handles/this';
      expect(thrown(() => parseAmStartOutput('', { kind: 'url', uri: deep })).code).toBe('INTERNAL');
      const refused = await sh(openUrlCommand(deep));
      expect(refused).toMatch(/Error: Activity not started, unable to resolve Intent \{ act=android.intent.action.VIEW dat=nothing:\/\/handles\/this flg=0x10000000 \}/);
      expect(thrown(() => parseAmStartOutput(refused, { kind: 'url', uri: deep }))).toMatchObject({ code: 'UNSUPPORTED', hint: expect.stringMatching(/nothing links/) });

      parseForceStopOutput(await sh(forceStopCommand('com.android.chrome')), 'com.android.chrome');
      expect(d.apps.stopped).toEqual(['com.android.chrome']);
      expect(d.foreground).toBe('com.android.launcher3');
    });

    it('records exactly the URI the command carried (the fake parses quoting as sh does)', async () => {
      await fc.assert(
        fc.asyncProperty(uri, async (u) => {
          await d.run(openUrlCommand(u));
          expect(d.apps.started.at(-1)?.data).toBe(u);
        }),
        { numRuns: 200 },
      );
    });

    it('installs a pushed APK and refuses a file that is not one', async () => {
      const path = remoteApkPath('t1');
      d.files.set(path, fakeApk('com.example.new', { launcher: '.Start' }));
      parseInstallOutput(await sh(installCommand(path)), 'new.apk');
      expect(d.files.has(path)).toBe(false);
      expect(parseResolveActivity(await sh(resolveLauncherCommand('com.example.new')), 'com.example.new')).toEqual({ component: { package: 'com.example.new', className: 'com.example.new.Start' } });

      const bad = remoteApkPath('t2');
      d.files.set(bad, Buffer.from('%PDF-1.7 not an apk'));
      const e = thrown(() => parseInstallOutput('', 'x.apk'));
      expect(e.code).toBe('INTERNAL');
      const out = await sh(installCommand(bad));
      expect(out).toMatch(/^Failure \[INSTALL_PARSE_FAILED_NOT_APK: Failed to parse \/data\/app\/vmdl\d+\.tmp\/base\.apk/);
      expect(thrown(() => parseInstallOutput(out, 'report.pdf'))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^report.pdf was not installed: INSTALL_PARSE_FAILED_NOT_APK/), details: { installCode: 'INSTALL_PARSE_FAILED_NOT_APK' } });
      const gone = await sh(installCommand(remoteApkPath('gone')));
      expect(thrown(() => parseInstallOutput(gone, 'gone.apk')).code).toBe('FILE_UNAVAILABLE');
    });
  });
});

describe('parsers on captured output', () => {
  it('package lists: plain, -f paths with "=", suffixes, CRLF, scopes', () => {
    const text = 'package:/data/app/~~Qm9v==/com.example.fake-c2ln==/base.apk=com.example.fake uid:10145\r\npackage:com.android.chrome  installer=com.android.vending\r\npackage:android\r\n\r\n';
    expect(parsePackageList(text, 'system')).toEqual([
      { package: 'android', system: true },
      { package: 'com.android.chrome', system: true },
      { package: 'com.example.fake', system: true },
    ]);
    expect(parsePackageList('package:b.b\n@system\npackage:a.a\n', 'all')).toEqual([{ package: 'a.a', system: true }, { package: 'b.b', system: false }]);
    expect(parsePackageList('', 'user')).toEqual([]);
    expect(thrown(() => parsePackageList("cmd: Can't find service: package\n")).message).toMatch(/Can't find service/);
    expect(listPackagesCommand()).toBe('pm list packages -3');
  });

  it('resolve-activity: brief, components only, the chooser, and Android 6', () => {
    const brief = 'priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\ncom.example.app/.MainActivity\npackage:/data/app/x/base.apk\n';
    expect(parseResolveActivity(brief, 'com.example.app')).toEqual({ component: { package: 'com.example.app', className: 'com.example.app.MainActivity' } });
    expect(parseResolveActivity('com.example.app/.MainActivity\n', 'com.example.app')).toMatchObject({ component: { className: 'com.example.app.MainActivity' } });
    expect(parseResolveActivity('priority=0 preferredOrder=0 match=0x0 specificIndex=-1 isDefault=false\nandroid/com.android.internal.app.ResolverActivity\n', 'com.example.suite')).toEqual({ several: true });
    expect(thrown(() => parseResolveActivity('/system/bin/sh: cmd: not found\n', 'com.example.app')).code).toBe('UNSUPPORTED');
    expect(parseQueryActivities('com.example.suite/.Mail\ncom.example.suite/.Calendar\n').map(formatComponent)).toEqual(['com.example.suite/.Mail', 'com.example.suite/.Calendar']);
    expect(parseQueryActivities('No activities found\n')).toEqual([]);
    expect(queryLaunchersCommand('com.example.suite')).toBe('cmd package query-activities --components -a android.intent.action.MAIN -c android.intent.category.LAUNCHER com.example.suite');
  });

  it('am start: success forms, warnings, the chooser, a timeout', () => {
    expect(parseAmStartOutput('Starting: Intent { cmp=com.example.app/.MainActivity }\n', { kind: 'launch', package: 'com.example.app' })).toEqual({ intent: 'Intent { cmp=com.example.app/.MainActivity }', chooser: false });
    const cold = 'Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000 cmp=com.example.app/.MainActivity }\r\nStatus: ok\r\nLaunchState: COLD\r\nActivity: com.example.app/.MainActivity\r\nTotalTime: 812\r\nWaitTime: 815\r\nComplete\r\n';
    expect(parseAmStartOutput(cold, { kind: 'launch', package: 'com.example.app' })).toEqual({
      intent: 'Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000 cmp=com.example.app/.MainActivity }',
      status: 'ok',
      launchState: 'COLD',
      activity: 'com.example.app/.MainActivity',
      totalTimeMs: 812,
      waitTimeMs: 815,
      chooser: false,
    });
    const top = 'Starting: Intent { cmp=com.example.app/.MainActivity }\nWarning: Activity not started, intent has been delivered to currently running top-most instance.\nStatus: ok\nLaunchState: UNKNOWN (0)\nActivity: com.example.app/.MainActivity\nWaitTime: 9\nComplete\n';
    expect(parseAmStartOutput(top, { kind: 'launch', package: 'com.example.app' })).toMatchObject({ warning: expect.stringMatching(/top-most instance/), launchState: 'UNKNOWN (0)', waitTimeMs: 9 });
    const chooser = 'Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/... }\nStatus: ok\nLaunchState: COLD\nActivity: android/com.android.internal.app.ResolverActivity\nTotalTime: 320\nWaitTime: 322\nComplete\n';
    expect(parseAmStartOutput(chooser, { kind: 'url', uri: 'https://example.com/' }).chooser).toBe(true);
    expect(parseAmStartOutput('Starting: Intent { cmp=a.b/.C }\nStatus: timeout\nLaunchState: COLD\nWaitTime: 10001\nComplete\n', { kind: 'launch', package: 'a.b' }).status).toBe('timeout');
  });

  it('am start: every failure has a code and a hint', () => {
    const launch = { kind: 'launch', package: 'com.example.app' } as const;
    expect(thrown(() => parseAmStartOutput('Starting: Intent { cmp=com.example.app/.Nope }\nError type 3\nError: Activity class {com.example.app/com.example.app.Nope} does not exist.\n', launch))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'Activity class {com.example.app/com.example.app.Nope} does not exist.',
      hint: expect.stringMatching(/package name/),
    });
    const secret =
      "Starting: Intent { cmp=com.example.app/.Secret }\nException occurred while executing 'start':\njava.lang.SecurityException: Permission Denial: starting Intent { flg=0x10000000 cmp=com.example.app/.Secret } from null (pid=4321, uid=2000) not exported from uid 10145\n\tat com.android.server.wm.ActivityTaskSupervisor.checkStartAnyActivityPermission(ActivityTaskSupervisor.java:1155)\n";
    expect(thrown(() => parseAmStartOutput(secret, launch))).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/not exported/) });
    const unresolved = 'Starting: Intent { act=android.intent.action.VIEW dat=myapp://item/42 pkg=com.example.app }\nError: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW dat=myapp://item/42 flg=0x10000000 pkg=com.example.app }\n';
    expect(thrown(() => parseAmStartOutput(unresolved, { kind: 'url', uri: 'myapp://item/42', package: 'com.example.app' }))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/does not open myapp links/) });
    expect(thrown(() => parseAmStartOutput(unresolved, launch)).message).toMatch(/No activity of com.example.app/);
    expect(thrown(() => parseAmStartOutput('Starting: Intent { cmp=a.b/.C }\nError: Activity not started, unknown error code -96\n', launch))).toMatchObject({ code: 'INTERNAL', hint: expect.stringMatching(/by hand/) });
    expect(thrown(() => parseAmStartOutput('/system/bin/sh: am: inaccessible or not found\n', launch)).message).toMatch(/unexpected answer: "\/system\/bin\/sh: am/);
  });

  it('pm install: success, failure codes, a file that never arrived', () => {
    parseInstallOutput('Performing Streamed Install\nSuccess\n', 'a.apk');
    parseInstallOutput('\tpkg: /data/local/tmp/a.apk\r\nSuccess\r\n', 'a.apk');
    expect(thrown(() => parseInstallOutput('Failure [INSTALL_FAILED_INVALID_APK]\n', 'a.apk'))).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'a.apk was not installed: INSTALL_FAILED_INVALID_APK.' });
    expect(thrown(() => parseInstallOutput('Failure [INSTALL_FAILED_USER_RESTRICTED: Install canceled by user]\n', 'a.apk'))).toMatchObject({ code: 'PERMISSION_DENIED', hint: expect.stringMatching(/Install via USB/) });
    expect(thrown(() => parseInstallOutput('Failure [INSTALL_FAILED_NO_MATCHING_ABIS: INSTALL_FAILED_NO_MATCHING_ABIS: Failed to extract native libraries, res=-113]\n', 'a.apk')).code).toBe('UNSUPPORTED');
    expect(thrown(() => parseInstallOutput('Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n', 'a.apk')).hint).toMatch(/free some space/);
    expect(thrown(() => parseInstallOutput('Failure [INSTALL_FAILED_SOMETHING_NEW]\n', 'a.apk'))).toMatchObject({ code: 'INTERNAL', hint: expect.stringMatching(/logcat/) });
    expect(thrown(() => parseInstallOutput("Exception occurred while executing 'install':\njava.lang.IllegalArgumentException: Error: Can't open file: /data/local/tmp/a.apk\n", 'a.apk')).code).toBe('FILE_UNAVAILABLE');
  });

  it('install paths and the APK signature', () => {
    expect(remoteApkPath('abc-1')).toBe('/data/local/tmp/sightline-abc-1.apk');
    expect(() => remoteApkPath('../x')).toThrow();
    expect(installCommand('/data/local/tmp/sightline-a.apk', { allowTest: true, grantPermissions: true })).toBe('pm install -r -t -g /data/local/tmp/sightline-a.apk; rm -f /data/local/tmp/sightline-a.apk');
    expect(() => installCommand('/sdcard/x.apk; reboot')).toThrow();
    expect(looksLikeApk(fakeApk('a.b'))).toBe(true);
    expect(looksLikeApk(Buffer.from('%PDF'))).toBe(false);
    expect(forceStopCommand('com.example.app')).toBe('am force-stop com.example.app');
    expect(() => forceStopCommand('com.example.app && reboot')).toThrow(/not an Android package name/);
    expect(resolveLauncherCommand('com.example.app')).toBe('cmd package resolve-activity --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER com.example.app; pm path com.example.app');
  });
});
