/**
 * The fake device's package manager and activity manager: `pm`/`cmd package` (list packages,
 * resolve-activity, query-activities, path, install, uninstall), `am start`/`am force-stop` and
 * `monkey -p`,
 * printing what AOSP's PackageManagerShellCommand and ActivityManagerShellCommand print, and
 * recording what was started, stopped and installed.
 */
import type { CmdResult } from './shell.ts';
import { readApk } from './apk.ts';

export interface FakePackage {
  name: string;
  /** A system app (`pm list packages -s`); default false: a user app (`-3`). */
  system?: boolean;
  /** Launcher activities (`.MainActivity` or a full class name); [] for none. Default ['.MainActivity']. */
  launchers?: string[];
  /** Other exported activities `am start -n` can start. */
  activities?: string[];
  /** Activities that are not exported (`am start -n` gets a SecurityException). */
  privateActivities?: string[];
  /** What it opens for ACTION_VIEW: `scheme:` or `scheme://host` prefixes (`https:`, `fake://open`). */
  opens?: string[];
  /** Its APK (for `pm list packages -f` and `pm path`). */
  path?: string;
  versionCode?: number;
}

/** What `am start` was asked for and what came of it. */
export interface StartedIntent {
  action?: string;
  data?: string;
  categories: string[];
  package?: string;
  /** The component asked for (`-n`), as given. */
  component?: string;
  wait: boolean;
  /** The activity that came to the front (`pkg/.Cls`), or the chooser. */
  resolved?: string;
  result: 'started' | 'brought-to-front' | 'chooser' | 'not-resolved' | 'no-such-class' | 'not-exported';
}

export interface InstallRecord {
  path: string;
  bytes: number;
  package?: string;
  /** `Success`, or the failure code (`INSTALL_PARSE_FAILED_NOT_APK`). */
  result: string;
}

/** What the package model needs from the device. */
export interface AppHost {
  files: Map<string, Buffer>;
  foreground: string;
  foregroundActivity: string;
}

export const HOME = { package: 'com.android.launcher3', activity: '.uioverride.QuickstepLauncher' };
const RESOLVER = 'android/com.android.internal.app.ResolverActivity';
const MAIN = 'android.intent.action.MAIN';
const LAUNCHER = 'android.intent.category.LAUNCHER';

/** A Pixel-like set: framework, system UI, Settings, Chrome, a launcher, and the test app in front. */
export function defaultPackages(): FakePackage[] {
  return [
    { name: 'android', system: true, launchers: [], path: '/system/framework/framework-res.apk' },
    { name: 'com.android.systemui', system: true, launchers: [], path: '/system_ext/priv-app/SystemUIGoogle/SystemUIGoogle.apk' },
    { name: 'com.android.settings', system: true, launchers: ['.Settings'], path: '/system_ext/priv-app/SettingsGoogle/SettingsGoogle.apk' },
    { name: HOME.package, system: true, launchers: [], activities: [HOME.activity], path: '/system_ext/priv-app/Launcher3QuickStep/Launcher3QuickStep.apk' },
    { name: 'com.android.chrome', system: true, launchers: ['com.google.android.apps.chrome.Main'], opens: ['http:', 'https:'], path: '/product/app/Chrome/Chrome.apk' },
    { name: 'com.google.android.gms', system: true, launchers: [], path: '/product/priv-app/PrebuiltGmsCore/PrebuiltGmsCore.apk' },
    { name: 'com.example.fake', launchers: ['.MainActivity'], opens: ['fake:'], path: '/data/app/~~Qm9vdA==/com.example.fake-c2lnaHQ==/base.apk' },
    { name: 'com.example.notes', launchers: ['.NotesActivity'], activities: ['.EditActivity'], privateActivities: ['.SecretActivity'], path: '/data/app/~~bm90ZXM==/com.example.notes-bm90ZQ==/base.apk' },
    { name: 'com.example.widget', launchers: [], path: '/data/app/~~d2lkZ2V0/com.example.widget-d2lk/base.apk' },
  ];
}

interface Intent {
  action?: string;
  data?: string;
  type?: string;
  categories: string[];
  package?: string;
  component?: { pkg: string; cls: string };
  flags?: number;
}

export class FakePackages {
  readonly packages = new Map<string, FakePackage>();
  /** Packages with a process (started and not force-stopped). */
  readonly running = new Set<string>();
  readonly started: StartedIntent[] = [];
  /** Every `am force-stop` package, in order. */
  readonly stopped: string[] = [];
  readonly installs: InstallRecord[] = [];
  readonly #host: AppHost;
  #session = 1_234_567;

