/**
 * What the desktop source's ports share: the platform facts (display, permissions, helpers on
 * PATH), the native modules (node-screenshots lists and captures; nut-js moves the mouse and
 * presses keys), loaded on first use with the configured display, window and display lookup,
 * and the X11 helpers (xdotool, xmodmap) run with a UTF-8 locale.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type * as NutJs from '@nut-tree-fork/nut-js';
import type * as NodeScreenshots from 'node-screenshots';
import { SightlineError } from '../../../../shared/errors.ts';
import type { Point, Rect, TargetInfo } from '../../../../shared/frame.ts';
import type { PermissionState } from '../module.ts';
import { desktopHealth, xauthorityFallback, type DesktopFacts } from './environment.ts';
import { toDisplayPixels, visiblePart } from './geometry.ts';
import { probeMacPermissions } from './macPermissions.ts';
import type { DesktopSettingsInput } from './settings.ts';

export type Shots = typeof NodeScreenshots;
export type ShotWindow = InstanceType<Shots['Window']>;
export type ShotMonitor = InstanceType<Shots['Monitor']>;
export type Nut = typeof NutJs;

export interface DesktopSourceOptions {
  settings: DesktopSettingsInput;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** macOS permission states, when the app (Electron's systemPreferences) can tell. */
  permissions?: () => { screenRecording?: PermissionState; accessibility?: PermissionState };
  /** Whether a covered window may be raised before capture (default: settings.raiseBeforeCapture). */
  raiseBeforeCapture?: () => boolean;
  /** Sightline's data directory (what the source remembers having changed in the desktop session). */
  dataDir?: string;
  /** Whether a command is on PATH (tests). */
  which?: (cmd: string) => boolean;
}

/** Windows smaller than this are tooltips, handles and the like, not targets. */
const MIN_SIZE = 50;
/** Shell surfaces that are windows to the OS but not to a user. */
const OVERLAY_APPS = new Set(['gnome-shell', 'plasmashell', 'xfce4-panel', 'xfdesktop', 'dock', 'window server', 'control center', 'notification center', 'spotlight', 'program manager', 'windows input experience', 'textinputhost']);
const SANE_LIMIT = 100_000;

export function parseDesktopTarget(target: string): { kind: 'window' | 'display'; id: number } {
  const m = /^desktop:(window|display):(\d+)$/.exec(target);
  if (!m) throw new SightlineError('TARGET_NOT_FOUND', `"${target}" is not a desktop target.`, 'Use an id from list_targets, e.g. desktop:window:12345 or desktop:display:0.');
  return { kind: m[1] as 'window' | 'display', id: Number(m[2]) };
}

/** node-screenshots getters throw where the platform has no answer (X11 pids): read them safely. */
export function get<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** X11 lists windows through the window manager's stacking list: without one, say so. */
export function allWindows(Window: Shots['Window']): ShotWindow[] {
  try {
    return Window.all();
  } catch (e) {
    throw new SightlineError(
      'SOURCE_UNAVAILABLE',
      `Windows cannot be listed (${(e as Error).message}).`,
      'Run a window manager that supports EWMH (any desktop session does); displays can still be captured.',
    );
  }
}

export function boundsOf(w: ShotWindow | ShotMonitor): Rect {
  return { x: get(() => w.x()) ?? 0, y: get(() => w.y()) ?? 0, width: get(() => w.width()) ?? 0, height: get(() => w.height()) ?? 0 };
}

export function saneBounds(b: Rect): boolean {
  return [b.x, b.y, b.width, b.height].every(Number.isFinite) && b.width > 0 && b.height > 0 && b.width < SANE_LIMIT && b.height < SANE_LIMIT && Math.abs(b.x) < SANE_LIMIT && Math.abs(b.y) < SANE_LIMIT;
}

export function inside(b: Rect, p: Point): boolean {
  return p.x >= b.x && p.y >= b.y && p.x < b.x + b.width && p.y < b.y + b.height;
}

