/**
 * Displays and windows as screens: list them, capture them (raw pixels, no PNG in the hot
 * path; a window hanging off the desktop is cut from the display), and judge a frame: a window
 * that only moved is re-mapped, one that was resized is stale.
 */
import { frameStale } from '../aim.ts';
import { z } from 'zod';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import type { Rect, TargetInfo } from '../../../../shared/frame.ts';
import { fitSize } from '../../image/fit.ts';
import type { CaptureOptions, CapturedImage, FrameCheck, ScreenPort, StoredFrame, TargetFacts } from '../source.ts';
import { MAC_SCREEN_RECORDING } from './environment.ts';
import { coverage } from './geometry.ts';
import { WindowProcesses } from './process.ts';
import { XResourceOwners } from './xres.ts';
import { allWindows, boundsOf, get, parseDesktopTarget, saneBounds, windowInfo, type DesktopSession, type Shots, type ShotMonitor, type ShotWindow } from './session.ts';

/** A window's or display's place when it was captured. */
export const desktopFrameState = z.object({
  kind: z.enum(['window', 'display']),
  id: z.number(),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});
export type DesktopFrameState = z.output<typeof desktopFrameState>;

export class DesktopScreen implements ScreenPort<DesktopFrameState> {
  readonly state = desktopFrameState;
  readonly #s: DesktopSession;
  readonly #processes: WindowProcesses;
  readonly #owners: XResourceOwners | undefined;

  constructor(session: DesktopSession) {
    this.#s = session;
    // X11: the X server says who owns a window; elsewhere the OS's window list does.
    this.#owners = session.platform === 'linux' ? new XResourceOwners(() => session.facts().display, () => session.prepareDisplay()) : undefined;
    this.#processes = new WindowProcesses(this.#owners, session.platform);
  }

  /** A target as the action's judge sees it, read now: a window's owning process, or a display. */
  async facts(target: string): Promise<TargetFacts> {
    const t = parseDesktopTarget(target);
    if (t.kind === 'display') {
      const m = await this.#s.monitor(t.id);
      return { kind: 'display', label: get(() => m.name()) || target };
    }
    const w = await this.#s.window(t.id);
    const app = get(() => w.appName()) || undefined;
    const title = get(() => w.title()) || undefined;
    const pid = get(() => w.pid());
    return this.#processes.facts({ id: target, source: 'desktop', kind: 'window', title: title ?? '', ...(app ? { app } : {}), details: pid ? { pid } : {} });
  }

  dispose(): void {
    this.#owners?.dispose();
  }

  async listTargets(_signal?: AbortSignal): Promise<TargetInfo[]> {
    this.#s.assertReachable();
    const { Monitor, Window } = await this.#s.loadShots();
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
    // Without a window manager X11 lists no windows; the displays can still be captured.
    const windows = listable(() => allWindows(Window));
    for (const w of windows ?? []) {
      const info = windowInfo(w);
      if (info) out.push(info);
    }
    if (!windows) {
      for (const d of out) d.hint = 'Windows cannot be listed here (no window manager): capture the display and act in its pixels.';
    }
    // The allowlist and the "never Sightline's own window" rule judge a window by its process.
    await this.#processes.annotate(out);
    return out;
  }