  constructor(host: AppHost, packages: FakePackage[]) {
    this.#host = host;
    for (const p of packages) this.add(p);
    this.running.add(host.foreground);
  }

  add(p: FakePackage): void {
    this.packages.set(p.name, p);
  }

  /** `pm …` and `cmd package …`. */
  pm(args: string[]): CmdResult {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'list':
        if (rest[0] === 'packages') return this.#list(rest.slice(1));
        return fail(`Error: unknown list type '${rest[0] ?? ''}'\n`, 255);
      case 'resolve-activity':
      case 'query-activities':
        return this.#resolve(sub, rest);
      case 'path': {
        const p = this.packages.get(rest.filter((a) => !a.startsWith('-'))[0] ?? '');
        return p ? ok(`package:${apkPath(p)}\n`) : fail('', 1);
      }
      case 'install':
        return this.#install(rest);
      case 'uninstall': {
        const name = rest.filter((a) => !a.startsWith('-'))[0] ?? '';
        const p = this.packages.get(name);
        if (!p || p.system) return ok('Failure [DELETE_FAILED_INTERNAL_ERROR]\n');
        this.packages.delete(name);
        this.#stop(name);
        return ok('Success\n');
      }
      default:
        return fail(`Unknown command: ${sub ?? ''}\n`, 255);
    }
  }

  /** `am start|start-activity|force-stop …` (broadcasts are the device's own). */
  am(args: string[]): CmdResult {
    const [sub, ...rest] = args;
    if (sub === 'force-stop') {
      const name = rest.filter((a, i) => !a.startsWith('-') && rest[i - 1] !== '--user')[0];
      if (!name) return fail('Exception occurred while executing \'force-stop\':\njava.lang.IllegalArgumentException: Argument expected after "force-stop"\n', 255);
      this.stopped.push(name);
      this.#stop(name);
      return ok('');
    }
    if (sub === 'start' || sub === 'start-activity') return this.#start(rest);
    return fail(`Error: Unknown command: ${sub ?? ''}\n`, 255);
  }

  /** `monkey -p PKG -c android.intent.category.LAUNCHER 1`: how mobile-mcp and many scripts launch an app. */
  monkey(args: string[]): CmdResult {
    const pkg = args[args.indexOf('-p') + 1];
    const p = args.includes('-p') && pkg ? this.packages.get(pkg) : undefined;
    const launcher = p && (p.launchers ?? ['.MainActivity'])[0];
    const echo = args.map((a) => `  bash arg: ${a}\n`).join('');
    if (!p || !launcher) return { out: Buffer.from(echo), err: '** No activities found to run, monkey aborted.\n', rc: 252 };
    this.#start(['-a', MAIN, '-c', LAUNCHER, '-f', '0x10200000', '-n', shortComponent(p.name, fullClass(p.name, launcher))]);
    return ok(`${echo}Events injected: 1\n## Network stats: elapsed time=29ms (0ms mobile, 0ms wifi, 29ms not connected)\n`);
  }

  #stop(name: string): void {
    this.running.delete(name);
    if (this.#host.foreground === name) {
      this.#host.foreground = HOME.package;
      this.#host.foregroundActivity = HOME.activity;
    }
  }

  #list(args: string[]): CmdResult {
    const opts = new Set(args.filter((a) => a.startsWith('-')));
    for (const o of opts) {
      if (!['-f', '-d', '-e', '-s', '-3', '-i', '-l', '-u', '-U', '--show-versioncode', '--user'].includes(o)) return fail(`Error: Unknown option: ${o}\n`, 255);
    }
    const filter = args.filter((a, i) => !a.startsWith('-') && args[i - 1] !== '--user')[0];
    const lines: string[] = [];
    for (const p of this.packages.values()) {
      if ((opts.has('-s') && !p.system) || (opts.has('-3') && p.system) || opts.has('-d')) continue;
      if (filter && !p.name.includes(filter)) continue;
      let line = `package:${opts.has('-f') ? `${apkPath(p)}=` : ''}${p.name}`;
      if (opts.has('--show-versioncode')) line += ` versionCode:${p.versionCode ?? 1}`;
      if (opts.has('-i')) line += `  installer=${p.system ? 'null' : 'com.android.vending'}`;
      if (opts.has('-U')) line += ` uid:${p.system ? 1000 : 10_000 + [...this.packages.keys()].indexOf(p.name)}`;
      lines.push(line);
    }
    return ok(lines.map((l) => `${l}\n`).join(''));
  }

  /** Every activity that answers the intent, as `pkg/full.Class`. */
  #query(intent: Intent): { pkg: string; cls: string; match: number }[] {
    if (intent.component) {
      const { pkg, cls } = intent.component;
      const p = this.packages.get(pkg);
      const all = p ? [...(p.launchers ?? ['.MainActivity']), ...(p.activities ?? []), ...(p.privateActivities ?? [])] : [];
      return all.some((a) => fullClass(pkg, a) === cls) ? [{ pkg, cls, match: 0x108000 }] : [];
    }
    const out: { pkg: string; cls: string; match: number }[] = [];
    for (const p of this.packages.values()) {
      if (intent.package && p.name !== intent.package) continue;
      const launchers = p.launchers ?? ['.MainActivity'];
      if (intent.data !== undefined) {
        if (intent.action !== undefined && intent.action !== 'android.intent.action.VIEW') continue;
        const prefix = (p.opens ?? []).find((o) => intent.data!.toLowerCase().startsWith(o.toLowerCase()));
        const handler = launchers[0] ?? p.activities?.[0];
        if (prefix && handler) out.push({ pkg: p.name, cls: fullClass(p.name, handler), match: prefix.includes('//') ? 0x308000 : 0x208000 });
      } else if ((intent.action === undefined || intent.action === MAIN) && intent.categories.every((c) => c === LAUNCHER || c === 'android.intent.category.DEFAULT')) {
        if (intent.action === undefined && intent.categories.length === 0) continue;
        for (const a of launchers) out.push({ pkg: p.name, cls: fullClass(p.name, a), match: 0x108000 });
      }
    }
    return out;
  }

  #resolve(sub: 'resolve-activity' | 'query-activities', args: string[]): CmdResult {
    const parsed = parseIntent(args);
    if ('error' in parsed) return fail(`Error: ${parsed.error}\n`, 255);
    const found = this.#query(parsed.intent);
    const components = parsed.flags.has('--components');
    const info = (f: { match: number }, isDefault: boolean): string => `priority=0 preferredOrder=0 match=0x${f.match.toString(16)} specificIndex=-1 isDefault=${isDefault}`;
    if (sub === 'resolve-activity') {
      if (found.length === 0) return ok('No activity found\n');
      if (found.length > 1) return ok(`${components ? '' : 'priority=0 preferredOrder=0 match=0x0 specificIndex=-1 isDefault=false\n'}${RESOLVER}\n`);
      const f = found[0]!;
      return ok(`${components ? '' : `${info(f, true)}\n`}${shortComponent(f.pkg, f.cls)}\n`);
    }
    if (found.length === 0) return ok('No activities found\n');
    if (components) return ok(found.map((f) => `${shortComponent(f.pkg, f.cls)}\n`).join(''));
    return ok(`${found.length} activities found:\n${found.map((f, i) => `  Activity #${i}:\n    ${info(f, false)}\n    ${shortComponent(f.pkg, f.cls)}\n`).join('')}`);
  }

  #start(args: string[]): CmdResult {
    const parsed = parseIntent(args);
    if ('error' in parsed) return fail(`Error: ${parsed.error}\n`, 255);
    const { intent, flags } = parsed;
    const wait = flags.has('-W');
    if (flags.has('-S') && intent.component) this.#stop(intent.component.pkg);
    const record: StartedIntent = {
      categories: intent.categories,
      wait,
      result: 'started',
      ...(intent.action !== undefined ? { action: intent.action } : {}),
      ...(intent.data !== undefined ? { data: intent.data } : {}),
      ...(intent.package !== undefined ? { package: intent.package } : {}),
      ...(intent.component ? { component: shortComponent(intent.component.pkg, intent.component.cls) } : {}),
    };
    this.started.push(record);
    // am prints the intent on stdout, then errors and warnings on stderr (on stdout with -W).
    const out = `Starting: ${describe(intent)}\n`;
    const say = (msg: string, rc: number): CmdResult => (wait ? { out: Buffer.from(out + msg), err: '', rc } : { out: Buffer.from(out), err: msg, rc });
    const found = this.#query(intent);
    if (found.length === 0) {
      if (intent.component) {
        record.result = 'no-such-class';
        return say(`Error type 3\nError: Activity class {${intent.component.pkg}/${intent.component.cls}} does not exist.\n`, 1);
      }
      record.result = 'not-resolved';
      return say(`Error: Activity not started, unable to resolve ${describe({ ...intent, flags: (intent.flags ?? 0) | 0x10000000 })}\n`, 1);
    }
    let pkg: string;
    let short: string;
    let warning = '';
    if (found.length > 1) {
      record.result = 'chooser';
      [pkg, short] = ['android', 'com.android.internal.app.ResolverActivity'];
    } else {
      const f = found[0]!;
      const p = this.packages.get(f.pkg)!;
      if ((p.privateActivities ?? []).some((a) => fullClass(p.name, a) === f.cls)) {
        record.result = 'not-exported';
        const trace = `java.lang.SecurityException: Permission Denial: starting ${describe({ ...intent, flags: 0x10000000 })} from null (pid=${4000 + this.started.length}, uid=2000) not exported from uid 10145\n\tat com.android.server.wm.ActivityTaskSupervisor.checkStartAnyActivityPermission(ActivityTaskSupervisor.java:1155)\n`;
        return { out: Buffer.from(out), err: `Exception occurred while executing 'start':\n${trace}`, rc: 255 };
      }
      [pkg, short] = [f.pkg, shortClass(f.pkg, f.cls)];
      const isLauncher = (p.launchers ?? ['.MainActivity']).some((a) => fullClass(p.name, a) === f.cls);
      if (this.running.has(pkg) && isLauncher && intent.data === undefined) {
        record.result = 'brought-to-front';
        warning = 'Warning: Activity not started, its current task has been brought to the front\n';
      }
    }
    const cold = !this.running.has(pkg);
    record.resolved = `${pkg}/${short}`;
    this.running.add(pkg);
    this.#host.foreground = pkg;
    this.#host.foregroundActivity = short;
    if (!wait) return say(warning, 0);
    let status = `Status: ok\nLaunchState: ${warning ? 'UNKNOWN (0)' : cold ? 'COLD' : 'WARM'}\nActivity: ${pkg}/${short}\n`;
    if (!warning) status += `TotalTime: ${cold ? 412 : 145}\n`;
    return say(`${warning}${status}WaitTime: ${cold ? 418 : warning ? 12 : 151}\nComplete\n`, 0);
  }

  #install(args: string[]): CmdResult {
    const path = args.filter((a) => !a.startsWith('-')).pop();
    if (!path) return fail('Error: must either specify a package size or an APK file\n', 255);
    const data = this.#host.files.get(path);
    if (!data) {
      return fail(`Exception occurred while executing 'install':\njava.lang.IllegalArgumentException: Error: Can't open file: ${path}\n\tat com.android.server.pm.PackageManagerShellCommand.setParamsSize(PackageManagerShellCommand.java:620)\n`, 255);
    }
    const tmp = `/data/app/vmdl${this.#session++}.tmp/base.apk`;
    const info = readApk(data);
    const record: InstallRecord = { path, bytes: data.length, result: 'Success' };
    this.installs.push(record);
    const failure = (code: string, msg: string): CmdResult => {
      record.result = code;
      return { out: Buffer.from(`Failure [${code}: ${msg}]\n`), err: '', rc: 1 };
    };
    if (info === 'not-zip') return failure('INSTALL_PARSE_FAILED_NOT_APK', `Failed to parse ${tmp}: Failed to load asset path ${tmp}`);
    if (info === 'no-manifest') return failure('INSTALL_PARSE_FAILED_BAD_MANIFEST', `Failed to parse ${tmp}: Failed to read manifest from ${tmp}`);
    record.package = info.package;
    const existing = this.packages.get(info.package);
    // `pm install` replaces an installed package unless told not to (`-R`); `-r` is accepted and ignored.
    if (existing && args.includes('-R')) return failure('INSTALL_FAILED_ALREADY_EXISTS', `Attempt to re-install ${info.package} without first uninstalling.`);
    if (existing?.system) return failure('INSTALL_FAILED_UPDATE_INCOMPATIBLE', `Package ${info.package} signatures do not match previously installed version; ignoring!`);
    if (existing && (existing.versionCode ?? 1) > info.versionCode && !args.includes('-d')) {
      return failure('INSTALL_FAILED_VERSION_DOWNGRADE', `Downgrade detected: Update version code ${info.versionCode} is older than current ${existing.versionCode ?? 1}`);
    }
    this.#stop(info.package);
    this.add({ name: info.package, launchers: info.launcher ? [info.launcher] : [], versionCode: info.versionCode, path: `/data/app/~~${this.#session}==/${info.package}-1==/base.apk` });
    return ok('Success\n');
  }
}

