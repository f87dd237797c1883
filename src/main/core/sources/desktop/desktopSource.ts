/**
 * The desktop source: displays and windows on macOS, Windows and X11. node-screenshots
 * captures and lists; nut-js moves the mouse and presses keys; on X11, xdotool types
 * text exactly (nut-js' type() loses Shift on symbols and drops non-ASCII there) and
 * raises windows. Every input is serialised (there is one mouse) and preceded by the
 * window checks of seed 004: it exists, its bounds are sane, it is focused, the point
 * lies inside it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type * as NutJs from '@nut-tree-fork/nut-js';
import { Mutex } from 'async-mutex';
import type * as NodeScreenshots from 'node-screenshots';
import { SightlineError } from '../../../../shared/errors.ts';
import type { Point, Rect, SourceHealth, TargetInfo } from '../../../../shared/frame.ts';
import type { Settings } from '../../settings.ts';
import type { ActionDetails, CaptureOptions, CapturedImage, FrameCheck, Modifier, Source, SourceAction, StoredFrame } from '../source.ts';
import { MAC_ACCESSIBILITY, MAC_SCREEN_RECORDING, desktopHealth, displayServer, xauthorityFallback, type DesktopFacts, type PermissionState } from './environment.ts';
import { toDisplayPixels, visiblePart } from './geometry.ts';
import { keyName, parseCombo } from './keys.ts';
import { probeMacPermissions } from './macPermissions.ts';
import { X11Typist, normaliseTypedText } from './x11Keymap.ts';

type Shots = typeof NodeScreenshots;
type ShotWindow = InstanceType<Shots['Window']>;
type ShotMonitor = InstanceType<Shots['Monitor']>;
type Nut = typeof NutJs;

export interface DesktopSourceOptions {
  settings: Settings['desktop'];
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** macOS permission states, when the app (Electron's systemPreferences) can tell. */
  permissions?: () => { screenRecording?: PermissionState; accessibility?: PermissionState };
  /** Whether a command is on PATH (tests). */
  which?: (cmd: string) => boolean;
}

/** Windows smaller than this are tooltips, handles and the like, not targets. */
const MIN_SIZE = 50;
/** Shell surfaces that are windows to the OS but not to a user. */
const OVERLAY_APPS = new Set(['gnome-shell', 'plasmashell', 'xfce4-panel', 'xfdesktop', 'dock', 'window server', 'control center', 'notification center', 'spotlight', 'program manager', 'windows input experience', 'textinputhost']);
const SANE_LIMIT = 100_000;

