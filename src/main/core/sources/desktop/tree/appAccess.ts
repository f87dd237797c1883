/**
 * The Linux apps whose controls AT-SPI shows only once something asks for them (measured on
 * Debian 12; docs/architecture.md "The desktop tree"): Chromium, Chrome and Electron apps show
 * their window frame and nothing inside it unless started with `--force-renderer-accessibility`
 * while their bridge is on; Qt 6 apps register only when the session's accessibility status
 * (`org.a11y.Status.IsEnabled`) is on as they start; GTK and Qt 5 apps need nothing. None of them
 * changes while running, so the choice acts on apps started after it: it turns the status on
 * (again each time Sightline starts, since the status lasts as long as the desktop session) and
 * gives the Chromium-based apps launchers that start them with accessibility on. Turned off, it
 * removes those launchers and turns the status back off if Sightline turned it on and no screen
 * reader uses it. Apps running without it are named, to be quit and reopened by the person: a
 * person's app is never restarted from here.
 */
import { existsSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { HealthCheck } from '../../../../../shared/frame.ts';
import { connectDbus, type DbusConnection } from './dbus.ts';
import { ACCESSIBILITY_FLAG, launcherDirs, readLaunchers, removeLaunchers, writeLaunchers, type LauncherDirs } from './launchers.ts';

export const APP_ACCESSIBILITY_KEY = 'desktop.appAccessibility';
const STATUS = { destination: 'org.a11y.Bus', path: '/org/a11y/bus', interface: 'org.freedesktop.DBus.Properties' } as const;
/** Where Sightline remembers that it turned the status on (so that off undoes only its own change). */
const STATE_FILE = 'app-accessibility.json';

export interface AppAccessOptions {
  env: NodeJS.ProcessEnv;
  /** Sightline's data directory (its own record of what it changed); none: nothing is remembered. */
  dataDir?: string;
  uid?: number;
  /** The process table (tests give their own). */
  proc?: string;
}

export class AppAccess {
  readonly #o: AppAccessOptions;
  readonly #dirs: LauncherDirs;

  constructor(options: AppAccessOptions) {
    this.#o = options;
    this.#dirs = launcherDirs(options.env);
  }

  /** Makes the session and the launchers agree with the setting. Never throws: the check says what failed. */
  async apply(on: boolean): Promise<{ launchers: string[]; status?: string }> {
    let status: string | undefined;
    let launchers: string[] = [];
    try {
      launchers = on ? writeLaunchers(this.#dirs, readLaunchers(this.#dirs, this.#o.env)) : removeLaunchers(this.#dirs);
    } catch (e) {
      status = `launchers: ${(e as Error).message}`;
    }
    // Off, the session is asked nothing unless Sightline turned its status on.
    if (!on && !this.#remembered()) return { launchers, ...(status ? { status } : {}) };
    try {
      await this.#withSession(async (bus) => {
        const enabled = await this.#get(bus, 'IsEnabled');
        if (on && !enabled) {
          await this.#set(bus, 'IsEnabled', true);
          this.#remember(true);
        } else if (!on && enabled && !(await this.#get(bus, 'ScreenReaderEnabled'))) {
          await this.#set(bus, 'IsEnabled', false);
        }
        if (!on) this.#remember(false);
      });
    } catch (e) {
      status = [status, `accessibility status: ${(e as Error).message}`].filter(Boolean).join('; ');
    }
    return { launchers, ...(status ? { status } : {}) };
  }

  /** Setup's item: what the choice does, for which apps here, and which running ones must be reopened. */
  async check(on: boolean): Promise<HealthCheck> {
    const state = readLaunchers(this.#dirs, this.#o.env);
    const names = (ids: string[]): string[] => state.apps.filter((a) => ids.includes(a.id)).map((a) => a.name);
    const installed = state.apps.map((a) => a.name);
    const running = runningWithout(this.#o.proc ?? '/proc', this.#o.uid);
    const effect =
      `Starts Chromium, Chrome and Electron apps (VS Code, Slack, Discord…) with ${ACCESSIBILITY_FLAG} through launchers of their own in ${this.#dirs.user}` +
      `${installed.length ? ` (here: ${list(installed)})` : ' (none is installed here)'}, and turns on the desktop session's accessibility status, which Qt 6 apps read as they start. ` +
      'Apps started after that show their controls to get_ui_tree, click and type_text; they use a little more memory and CPU. Turning it off removes those launchers.';
    const setting = { key: APP_ACCESSIBILITY_KEY, on, label: 'Start these apps with accessibility on', effect };
    const label = 'Controls of Chromium, Electron and Qt apps';
    if (!on) {
      return {
        id: 'app-accessibility',
        label,
        status: installed.length || running.length ? 'warning' : 'ok',
        detail: `Off: Chromium, Chrome and Electron windows show only their frame to the tree${installed.length ? ` (installed: ${list(installed)})` : ''}, and Qt 6 apps none; they are read by OCR. GTK and Qt 5 apps need nothing.`,
        fix: 'Turn on "Start these apps with accessibility on", then quit and reopen them.',
        setting,
      };
    }
    // The session is asked only while on (an unreachable bus costs a call's time limit).
    let enabled: boolean | undefined;
    let unreachable: string | undefined;
    await this.#withSession(async (bus) => void (enabled = await this.#get(bus, 'IsEnabled'))).catch((e: Error) => (unreachable = e.message));
    const problems: string[] = [];
    if (state.userOwn.length) problems.push(`You have launchers of your own for ${list(names(state.userOwn))}: add ${ACCESSIBILITY_FLAG} to their Exec lines yourself.`);
    if (enabled === false) problems.push('The session’s accessibility status is off: Qt 6 apps started now will not show their controls.');
    if (unreachable) problems.push(`The session’s accessibility status cannot be read (${unreachable}): Qt 6 apps may not show their controls; run Sightline in the desktop session.`);
    const restart = running.length ? `Quit ${list(running)} and reopen ${running.length === 1 ? 'it' : 'them'} from the menu (or a terminal, with ${ACCESSIBILITY_FLAG}): ${running.length === 1 ? 'it runs' : 'they run'} without accessibility.` : '';
    return {
      id: 'app-accessibility',
      label,
      status: problems.length || running.length ? 'warning' : 'ok',
      detail: [`On${state.ours.length ? `: launchers for ${list(names(state.ours))}` : ''}.`, ...problems].join(' '),
      ...(restart ? { fix: restart } : {}),
      setting,
    };
  }

  async #withSession<T>(fn: (bus: DbusConnection) => Promise<T>): Promise<T> {
    const env = this.#o.env;
    const address = env.DBUS_SESSION_BUS_ADDRESS ?? (this.#o.uid !== undefined ? `unix:path=/run/user/${this.#o.uid}/bus` : undefined);
    if (!address) throw new Error('no session bus (DBUS_SESSION_BUS_ADDRESS is not set)');
    const bus = await connectDbus(address);
    try {
      return await fn(bus);
    } finally {
      bus.close();
    }
  }

  #get(bus: DbusConnection, name: 'IsEnabled' | 'ScreenReaderEnabled'): Promise<boolean> {
    return bus.call<boolean>({ ...STATUS, member: 'Get', signature: 'ss', body: ['org.a11y.Status', name] });
  }

  async #set(bus: DbusConnection, name: 'IsEnabled', value: boolean): Promise<void> {
    await bus.call({ ...STATUS, member: 'Set', signature: 'ssv', body: ['org.a11y.Status', name, ['b', value]] });
  }

  #remember(turnedOn: boolean): void {
    if (!this.#o.dataDir) return;
    const file = join(this.#o.dataDir, STATE_FILE);
    if (turnedOn) writeFileSync(file, JSON.stringify({ turnedOnStatus: true }) + '\n');
    else rmSync(file, { force: true });
  }

  #remembered(): boolean {
    if (!this.#o.dataDir) return false;
    try {
      return (JSON.parse(readFileSync(join(this.#o.dataDir, STATE_FILE), 'utf8')) as { turnedOnStatus?: unknown }).turnedOnStatus === true;
    } catch {
      return false;
    }
  }
}

/**
 * Chromium-based apps of this user running without accessibility: browser processes (no
 * `--type=`) whose executable has Chromium's ICU data beside it and whose command line lacks the flag.
 */
export function runningWithout(proc: string, uid: number | undefined): string[] {
  const names = new Set<string>();
  let pids: string[];
  try {
    pids = readdirSync(proc).filter((p) => /^\d+$/.test(p));
  } catch {
    return [];
  }
  for (const pid of pids) {
    try {
      if (uid !== undefined && !new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(readFileSync(join(proc, pid, 'status'), 'utf8'))) continue;
      const args = readFileSync(join(proc, pid, 'cmdline'), 'utf8').split('\0');
      // Helpers (renderers, the GPU process, the crash reporter) and windowless browsers are not apps to reopen.
      if (args.some((a) => a.startsWith('--type=') || a === '--headless' || a.startsWith('--headless='))) continue;
      const exe = readlinkSync(join(proc, pid, 'exe'));
      if (HELPERS.test(basename(exe)) || !existsSync(join(dirname(exe), 'icudtl.dat'))) continue;
      if (args.includes(ACCESSIBILITY_FLAG)) continue;
      names.add(basename(exe));
    } catch {
      // A process that ended, or one of another user.
    }
  }
  return [...names].sort();
}

/** Executables Chromium ships beside the browser that are not the browser. */
const HELPERS = /crashpad|sandbox|chromedriver/i;

function list(xs: string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`;
}
