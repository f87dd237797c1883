/**
 * The adb server through @devicefarmer/adbkit: start it if needed, track devices as they come
 * and go, and run `shell:`/`exec:` services with a timeout, cancellation and errors that say
 * what happened (device gone, offline, unauthorised, server down).
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { SightlineError } from '../../../../shared/errors.ts';
import type * as AdbkitModule from '@devicefarmer/adbkit';
import type { Client } from '@devicefarmer/adbkit';
import { isLocalHost, type ServerAddress } from './locate.ts';

type Adbkit = typeof AdbkitModule;
// adbkit is CommonJS whose ESM view only exposes `default`; require gives the real exports.
const adbkit = createRequire(import.meta.url)('@devicefarmer/adbkit') as Adbkit;

type Tracker = Awaited<ReturnType<Client['trackDevices']>>;
type Connection = Awaited<ReturnType<ReturnType<Client['getDevice']>['transport']>>;

/** adbkit's own shell command, pointed at any service (`exec:` is binary-safe: no PTY, no CRLF). */
class ServiceCommand extends adbkit.ShellCommand {
  override execute(service: string) {
    this._send(service);
    return this.parser.readAscii(4).then((reply: string) => {
      if (reply === 'OKAY') return this.parser.raw();
      if (reply === 'FAIL') return this.parser.readError();
      return this.parser.unexpected(reply, 'OKAY or FAIL');
    });
  }
}

export interface ServerOptions {
  /** A device left the server. */
  onRemove: (serial: string) => void;
  targetId?: (serial: string) => string;
  /** One of `android.servers` (never started by Sightline, even on this machine). */
  remote?: boolean;
}

/** Device states as the adb server names them (`device`, `offline`, `unauthorized`, `recovery`, …). */
export type DeviceStates = Map<string, string>;

export interface RunOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** What the command is, for messages ("screencap", "uiautomator dump"). */
  label: string;
}

export class AdbServer {
  readonly client: Client;
  readonly address: ServerAddress;
  readonly adbPath: string;
  #tracker: Tracker | undefined;
  #tracking: Promise<DeviceStates> | undefined;
  #states: DeviceStates = new Map();
  readonly #onRemove: (serial: string) => void;
  /** The target id of a serial on this server (for messages). */
  readonly targetId: (serial: string) => string;

  private constructor(adbPath: string, address: ServerAddress, o: ServerOptions) {
    this.adbPath = adbPath;
    this.address = address;
    this.#onRemove = o.onRemove;
    this.targetId = o.targetId ?? ((serial) => `android:${serial}`);
    this.client = adbkit.Adb.createClient({ host: address.host, port: address.port, bin: adbPath });
    // adbkit re-emits socket errors on the client; unhandled they would crash the process.
    this.client.on('error', () => {});
  }

  /** Connect to the server, starting it (with our environment) when nothing listens. */
  static async open(adbPath: string, address: ServerAddress, env: NodeJS.ProcessEnv, options: ServerOptions | ((serial: string) => void)): Promise<{ server: AdbServer; version: number }> {
    const o: ServerOptions = typeof options === 'function' ? { onRemove: options } : options;
    if (!(await listening(address))) {
      if (o.remote || !isLocalHost(address.host)) {
        const where = o.remote ? 'remove it from android.servers' : 'unset ADB_SERVER_SOCKET';
        throw new SightlineError('SOURCE_UNAVAILABLE', `No adb server answers at ${address.host}:${address.port}.`, `Start the adb server there (\`adb -a -P ${address.port} nodaemon server\` listens on every interface), or ${where}.`);
      }
      await startServer(adbPath, address.port, env);
    }
    const server = new AdbServer(adbPath, address, o);
    const version = await server.client.version().catch((e: unknown) => {
      throw new SightlineError('SOURCE_UNAVAILABLE', `The adb server at ${address.host}:${address.port} did not answer: ${(e as Error).message}.`, 'Run `adb kill-server` and try again.');
    });
    return { server, version };
  }

  /** Current device states, kept up to date by `track-devices` (started on first use). */
  devices(): Promise<DeviceStates> {
    if (this.#tracker && this.#tracking) return this.#tracking;
    this.#tracking ??= new Promise<DeviceStates>((resolve, reject) => {
      this.client.trackDevices().then(
        (tracker: Tracker) => {
          this.#tracker = tracker;
          tracker.on('changeSet', (set: { added: { id: string; type: string }[]; changed: { id: string; type: string }[]; removed: { id: string }[] }) => {
            for (const d of [...set.added, ...set.changed]) this.#states.set(d.id, d.type);
            for (const d of set.removed) {
              this.#states.delete(d.id);
              this.#onRemove(d.id);
            }
            resolve(this.#states);
          });
          const stop = (): void => {
            // The server went away: forget the list and track again on the next call.
            if (this.#tracker === tracker) {
              this.#tracker = undefined;
              this.#tracking = undefined;
              this.#states = new Map();
            }
          };
          tracker.on('error', stop);
          tracker.on('end', stop);
        },
        (e: unknown) => {
          this.#tracking = undefined;
          reject(serverError(e, this.address));
        },
      );
    });
    return this.#tracking;
  }

  /** The state of one device; asks the server directly when the tracker has not seen it (yet). */
  async state(serial: string): Promise<string | undefined> {
    const states = await this.devices();
    const known = states.get(serial);
    if (known) return known;
    const list = await this.client.listDevices().catch((e: unknown) => {
      throw serverError(e, this.address);
    });
    return (list as { id: string; type: string }[]).find((d) => d.id === serial)?.type;
  }

