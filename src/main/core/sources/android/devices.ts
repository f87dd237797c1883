/**
 * The devices behind the adb servers (@devicefarmer/adbkit): the local server (found and started
 * when needed, forgotten when it dies so the next call starts it again) and those of
 * `android.servers` (reached, never started), shell commands with timeouts and cancellation, one
 * lock per device, readiness, and the screen geometry that staleness checks compare. The screen,
 * input and tree ports all work through this, naming devices by DeviceRef (server + serial).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { Mutex } from 'async-mutex';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import { AdbServer, OFFLINE_HINT, UNAUTHORIZED_HINT } from './adb.ts';
import { adbServerAddress, installHint, locateAdb, type ServerAddress } from './locate.ts';
import { DISPLAY_ROTATION_COMMAND, displayCommand, parseDisplay, parseGetpropLines, type DisplayInfo } from './parse.ts';
import { extraServers, parseTargetId, serverKey, targetId, type DeviceRef } from './servers.ts';
import type { AndroidSettings } from './settings.ts';

export type { DeviceRef } from './servers.ts';

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
  /** `/proc/sys/kernel/random/boot_id`: one running device, whichever server shows it. */
  bootId?: string;
}

const PROP_KEYS = ['ro.product.model', 'ro.product.manufacturer', 'ro.build.version.release', 'ro.build.version.sdk'] as const;
export const TIMEOUT = { shell: 15_000, screencap: 20_000, uiautomator: 40_000 };

export class AndroidDevices {
  readonly #options: AndroidDevicesOptions;
  readonly #env: NodeJS.ProcessEnv;
  /** Open servers by key ('' is the default, local one). */
  readonly #servers = new Map<string, Promise<{ server: AdbServer; version: number }>>();
  readonly #versions = new Map<string, number>();
  /** The servers of `android.servers`, by key, in their order. */
  readonly #extra: Map<string, ServerAddress>;
  readonly #locks = new Map<string, Mutex>();
  /** Per target id. */
  readonly #props = new Map<string, DeviceProps>();
  /** Per target id: whether the rotation has to come from `dumpsys display` (undefined: not probed yet). */
  readonly #rotationViaDisplay = new Map<string, boolean>();
  readonly #removed: ((ref: DeviceRef) => void)[] = [];
  /** Per target id: when input was last sent (a dump read before then may show another screen). */
  readonly #touched = new Map<string, number>();