function ok(s: string): CmdResult {
  return { out: Buffer.from(s), err: '', rc: 0 };
}

/** Output on stderr (plain `shell:` merges the streams; `2>/dev/null` drops it). */
function fail(s: string, rc: number): CmdResult {
  return { out: Buffer.alloc(0), err: s, rc };
}

function apkPath(p: FakePackage): string {
  return p.path ?? (p.system ? `/system/app/${p.name}/${p.name}.apk` : `/data/app/~~fake==/${p.name}-1==/base.apk`);
}

function fullClass(pkg: string, cls: string): string {
  return cls.startsWith('.') ? pkg + cls : cls;
}

function shortClass(pkg: string, cls: string): string {
  return cls.startsWith(`${pkg}.`) ? cls.slice(pkg.length) : cls;
}

/** ComponentName.flattenToShortString. */
function shortComponent(pkg: string, cls: string): string {
  return `${pkg}/${shortClass(pkg, cls)}`;
}

/** Intent.parseCommandArgs (the subset Sightline and common tools send) plus am's own flags. */
function parseIntent(args: string[]): { intent: Intent; flags: Set<string> } | { error: string } {
  const intent: Intent = { categories: [] };
  const flags = new Set<string>();
  const component = (s: string): { pkg: string; cls: string } | undefined => {
    const m = /^([^/]+)\/(.+)$/.exec(s);
    return m ? { pkg: m[1]!, cls: fullClass(m[1]!, m[2]!) } : undefined;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = (): string | undefined => args[++i];
    switch (a) {
      case '-a': intent.action = next(); break;
      case '-d': intent.data = next(); break;
      case '-t': intent.type = next(); break;
      case '-c': intent.categories.push(next() ?? ''); break;
      case '-f': intent.flags = Number(next()); break;
      case '-n': {
        const c = component(next() ?? '');
        if (!c) return { error: `Bad component name: ${args[i] ?? ''}` };
        intent.component = c;
        break;
      }
      case '--user': case '--display': case '--windowingMode': case '--activityType': next(); break;
      case '-e': case '--es': case '--ei': case '--ez': case '--el': case '--ef': case '--eu': i += 2; break;
      default:
        if (a.startsWith('-')) {
          flags.add(a);
          break;
        }
        if (a.includes(':')) intent.data = a;
        else if (a.includes('/')) {
          const c = component(a);
          if (!c) return { error: `Bad component name: ${a}` };
          intent.component = c;
        } else intent.package = a;
    }
  }
  return { intent, flags };
}

