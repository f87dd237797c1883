/**
 * The devices behind the adb server (@devicefarmer/adbkit): the server itself (found and
 * started when needed, forgotten when it dies so the next call starts it again), shell commands
 * with timeouts and cancellation, one lock per device, readiness, and the screen geometry that
 * staleness checks compare. The screen, input and tree ports all work through this.
 */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { Mutex } from 'async-mutex';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import { AdbServer, OFFLINE_HINT, UNAUTHORIZED_HINT } from './adb.ts';
import { adbServerAddress, installHint, locateAdb } from './locate.ts';
import { DISPLAY_ROTATION_COMMAND, displayCommand, parseDisplay, parseGetpropLines, type DisplayInfo } from './parse.ts';
import type { AndroidSettings } from './settings.ts';

export interface AndroidDevicesOptions {
  settings: AndroidSettings;
  env?: NodeJS.ProcessEnv;
  /** For tests: the platform and file check used to find adb. */
  platform?: NodeJS.Platform;
  exists?: (path: string) => boolean;
}

export interface DeviceProps {
  model?: string;
  manufacturer?: string;
  release?: string;
  sdk?: number;
}

const PROP_KEYS = ['ro.product.model', 'ro.product.manufacturer', 'ro.build.version.release', 'ro.build.version.sdk'] as const;
export const TIMEOUT = { shell: 15_000, screencap: 20_000, uiautomator: 40_000 };

export class AndroidDevices {
  readonly #options: AndroidDevicesOptions;
  readonly #env: NodeJS.ProcessEnv;
  #server: Promise<{ server: AdbServer; version: number }> | undefined;
  #version = 0;
  readonly #locks = new Map<string, Mutex>();
  readonly #props = new Map<string, DeviceProps>();
  /** Per device: whether the rotation has to come from `dumpsys display` (undefined: not probed yet). */
  readonly #rotationViaDisplay = new Map<string, boolean>();

  constructor(options: AndroidDevicesOptions) {
    this.#options = options;
    this.#env = options.env ?? process.env;
  }

  // ── adb and its server ─────────────────────────────────────────────────────

