/**
 * Apps, links, installs and orientation on a device: the commands and parsers of apps.ts and
 * orientation.ts run through adb, with results that say what happened (the activity in front
 * after a launch, the rotation read back). Listing is read-only and called directly by the
 * module's tool; everything that changes the device arrives as a module action (`android:<verb>`)
 * through the core's action gate, so pause, read-only mode, the allowlist and the log apply.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import type { ActionDetails, AppsPort, InstallParams, LaunchParams, ModuleAction, OpenUrlParams, OrientationPort, OrientationValue, PendingAction, TargetFacts } from '../source.ts';
import {
  checkPackageName,
  deviceSaid,
  forceStopCommand,
  formatComponent,
  installCommand,
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
  parseResolveLink,
  queryLaunchersCommand,
  resolveLinkCommand,
  remoteApkPath,
  resolveLauncherCommand,
  type AmStartResult,
  type Component,
  type InstalledPackage,
} from './apps.ts';
import type { AndroidDevices, DeviceRef } from './devices.ts';
import { ORIENTATION_SETTINGS_COMMAND, autoRotateCommand, checkOrientationApplied, naturalOf, orientationOf, parseOrientationSettings, setOrientationCommand } from './orientation.ts';
import { FOCUS_COMMAND, parseForegroundActivity, parseForegroundPackage } from './parse.ts';
import { ROTATION_DEG } from './screen.ts';

/** `am start -W` waits for the first frame: a cold start of a heavy app takes seconds. */
const START_TIMEOUT = 30_000;
const SHORT = 15_000;

/**
 * A device as the action's judge sees it, read now under its lock: the package in front (read only
 * when the allowlist will match it: no package is Sightline's own).
 */
export async function deviceFacts(d: AndroidDevices, ref: DeviceRef, signal: AbortSignal, need: { names: boolean }): Promise<TargetFacts> {
  if (!need.names) return { kind: 'device', package: undefined, label: ref.id };
  const pkg = parseForegroundPackage(await d.shell(ref, FOCUS_COMMAND, signal, 'reading the app in front').catch(() => ''));
  return { kind: 'device', package: pkg, label: ref.id };
}

export class AndroidApps implements AppsPort, OrientationPort {
  readonly #d: AndroidDevices;

  constructor(devices: AndroidDevices) {
    this.#d = devices;
  }

