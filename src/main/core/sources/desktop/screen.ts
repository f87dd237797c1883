/**
 * Displays and windows as screens: list them, capture them (raw pixels, no PNG in the hot
 * path; a window hanging off the desktop is cut from the display), and judge a frame: a window
 * that only moved is re-mapped, one that was resized is stale.
 */
import { z } from 'zod';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import type { TargetInfo } from '../../../../shared/frame.ts';
import type { CaptureOptions, CapturedImage, FrameCheck, ScreenPort, StoredFrame } from '../source.ts';
import { MAC_SCREEN_RECORDING } from './environment.ts';
import { WindowProcesses } from './process.ts';
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

  constructor(session: DesktopSession) {
    this.#s = session;
    this.#processes = new WindowProcesses((id) => session.run('xprop', ['-id', id, '_NET_WM_PID'], undefined, 2000), session.platform);
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

  async checkFrame(frame: StoredFrame<DesktopFrameState>, _signal?: AbortSignal): Promise<FrameCheck> {
    const s = frame.state;
    const t = parseDesktopTarget(frame.target);
    const now = boundsOf(t.kind === 'window' ? await this.#s.window(t.id) : await this.#s.monitor(t.id));
    if (!saneBounds(now)) throw new SightlineError('FRAME_STALE', `${frame.target} has no usable bounds now (${now.width}×${now.height}).`, 'Restore the window and capture again.');
    if (now.width !== s.width || now.height !== s.height) {
      throw new SightlineError('FRAME_STALE', `${frame.target} was resized from ${s.width}×${s.height} to ${now.width}×${now.height} since frame ${frame.ref}.`, 'Capture again.');
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