interface WindowState {
  kind: 'window' | 'display';
  id: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

export function parseDesktopTarget(target: string): { kind: 'window' | 'display'; id: number } {
  const m = /^desktop:(window|display):(\d+)$/.exec(target);
  if (!m) throw new SightlineError('TARGET_NOT_FOUND', `"${target}" is not a desktop target.`, 'Use an id from list_targets, e.g. desktop:window:12345 or desktop:display:0.');
  return { kind: m[1] as 'window' | 'display', id: Number(m[2]) };
}

/** node-screenshots getters throw where the platform has no answer (X11 pids): read them safely. */
function get<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** X11 lists windows through the window manager's stacking list: without one, say so. */
function allWindows(Window: Shots['Window']): ShotWindow[] {
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

function boundsOf(w: ShotWindow | ShotMonitor): Rect {
  return { x: get(() => w.x()) ?? 0, y: get(() => w.y()) ?? 0, width: get(() => w.width()) ?? 0, height: get(() => w.height()) ?? 0 };
}

function saneBounds(b: Rect): boolean {
  return [b.x, b.y, b.width, b.height].every(Number.isFinite) && b.width > 0 && b.height > 0 && b.width < SANE_LIMIT && b.height < SANE_LIMIT && Math.abs(b.x) < SANE_LIMIT && Math.abs(b.y) < SANE_LIMIT;
}

function inside(b: Rect, p: Point): boolean {
  return p.x >= b.x && p.y >= b.y && p.x < b.x + b.width && p.y < b.y + b.height;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The seed-004 rule: input lands inside the target, or not at all. */
function checkPoint(action: SourceAction, bounds: Rect): void {
  const point = 'point' in action ? action.point : undefined;
  if (point && !inside(bounds, point)) {
    throw new SightlineError('POINT_OUTSIDE_FRAME', `Point (${Math.round(point.x)}, ${Math.round(point.y)}) is outside ${action.target} (${bounds.x},${bounds.y} ${bounds.width}×${bounds.height}).`, 'Capture again and use a point inside the window.');
  }
}


export function createDesktopSource(options: DesktopSourceOptions): Source {
  return new DesktopSource(options);
}

class DesktopSource implements Source {
  readonly name = 'desktop' as const;
  readonly capabilities = { capture: true, actions: ['click', 'type_text', 'press_key', 'scroll', 'focus_window'] as const, uiTree: false };
  readonly #o: DesktopSourceOptions;
  readonly #env: NodeJS.ProcessEnv;
  readonly #platform: NodeJS.Platform;
  readonly #input = new Mutex();
  #shots: Promise<Shots> | undefined;
  #nut: Promise<Nut> | undefined;
  #typist: X11Typist | undefined;

  constructor(options: DesktopSourceOptions) {
    this.#o = options;
    this.#env = options.env ?? process.env;
    this.#platform = options.platform ?? process.platform;
  }

  #facts(): DesktopFacts {
    const perms = this.#o.permissions?.() ?? (this.#platform === 'darwin' && process.platform === 'darwin' ? probeMacPermissions() : {});
    return {
      platform: this.#platform,
      display: this.#env.DISPLAY || this.#o.settings.display,
      waylandDisplay: this.#env.WAYLAND_DISPLAY,
      sessionType: this.#env.XDG_SESSION_TYPE,
      xdotool: this.#platform === 'linux' ? this.#which('xdotool') : undefined,
      xmodmap: this.#platform === 'linux' ? this.#which('xmodmap') : undefined,
      screenRecording: perms.screenRecording,
      accessibility: perms.accessibility,
    };
  }

  #which(cmd: string): boolean {
    if (this.#o.which) return this.#o.which(cmd);
    return (this.#env.PATH ?? '/usr/bin:/bin').split(delimiter).some((dir) => dir && existsSync(join(dir, cmd)));
  }

  /** Refuse early, with the platform's reason, when this desktop cannot be reached. */
  #assertReachable(): DesktopFacts {
    const f = this.#facts();
    const h = desktopHealth(f);
    if (!h.available) {
      const code = f.platform === 'darwin' ? 'PERMISSION_DENIED' : 'SOURCE_UNAVAILABLE';
      throw new SightlineError(code, `The desktop cannot be reached: ${h.reason}.`, h.remediation);
    }
    return f;
  }

  /** The native modules read DISPLAY when they open the display: give them the configured one. */
  #prepareDisplay(): void {
    if (this.#platform !== 'linux') return;
    const d = this.#facts().display;
    // Also when the process has another DISPLAY (a test's own Xvfb under xvfb-run): the natives
    // read it when they open the display, and nut-js keeps the first one it opened.
    if (d && process.env.DISPLAY !== d) process.env.DISPLAY = d;
    const xauth = xauthorityFallback(this.#env, process.getuid?.(), existsSync);
    if (xauth && !process.env.XAUTHORITY) process.env.XAUTHORITY = xauth;
  }

  #loadShots(): Promise<Shots> {
    this.#prepareDisplay();
    this.#shots ??= import('node-screenshots');
    return this.#shots;
  }

  #loadNut(): Promise<Nut> {
    this.#prepareDisplay();
    this.#nut ??= import('@nut-tree-fork/nut-js').then((nut) => {
      // Agents want the input done, not animated.
      nut.mouse.config.autoDelayMs = 0;
      nut.mouse.config.mouseSpeed = 1_000_000;
      nut.keyboard.config.autoDelayMs = 0;
      return nut;
    });
    return this.#nut;
  }

  async health(): Promise<SourceHealth> {
    const facts = this.#facts();
    const h = desktopHealth(facts);
    if (!h.available || (displayServer(facts) !== 'x11' && displayServer(facts) !== 'xwayland')) return h;
    // An X display that is set but cannot be opened (server gone, no access).
    try {
      const { Monitor } = await this.#loadShots();
      if (Monitor.all().length === 0) throw new Error('no monitors');
      return h;
    } catch (e) {
      return { ...h, available: false, reason: `cannot open X display ${facts.display} (${(e as Error).message})`, remediation: 'Check that the X server runs and DISPLAY / desktop.display names it (and XAUTHORITY allows access).' };
    }
  }

  async listTargets(): Promise<TargetInfo[]> {
    this.#assertReachable();
    const { Monitor, Window } = await this.#loadShots();
    const out: TargetInfo[] = [];
    for (const m of Monitor.all()) {
      const id = get(() => m.id()) ?? 0;
      out.push({
        id: `desktop:display:${id}`,
        source: 'desktop',
        kind: 'display',
        title: get(() => m.name()) || `Display ${id}`,
        bounds: boundsOf(m),
        scale: get(() => m.scaleFactor()) ?? 1,
        details: { primary: get(() => m.isPrimary()) ?? false, rotation: get(() => m.rotation()) ?? 0 },
      });
    }
    for (const w of allWindows(Window)) {
      const info = windowInfo(w);
      if (info) out.push(info);
    }
    return out;
  }

  async #window(id: number): Promise<ShotWindow> {
    const { Window } = await this.#loadShots();
    const w = allWindows(Window).find((x) => get(() => x.id()) === id);
    if (!w) throw new SightlineError('TARGET_NOT_FOUND', `Window ${id} is gone.`, 'Call list_targets; capture the window again if it was reopened.');
    return w;
  }

  async #monitor(id: number): Promise<ShotMonitor> {
    const { Monitor } = await this.#loadShots();
    const m = Monitor.all().find((x) => get(() => x.id()) === id);
    if (!m) throw new SightlineError('TARGET_NOT_FOUND', `Display ${id} is gone.`, 'Call list_targets.');
    return m;
  }

  async capture(target: string, options: CaptureOptions): Promise<CapturedImage> {
    const facts = this.#assertReachable();
    const t = parseDesktopTarget(target);
    const subject = t.kind === 'window' ? await this.#window(t.id) : await this.#monitor(t.id);
    const bounds = boundsOf(subject);
    if (!saneBounds(bounds)) throw new SightlineError('SCREENSHOT_FAILED', `${target} has no usable bounds (${bounds.width}×${bounds.height}).`, 'Restore or show the window, then capture again.');
    if (t.kind === 'window' && get(() => (subject as ShotWindow).isMinimized())) {
      throw new SightlineError('SCREENSHOT_FAILED', `${target} is minimized.`, 'Call focus_window to restore it, then capture.');
    }
    let image: InstanceType<Shots['Image']>;
    let data: Buffer;
    // The region the image shows: the window, or its on-screen part when it hangs off the desktop.
    let region = bounds;
    let regionMonitor: ShotMonitor | undefined;
    const warnings: string[] = [];
    try {
      try {
        image = await subject.captureImage();
      } catch (e) {
        // X11 cannot read a window that is partly off-screen (xcb protocol error): read its visible part from the display.
        const visible = t.kind === 'window' ? await this.#visibleWindowImage(bounds) : undefined;
        if (!visible) throw e;
        ({ image, region, monitor: regionMonitor } = visible);
        warnings.push(`${target} is partly off-screen: the frame shows its visible part (${region.width}×${region.height} of ${bounds.width}×${bounds.height}).`);
      }
      data = await image.toRaw();
    } catch (e) {
      if (facts.platform === 'darwin') {
        throw new SightlineError('PERMISSION_DENIED', `Capturing ${target} failed (${(e as Error).message}).`, `Allow Sightline in ${MAC_SCREEN_RECORDING}, then restart it.`);
      }
      throw new SightlineError('SCREENSHOT_FAILED', `Capturing ${target} failed: ${(e as Error).message}.`, 'Capture again; if it persists, check sightline://health.');
    }
    if (options.signal.aborted) throw new SightlineError('CANCELLED', 'Capture cancelled.');
    const monitor = regionMonitor ?? (t.kind === 'window' ? get(() => (subject as ShotWindow).currentMonitor()) : (subject as ShotMonitor));
    const scaleFactor = (monitor && get(() => monitor.scaleFactor())) || 1;
    const state: WindowState = { kind: t.kind, id: t.id, ...bounds };
    return {
      target,
      pixels: { kind: 'raw', data, width: image.width, height: image.height, channels: 4 },
      // Input coordinates are screen points; on HiDPI the pixels are scaleFactor× larger.
      sourceSize: { width: region.width, height: region.height },
      origin: { x: region.x, y: region.y },
      dpi: Math.round(96 * scaleFactor),
      monitor: monitor ? get(() => monitor.id()) : undefined,
      state: { ...state },
      ...(warnings.length ? { warnings } : {}),
    };
  }

  async #onSomeDisplay(p: Point): Promise<boolean> {
    const { Monitor } = await this.#loadShots();
    return Monitor.all().some((m) => inside(boundsOf(m), p));
  }

  /** A window's on-screen part, cut from a capture of the display holding most of it. */
  async #visibleWindowImage(bounds: Rect): Promise<{ image: InstanceType<Shots['Image']>; region: Rect; monitor: ShotMonitor } | undefined> {
    const { Monitor } = await this.#loadShots();
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

  async checkFrame(frame: StoredFrame): Promise<FrameCheck> {
    const s = frame.state as unknown as WindowState;
    const t = parseDesktopTarget(frame.target);
    const now = boundsOf(t.kind === 'window' ? await this.#window(t.id) : await this.#monitor(t.id));
    if (!saneBounds(now)) throw new SightlineError('FRAME_STALE', `${frame.target} has no usable bounds now (${now.width}×${now.height}).`, 'Restore the window and capture again.');
    if (now.width !== s.width || now.height !== s.height) {
      throw new SightlineError('FRAME_STALE', `${frame.target} was resized from ${s.width}×${s.height} to ${now.width}×${now.height} since frame ${frame.ref}.`, 'Capture again.');
    }
    return { shift: { x: now.x - s.x, y: now.y - s.y } };
  }

  async perform(action: SourceAction, signal: AbortSignal): Promise<ActionDetails> {
    const facts = this.#assertReachable();
    if (facts.platform === 'darwin' && facts.accessibility === 'denied') {
      throw new SightlineError('PERMISSION_DENIED', 'Sightline may not send input: the Accessibility permission is not granted.', `Allow Sightline in ${MAC_ACCESSIBILITY}.`);
    }
    return this.#input.runExclusive(async () => {
      const t = parseDesktopTarget(action.target);
      let bounds: Rect | undefined;
      let note: string | undefined;
      if (t.kind === 'window') {
        const w = await this.#window(t.id);
        bounds = boundsOf(w);
        if (!saneBounds(bounds)) throw new SightlineError('FRAME_STALE', `${action.target} has no usable bounds (${bounds.width}×${bounds.height}).`, 'Restore the window and capture again.');
        if (action.kind === 'focus_window') return { note: await this.#focus(t.id, bounds, signal) };
        checkPoint(action, bounds);
        const point = 'point' in action ? action.point : undefined;
        if (point && !(await this.#onSomeDisplay(point))) {
          // The window moved partly off the desktop since the frame: that part cannot be clicked.
          throw new SightlineError('POINT_OUTSIDE_FRAME', `Point (${Math.round(point.x)}, ${Math.round(point.y)}) of ${action.target} is off-screen now.`, 'Move the window back on screen (or focus_window), capture again and use a visible point.');
        }
        // Focusing may click: only once the action is known to be allowed.
        if (!get(() => w.isFocused())) note = await this.#focus(t.id, bounds, signal);
      } else if (action.kind === 'focus_window') {
        throw new SightlineError('INVALID_ARGUMENT', 'focus_window takes a window, not a display.', 'Use a desktop:window:… id.');
      } else {
        bounds = boundsOf(await this.#monitor(t.id));
        checkPoint(action, bounds);
      }
      await this.#do(action, bounds, signal);
      return note ? { note } : {};
    });
  }

  async #do(action: SourceAction, bounds: Rect, signal: AbortSignal): Promise<void> {
    const nut = await this.#loadNut();
    const at = (p: Point): InstanceType<Nut['Point']> => new nut.Point(Math.round(p.x), Math.round(p.y));
    switch (action.kind) {
      case 'click': {
        await nut.mouse.setPosition(at(action.point));
        const button = action.button === 'right' ? nut.Button.RIGHT : action.button === 'middle' ? nut.Button.MIDDLE : nut.Button.LEFT;
        const mods = this.#modifierKeys(nut, action.modifiers);
        if (mods.length) await nut.keyboard.pressKey(...mods);
        try {
          if (action.holdMs) {
            await nut.mouse.pressButton(button);
            await sleep(action.holdMs);
            await nut.mouse.releaseButton(button);
          } else if (action.clicks === 2) {
            await nut.mouse.doubleClick(button);
          } else {
            for (let i = 0; i < action.clicks; i++) await nut.mouse.click(button);
          }
        } finally {
          if (mods.length) await nut.keyboard.releaseKey(...mods.reverse());
        }
        return;
      }
      case 'type_text':
        if (action.point) {
          await nut.mouse.setPosition(at(action.point));
          await nut.mouse.click(nut.Button.LEFT);
        }
        await this.#type(nut, action.text, signal);
        return;
      case 'press_key': {
        const keys = parseCombo(action.key, knownKeys(nut), this.#platform).map((k) => nut.Key[k as keyof typeof nut.Key]);
        try {
          await nut.keyboard.pressKey(...keys);
        } finally {
          await nut.keyboard.releaseKey(...keys.reverse());
        }
        return;
      }
      case 'scroll': {
        await nut.mouse.setPosition(at(action.point ?? { x: bounds.x + bounds.width / 2, y: bounds.y + bounds.height / 2 }));
        // Wheel notches: about 100 source units each (a line or three, as desktops scroll).
        const notches = (d: number): number => (d === 0 ? 0 : Math.max(1, Math.round(Math.abs(d) / 100)));
        if (action.deltaY > 0) await nut.mouse.scrollDown(notches(action.deltaY));
        if (action.deltaY < 0) await nut.mouse.scrollUp(notches(action.deltaY));
        if (action.deltaX > 0) await nut.mouse.scrollRight(notches(action.deltaX));
        if (action.deltaX < 0) await nut.mouse.scrollLeft(notches(action.deltaX));
        return;
      }
      default:
        throw new SightlineError('UNSUPPORTED', `${action.kind} is not supported by the desktop source.`);
    }
  }

  #modifierKeys(nut: Nut, modifiers: readonly Modifier[]): Nut['Key'][keyof Nut['Key']][] {
    return modifiers.map((m) => nut.Key[keyName(m, knownKeys(nut), this.#platform) as keyof typeof nut.Key]);
  }

  /**
   * Exact text. X11: xdotool with a UTF-8 locale, after binding every character missing
   * from the keymap to a spare keycode (x11Keymap.ts says why); without xmodmap, xdotool
   * binds them itself, slowly. Elsewhere nut-js, whose type() sends Unicode input there.
   */
  async #type(nut: Nut, text: string, signal: AbortSignal): Promise<void> {
    if (this.#platform === 'linux') {
      if (!this.#which('xdotool')) {
        if (/^[a-z0-9 \t\n.,\-=/;'[\]\\`]*$/.test(text)) return void (await nut.keyboard.type(text));
        throw new SightlineError('UNSUPPORTED', 'Typing symbols, capitals or non-ASCII text exactly needs xdotool on X11.', 'Install it (sudo apt install xdotool) or type simpler text.');
      }
      if (this.#which('xmodmap')) {
        this.#typist ??= new X11Typist((cmd, args, timeout, sig) => this.#run(cmd, args, sig, timeout));
        await this.#typist.type(text, signal);
        return;
      }
      for (const run of typingRuns(normaliseTypedText(text))) {
        await this.#xdotool(['type', '--clearmodifiers', '--delay', String(run.delayMs), '--', run.text], signal, 5_000 + run.text.length * (run.delayMs + 20));
      }
      return;
    }
    await nut.keyboard.type(normaliseTypedText(text));
  }

  async #xdotool(args: string[], signal: AbortSignal, timeout: number): Promise<void> {
    await this.#run('xdotool', args, signal, timeout);
  }

  /** An X11 helper (xdotool, xmodmap) on our display, with a UTF-8 locale (xdotool stops at é without one). */
  #run(cmd: string, args: string[], signal: AbortSignal | undefined, timeout: number): Promise<string> {
    const xauth = xauthorityFallback(this.#env, process.getuid?.(), existsSync);
    const env = { ...this.#env, ...(xauth ? { XAUTHORITY: xauth } : {}), DISPLAY: this.#facts().display ?? '', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
    return new Promise((ok, fail) => {
      execFile(cmd, args, { env, timeout, encoding: 'utf8', ...(signal ? { signal } : {}) }, (err, out, stderr) => {
        if (err) fail(new SightlineError('INTERNAL', `${cmd} ${args[0]} failed: ${stderr.trim() || err.message}`, 'Check the window and try again.'));
        else ok(out);
      });
    });
  }

  /** Raise and focus; fall back to clicking a safe point inside. Says which worked. */
  async #focus(id: number, bounds: Rect, signal: AbortSignal): Promise<string> {
    const focused = async (): Promise<boolean> => {
      for (let i = 0; i < 10; i++) {
        const w = await this.#window(id).catch(() => undefined);
        if (w && get(() => w.isFocused())) return true;
        await sleep(30);
      }
      return false;
    };
    if (this.#platform === 'linux' && this.#which('xdotool')) {
      try {
        await this.#xdotool(['windowactivate', '--sync', String(id)], signal, 3000);
        if (await focused()) return 'raised and focused the window';
      } catch {
        // The window manager refused: fall back below.
      }
    }
    if (this.#platform === 'linux') {
      // libnut raises and focuses an X11 client window by the id node-screenshots gives (checked under openbox).
      const nut = await this.#loadNut();
      const raised = await nut.providerRegistry.getWindow().focusWindow(id).catch(() => false);
      if (raised && (await focused())) return 'raised and focused the window (nut-js)';
    } else {
      const nut = await this.#loadNut();
      for (const w of await nut.getWindows()) {
        const r = await w.getRegion().catch(() => undefined);
        if (r && Math.abs(r.left - bounds.x) <= 1 && Math.abs(r.top - bounds.y) <= 1 && r.width === bounds.width && r.height === bounds.height) {
          await w.focus().catch(() => undefined);
          if (await focused()) return 'raised and focused the window';
        }
      }
    }
    // Fallback: a click just inside the top edge, centred: the least likely place for a control.
    const nut = await this.#loadNut();
    const safe = { x: Math.round(bounds.x + bounds.width / 2), y: Math.round(bounds.y + Math.min(4, bounds.height / 2)) };
    const cover = await this.#coveredBy(id, safe);
    if (cover) {
      // Clicking there would land in another app.
      throw new SightlineError('FOCUS_FAILED', `Window ${id} could not be raised, and ${cover} covers it.`, 'Bring it to the front by hand (or close what covers it), then try again.');
    }
    await nut.mouse.setPosition(new nut.Point(safe.x, safe.y));
    await nut.mouse.click(nut.Button.LEFT);
    if (await focused()) return 'the platform would not raise the window: focused it by clicking inside its top edge';
    throw new SightlineError('FOCUS_FAILED', `Window ${id} could not be focused.`, 'Bring it to the front by hand (or close what covers it), then try again.');
  }

  /** The window (as "app “title”") stacked above window `id` at point p, if any. */
  async #coveredBy(id: number, p: Point): Promise<string | undefined> {
    const { Window } = await this.#loadShots();
    const all = allWindows(Window);
    const self = all.find((w) => get(() => w.id()) === id);
    const z = self ? (get(() => self.z()) ?? 0) : 0;
    for (const w of all) {
      if (w === self || (get(() => w.z()) ?? 0) <= z || get(() => w.isMinimized())) continue;
      // Only windows a user works in: shell overlays are filtered out as in list_targets.
      const info = windowInfo(w);
      if (info?.bounds && inside(info.bounds, p)) return `${info.app ?? 'another window'} “${info.title}”`;
    }
    return undefined;
  }

  async dispose(): Promise<void> {
    // node-screenshots and nut-js open the display per call; only key bindings made for typing are ours to undo.
    await this.#typist?.dispose();
  }
}

/**
 * xdotool types characters missing from the keymap by remapping a spare keycode for a
 * moment; an app that looks the key up after the remap is undone sees nothing (measured:
 * é and 世 dropped at 2 ms). Such runs go slowly; keymap characters go fast.
 */
export function typingRuns(text: string): { text: string; delayMs: number }[] {
  return (text.match(/[\x20-\x7e\t\n]+|[^\x20-\x7e\t\n]+/g) ?? []).map((run) => ({ text: run, delayMs: /^[\x20-\x7e\t\n]/.test(run) ? 2 : 40 }));
}

let keySet: Set<string> | undefined;
function knownKeys(nut: Nut): ReadonlySet<string> {
  keySet ??= new Set(Object.keys(nut.Key).filter((k) => Number.isNaN(Number(k))));
  return keySet;
}

function windowInfo(w: ShotWindow): TargetInfo | undefined {
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
