/**
 * Apps on an Android device: shell commands that list, launch, stop and install apps and open
 * links, and parsers for what `pm`, `cmd package` and `am` print. Pure. Every value that reaches
 * the device's `sh -c` is checked against Android's own grammar first (package names, component
 * names) or refused when it holds control characters (URIs), then quoted; parsers turn the
 * device's error lines into SightlineErrors with a hint. Output formats follow AOSP's
 * PackageManagerShellCommand and ActivityManagerShellCommand (Android 7 to 14).
 */
import { SightlineError } from '../../../../shared/errors.ts';
import { shellQuote } from './inputText.ts';

/** PackageManager refuses longer names. */
export const MAX_PACKAGE_NAME = 255;
/** Old adbd caps a whole shell command at 4 KiB; a URI gets most of it. */
export const MAX_URI = 3800;

const SEGMENT = '[A-Za-z][A-Za-z0-9_]*';
const PACKAGE = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})+$`);
/** A Java class name; `$` for nested classes (`.Main$Alias`). */
const CLASS = /^\.?[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
const MAIN = 'android.intent.action.MAIN';
const LAUNCHER = 'android.intent.category.LAUNCHER';
/** What resolve-activity answers when several activities match (the chooser). */
export const RESOLVER_ACTIVITY = 'android/com.android.internal.app.ResolverActivity';

/**
 * Android's package-name grammar (PackageParser.validateName): dot-separated segments, each a
 * letter then letters, digits or `_`, at least two of them (`android` itself has one, but it is
 * nothing to launch or stop).
 */
export function isPackageName(s: string): boolean {
  return s.length <= MAX_PACKAGE_NAME && PACKAGE.test(s);
}

export function checkPackageName(s: string, field = 'package'): string {
  if (!isPackageName(s)) {
    throw new SightlineError('INVALID_ARGUMENT', `${field} ${JSON.stringify(s.slice(0, 300))} is not an Android package name.`, 'Use a name like com.example.app (dot-separated letters, digits and _); call list_apps for the installed ones.');
  }
  return s;
}

export interface Component {
  package: string;
  /** The full class name (`com.example.app.MainActivity`). */
  className: string;
}

/** `pkg/.Activity` (relative to the package), `pkg/full.Class`, as `am start -n` takes them. */
export function parseComponent(s: string, field = 'component'): Component {
  const slash = s.indexOf('/');
  const pkg = slash < 0 ? '' : s.slice(0, slash);
  const cls = slash < 0 ? '' : s.slice(slash + 1);
  if (!isPackageName(pkg) || !CLASS.test(cls) || s.length > 2 * MAX_PACKAGE_NAME) {
    throw new SightlineError('INVALID_ARGUMENT', `${field} ${JSON.stringify(s.slice(0, 300))} is not an activity name.`, 'Write it as package/.Activity or package/full.class.Name, e.g. com.example.app/.MainActivity.');
  }
  return { package: pkg, className: cls.startsWith('.') ? pkg + cls : cls };
}

/** ComponentName.flattenToShortString: `com.example.app/.MainActivity`. */
export function formatComponent(c: Component): string {
  return `${c.package}/${c.className.startsWith(`${c.package}.`) ? c.className.slice(c.package.length) : c.className}`;
}

/**
 * A URL or deep link for `am start -d`: a scheme, no control characters (a newline would end the
 * shell command on old devices, and nothing legitimate needs one), not longer than a command may be.
 */
export function checkUri(s: string, field = 'url'): string {
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.exec(s);
  if (control) {
    const at = control.index;
    throw new SightlineError('INVALID_ARGUMENT', `${field} contains a control character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}) at position ${at}.`, 'Percent-encode it (a newline is %0A).');
  }
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:./s.test(s)) {
    throw new SightlineError('INVALID_ARGUMENT', `${field} ${JSON.stringify(s.slice(0, 300))} has no scheme.`, 'Give a whole URI: https://example.com/page, or a deep link such as myapp://item/42.');
  }
  if (s.length > MAX_URI) throw new SightlineError('INVALID_ARGUMENT', `${field} is ${s.length} characters long; at most ${MAX_URI} fit in a device command.`, 'Shorten the link.');
  return s;
}

// ── listing ──────────────────────────────────────────────────────────────────────────────

/** `user`: apps the user installed (the default); `system`: those that came with the device. */
export type PackageScope = 'user' | 'system' | 'all';

export interface InstalledPackage {
  package: string;
  system: boolean;
}

const SYSTEM_MARK = '@system';

/** One call for all scopes; `all` lists user apps, a marker line, then system apps. */
export function listPackagesCommand(scope: PackageScope = 'user'): string {
  if (scope === 'user') return 'pm list packages -3';
  if (scope === 'system') return 'pm list packages -s';
  return `pm list packages -3; echo ${SYSTEM_MARK}; pm list packages -s`;
}

/** `package:NAME` lines (also `package:/path/base.apk=NAME` from `-f`, with ` uid:`/`installer=` suffixes), sorted. */
export function parsePackageList(text: string, scope: PackageScope = 'user'): InstalledPackage[] {
  const out = new Map<string, InstalledPackage>();
  let system = scope === 'system';
  let listed = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === SYSTEM_MARK) {
      system = true;
      listed = true;
      continue;
    }
    if (!line.startsWith('package:')) continue;
    listed = true;
    // The APK path may hold `=` (`/data/app/~~base64==/…`): the name follows the last one.
    const word = line.slice('package:'.length).split(/\s+/)[0]!;
    const name = word.slice(word.lastIndexOf('=') + 1);
    if (/^[A-Za-z][A-Za-z0-9_.]*$/.test(name)) out.set(name, { package: name, system });
  }
  if (!listed) {
    const said = deviceSaid(text);
    if (said) throw unexpected('pm list packages', said);
  }
  return [...out.values()].sort((a, b) => a.package.localeCompare(b.package));
}

// ── launching ────────────────────────────────────────────────────────────────────────────

/**
 * The launcher activity, as the home screen would start it, and `pm path` in the same call so a
 * missing package and one without a launcher activity get different answers.
 */
export function resolveLauncherCommand(pkg: string): string {
  checkPackageName(pkg);
  return `cmd package resolve-activity --brief -a ${MAIN} -c ${LAUNCHER} ${pkg}; pm path ${pkg}`;
}

export type ResolvedLauncher = { component: Component } | { several: true };

/**
 * `priority=0 … isDefault=true` then `com.example/.MainActivity`; the resolver activity when the
 * package has several launcher activities (list them with queryLaunchersCommand); `No activity
 * found` when it has none or is not installed (the `pm path` line tells which).
 */
export function parseResolveActivity(text: string, pkg: string): ResolvedLauncher {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  const installed = lines.some((l) => /^package:\//.test(l));
  const component = lines.find((l) => /^[A-Za-z][\w.]*\/[\w.$]+$/.test(l));
  if (component === RESOLVER_ACTIVITY) return { several: true };
  if (component) return { component: parseComponent(component, 'resolved activity') };
  if (lines.some((l) => /^No activity found/.test(l))) {
    if (!installed) throw new SightlineError('INVALID_ARGUMENT', `${pkg} is not installed.`, 'Call list_apps (scope "all" includes system apps) for the installed packages.');
    throw new SightlineError('INVALID_ARGUMENT', `${pkg} has no launcher activity (nothing on the home screen).`, 'Open it through a link it handles with open_url, or launch one of its activities by component.');
  }
  if (lines.some((l) => /cmd: not found|Unknown command|Can't find service/.test(l))) {
    throw new SightlineError('UNSUPPORTED', 'The device cannot resolve launcher activities (Android 7 or newer needed, or it is still starting).', 'Wait for the device to finish booting; on Android 6 or older launch by component.');
  }
  throw unexpected('cmd package resolve-activity', deviceSaid(text));
}

/** Every launcher activity of a package, one component per line. */
export function queryLaunchersCommand(pkg: string): string {
  checkPackageName(pkg);
  return `cmd package query-activities --components -a ${MAIN} -c ${LAUNCHER} ${pkg}`;
}

export function parseQueryActivities(text: string): Component[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^[A-Za-z][\w.]*\/[\w.$]+$/.test(l))
    .map((l) => parseComponent(l, 'activity'));
}

/**
 * Start an activity the way the launcher does (MAIN/LAUNCHER, NEW_TASK | RESET_TASK_IF_NEEDED):
 * an app already running comes back as it was instead of stacking a second copy. `-W` waits for
 * the first frame and prints the launch state and time.
 */
export function launchCommand(c: Component, options: { wait?: boolean } = {}): string {
  const name = formatComponent(parseComponent(formatComponent(c)));
  return `am start${options.wait === false ? '' : ' -W'} -a ${MAIN} -c ${LAUNCHER} -f 0x10200000 -n ${shellQuote(name)}`;
}

/**
 * ACTION_VIEW on a URI: in exactly one activity (`-n`, the one the link was resolved and judged
 * to), or only in one package (`am start … -d URI PKG`), or wherever Android picks.
 */
export function openUrlCommand(uri: string, options: { component?: Component; package?: string; wait?: boolean } = {}): string {
  checkUri(uri);
  const to = options.component ? ` -n ${shellQuote(formatComponent(parseComponent(formatComponent(options.component))))}` : options.package === undefined ? '' : ` ${checkPackageName(options.package)}`;
  return `am start${options.wait === false ? '' : ' -W'} -a android.intent.action.VIEW -d ${shellQuote(uri)}${to}`;
}

/** Which activity Android would open a link in (resolve-activity), or, with `all`, every one that can (query-activities). */
export function resolveLinkCommand(uri: string, o: { all?: boolean; package?: string } = {}): string {
  checkUri(uri);
  const pkg = o.package === undefined ? '' : ` ${checkPackageName(o.package)}`;
  return `cmd package ${o.all ? 'query-activities --components' : 'resolve-activity --brief'} -a android.intent.action.VIEW -d ${shellQuote(uri)}${pkg}`;
}

/** The link's handler: one activity, several (Android shows its chooser), or none. */
export type LinkHandler = { component: Component } | { several: true } | { none: true };

export function parseResolveLink(text: string): LinkHandler {
  const component = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => /^[A-Za-z][\w.]*\/[\w.$]+$/.test(l));
  if (component === RESOLVER_ACTIVITY) return { several: true };
  if (component) return { component: parseComponent(component, 'resolved activity') };
  if (/No activit(y|ies) found/.test(text)) return { none: true };
  if (/cmd: not found|Unknown command|Can't find service/.test(text)) {
    throw new SightlineError('UNSUPPORTED', "The device cannot tell which app opens a link (Android 7 or newer needed), so the allowlist cannot judge it.", 'Give package: an app on the allowlist that opens the link.');
  }
  throw unexpected('cmd package resolve-activity', deviceSaid(text));
}

/** Kills the app's processes; silent, also for a package that is not installed. */
export function forceStopCommand(pkg: string): string {
  return `am force-stop ${checkPackageName(pkg)}`;
}

export function parseForceStopOutput(text: string, pkg: string): void {
  const said = deviceSaid(text);
  if (!said) return;
  if (/SecurityException|Permission Denial/.test(said)) throw new SightlineError('PERMISSION_DENIED', `The device refused to stop ${pkg}: ${said}`, 'Some system apps cannot be stopped.');
  throw unexpected('am force-stop', said);
}

export interface AmStartResult {
  /** The intent `am` started, as it printed it. */
  intent?: string;
  /** The activity that came to the front (with `-W`). */
  activity?: string;
  /** am's warning, with the app in front all the same (`its current task has been brought to the front`). */
  warning?: string;
  /** `-W`: `timeout` when the first frame did not come in time (the app may still be starting). */
  status?: 'ok' | 'timeout';
  /** `-W`: COLD, WARM, HOT, RELAUNCH or UNKNOWN (0). */
  launchState?: string;
  totalTimeMs?: number;
  waitTimeMs?: number;
  /** Several apps handle the intent: the chooser is in front and waits for the user. */
  chooser: boolean;
}

export type AmStartContext = { kind: 'launch'; package: string } | { kind: 'url'; uri: string; package?: string };

/** What `am start` printed: the result, or a SightlineError naming what failed and what to do. */
export function parseAmStartOutput(text: string, ctx: AmStartContext): AmStartResult {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const value = (key: string): string | undefined => lines.find((l) => l.startsWith(`${key}: `))?.slice(key.length + 2).trim();
  const error = lines.find((l) => /^Error: /.test(l));
  const exception = lines.find((l) => /^[\w.$]+(Exception|Error): /.test(l));
  const what = ctx.kind === 'launch' ? ctx.package : ctx.uri;
  if (exception && /SecurityException/.test(exception)) {
    throw new SightlineError('PERMISSION_DENIED', `Android refused to start ${what}: ${/not exported/.test(exception) ? 'the activity is not exported (private to its app)' : exception.replace(/^[\w.$]+: /, '')}.`, 'Launch the app by its package name instead (its launcher activity is always startable).');
  }
  if (error) {
    if (/does not exist/.test(error)) {
      throw new SightlineError('INVALID_ARGUMENT', `${error.replace(/^Error: /, '')}`, 'Launch by package name (Sightline finds the launcher activity), or call list_apps.');
    }
    if (/unable to resolve Intent|does not match any activities/.test(error)) {
      if (ctx.kind === 'launch') throw new SightlineError('INVALID_ARGUMENT', `No activity of ${ctx.package} answers the launch intent.`, 'Call list_apps; the app may have been uninstalled.');
      if (ctx.package) throw new SightlineError('INVALID_ARGUMENT', `${ctx.package} does not open ${schemeOf(ctx.uri)} links like this one (or is not installed).`, 'Leave out the package to let Android pick the app, or call list_apps.');
      throw new SightlineError('UNSUPPORTED', `No app on the device opens ${JSON.stringify(ctx.uri.slice(0, 200))}.`, `Install an app that handles ${schemeOf(ctx.uri)} links; for a deep link, check the scheme and host the app declares.`);
    }
    if (/permission/i.test(error)) throw new SightlineError('PERMISSION_DENIED', `Android refused to start ${what}: ${error.replace(/^Error: /, '')}`, 'Launch the app by its package name instead.');
    throw new SightlineError('INTERNAL', `am start failed for ${what}: ${error.replace(/^Error: /, '')}`, 'Run the same `adb shell am start …` by hand to see the device\'s whole answer.');
  }
  if (exception) throw new SightlineError('INTERNAL', `am start failed for ${what}: ${exception}`, 'Run the same `adb shell am start …` by hand to see the device\'s whole answer.');
  const intent = value('Starting');
  if (!intent) throw unexpected('am start', deviceSaid(text));
  const result: AmStartResult = { intent, chooser: false };
  const warning = lines.find((l) => l.startsWith('Warning: '));
  if (warning) result.warning = warning.slice('Warning: '.length);
  const status = value('Status');
  if (status === 'ok' || status === 'timeout') result.status = status;
  const activity = value('Activity');
  if (activity) {
    result.activity = activity;
    result.chooser = activity === RESOLVER_ACTIVITY;
  }
  const launchState = value('LaunchState');
  if (launchState) result.launchState = launchState;
  const total = Number(value('TotalTime'));
  if (Number.isFinite(total) && value('TotalTime') !== undefined) result.totalTimeMs = total;
  const wait = Number(value('WaitTime'));
  if (Number.isFinite(wait) && value('WaitTime') !== undefined) result.waitTimeMs = wait;
  return result;
}

// ── installing ───────────────────────────────────────────────────────────────────────────

/** Where an APK is pushed before `pm install` (the shell user can write there; adb itself uses it). */
export function remoteApkPath(token: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(token)) throw new Error(`bad token for an APK path: ${token}`);
  return `/data/local/tmp/sightline-${token}.apk`;
}

/** A ZIP's local file header: every APK starts with one. Checked before pushing anything. */
export function looksLikeApk(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

export interface InstallOptions {
  /** `-t`: allow an APK built as test-only (Android Studio's debug runs). */
  allowTest?: boolean;
  /** `-d`: allow a lower versionCode than the installed one (debuggable apps only). */
  allowDowngrade?: boolean;
  /** `-g`: grant every runtime permission the manifest asks for. */
  grantPermissions?: boolean;
}

/** Install (replacing an installed copy, keeping its data) and remove the pushed file, in one call. */
export function installCommand(remotePath: string, options: InstallOptions = {}): string {
  if (!/^\/data\/local\/tmp\/[A-Za-z0-9_.-]+\.apk$/.test(remotePath)) throw new Error(`not an APK path under /data/local/tmp: ${remotePath}`);
  const flags = ['-r', options.allowTest ? '-t' : '', options.allowDowngrade ? '-d' : '', options.grantPermissions ? '-g' : ''].filter(Boolean).join(' ');
  return `pm install ${flags} ${shellQuote(remotePath)}; rm -f ${shellQuote(remotePath)}`;
}

type Code = 'INVALID_ARGUMENT' | 'UNSUPPORTED' | 'PERMISSION_DENIED' | 'INTERNAL';

/** INSTALL_* codes → what went wrong and what to do (PackageManager.installStatusToString names). */
const INSTALL_FAILURES: [RegExp, Code, string][] = [
  [/^INSTALL_PARSE_FAILED_NOT_APK$|^INSTALL_FAILED_INVALID_APK$/, 'INVALID_ARGUMENT', 'The file is not an APK (an .aab bundle must be turned into APKs with bundletool first).'],
  [/^INSTALL_PARSE_FAILED_NO_CERTIFICATES$|^INSTALL_PARSE_FAILED_INCONSISTENT_CERTIFICATES$/, 'INVALID_ARGUMENT', 'The APK is not signed (or badly): sign it (apksigner) and try again.'],
  [/^INSTALL_PARSE_FAILED_/, 'INVALID_ARGUMENT', 'The APK is damaged or malformed: rebuild it.'],
  [/^INSTALL_FAILED_VERSION_DOWNGRADE$/, 'INVALID_ARGUMENT', 'A newer version is installed: uninstall it first (its data goes too) or install a newer build.'],
  [/^INSTALL_FAILED_UPDATE_INCOMPATIBLE$|^INSTALL_FAILED_SHARED_USER_INCOMPATIBLE$|^INSTALL_FAILED_DUPLICATE_PERMISSION$/, 'INVALID_ARGUMENT', 'The installed copy is signed with another key: uninstall it first (its data goes too).'],
  [/^INSTALL_FAILED_ALREADY_EXISTS$/, 'INVALID_ARGUMENT', 'The app is installed already.'],
  [/^INSTALL_FAILED_TEST_ONLY$/, 'INVALID_ARGUMENT', 'The APK is marked test-only: build a release APK, or allow test packages.'],
  [/^INSTALL_FAILED_OLDER_SDK$|^INSTALL_FAILED_NO_MATCHING_ABIS$|^INSTALL_FAILED_CPU_ABI_INCOMPATIBLE$|^INSTALL_FAILED_MISSING_SHARED_LIBRARY$|^INSTALL_FAILED_MISSING_FEATURE$|^INSTALL_FAILED_DEPRECATED_SDK_VERSION$/, 'UNSUPPORTED', 'This device cannot run this APK (Android version, CPU type or a missing feature): use a build made for it.'],
  [/^INSTALL_FAILED_INSUFFICIENT_STORAGE$/, 'INTERNAL', 'The device is out of storage: free some space on it and try again.'],
  [/^INSTALL_FAILED_USER_RESTRICTED$|^INSTALL_FAILED_VERIFICATION_FAILURE$|^INSTALL_FAILED_VERIFICATION_TIMEOUT$|^INSTALL_FAILED_ABORTED$/, 'PERMISSION_DENIED', 'Accept the install prompt on the device; some phones (Xiaomi, Oppo, Vivo) need "Install via USB" on in Developer options; a managed device may forbid installs.'],
];

/** `Success`, or `Failure [CODE: message]` / an exception, as a SightlineError. */
export function parseInstallOutput(text: string, apkName: string): void {
  const lines = text.split('\n').map((l) => l.trim());
  if (lines.includes('Success')) return;
  const failure = lines.map((l) => /^Failure \[([A-Z_]+)(?::\s*(.*))?\]$/.exec(l)).find((m) => m);
  if (failure) {
    const code = failure[1]!;
    const [, kind, hint] = INSTALL_FAILURES.find(([re]) => re.test(code)) ?? [undefined, 'INTERNAL' as const, 'See the device log (`adb logcat -s PackageManager`) for why.'];
    throw new SightlineError(kind, `${apkName} was not installed: ${code}${failure[2] ? ` (${failure[2].slice(0, 300)})` : ''}.`, hint, { installCode: code });
  }
  if (lines.some((l) => /Can't open file|Unable to open file/.test(l))) {
    throw new SightlineError('FILE_UNAVAILABLE', `${apkName} did not reach the device.`, 'Try again; check that the device has free space in /data/local/tmp.');
  }
  throw unexpected('pm install', deviceSaid(text));
}

// ── helpers ──────────────────────────────────────────────────────────────────────────────

/** The first lines the device printed, without Java stack frames, for messages. */
export function deviceSaid(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at '))
    .slice(0, 3)
    .join(' ')
    .slice(0, 300);
}

function unexpected(command: string, said: string): SightlineError {
  return new SightlineError('INTERNAL', `${command} gave an unexpected answer: ${said ? JSON.stringify(said) : 'nothing'}.`, `Run \`adb shell ${command}\` by hand to see what the device says.`);
}

function schemeOf(uri: string): string {
  return /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1]?.toLowerCase() ?? 'such';
}