/** Intent.toString: `Intent { act=… cat=[…] dat=… typ=… flg=0x… pkg=… cmp=… }`, data made safe as Uri.toSafeString does. */
function describe(i: Intent): string {
  const parts: string[] = [];
  if (i.action) parts.push(`act=${i.action}`);
  if (i.categories.length) parts.push(`cat=[${i.categories.join(',')}]`);
  if (i.data !== undefined) parts.push(`dat=${safeUri(i.data)}`);
  if (i.type) parts.push(`typ=${i.type}`);
  if (i.flags) parts.push(`flg=0x${i.flags.toString(16)}`);
  if (i.package) parts.push(`pkg=${i.package}`);
  if (i.component) parts.push(`cmp=${shortComponent(i.component.pkg, i.component.cls)}`);
  return `Intent { ${parts.join(' ')} }`;
}

function safeUri(uri: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(uri);
  if (!m) return uri;
  const [, scheme, rest] = m as unknown as [string, string, string];
  const s = scheme.toLowerCase();
  if (['tel', 'sip', 'sms', 'smsto', 'mailto', 'nfc'].includes(s)) return `${scheme}:${rest.replace(/[^-@.]/g, 'x')}`;
  if (['http', 'https', 'ftp', 'rtsp'].includes(s)) {
    const host = /^\/\/([^/?#]*)/.exec(rest)?.[1] ?? '';
    return `${scheme}://${host.replace(/^.*@/, '')}/...`;
  }
  return `${scheme}:${rest.replace(/[?#].*$/s, '')}`;
}
