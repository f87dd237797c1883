/**
 * A bare AT-SPI walk of one window, written apart from Sightline's backend: what AT-SPI itself
 * says (the reference boxes of the tree tests) and the floor of the desktop benchmark. Per element
 * it asks the role, states, name, screen extents and children, every call of a tree level at once,
 * and nothing more (no ids, no text, no relations). It runs over either D-Bus library, so the
 * benchmark compares them on the same walk.
 */
import { createRequire } from 'node:module';

export interface BareCall {
  (destination: string, path: string, iface: string, member: string, signature?: string, body?: unknown[]): Promise<unknown>;
}

export interface BareBus {
  library: string;
  call: BareCall;
  close(): void;
}

export interface BareElement {
  role: string;
  name: string;
  states: number[];
  /** Screen x, y, width, height. */
  extents?: [number, number, number, number];
}

const require = createRequire(import.meta.url);
const A = 'org.a11y.atspi.Accessible';

/** @homebridge/dbus-native (variants arrive as [signature, [value]]). */
export function nativeBus(address: string): BareBus {
  const dbus = require('@homebridge/dbus-native') as { createClient(o: { busAddress: string }): { invoke(m: object, cb: (e: unknown, r: unknown) => void): void; connection: { end(): void; on(e: 'error', f: () => void): void } } };
  const bus = dbus.createClient({ busAddress: address });
  // A socket error after the walk (the bus going away at the end of a test) is not the walk's.
  bus.connection.on('error', () => undefined);
  return {
    library: '@homebridge/dbus-native',
    call: (destination, path, iface, member, signature, body) =>
      new Promise((ok, fail) =>
        bus.invoke({ destination, path, interface: iface, member, ...(signature ? { signature, body } : {}) }, (e, r) => {
          if (e) fail(new Error(JSON.stringify(e)));
          // A property's variant: [signature, [value]].
          else ok(member === 'Get' ? ((r as [unknown, unknown[]])[1][0]) : r);
        }),
      ),
    close: () => bus.connection.end(),
  };
}

/** dbus-next, when installed (variants arrive as {signature, value}). */
export function nextBus(address: string): BareBus | undefined {
  let dbus: { sessionBus(o: { busAddress: string }): { call(m: unknown): Promise<{ body: unknown[] }>; disconnect(): void; on(e: 'error', f: () => void): void }; Message: new (o: object) => unknown };
  try {
    dbus = require('dbus-next') as typeof dbus;
  } catch {
    return undefined;
  }
  const bus = dbus.sessionBus({ busAddress: address });
  // dbus-next writes to its socket after disconnect() when the bus sends it something: not the walk's error.
  bus.on('error', () => undefined);
  return {
    library: 'dbus-next',
    call: async (destination, path, iface, member, signature, body) => {
      const reply = await bus.call(new dbus.Message({ destination, path, interface: iface, member, ...(signature ? { signature, body } : {}) }));
      const v = reply.body[0];
      return member === 'Get' ? (v as { value: unknown }).value : v;
    },
    close: () => bus.disconnect(),
  };
}

type Ref = [string, string];

/** The accessible of the top-level window titled `title`. */
export async function findWindow(bus: BareBus, title: string): Promise<Ref | undefined> {
  const apps = (await bus.call('org.a11y.atspi.Registry', '/org/a11y/atspi/accessible/root', A, 'GetChildren')) as Ref[];
  for (const [name] of apps) {
    const tops = (await bus.call(name, '/org/a11y/atspi/accessible/root', A, 'GetChildren').catch(() => [])) as Ref[];
    for (const ref of tops) {
      const n = await bus.call(ref[0], ref[1], 'org.freedesktop.DBus.Properties', 'Get', 'ss', [A, 'Name']).catch(() => '');
      if (n === title) return ref;
    }
  }
  return undefined;
}

/** Every element under `root` (breadth-first). */
export async function bareWalk(bus: BareBus, root: Ref): Promise<BareElement[]> {
  const out: BareElement[] = [];
  let level: Ref[] = [root];
  while (level.length) {
    const next: Ref[] = [];
    const read = await Promise.all(
      level.map(async ([d, p]) => {
        const [role, states, name, extents, children] = await Promise.all([
          bus.call(d, p, A, 'GetRoleName'),
          bus.call(d, p, A, 'GetState'),
          bus.call(d, p, 'org.freedesktop.DBus.Properties', 'Get', 'ss', [A, 'Name']),
          bus.call(d, p, 'org.a11y.atspi.Component', 'GetExtents', 'u', [0]).catch(() => undefined),
          bus.call(d, p, A, 'GetChildren'),
        ]);
        return { role, states, name, extents, children } as { role: string; states: number[]; name: string; extents?: [number, number, number, number]; children: Ref[] };
      }),
    );
    for (const r of read) {
      out.push({ role: r.role, name: r.name, states: r.states, ...(r.extents ? { extents: r.extents } : {}) });
      next.push(...r.children);
    }
    level = next;
  }
  return out;
}