  async capture(target: string, options: CaptureOptions): Promise<CapturedImage<DesktopFrameState>> {
    const facts = this.#s.assertReachable();
    const t = parseDesktopTarget(target);
    const subject = t.kind === 'window' ? await this.#s.window(t.id) : await this.#s.monitor(t.id);
    const bounds = boundsOf(subject);
    if (!saneBounds(bounds)) throw new SightlineError('SCREENSHOT_FAILED', `${target} has no usable bounds (${bounds.width}×${bounds.height}).`, 'Restore or show the window, then capture again.');
    if (t.kind === 'window' && get(() => (subject as ShotWindow).isMinimized())) {
      throw new SightlineError('SCREENSHOT_FAILED', `${target} is minimized.`, 'Call focus_window to restore it, then capture.');
    }
    const warnings: string[] = [];
    if (t.kind === 'window' && this.#s.platform === 'linux') warnings.push(...(await this.#uncover(target, t.id, bounds, options)));
    let image: InstanceType<Shots['Image']>;
    let data: Buffer;
    // The region the image shows: the window, or its on-screen part when it hangs off the desktop.
    let region = bounds;
    let regionMonitor: ShotMonitor | undefined;
    try {
      try {
        image = await subject.captureImage();
      } catch (e) {
        // X11 cannot read a window that is partly off-screen (xcb protocol error): read its visible part from the display.
        const visible = t.kind === 'window' ? await this.#s.visibleWindowImage(bounds) : undefined;
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
    if (options.signal.aborted) throw new SightlineError('CANCELLED', 'Capture cancelled.', 'Call again if you still need it.');
    const monitor = regionMonitor ?? (t.kind === 'window' ? get(() => (subject as ShotWindow).currentMonitor()) : (subject as ShotMonitor));
    const scaleFactor = (monitor && get(() => monitor.scaleFactor())) || 1;
    const state: DesktopFrameState = { kind: t.kind, id: t.id, ...bounds };
    // A window names itself (for the text index); a display shows many.
    const title = t.kind === 'window' ? get(() => (subject as ShotWindow).title()) : undefined;
    const app = t.kind === 'window' ? get(() => (subject as ShotWindow).appName()) : undefined;
    return {
      target,
      ...(title || app ? { label: { ...(title ? { title } : {}), ...(app ? { app } : {}) } } : {}),
      pixels: { kind: 'raw', data, width: image.width, height: image.height, channels: 4 },
      // Input coordinates are screen points; on HiDPI the pixels are scaleFactor× larger.
      sourceSize: { width: region.width, height: region.height },
      origin: { x: region.x, y: region.y },
      dpi: Math.round(96 * scaleFactor),
      monitor: monitor ? get(() => monitor.id()) : undefined,
      state,
      ...(warnings.length ? { warnings } : {}),
    };
  }

  /**
   * X11 without a compositor captures a window as the screen shows it: where another window
   * covers it, that window's pixels. Such a window is raised first when allowed (and checked
   * again); what still covers it is named in the answer, and a window hidden whole is refused
   * rather than handed out as someone else's picture.
   */
  async #uncover(target: string, id: number, bounds: Rect, options: CaptureOptions): Promise<string[]> {
    let cover = await this.#coverage(id, bounds);
    if (!cover.covers.length) return [];
    let raised = false;
    if (this.#s.mayRaise()) {
      raised = await this.#s.raise(id, options.signal);
      if (raised) cover = await this.#coverage(id, bounds);
      if (!cover.covers.length) return [];
    }
    const who = [...new Set(cover.covers.map((c) => c.by))].join(', ');
    const percent = Math.max(1, Math.round(cover.fraction * 100));
    const why = this.#s.mayRaise() ? (raised ? 'it was raised but is still covered' : 'it could not be raised') : 'raising is off (desktop.raiseBeforeCapture, or input is paused)';
    if (cover.fraction >= 0.99) {
      throw new SightlineError('WINDOW_COVERED', `${target} is hidden by ${who} (${percent}% covered; ${why}): a capture would show ${cover.covers.length > 1 ? 'those windows' : 'that window'} instead.`, 'Call focus_window on it, then capture again (or turn on desktop.raiseBeforeCapture).');
    }
    // Where, in pixels of the image this capture returns.
    const size = options.raw ? bounds : fitSize({ width: bounds.width, height: bounds.height }, { maxDimension: options.maxDimension, ...(options.maxPixels ? { maxPixels: options.maxPixels } : {}) });
    const k = size.width / bounds.width;
    const parts = cover.covers.map((c) => `${c.by} at image (${Math.round((c.rect.x - bounds.x) * k)}, ${Math.round((c.rect.y - bounds.y) * k)}) ${Math.round(c.rect.width * k)}×${Math.round(c.rect.height * k)} px`);
    return [`${target} is partly covered (${percent}%; ${why}): ${parts.join('; ')} show${parts.length > 1 ? '' : 's'} the covering window there. Call focus_window, then capture again, to see it whole.`];
  }

  /** What the windows stacked above `id` hide of it (windows a user works in: shell overlays are left out as in list_targets). */
  async #coverage(id: number, bounds: Rect): Promise<ReturnType<typeof coverage>> {
    const { Window } = await this.#s.loadShots();
    const all = listable(() => allWindows(Window)) ?? [];
    const self = all.find((w) => get(() => w.id()) === id);
    const z = self ? get(() => self.z()) : undefined;
    if (z === undefined) return { covers: [], fraction: 0 };
    const above: { by: string; rect: Rect }[] = [];
    for (const w of all) {
      if (w === self || (get(() => w.z()) ?? -Infinity) <= z || get(() => w.isMinimized())) continue;
      const info = windowInfo(w);
      if (info?.bounds) above.push({ by: `${info.app ?? 'a window'} “${info.title}”`, rect: info.bounds });
    }
    return coverage(bounds, above);
  }

  async checkFrame(frame: StoredFrame<DesktopFrameState>, _signal?: AbortSignal): Promise<FrameCheck> {
    const s = frame.state;
    const t = parseDesktopTarget(frame.target);
    const now = boundsOf(t.kind === 'window' ? await this.#s.window(t.id) : await this.#s.monitor(t.id));
    if (!saneBounds(now)) throw frameStale(frame, `the window has no usable bounds now (${now.width}×${now.height}): restore it first`);
    if (now.width !== s.width || now.height !== s.height) {
      throw frameStale(frame, `the window was resized from ${s.width}×${s.height} to ${now.width}×${now.height} since it was taken`);
    }
    return { shift: { x: now.x - s.x, y: now.y - s.y } };
  }
}

/** The windows, or undefined when the platform cannot list them (X11 without a window manager). */
function listable<T>(list: () => T[]): T[] | undefined {
  try {
    return list();
  } catch (e) {
    if (isSightlineError(e) && e.code === 'SOURCE_UNAVAILABLE') return undefined;
    throw e;
  }
}