export class DesktopSession {
  readonly #o: DesktopSourceOptions;
  readonly #env: NodeJS.ProcessEnv;
  readonly platform: NodeJS.Platform;
  #shots: Promise<Shots> | undefined;
  #nut: Promise<Nut> | undefined;

  constructor(options: DesktopSourceOptions) {
    this.#o = options;
    this.#env = options.env ?? process.env;
    this.platform = options.platform ?? process.platform;
  }

  mayRaise(): boolean {
    return this.#o.raiseBeforeCapture ? this.#o.raiseBeforeCapture() : this.#o.settings?.raiseBeforeCapture !== false;
  }

  facts(): DesktopFacts {
    const perms = this.#o.permissions?.() ?? (this.platform === 'darwin' && process.platform === 'darwin' ? probeMacPermissions() : {});
    return {
      platform: this.platform,
      display: this.#env.DISPLAY || this.#o.settings?.display,
      waylandDisplay: this.#env.WAYLAND_DISPLAY,
      sessionType: this.#env.XDG_SESSION_TYPE,
      xdotool: this.platform === 'linux' ? this.which('xdotool') : undefined,
      xmodmap: this.platform === 'linux' ? this.which('xmodmap') : undefined,
      screenRecording: perms.screenRecording,
      accessibility: perms.accessibility,
    };
  }

