/**
 * The one place that speaks D-Bus: method calls on a bus named by its address, over
 * `@homebridge/dbus-native` (chosen over dbus-next by measurement: docs/architecture.md,
 * bench/desktop.bench.ts). It is imported on first use of the desktop tree, so a Sightline that
 * never reads one never loads it. Calls are pipelined on one connection: a tree walk sends many
 * at once and the bus answers them in turn.
 */
import { SightlineError } from '../../../../../shared/errors.ts';

export interface DbusCall {
  destination: string;
  path: string;
  interface: string;
  member: string;
  signature?: string;
  body?: unknown[];
}

export interface DbusConnection {
  /** The call's first return value (a property's variant unwrapped to its value). */
  call<T = unknown>(c: DbusCall): Promise<T>;
  close(): void;
}

/** The part of @homebridge/dbus-native used here (it ships no types). */
interface NativeBus {
  invoke(msg: DbusCall, callback: (err: unknown, result: unknown) => void): void;
  connection: { end(): void; on(event: 'error', listener: (e: Error) => void): void };
}
interface NativeModule {
  createClient(options: { busAddress: string }): NativeBus;
}

let native: Promise<NativeModule> | undefined;

const PROPERTIES = 'org.freedesktop.DBus.Properties';

/** A call's answer time limit (an AT-SPI call answers in well under a millisecond when the app is idle). */
const CALL_TIMEOUT_MS = 3000;

export async function connectDbus(address: string): Promise<DbusConnection> {
  // The package's own typings omit createClient (its README's entry point).
  native ??= import('@homebridge/dbus-native').then((m) => ((m as unknown as { default?: NativeModule }).default ?? m) as unknown as NativeModule);
  const dbus = await native;
  const bus = dbus.createClient({ busAddress: address });
  let broken: Error | undefined;
  // Calls waiting for an answer: a connection that fails (no such socket) fails them at once.
  const waiting = new Set<(e: Error) => void>();
  bus.connection.on('error', (e) => {
    broken = e;
    for (const fail of waiting) fail(e);
    waiting.clear();
  });
  return {
    call<T>(c: DbusCall): Promise<T> {
      if (broken) return Promise.reject(broken);
      return new Promise<T>((ok, fail) => {
        const msg: DbusCall = { destination: c.destination, path: c.path, interface: c.interface, member: c.member, ...(c.signature ? { signature: c.signature, body: c.body ?? [] } : {}) };
        const failNow = (e: Error): void => {
          clearTimeout(timer);
          fail(e);
        };
        // An app whose main loop is stuck never answers: its calls fail instead of hanging the tool.
        const timer = setTimeout(() => {
          waiting.delete(failNow);
          fail(new DbusError(`no answer from ${c.destination} in ${CALL_TIMEOUT_MS} ms (${c.member})`));
        }, CALL_TIMEOUT_MS);
        waiting.add(failNow);
        bus.invoke(msg, (err, result) => {
          waiting.delete(failNow);
          clearTimeout(timer);
          if (err) fail(new DbusError(err));
          else ok((c.interface === PROPERTIES && c.member === 'Get' ? unwrapVariant(result) : result) as T);
        });
      });
    },
    close: () => bus.connection.end(),
  };
}

/** A D-Bus error reply (no such object, no such interface): its name and text. */
export class DbusError extends Error {
  constructor(reply: unknown) {
    const r = reply as { name?: string; message?: unknown } | string;
    const text = typeof r === 'string' ? r : [r?.name, Array.isArray(r?.message) ? r.message.join(' ') : r?.message].filter(Boolean).map(String).join(': ');
    super(text || 'D-Bus error');
    this.name = 'DbusError';
  }
}

/** dbus-native hands a variant as [signature, [value]]: the value. */
export function unwrapVariant(v: unknown): unknown {
  if (Array.isArray(v) && v.length === 2 && Array.isArray(v[0]) && Array.isArray(v[1]) && v[1].length === 1 && isSignature(v[0])) return v[1][0];
  return v;
}

function isSignature(s: unknown[]): boolean {
  return s.every((t) => typeof t === 'object' && t !== null && 'type' in t);
}

/** A bus that cannot be reached says what to do. */
export function busUnavailable(what: string, cause: unknown): SightlineError {
  return new SightlineError('SOURCE_UNAVAILABLE', `The accessibility bus cannot be reached (${what}: ${(cause as Error)?.message ?? String(cause)}).`, 'Install at-spi2-core and run the app in a desktop session with a D-Bus session bus; text is read by OCR meanwhile.');
}
