/**
 * Devices as screens: list them (model, screen, density, the app in front), capture them
 * (`screencap -p` over `exec:`, kept as the native original) and judge whether a frame still
 * describes the screen (size and rotation, read again before every action).
 */
import { frameStale } from '../aim.ts';
import { z } from 'zod';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import type { TargetInfo } from '../../../../shared/frame.ts';
import type { Rect } from '../../../../shared/frame.ts';
import { hasSecret } from '../../util/secrets.ts';
import type { CaptureOptions, CapturedImage, FrameCheck, MaskSpec, ScreenPort, SourceUiNode, StoredFrame } from '../source.ts';
import { OFFLINE_HINT } from './adb.ts';
import { TIMEOUT, isReady, stateHint, type AndroidDevices, type DeviceRef } from './devices.ts';
import { REUSE_MS, type DeviceDumps } from './dumps.ts';
import { naturalOf, orientationOf } from './orientation.ts';
import { FOCUS_COMMAND, checkPng, parseForegroundPackage, type DisplayInfo } from './parse.ts';
import { dedupeTargets, mapLimit, type ListedTarget } from './servers.ts';

/** Devices read at once while listing (each costs two shell streams; thousands would exhaust sockets). */
const LIST_CONCURRENCY = 16;

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
  readonly #dumps: DeviceDumps | undefined;

  constructor(devices: AndroidDevices, dumps?: DeviceDumps) {
    this.#d = devices;
    this.#dumps = dumps;
  }

  async listTargets(signal: AbortSignal): Promise<TargetInfo[]> {
    const servers = [undefined, ...this.#d.extraServers];
    const lists = await Promise.all(
      servers.map(async (server) => {
        try {
          const states = [...(await (await this.#d.adb(server)).devices()).entries()].sort(([a], [b]) => a.localeCompare(b));
          return states.map(([serial, state]) => ({ ref: this.#d.ref(server, serial), state }));
        } catch (e) {
          return e as Error;
        }
      }),
    );
    // One server down leaves the others listed (health names it); all down is an error.
    const up = lists.filter((l): l is Exclude<typeof l, Error> => !(l instanceof Error));
    if (up.length === 0) throw lists[0] as Error;
    const listed = await mapLimit(up.flat(), LIST_CONCURRENCY, ({ ref, state }) => this.#target(ref, state, signal));
    return dedupeTargets(listed);
  }

  async #target(ref: DeviceRef, state: string, signal: AbortSignal): Promise<ListedTarget> {
    const { id, serial } = ref;
    const kind = serial.startsWith('emulator-') ? 'emulator' : 'device';
    const where = ref.server ? { server: ref.server } : {};
    if (!isReady(state)) {
      return { info: { id, source: 'android', kind, title: `${serial} (${state})`, state, details: { serial, ...where }, hint: stateHint(state) } };
    }
    try {
      const [props, display, focus] = await Promise.all([
        this.#d.deviceProps(ref, signal),
        this.#d.display(ref, signal, true),
        this.#d.shell(ref, FOCUS_COMMAND, signal, 'reading the app in front').catch(() => ''),
      ]);
      const title = [props.manufacturer, props.model].filter(Boolean).join(' ') || serial;
      const pkg = parseForegroundPackage(focus);
      const info: TargetInfo = {
        id,
        source: 'android',
        kind,
        title: `${title} (${ref.server ? `${serial} via ${ref.server}` : serial})`,
        // The app in front: what the input allowlist names for Android.
        ...(pkg ? { app: pkg } : {}),
        bounds: { x: 0, y: 0, ...display.size },
        ...(display.density ? { scale: display.density / 160 } : {}),
        state: 'device',
        details: {
          serial,
          ...where,
          package: pkg,
          model: props.model,
          manufacturer: props.manufacturer,
          androidVersion: props.release,
          sdk: props.sdk,
          screen: display.size,
          naturalSize: display.natural,
          density: display.density,
          rotation: display.rotation ?? null,
          ...(display.rotation !== undefined ? { orientation: orientationOf(display.rotation, naturalOf(display.natural)) } : {}),
        },
      };
      return { info, ...(props.bootId ? { bootId: props.bootId } : {}) };
    } catch (e) {
      // Listed as it is (e.g. dropped while being read), never failing the whole list.
      const err = isSightlineError(e) ? e : new SightlineError('INTERNAL', (e as Error).message, OFFLINE_HINT);
      return { info: { id, source: 'android', kind, title: `${serial} (${err.code === 'DEVICE_OFFLINE' ? 'offline' : 'unreadable'})`, state: err.code === 'DEVICE_OFFLINE' ? 'offline' : state, details: { serial, ...where, error: err.message }, hint: err.hint ?? OFFLINE_HINT } };
    }
  }

  async capture(target: string, options: CaptureOptions): Promise<CapturedImage<AndroidFrameState>> {
    const ref = this.#d.device(target);
    const { serial } = ref;
    return this.#d.exclusive(ref, options.signal, async () => {
      // Read the screen geometry alongside the pixels; a rotation between the two is retried once.
      // The app in front is read alongside too (no added latency): the frame's label, which keeps
      // an excluded app's screens out of the text index. Unknown when it cannot be read.
      for (let attempt = 0; ; attempt++) {
        const [raw, display, focus, secrets] = await Promise.all([
          this.#d.run(ref, 'exec:screencap -p', options.signal, 'screencap', TIMEOUT.screencap).catch((e: unknown) => e as Error),
          this.#d.display(ref, options.signal, true).catch((e: unknown) => e as Error),
          this.#d.shell(ref, FOCUS_COMMAND, options.signal, 'reading the app in front').catch(() => ''),
          options.mask ? this.#secretBoxes(ref, options.mask, options.signal) : undefined,
        ]);
        const app = parseForegroundPackage(focus);
        let png: ReturnType<typeof checkPng>;
        try {
          if (raw instanceof Error) throw raw;
          png = checkPng(raw);
          if (display instanceof Error) throw display;
        } catch (e) {
          throw await this.#d.explain(ref, e, (msg) => new SightlineError('SCREENSHOT_FAILED', `screencap on ${ref.id} failed: ${msg}.`, 'Capture again; if it keeps failing, unlock the device (secure screens such as a lock screen with DRM cannot be captured).'));
        }
        const pngLandscape = png.width > png.height;
        const displayLandscape = display.size.width > display.size.height;
        if (pngLandscape !== displayLandscape && attempt === 0 && png.width !== png.height) continue;
        const state: AndroidFrameState = { serial, width: png.width, height: png.height, rotation: display.rotation ?? null, display: display.size };
        return {
          target: ref.id,
          ...(app ? { label: { app } } : {}),
          pixels: { kind: 'encoded', data: png.data },
          sourceSize: { width: png.width, height: png.height },
          origin: { x: 0, y: 0 },
          ...(display.density ? { dpi: display.density } : {}),
          state,
          ...(secrets && 'boxes' in secrets && secrets.boxes.length ? { masks: secrets.boxes } : {}),
          ...(secrets && 'error' in secrets ? { warnings: [`Nothing was masked: the screen's UI tree could not be read to find password fields and secrets (${secrets.error}).`] } : {}),
        };
      }
    });
  }

  /**
   * Where secrets are on screen: password nodes and nodes whose text matches the mask patterns,
   * from a UI dump read beside the screencap (a phone's dump takes 1–3 s, so one read for an
   * action within the last second with no input since is used instead). A dump that fails is
   * reported, not thrown: the capture goes on unmasked and says so.
   */
  async #secretBoxes(ref: DeviceRef, mask: MaskSpec, signal: AbortSignal): Promise<{ boxes: Rect[] } | { error: string }> {
    if (!this.#dumps) return { boxes: [] };
    try {
      const last = this.#dumps.last(ref);
      const fresh = last && last.at > this.#d.touchedAt(ref) && Date.now() - last.at <= REUSE_MS;
      const nodes = fresh ? last.nodes : (await this.#dumps.raw(ref, signal)).nodes;
      return { boxes: nodes.filter((n) => n.bounds.width > 0 && n.bounds.height > 0 && isSecretNode(n, mask.patterns)).map((n) => n.bounds) };
    } catch (e) {
      return { error: (e as Error).message.replace(/\.$/, '') };
    }
  }

  async checkFrame(frame: StoredFrame<AndroidFrameState>, signal: AbortSignal): Promise<FrameCheck> {
    const ref = this.#d.device(frame.target);
    await this.#d.requireReady(ref);
    const display = await this.#d.display(ref, signal);
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
  return frameStale(frame, `${why} since it was taken`);
}

/** A node that holds a secret: a password field, or text (or content-desc) matching the mask patterns. */
export function isSecretNode(n: SourceUiNode, patterns: readonly string[]): boolean {
  const a = n.attributes ?? {};
  return a.password === 'true' || hasSecret(a.text ?? '', patterns) || hasSecret(a['content-desc'] ?? '', patterns);
}