  constructor(options: AndroidDevicesOptions) {
    this.#options = options;
    this.#env = options.env ?? process.env;
    const local = adbServerAddress(this.#env);
    const extra = extraServers(options.settings.servers ?? [], 'error' in local ? undefined : local);
    this.#extra = new Map(extra.map((a) => [serverKey(a), a]));
  }

  // ── adb and its servers ────────────────────────────────────────────────────

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

  /** The keys of `android.servers` (`host:port`), in order; the default server is not among them. */
  get extraServers(): string[] {
    return [...this.#extra.keys()];
  }

  /** Where a server listens (undefined: the default one). */
  address(server?: string): ServerAddress | undefined {
    if (server !== undefined) return this.#extra.get(server);
    const a = adbServerAddress(this.#env);
    return 'error' in a ? undefined : a;
  }

  /** An adb server, started if needed (the default one only); a failed attempt is retried on the next call. */
  adb(server?: string): Promise<AdbServer> {
    const key = server ?? '';
    let opening = this.#servers.get(key);
    if (!opening) {
      opening = this.#open(server);
      this.#servers.set(key, opening);
    }
    const current = opening;
    return current.then(
      (s) => {
        this.#versions.set(key, s.version);
        return s.server;
      },
      (e: unknown) => {
        if (this.#servers.get(key) === current) this.#servers.delete(key);
        throw e;
      },
    );
  }

  async #open(server: string | undefined): Promise<{ server: AdbServer; version: number }> {
    const found = this.locate();
    const onRemove = (serial: string): void => {
      const ref = this.ref(server, serial);
      this.#props.delete(ref.id);
      this.#rotationViaDisplay.delete(ref.id);
      for (const f of this.#removed) f(ref);
    };
    const targetId = (serial: string): string => this.ref(server, serial).id;
    if (server !== undefined) {
      const address = this.#extra.get(server);
      if (!address) throw new SightlineError('TARGET_NOT_FOUND', `${server} is not one of android.servers.`, 'Call list_targets.');
      // A remote server needs no adb binary here: adbkit speaks its protocol itself.
      return AdbServer.open(found.path ?? 'adb', address, this.#env, { onRemove, targetId, remote: true });
    }
    if (!found.path) throw this.adbNotFound(found.searched);
    const address = adbServerAddress(this.#env);
    if ('error' in address) throw new SightlineError('SOURCE_UNAVAILABLE', `${address.error}.`, 'Fix or unset that environment variable.');
    return AdbServer.open(found.path, address, this.#env, { onRemove, targetId });
  }

  /** Called when a device leaves its server (its node handles and caches can go). */
  onRemoved(f: (ref: DeviceRef) => void): void {
    this.#removed.push(f);
  }

  /** Run a service on a device; a dead server is forgotten so the next call starts (or reaches) it again. */
  async run(ref: DeviceRef, service: string, signal: AbortSignal, label: string, timeoutMs = TIMEOUT.shell): Promise<Buffer> {
    const adb = await this.adb(ref.server);
    try {
      return await adb.run(ref.serial, service, { signal, timeoutMs, label });
    } catch (e) {
      if (isSightlineError(e) && e.code === 'SOURCE_UNAVAILABLE') this.forgetServer(adb, ref.server);
      throw e;
    }
  }

  async shell(ref: DeviceRef, command: string, signal: AbortSignal, label: string, timeoutMs?: number): Promise<string> {
    return (await this.run(ref, `shell:${command}`, signal, label, timeoutMs)).toString('utf8');
  }

  async push(ref: DeviceRef, local: string, remote: string, signal: AbortSignal, timeoutMs: number): Promise<void> {
    const adb = await this.adb(ref.server);
    await adb.push(ref.serial, local, remote, { signal, timeoutMs, label: 'adb push' });
  }

  /** Input is about to change the device's screen. */
  touch(ref: DeviceRef): void {
    this.#touched.set(ref.id, Date.now());
  }

  touchedAt(ref: DeviceRef): number {
    return this.#touched.get(ref.id) ?? 0;
  }

  forgetServer(adb: AdbServer, server?: string): void {
    adb.dispose();
    this.#servers.delete(server ?? '');
  }

  // ── health and targets ─────────────────────────────────────────────────────

  async deviceProps(ref: DeviceRef, signal: AbortSignal): Promise<DeviceProps> {
    const cached = this.#props.get(ref.id);
    if (cached) return cached;
    // The kernel's boot id names one running device: the same phone seen through two servers has one.
    const out = await this.shell(ref, `${PROP_KEYS.map((k) => `getprop ${k}`).join('; ')}; cat /proc/sys/kernel/random/boot_id 2>/dev/null`, signal, 'getprop');
    const p = parseGetpropLines(out, [...PROP_KEYS, 'boot_id']);
    const bootId = p.boot_id && /^[0-9a-f-]{16,64}$/i.test(p.boot_id) ? p.boot_id.toLowerCase() : undefined;
    const props: DeviceProps = {
      model: p['ro.product.model'],
      manufacturer: p['ro.product.manufacturer'],
      release: p['ro.build.version.release'],
      sdk: p['ro.build.version.sdk'] ? Number(p['ro.build.version.sdk']) : undefined,
      ...(bootId ? { bootId } : {}),
    };
    this.#props.set(ref.id, props);
    return props;
  }

  /** Screen size, rotation and (with `density`) density; what checkFrame compares. */
  async display(ref: DeviceRef, signal: AbortSignal, density = false): Promise<DisplayInfo> {
    // Devices whose input dump shows no rotation get `dumpsys display` too (remembered per device).
    const viaDisplay = this.#rotationViaDisplay.get(ref.id) === true;
    const command = displayCommand({ density }) + (viaDisplay ? `; ${DISPLAY_ROTATION_COMMAND}` : '');
    const out = await this.shell(ref, command, signal, 'reading the screen size');
    let info: DisplayInfo;
    try {
      info = parseDisplay(out);
    } catch (e) {
      throw new SightlineError('INTERNAL', `Could not read the screen of ${ref.id}: ${(e as Error).message}.`, 'Check that the device is unlocked and booted.');
    }
    if (info.rotation === undefined && !this.#rotationViaDisplay.has(ref.id)) {
      this.#rotationViaDisplay.set(ref.id, true);
      const more = await this.display(ref, signal, density);
      if (more.rotation === undefined) this.#rotationViaDisplay.set(ref.id, false);
      return more;
    }
    if (!this.#rotationViaDisplay.has(ref.id)) this.#rotationViaDisplay.set(ref.id, false);
    return info;
  }

  // ── devices: id, readiness, lock ────────────────────────────────────────────

  /** The device a target id names (TARGET_NOT_FOUND for one that is not an Android id). */
  device(target: string): DeviceRef {
    const ref = parseTargetId(target, this.extraServers);
    if (!ref) {
      throw new SightlineError('TARGET_NOT_FOUND', `"${target}" is not an Android target.`, 'Android target ids look like android:<serial> (or android:<host>:<port>/<serial> behind another adb server); call list_targets.');
    }
    return ref;
  }

  ref(server: string | undefined, serial: string): DeviceRef {
    return { id: targetId(server, serial), ...(server !== undefined ? { server } : {}), serial };
  }

  /** TARGET_NOT_FOUND / DEVICE_UNAUTHORIZED / DEVICE_OFFLINE unless the device is ready. */
  async requireReady(ref: DeviceRef): Promise<void> {
    const adb = await this.adb(ref.server);
    const state = await adb.state(ref.serial);
    if (state === undefined) throw new SightlineError('TARGET_NOT_FOUND', `${ref.id} is not connected.`, 'Call list_targets; reconnect the device or `adb connect HOST:PORT`.');
    if (isReady(state)) return;
    if (state === 'unauthorized') throw new SightlineError('DEVICE_UNAUTHORIZED', `${ref.id} has not authorised this computer.`, UNAUTHORIZED_HINT);
    throw new SightlineError('DEVICE_OFFLINE', `${ref.id} is ${state}.`, stateHint(state));
  }

  /** Run `fn` alone on this device (concurrent calls queue; a cancelled caller does not run). */
  exclusive<T>(ref: DeviceRef, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    let lock = this.#locks.get(ref.id);
    if (!lock) {
      lock = new Mutex();
      this.#locks.set(ref.id, lock);
    }
    return lock.runExclusive(async () => {
      if (signal.aborted) throw new SightlineError('CANCELLED', 'Cancelled while waiting for the device.', 'Call again if you still need it.');
      await this.requireReady(ref);
      return fn();
    });
  }

  /**
   * After a failed transfer, say whether the device dropped (DEVICE_OFFLINE) or just failed. The
   * server needs a moment to notice a pulled cable (adb 29 marks it offline within ~100 ms).
   */
  async explain(ref: DeviceRef, e: unknown, fallback: (msg: string) => SightlineError): Promise<SightlineError> {
    if (isSightlineError(e) && e.code !== 'INTERNAL') return e;
    for (let i = 0; i < 8; i++) {
      try {
        await this.requireReady(ref);
      } catch (gone) {
        if (!isSightlineError(gone) || gone.code === 'SOURCE_UNAVAILABLE') break;
        const code = gone.code === 'TARGET_NOT_FOUND' ? 'DEVICE_OFFLINE' : gone.code;
        return new SightlineError(code, `${ref.id} disconnected during the operation (${(e as Error).message}).`, gone.hint ?? OFFLINE_HINT);
      }
      await sleep(50);
    }
    return fallback((e as Error).message);
  }

  /** The adb server's protocol version, once it is running. */
  async serverVersion(server?: string): Promise<number> {
    await this.adb(server);
    return this.#versions.get(server ?? '') ?? 0;
  }

  get platform(): NodeJS.Platform {
    return this.#options.platform ?? process.platform;
  }

  async dispose(): Promise<void> {
    const all = [...this.#servers.values()];
    this.#servers.clear();
    await Promise.all(all.map((p) => p.then((s) => s.server.dispose(), () => undefined)));
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

