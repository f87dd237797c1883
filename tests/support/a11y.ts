/**
 * An accessibility session for desktop tests and benchmarks: a private D-Bus session bus on
 * which at-spi-bus-launcher (at-spi2-core) is started by activation, and the GTK 3 and Qt 6 test
 * apps (tests/fixtures/desktop/gtkApp.py and qtApp.py, run by /usr/bin/python3, whose gi has GTK
 * and whose PyQt6 is Debian's) that report what they observe as JSON lines. The launcher
 * publishes the accessibility bus on the display's root window (AT_SPI_BUS), where Sightline
 * finds it with a bare environment.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { appEvents, escapeRegex, type AppEvent, type XDisplay } from './xvfb.ts';

export interface A11ySession {
  /** DISPLAY, the session bus and what GTK needs to load its accessibility bridge. */
  env: NodeJS.ProcessEnv;
  /** The accessibility bus address (what at-spi-bus-launcher put on the root window). */
  busAddress: string;
  stop(): Promise<void>;
}

function kill(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((ok) => {
    p.once('exit', () => ok());
    p.kill('SIGTERM');
    setTimeout(() => p.kill('SIGKILL'), 2000).unref();
  });
}

export async function startA11y(x: XDisplay): Promise<A11ySession> {
  const daemon = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], { env: x.env, stdio: ['ignore', 'pipe', 'inherit'] });
  const address = await new Promise<string>((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error('dbus-daemon did not start')), 10_000);
    daemon.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        ok(out.trim().split('\n')[0]!);
      }
    });
    daemon.once('exit', (code) => fail(new Error(`dbus-daemon exited (${code})`)));
  });
  // GTK loads its AT-SPI bridge unless NO_AT_BRIDGE is set; a test runner may set it.
  const env: NodeJS.ProcessEnv = { ...x.env, DBUS_SESSION_BUS_ADDRESS: address };
  delete env.NO_AT_BRIDGE;
  // Activates at-spi-bus-launcher, which publishes the bus on the root window.
  const got = spawnSync('dbus-send', ['--session', '--print-reply=literal', '--dest=org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus.GetAddress'], { env, encoding: 'utf8', timeout: 15_000 });
  const busAddress = got.stdout.trim();
  if (!busAddress.startsWith('unix:')) {
    await kill(daemon);
    throw new Error(`at-spi-bus-launcher did not answer: ${got.stderr}`);
  }
  return {
    env,
    busAddress,
    // The launcher and its bus leave when the session bus they belong to goes.
    stop: () => kill(daemon),
  };
}

export interface GtkApp {
  windowId: number;
  pid: number;
  events: AppEvent[];
  next(pred: (e: AppEvent) => boolean, timeoutMs?: number): Promise<AppEvent>;
  close(): Promise<void>;
}

const APP = resolve(import.meta.dirname, '../fixtures/desktop/gtkApp.py');

export async function startGtkApp(a: A11ySession, opts: { title?: string; geometry?: string; twins?: boolean; saveLabel?: string } = {}): Promise<GtkApp> {
  const title = opts.title ?? 'Sightline GTK App';
  const args = [APP, '--title', title, '--geometry', opts.geometry ?? '420x360+120+80', ...(opts.twins ? ['--twins'] : []), ...(opts.saveLabel ? ['--save-label', opts.saveLabel] : [])];
  const proc = spawn('/usr/bin/python3', args, { env: a.env, stdio: ['pipe', 'pipe', 'inherit'] });
  const { events, next } = appEvents(proc, 'gtk app');
  const ready = await next((e) => e.event === 'ready', 20_000);
  const found = spawnSync('xdotool', ['search', '--sync', '--pid', String(ready.pid), '--name', `^${escapeRegex(title)}$`], { env: a.env, encoding: 'utf8', timeout: 10_000 });
  const windowId = Number(found.stdout.trim().split('\n').pop());
  if (!windowId) throw new Error(`gtk app window not found (${found.stderr})`);
  return {
    windowId,
    pid: ready.pid as number,
    events,
    next,
    close: () => kill(proc),
  };
}

const QT_APP = resolve(import.meta.dirname, '../fixtures/desktop/qtApp.py');

/** The Qt 6 test app (tests/fixtures/desktop/qtApp.py, PyQt6) on the session's display. */
export async function startQtApp(a: A11ySession, opts: { title?: string; geometry?: string } = {}): Promise<GtkApp> {
  const title = opts.title ?? 'Sightline Qt App';
  const proc = spawn('/usr/bin/python3', [QT_APP, '--title', title, '--geometry', opts.geometry ?? '400x220+120+80'], { env: a.env, stdio: ['ignore', 'pipe', 'inherit'] });
  const { events, next } = appEvents(proc, 'qt app');
  const ready = await next((e) => e.event === 'ready', 20_000);
  const found = spawnSync('xdotool', ['search', '--sync', '--onlyvisible', '--pid', String(ready.pid), '--name', `^${escapeRegex(title)}$`], { env: a.env, encoding: 'utf8', timeout: 10_000 });
  const windowId = Number(found.stdout.trim().split('\n').pop());
  if (!windowId) throw new Error(`qt app window not found (${found.stderr})`);
  return { windowId, pid: ready.pid as number, events, next, close: () => kill(proc) };
}
