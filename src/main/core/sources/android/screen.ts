/**
 * Devices as screens: list them (model, screen, density, the app in front), capture them
 * (`screencap -p` over `exec:`, kept as the native original) and judge whether a frame still
 * describes the screen (size and rotation, read again before every action).
 */
import { z } from 'zod';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import type { TargetInfo } from '../../../../shared/frame.ts';
import type { CaptureOptions, CapturedImage, FrameCheck, ScreenPort, StoredFrame } from '../source.ts';
import { OFFLINE_HINT } from './adb.ts';
import { TIMEOUT, isReady, stateHint, type AndroidDevices } from './devices.ts';
import { FOCUS_COMMAND, checkPng, parseForegroundPackage, type DisplayInfo } from './parse.ts';

/** What a frame's state holds: enough to tell later whether the screen changed under it. */
export const androidFrameState = z.object({
  serial: z.string(),
  /** Size of the screenshot (device px, current orientation). */
  width: z.number(),
  height: z.number(),
  rotation: z.number().nullable(),
  /** `wm size` in the current orientation when captured (compared by checkFrame). */
  display: z.object({ width: z.number(), height: z.number() }),
});
export type AndroidFrameState = z.output<typeof androidFrameState>;

export const ROTATION_DEG = ['0°', '90°', '180°', '270°'];

export class AndroidScreen implements ScreenPort<AndroidFrameState> {
  readonly state = androidFrameState;
  readonly #d: AndroidDevices;

  constructor(devices: AndroidDevices) {
    this.#d = devices;
  }

  async listTargets(signal: AbortSignal): Promise<TargetInfo[]> {
    const adb = await this.#d.adb();
    const states = [...(await adb.devices()).entries()].sort(([a], [b]) => a.localeCompare(b));
    return Promise.all(states.map(([serial, state]) => this.#target(serial, state, signal)));
  }

  async #target(serial: string, state: string, signal: AbortSignal): Promise<TargetInfo> {
    const id = `android:${serial}`;
    const kind = serial.startsWith('emulator-') ? 'emulator' : 'device';
    if (!isReady(state)) {
      return { id, source: 'android', kind, title: `${serial} (${state})`, state, details: { serial }, hint: stateHint(state) };
    }
    try {
      const [props, display, focus] = await Promise.all([
        this.#d.deviceProps(serial, signal),
        this.#d.display(serial, signal, true),
        this.#d.shell(serial, FOCUS_COMMAND, signal, 'reading the app in front').catch(() => ''),
      ]);
      const title = [props.manufacturer, props.model].filter(Boolean).join(' ') || serial;
      const pkg = parseForegroundPackage(focus);
      return {
        id,
        source: 'android',
        kind,
        title: `${title} (${serial})`,
        // The app in front: what the input allowlist names for Android.
        ...(pkg ? { app: pkg } : {}),
        bounds: { x: 0, y: 0, ...display.size },
        ...(display.density ? { scale: display.density / 160 } : {}),
        state: 'device',
        details: {
          serial,
          package: pkg,
          model: props.model,
          manufacturer: props.manufacturer,
          androidVersion: props.release,
          sdk: props.sdk,
          screen: display.size,
          naturalSize: display.natural,
          density: display.density,
          rotation: display.rotation ?? null,
        },
      };
    } catch (e) {
      // Listed as it is (e.g. dropped while being read), never failing the whole list.
      const err = isSightlineError(e) ? e : new SightlineError('INTERNAL', (e as Error).message, OFFLINE_HINT);
      return { id, source: 'android', kind, title: `${serial} (${err.code === 'DEVICE_OFFLINE' ? 'offline' : 'unreadable'})`, state: err.code === 'DEVICE_OFFLINE' ? 'offline' : state, details: { serial, error: err.message }, hint: err.hint ?? OFFLINE_HINT };
    }
  }

  async capture(target: string, options: CaptureOptions): Promise<CapturedImage<AndroidFrameState>> {
    const serial = this.#d.serial(target);
    return this.#d.exclusive(serial, options.signal, async () => {
      // Read the screen geometry alongside the pixels; a rotation between the two is retried once.
      for (let attempt = 0; ; attempt++) {
        const [raw, display] = await Promise.all([
          this.#d.run(serial, 'exec:screencap -p', options.signal, 'screencap', TIMEOUT.screencap).catch((e: unknown) => e as Error),
          this.#d.display(serial, options.signal, true).catch((e: unknown) => e as Error),
        ]);
        let png: ReturnType<typeof checkPng>;
        try {
          if (raw instanceof Error) throw raw;
          png = checkPng(raw);
          if (display instanceof Error) throw display;
        } catch (e) {
          throw await this.#d.explain(serial, e, (msg) => new SightlineError('SCREENSHOT_FAILED', `screencap on android:${serial} failed: ${msg}.`, 'Capture again; if it keeps failing, unlock the device (secure screens such as a lock screen with DRM cannot be captured).'));
        }
        const pngLandscape = png.width > png.height;
        const displayLandscape = display.size.width > display.size.height;
        if (pngLandscape !== displayLandscape && attempt === 0 && png.width !== png.height) continue;
        const state: AndroidFrameState = { serial, width: png.width, height: png.height, rotation: display.rotation ?? null, display: display.size };
        return {
          target: `android:${serial}`,
          pixels: { kind: 'encoded', data: png.data },
          sourceSize: { width: png.width, height: png.height },
          origin: { x: 0, y: 0 },
          ...(display.density ? { dpi: display.density } : {}),
          state,
        };
      }
    });
  }

  async checkFrame(frame: StoredFrame<AndroidFrameState>, signal: AbortSignal): Promise<FrameCheck> {
    const serial = this.#d.serial(frame.target);
    await this.#d.requireReady(serial);
    const display = await this.#d.display(serial, signal);
    assertFresh(frame, display);
    return {};
  }
}

export function assertFresh(frame: StoredFrame<AndroidFrameState>, display: DisplayInfo): void {
  const state = frame.state;
  if (typeof state.rotation === 'number' && display.rotation !== undefined && state.rotation !== display.rotation) {
    throw staleError(frame, `the device rotated from ${ROTATION_DEG[state.rotation]} to ${ROTATION_DEG[display.rotation]}`);
  }
  const was = state.display;
  if (was.width !== display.size.width || was.height !== display.size.height) {
    throw staleError(frame, `the screen changed from ${was.width}x${was.height} to ${display.size.width}x${display.size.height}`);
  }
}

export function staleError(frame: StoredFrame, why: string): SightlineError {
  return new SightlineError('FRAME_STALE', `${why} since frame ${frame.ref}.`, `Capture ${frame.target} again and use the new image's coordinates.`, { ref: frame.ref });
}