  which(cmd: string): boolean {
    if (this.#o.which) return this.#o.which(cmd);
    return (this.#env.PATH ?? '/usr/bin:/bin').split(delimiter).some((dir) => dir && existsSync(join(dir, cmd)));
  }

  /** Refuse early, with the platform's reason, when this desktop cannot be reached. */
  assertReachable(): DesktopFacts {
    const f = this.facts();
    const h = desktopHealth(f);
    if (!h.available) {
      const code = f.platform === 'darwin' ? 'PERMISSION_DENIED' : 'SOURCE_UNAVAILABLE';
      throw new SightlineError(code, `The desktop cannot be reached: ${h.reason}.`, h.remediation);
    }
    return f;
  }

  /** The native modules read DISPLAY when they open the display: give them the configured one. */
  prepareDisplay(): void {
    if (this.platform !== 'linux') return;
    const d = this.facts().display;
    // Also when the process has another DISPLAY (a test's own Xvfb under xvfb-run): the natives
    // read it when they open the display, and nut-js keeps the first one it opened.
    if (d && process.env.DISPLAY !== d) process.env.DISPLAY = d;
    const xauth = xauthorityFallback(this.#env, process.getuid?.(), existsSync);
    if (xauth && !process.env.XAUTHORITY) process.env.XAUTHORITY = xauth;
  }

  loadShots(): Promise<Shots> {
    this.prepareDisplay();
    this.#shots ??= import('node-screenshots');
    return this.#shots;
  }

  loadNut(): Promise<Nut> {
    this.prepareDisplay();
    this.#nut ??= import('@nut-tree-fork/nut-js').then((nut) => {
      // Agents want the input done, not animated.
      nut.mouse.config.autoDelayMs = 0;
      nut.mouse.config.mouseSpeed = 1_000_000;
      nut.keyboard.config.autoDelayMs = 0;
      return nut;
    });
    return this.#nut;
  }

  async window(id: number): Promise<ShotWindow> {
    const { Window } = await this.loadShots();
    const w = allWindows(Window).find((x) => get(() => x.id()) === id);
    if (!w) throw new SightlineError('TARGET_NOT_FOUND', `Window ${id} is gone.`, 'Call list_targets; capture the window again if it was reopened.');
    return w;
  }

  async monitor(id: number): Promise<ShotMonitor> {
    const { Monitor } = await this.loadShots();
    const m = Monitor.all().find((x) => get(() => x.id()) === id);
    if (!m) throw new SightlineError('TARGET_NOT_FOUND', `Display ${id} is gone.`, 'Call list_targets.');
    return m;
  }

  async onSomeDisplay(p: Point): Promise<boolean> {
    const { Monitor } = await this.loadShots();
    return Monitor.all().some((m) => inside(boundsOf(m), p));
  }

  /** A window's on-screen part, cut from a capture of the display holding most of it. */
  async visibleWindowImage(bounds: Rect): Promise<{ image: InstanceType<Shots['Image']>; region: Rect; monitor: ShotMonitor } | undefined> {
    const { Monitor } = await this.loadShots();
    const monitors = Monitor.all();
    const visible = visiblePart(bounds, monitors.map(boundsOf));
    const monitor = visible && monitors[visible.display];
    if (!visible || !monitor) return undefined;
    const full = await monitor.captureImage();
    const mb = boundsOf(monitor);
    // Pixels per unit from the image itself: on macOS bounds are points and the image is in pixels.
    const px = toDisplayPixels(visible.rect, mb, full.width / mb.width, full);
    return { image: await full.crop(px.x, px.y, px.width, px.height), region: visible.rect, monitor };
  }

  /**
   * Bring a window to the front (the window manager raises and focuses it on request; nut-js
   * raises it directly where xdotool is missing). Whether it worked is for the caller to check.
   */
  async raise(id: number, signal: AbortSignal): Promise<boolean> {
    if (this.platform !== 'linux') return false;
    if (this.which('xdotool')) {
      try {
        await this.xdotool(['windowactivate', '--sync', String(id)], signal, 3000);
        return true;
      } catch {
        // The window manager refused: try nut-js below.
      }
    }
    const nut = await this.loadNut();
    return nut.providerRegistry.getWindow().focusWindow(id).catch(() => false);
  }

  async xdotool(args: string[], signal: AbortSignal, timeout: number): Promise<void> {
    await this.run('xdotool', args, signal, timeout);
  }

  /** An X11 helper (xdotool, xmodmap) on our display, with a UTF-8 locale (xdotool stops at é without one). */
  run(cmd: string, args: string[], signal: AbortSignal | undefined, timeout: number): Promise<string> {
    const xauth = xauthorityFallback(this.#env, process.getuid?.(), existsSync);
    const env = { ...this.#env, ...(xauth ? { XAUTHORITY: xauth } : {}), DISPLAY: this.facts().display ?? '', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
    return new Promise((ok, fail) => {
      execFile(cmd, args, { env, timeout, encoding: 'utf8', ...(signal ? { signal } : {}) }, (err, out, stderr) => {
        if (err) fail(new SightlineError('INTERNAL', `${cmd} ${args[0]} failed: ${stderr.trim() || err.message}`, 'Check the window and try again.'));
        else ok(out);
      });
    });
  }

}

export function windowInfo(w: ShotWindow): TargetInfo | undefined {
  const id = get(() => w.id());
  if (id === undefined) return undefined;
  const b = boundsOf(w);
  if (b.width < MIN_SIZE || b.height < MIN_SIZE) return undefined;
  const app = get(() => w.appName()) ?? '';
  const title = get(() => w.title()) ?? '';
  // Ownerless (no app, no title) and shell overlays are not things a user works in.
  if (!app && !title) return undefined;
  if (OVERLAY_APPS.has(app.toLowerCase())) return undefined;
  const pid = get(() => w.pid());
  const minimized = get(() => w.isMinimized()) ?? false;
  return {
    id: `desktop:window:${id}`,
    source: 'desktop',
    kind: 'window',
    title,
    ...(app ? { app } : {}),
    bounds: b,
    focused: get(() => w.isFocused()) ?? false,
    state: minimized ? 'minimized' : 'ok',
    details: { ...(pid ? { pid } : {}), z: get(() => w.z()) },
    ...(minimized ? { hint: 'Minimized: call focus_window to restore it before capturing.' } : {}),
  };
}