  locate(): ReturnType<typeof locateAdb> {
    const exists = this.#options.exists ?? ((p: string) => existsSync(p) && statSync(p).isFile());
    return locateAdb({ adbPath: this.#options.settings.adbPath, env: this.#env, platform: this.#options.platform ?? process.platform, homedir: this.#env.HOME ?? homedir(), exists });
  }

  adbNotFound(searched: string[]): SightlineError {
    const setting = this.#options.settings.adbPath;
    const where = setting ? `android.adbPath (${setting}) is not an adb binary` : 'adb was not found';
    return new SightlineError(
      'ADB_NOT_FOUND',
      `${where}; looked in: ${searched.join(', ')}.`,
      installHint(this.#options.platform ?? process.platform),
      { searched },
    );
  }

  /** The adb server, started if needed; a failed attempt is retried on the next call. */
  adb(): Promise<AdbServer> {
    this.#server ??= (async () => {
      const found = this.locate();
      if (!found.path) throw this.adbNotFound(found.searched);
      const address = adbServerAddress(this.#env);
      if ('error' in address) throw new SightlineError('SOURCE_UNAVAILABLE', `${address.error}.`, 'Fix or unset that environment variable.');
      return AdbServer.open(found.path, address, this.#env, (serial) => {
        this.#props.delete(serial);
        this.#rotationViaDisplay.delete(serial);
      });
    })();
    const current = this.#server;
    return current.then(
      (s) => {
        this.#version = s.version;
        return s.server;
      },
      (e: unknown) => {
        if (this.#server === current) this.#server = undefined;
        throw e;
      },
    );
  }

  /** Run a shell command; a dead server is forgotten so the next call starts it again. */
  async run(serial: string, service: string, signal: AbortSignal, label: string, timeoutMs = TIMEOUT.shell): Promise<Buffer> {
    const adb = await this.adb();
    try {
      return await adb.run(serial, service, { signal, timeoutMs, label });
    } catch (e) {
      if (isSightlineError(e) && e.code === 'SOURCE_UNAVAILABLE') this.forgetServer(adb);
      throw e;
    }
  }

  async shell(serial: string, command: string, signal: AbortSignal, label: string, timeoutMs?: number): Promise<string> {
    return (await this.run(serial, `shell:${command}`, signal, label, timeoutMs)).toString('utf8');
  }

  forgetServer(adb: AdbServer): void {
    adb.dispose();
    this.#server = undefined;
  }

  // ── health and targets ─────────────────────────────────────────────────────

  async deviceProps(serial: string, signal: AbortSignal): Promise<DeviceProps> {
    const cached = this.#props.get(serial);
    if (cached) return cached;
    const out = await this.shell(serial, PROP_KEYS.map((k) => `getprop ${k}`).join('; '), signal, 'getprop');
    const p = parseGetpropLines(out, PROP_KEYS);
    const props: DeviceProps = {
      model: p['ro.product.model'],
      manufacturer: p['ro.product.manufacturer'],
      release: p['ro.build.version.release'],
      sdk: p['ro.build.version.sdk'] ? Number(p['ro.build.version.sdk']) : undefined,
    };
    this.#props.set(serial, props);
    return props;
  }

  /** Screen size, rotation and (with `density`) density; what checkFrame compares. */
  async display(serial: string, signal: AbortSignal, density = false): Promise<DisplayInfo> {
    // Devices whose input dump shows no rotation get `dumpsys display` too (remembered per device).
    const viaDisplay = this.#rotationViaDisplay.get(serial) === true;
    const command = displayCommand({ density }) + (viaDisplay ? `; ${DISPLAY_ROTATION_COMMAND}` : '');
    const out = await this.shell(serial, command, signal, 'reading the screen size');
    let info: DisplayInfo;
    try {
      info = parseDisplay(out);
    } catch (e) {
      throw new SightlineError('INTERNAL', `Could not read the screen of android:${serial}: ${(e as Error).message}.`, 'Check that the device is unlocked and booted.');
    }
    if (info.rotation === undefined && !this.#rotationViaDisplay.has(serial)) {
      this.#rotationViaDisplay.set(serial, true);
      const more = await this.display(serial, signal, density);
      if (more.rotation === undefined) this.#rotationViaDisplay.set(serial, false);
      return more;
    }
    if (!this.#rotationViaDisplay.has(serial)) this.#rotationViaDisplay.set(serial, false);
    return info;
  }

  // ── devices: id, readiness, lock ────────────────────────────────────────────

  serial(target: string): string {
    if (!target.startsWith('android:') || target.length <= 'android:'.length) {
      throw new SightlineError('TARGET_NOT_FOUND', `"${target}" is not an Android target.`, 'Android target ids look like android:<serial>; call list_targets.');
    }
    return target.slice('android:'.length);
  }

  /** TARGET_NOT_FOUND / DEVICE_UNAUTHORIZED / DEVICE_OFFLINE unless the device is ready. */
  async requireReady(serial: string): Promise<void> {
    const adb = await this.adb();
    const state = await adb.state(serial);
    if (state === undefined) throw new SightlineError('TARGET_NOT_FOUND', `android:${serial} is not connected.`, 'Call list_targets; reconnect the device or `adb connect HOST:PORT`.');
    if (isReady(state)) return;
    if (state === 'unauthorized') throw new SightlineError('DEVICE_UNAUTHORIZED', `android:${serial} has not authorised this computer.`, UNAUTHORIZED_HINT);
    throw new SightlineError('DEVICE_OFFLINE', `android:${serial} is ${state}.`, stateHint(state));
  }

  /** Run `fn` alone on this device (concurrent calls queue; a cancelled caller does not run). */
  exclusive<T>(serial: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    let lock = this.#locks.get(serial);
    if (!lock) {
      lock = new Mutex();
      this.#locks.set(serial, lock);
    }
    return lock.runExclusive(async () => {
      if (signal.aborted) throw new SightlineError('CANCELLED', 'Cancelled while waiting for the device.', 'Call again if you still need it.');
      await this.requireReady(serial);
      return fn();
    });
  }

  /**
   * After a failed transfer, say whether the device dropped (DEVICE_OFFLINE) or just failed. The
   * server needs a moment to notice a pulled cable (adb 29 marks it offline within ~100 ms).
   */
  async explain(serial: string, e: unknown, fallback: (msg: string) => SightlineError): Promise<SightlineError> {
    if (isSightlineError(e) && e.code !== 'INTERNAL') return e;
    for (let i = 0; i < 8; i++) {
      try {
        await this.requireReady(serial);
      } catch (gone) {
        if (!isSightlineError(gone) || gone.code === 'SOURCE_UNAVAILABLE') break;
        const code = gone.code === 'TARGET_NOT_FOUND' ? 'DEVICE_OFFLINE' : gone.code;
        return new SightlineError(code, `android:${serial} disconnected during the operation (${(e as Error).message}).`, gone.hint ?? OFFLINE_HINT);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return fallback((e as Error).message);
  }

  // ── capture and staleness ──────────────────────────────────────────────────

  /** The adb server's protocol version, once it is running. */
  async serverVersion(): Promise<number> {
    await this.adb();
    return this.#version;
  }

  get platform(): NodeJS.Platform {
    return this.#options.platform ?? process.platform;
  }

  dispose(): Promise<void> {
    const current = this.#server;
    this.#server = undefined;
    return (current ?? Promise.resolve(undefined)).then(
      (s) => s?.server.dispose(),
      () => undefined,
    );
  }
}

export function isReady(state: string): boolean {
  return state === 'device' || state === 'emulator';
}

export const NO_DEVICE_HINT = 'Enable Developer options → USB debugging on the device and connect it by USB, or run `adb connect HOST:PORT` for a network device or emulator.';

export function stateHint(state: string): string {
  if (state === 'unauthorized') return UNAUTHORIZED_HINT;
  if (state === 'offline') return OFFLINE_HINT;
  if (/no permissions/i.test(state)) return 'adb lacks permission for the USB device: add a udev rule for it (see https://developer.android.com/studio/run/device) and reconnect.';
  if (/recovery|sideload|bootloader|rescue/i.test(state)) return `The device is in ${state} mode: boot it into Android.`;
  if (state === 'authorizing' || state === 'connecting') return 'The device is connecting; call list_targets again in a moment.';
  return OFFLINE_HINT;
}