  /** Installed packages: user apps by default, system ones too with `system`, filtered by a substring. */
  async list(target: string, o: { system?: boolean; filter?: string }, signal: AbortSignal): Promise<InstalledPackage[]> {
    const ref = this.#d.device(target);
    await this.#d.requireReady(ref);
    const scope = o.system ? 'all' : 'user';
    const all = parsePackageList(await this.#d.shell(ref, listPackagesCommand(scope), signal, 'pm list packages'), scope);
    const f = o.filter?.toLowerCase();
    return f ? all.filter((p) => p.package.toLowerCase().includes(f)) : all;
  }

  // Each change is judged and runs under the device's lock, like every action on it; these
  // actions aim at no point, so there is no frame to map.
  launch(action: PendingAction<ModuleAction<'launch_app', LaunchParams>>, signal: AbortSignal): Promise<ActionDetails> {
    const ref = this.#d.device(action.target);
    return this.#d.exclusive(ref, signal, async () => {
      await action.judge((need) => deviceFacts(this.#d, ref, signal, need));
      const { params: p } = action.resolve({});
      return this.#launch(ref, p.package, p.activity, p.wait, signal);
    });
  }

  stop(action: PendingAction<ModuleAction<'stop_app', { package: string }>>, signal: AbortSignal): Promise<ActionDetails> {
    const ref = this.#d.device(action.target);
    return this.#d.exclusive(ref, signal, async () => {
      await action.judge((need) => deviceFacts(this.#d, ref, signal, need));
      return this.#stop(ref, action.resolve({}).params.package, signal);
    });
  }

  openUrl(action: PendingAction<ModuleAction<'open_url', OpenUrlParams>>, signal: AbortSignal): Promise<ActionDetails> {
    const ref = this.#d.device(action.target);
    return this.#d.exclusive(ref, signal, async () => {
      const verdict = await action.judge((need) => deviceFacts(this.#d, ref, signal, need));
      const { params: p } = action.resolve({});
      return this.#openUrl(ref, p.url, p.package, p.wait, { judge: action, confined: verdict.confined }, signal);
    });
  }

  /**
   * Judged under the device's lock; the file is read and pushed without it (a large APK must not
   * hold up captures), then judged again, under the lock, right before it is installed.
   */
  async install(action: PendingAction<ModuleAction<'install_apk', InstallParams>>, signal: AbortSignal): Promise<ActionDetails> {
    const ref = this.#d.device(action.target);
    const judge = (): Promise<unknown> => this.#d.exclusive(ref, signal, () => action.judge((need) => deviceFacts(this.#d, ref, signal, need)));
    await judge();
    const { params: p } = action.resolve({});
    const real = await action.allowedFile(p.path, 'APK');
    return this.#install(ref, real, { grantPermissions: p.grantPermissions, allowDowngrade: p.allowDowngrade, allowTest: p.allowTest }, judge, signal);
  }

  setOrientation(action: PendingAction<ModuleAction<'set_orientation', { orientation: OrientationValue }>>, signal: AbortSignal): Promise<ActionDetails> {
    const ref = this.#d.device(action.target);
    return this.#d.exclusive(ref, signal, async () => {
      await action.judge((need) => deviceFacts(this.#d, ref, signal, need));
      return this.#orientation(ref, action.resolve({}).params.orientation, signal);
    });
  }

  async #launch(ref: DeviceRef, pkg: string, activity: string | undefined, wait: boolean, signal: AbortSignal): Promise<ActionDetails> {
    checkPackageName(pkg);
    let component: Component;
    let others: string[] = [];
    if (activity) {
      component = parseComponent(activity.includes('/') ? activity : `${pkg}/${activity}`, 'activity');
      // The allowlist judged the package: an activity of another app would start that app instead.
      if (component.package !== pkg) {
        throw new SightlineError('NOT_ALLOWED', `The activity ${activity} belongs to ${component.package}, not to ${pkg}: launch_app starts activities of its package only.`, `Give an activity of ${pkg} (".MainActivity"), or launch ${component.package} itself.`);
      }
    } else {
      const resolved = parseResolveActivity(await this.#d.shell(ref, resolveLauncherCommand(pkg), signal, 'resolving the launcher activity'), pkg);
      if ('component' in resolved) component = resolved.component;
      else {
        // Several launcher activities (a suite of apps): start the first, name the others.
        const all = parseQueryActivities(await this.#d.shell(ref, queryLaunchersCommand(pkg), signal, 'listing launcher activities'));
        if (!all[0]) throw new SightlineError('INVALID_ARGUMENT', `${pkg} has no launcher activity Android would start.`, 'Give the activity to start.');
        component = all[0];
        others = all.slice(1).map(formatComponent);
      }
    }
    if (component.package !== pkg) throw new SightlineError('NOT_ALLOWED', `${pkg}'s launcher resolves to ${formatComponent(component)}, another package's activity.`, `Launch ${component.package} itself.`);
    this.#d.touch(ref);
    const out = await this.#d.shell(ref, launchCommand(component, { wait }), signal, 'am start', START_TIMEOUT);
    const r = parseAmStartOutput(out, { kind: 'launch', package: pkg });
    const front = await this.#front(ref, signal);
    const how = r.warning ? 'was running: brought to the front' : r.launchState ? `${r.launchState.toLowerCase()} start${r.totalTimeMs !== undefined ? `, ${r.totalTimeMs} ms` : ''}` : 'started';
    const note = `${front ?? r.activity ?? formatComponent(component)} in front (${how})${others.length ? `; other launcher activities: ${others.join(', ')}` : ''}`;
    return { note, ...startFacts(r), package: pkg, started: formatComponent(component), ...(front ? { foreground: front } : {}), ...(others.length ? { otherLaunchers: others } : {}) };
  }

  async #stop(ref: DeviceRef, pkg: string, signal: AbortSignal): Promise<ActionDetails> {
    this.#d.touch(ref);
    parseForceStopOutput(await this.#d.shell(ref, forceStopCommand(pkg), signal, 'am force-stop'), pkg);
    const front = await this.#front(ref, signal);
    return { note: `stopped ${pkg}${front ? `; ${front} in front` : ''}`, package: pkg, ...(front ? { foreground: front } : {}) };
  }

  /**
   * The link is resolved first and started in exactly the activity it resolved to (`am start -n`),
   * judged as the app it opens in, so nothing installed or changed in between receives it. Where
   * Android finds no app, nothing is started. Where it would show its chooser, every app it
   * offers must be allowed, and under an allowlist the agent names the one (no chooser picks an
   * app no one judged).
   */
  async #openUrl(ref: DeviceRef, url: string, pkg: string | undefined, wait: boolean, j: { judge: Pick<PendingAction<unknown>, 'judgePlace'>; confined: boolean }, signal: AbortSignal): Promise<ActionDetails> {
    let h: ReturnType<typeof parseResolveLink>;
    try {
      h = parseResolveLink(await this.#d.shell(ref, resolveLinkCommand(url, pkg ? { package: pkg } : {}), signal, 'resolving the link'));
    } catch (e) {
      // An old device that cannot resolve links still opens one where nothing needs judging.
      if (j.confined || !isSightlineError(e) || e.code !== 'UNSUPPORTED') throw e;
      h = { several: true };
    }
    if ('none' in h) {
      if (pkg) throw new SightlineError('INVALID_ARGUMENT', `${pkg} does not open ${schemeOf(url)} links like this one (or is not installed). Nothing was started.`, 'Leave out the package to let Android pick the app, or call list_apps.');
      throw new SightlineError('UNSUPPORTED', `No app on the device opens ${JSON.stringify(url.slice(0, 200))}. Nothing was started.`, `Install an app that handles ${schemeOf(url)} links; for a deep link, check the scheme and host the app declares.`);
    }
    let component: Component | undefined;
    let handler: string | undefined;
    if ('component' in h) {
      judgeLinkApps(j.judge, url, [h.component.package]);
      component = h.component;
      handler = h.component.package;
    } else if (j.confined) {
      const all = [...new Set(parseQueryActivities(await this.#d.shell(ref, resolveLinkCommand(url, { all: true, ...(pkg ? { package: pkg } : {}) }), signal, 'listing the apps that open the link')).map((c) => c.package))];
      judgeLinkApps(j.judge, url, all.length ? all : ['an app Android would pick']);
      throw new SightlineError('INVALID_ARGUMENT', `${url} opens in several apps (${all.join(', ')}): under input.allowlist Sightline starts only the app it judged, not Android's chooser. Nothing was started.`, `Call open_url again with package: one of ${all.join(', ')}.`);
    }
    this.#d.touch(ref);
    const out = await this.#d.shell(ref, openUrlCommand(url, { ...(component ? { component } : pkg ? { package: pkg } : {}), wait }), signal, 'am start', START_TIMEOUT);
    const r = parseAmStartOutput(out, { kind: 'url', uri: url, ...(pkg ? { package: pkg } : {}) });
    const front = await this.#front(ref, signal);
    const note = r.chooser
      ? 'Android asks which app should open it (the chooser is in front): tap one, or call open_url again with package'
      : `opened in ${front ?? r.activity ?? 'an app'}`;
    return { note, ...startFacts(r), url, ...(handler ? { handler } : {}), ...(component ? { started: formatComponent(component) } : {}), ...(front ? { foreground: front } : {}) };
  }

  async #install(ref: DeviceRef, real: string, options: { grantPermissions: boolean; allowDowngrade: boolean; allowTest: boolean }, judge: () => Promise<unknown>, signal: AbortSignal): Promise<ActionDetails> {
    const name = basename(real);
    const file = await open(real, 'r');
    let size: number;
    try {
      const head = Buffer.alloc(4);
      await file.read(head, 0, 4, 0);
      size = (await file.stat()).size;
      if (!looksLikeApk(head)) throw new SightlineError('INVALID_ARGUMENT', `${name} is not an APK (it does not start like a ZIP archive).`, 'Give the path of an .apk file (an .aab bundle must be turned into APKs with bundletool first).');
    } finally {
      await file.close();
    }
    await this.#d.requireReady(ref);
    const remote = remoteApkPath(randomBytes(6).toString('hex'));
    const mb = size / (1024 * 1024);
    const before = await this.#packages(ref, signal);
    try {
      // Over USB a push runs at 20–40 MB/s; a remote server or Wi-Fi may give 1 MB/s.
      await this.#d.push(ref, real, remote, signal, 60_000 + mb * 1000);
    } catch (e) {
      await this.#d.shell(ref, `rm -f ${remote}`, AbortSignal.timeout(5000), 'rm').catch(() => undefined);
      throw e;
    }
    try {
      // A pause pressed during a long push stops the install.
      await judge();
    } catch (e) {
      await this.#d.shell(ref, `rm -f ${remote}`, AbortSignal.timeout(5000), 'rm').catch(() => undefined);
      throw e;
    }
    parseInstallOutput(await this.#d.shell(ref, installCommand(remote, options), signal, 'pm install', 120_000 + mb * 1000), name);
    const added = [...(await this.#packages(ref, signal))].filter((p) => !before.has(p));
    const note = added.length ? `installed ${added.join(', ')} from ${name}` : `installed ${name} (it replaced an installed app: call list_apps to see it)`;
    return { note, file: name, bytes: size, ...(added.length ? { packages: added } : {}) };
  }

  async #orientation(ref: DeviceRef, value: OrientationValue, signal: AbortSignal): Promise<ActionDetails> {
    const display = await this.#d.display(ref, signal);
    const natural = naturalOf(display.natural);
    this.#d.touch(ref);
    if (value === 'auto') {
      checkQuiet(await this.#d.shell(ref, autoRotateCommand(true), signal, 'settings put'), 'settings put');
    } else {
      checkQuiet(await this.#d.shell(ref, setOrientationCommand(value, natural), signal, 'settings put'), 'settings put');
    }
    // WindowManager turns the screen a moment later (with its animation): read until it did, ≤ 2 s.
    let now = await this.#d.display(ref, signal);
    for (let i = 0; value !== 'auto' && i < 10 && now.rotation !== undefined && orientationOf(now.rotation, natural) !== value; i++) {
      await sleep(200);
      now = await this.#d.display(ref, signal);
    }
    const settings = parseOrientationSettings(await this.#d.shell(ref, ORIENTATION_SETTINGS_COMMAND, signal, 'settings get'));
    if (value !== 'auto') checkOrientationApplied(value, now.rotation, natural);
    const shown = now.rotation === undefined ? undefined : orientationOf(now.rotation, natural);
    const deg = now.rotation === undefined ? 'unknown' : ROTATION_DEG[now.rotation];
    return {
      note: `${shown ?? 'rotation unknown'} (${deg}), auto-rotate ${settings.autoRotate ? 'on' : 'off'}; frames captured before are stale`,
      orientation: shown,
      rotation: now.rotation ?? null,
      autoRotate: settings.autoRotate,
      screen: now.size,
    };
  }

  async #front(ref: DeviceRef, signal: AbortSignal): Promise<string | undefined> {
    return parseForegroundActivity(await this.#d.shell(ref, FOCUS_COMMAND, signal, 'reading the app in front').catch(() => ''));
  }

  async #packages(ref: DeviceRef, signal: AbortSignal): Promise<Set<string>> {
    return new Set(parsePackageList(await this.#d.shell(ref, listPackagesCommand('user'), signal, 'pm list packages', SHORT), 'user').map((p) => p.package));
  }
}

/** NOT_ALLOWED naming every app a link would open in that the allowlist (or the own-target rule) refuses. */
function judgeLinkApps(judge: Pick<PendingAction<unknown>, 'judgePlace'>, url: string, apps: readonly string[]): void {
  const off: string[] = [];
  for (const app of apps) {
    try {
      judge.judgePlace({ kind: 'app', name: app });
    } catch (e) {
      if (!isSightlineError(e) || e.code !== 'NOT_ALLOWED') throw e;
      off.push(app);
    }
  }
  if (off.length) throw new SightlineError('NOT_ALLOWED', `${url} would open in ${off.join(', ')}, not in the input allowlist.`, `The user can add "${off[0]}" to input.allowlist; or give package: an allowed app that opens the link.`);
}

function schemeOf(uri: string): string {
  return /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1]?.toLowerCase() ?? 'such';
}

function startFacts(r: AmStartResult): Record<string, unknown> {
  return {
    ...(r.activity ? { activity: r.activity } : {}),
    ...(r.launchState ? { launchState: r.launchState } : {}),
    ...(r.totalTimeMs !== undefined ? { totalTimeMs: r.totalTimeMs } : {}),
    ...(r.status ? { status: r.status } : {}),
    ...(r.warning ? { warning: r.warning } : {}),
    chooser: r.chooser,
  };
}

function checkQuiet(out: string, command: string): void {
  const said = deviceSaid(out);
  if (said) throw new SightlineError(/SecurityException|Permission/.test(said) ? 'PERMISSION_DENIED' : 'INTERNAL', `${command} failed: ${said}`, 'Some devices lock rotation settings (a managed device, or an app in kiosk mode).');
}