  /** Run `shell:`/`exec:` and collect stdout (stderr too on plain `shell:`). */
  async run(serial: string, service: string, o: RunOptions): Promise<Buffer> {
    if (o.signal.aborted) throw cancelled(o.label);
    let conn: Connection | undefined;
    let stream: Duplex | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SightlineError('TIMEOUT', `${o.label} on ${serial} did not finish within ${o.timeoutMs / 1000} s.`, 'The device may be busy or locked; try again.')), o.timeoutMs);
      onAbort = () => reject(cancelled(o.label));
      o.signal.addEventListener('abort', onAbort, { once: true });
    });
    stop.catch(() => {});
    try {
      const open = (async () => {
        conn = await this.client.getDevice(serial).transport();
        stream = (await new ServiceCommand(conn).execute(service)) as Duplex;
        return readAll(stream);
      })();
      open.catch(() => {});
      return await Promise.race([open, stop]);
    } catch (e) {
      throw e instanceof SightlineError ? e : deviceError(e, this.targetId(serial), this.address);
    } finally {
      clearTimeout(timer);
      if (onAbort) o.signal.removeEventListener('abort', onAbort);
      stream?.destroy();
      conn?.end();
    }
  }

  /** Copy a local file to the device over `sync:` (adb push); resolves when the device has it all. */
  async push(serial: string, local: string, remote: string, o: RunOptions): Promise<void> {
    if (o.signal.aborted) throw cancelled(o.label);
    type Transfer = Awaited<ReturnType<ReturnType<Client['getDevice']>['push']>>;
    let transfer: Transfer | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        timer = setTimeout(() => reject(new SightlineError('TIMEOUT', `${o.label} to ${this.targetId(serial)} did not finish within ${Math.round(o.timeoutMs / 1000)} s.`, 'The connection may be slow; try again.')), o.timeoutMs);
        onAbort = () => reject(cancelled(o.label));
        o.signal.addEventListener('abort', onAbort, { once: true });
        this.client
          .getDevice(serial)
          .push(local, remote, 0o644)
          .then((t: Transfer) => {
            transfer = t;
            t.on('end', () => resolve());
            t.on('error', reject);
          }, reject);
      });
    } catch (e) {
      transfer?.cancel();
      throw e instanceof SightlineError ? e : deviceError(e, this.targetId(serial), this.address);
    } finally {
      clearTimeout(timer);
      if (onAbort) o.signal.removeEventListener('abort', onAbort);
    }
  }

  dispose(): void {
    this.#tracker?.end();
    this.#tracker = undefined;
    this.#tracking = undefined;
  }
}

function readAll(stream: Duplex): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', reject);
    // A dropped device closes the socket, sometimes without 'end': what arrived is judged by the caller.
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

function listening(a: ServerAddress): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: a.host, port: a.port });
    const done = (ok: boolean): void => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(2000, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

function startServer(adbPath: string, port: number, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(adbPath, ['-P', String(port), 'start-server'], { env, timeout: 30_000 }, (e, _stdout, stderr) => {
      if (!e) return resolve();
      reject(
        new SightlineError(
          'SOURCE_UNAVAILABLE',
          `\`${adbPath} -P ${port} start-server\` failed: ${(stderr || e.message).trim().split('\n').pop() ?? e.message}.`,
          `Another program may hold port ${port}; run \`adb kill-server\`, or set ANDROID_ADB_SERVER_PORT to a free port.`,
        ),
      );
    });
  });
}

function cancelled(label: string): SightlineError {
  return new SightlineError('CANCELLED', `${label} was cancelled.`, 'Call again if you still need it.');
}

function serverError(e: unknown, a: ServerAddress): SightlineError {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET') {
    return new SightlineError('SOURCE_UNAVAILABLE', `The adb server at ${a.host}:${a.port} stopped (${err.code}).`, 'Try again: Sightline restarts it. If it keeps failing run `adb kill-server`.');
  }
  return new SightlineError('SOURCE_UNAVAILABLE', `adb server error: ${err.message}.`, 'Run `adb devices` to check the server.');
}

/** adbkit's FAIL messages (`device 'X' not found`, `device offline`, `device unauthorized.`) → codes. */
export function deviceError(e: unknown, id: string, a: ServerAddress): SightlineError {
  const msg = (e as Error).message ?? String(e);
  if (/not found/i.test(msg)) return new SightlineError('TARGET_NOT_FOUND', `${id} is not connected.`, 'Call list_targets; reconnect the device or `adb connect HOST:PORT`.');
  if (/unauthori[sz]ed/i.test(msg)) return new SightlineError('DEVICE_UNAUTHORIZED', `${id} has not authorised this computer.`, UNAUTHORIZED_HINT);
  if (/offline|closed|EOF|ECONNRESET|EPIPE/i.test(msg)) return new SightlineError('DEVICE_OFFLINE', `${id} went offline (${msg}).`, OFFLINE_HINT);
  if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') return serverError(e, a);
  return new SightlineError('INTERNAL', `adb: ${msg}`, 'Run `adb devices` to check the device.');
}

export const UNAUTHORIZED_HINT =
  'Unlock the device and accept the "Allow USB debugging?" prompt (tick "Always allow"); if no prompt shows, revoke USB debugging authorisations in Developer options and reconnect.';
export const OFFLINE_HINT = 'Reconnect the cable (or run `adb reconnect`; for a network device `adb connect HOST:PORT` again), then call list_targets.';
