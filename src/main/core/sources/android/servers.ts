/**
 * Several adb servers (`android.servers`): their addresses and the target ids of the devices
 * behind them. Pure. A device on the default (local) server keeps the id `android:<serial>`;
 * one behind another server is `android:<host>:<port>/<serial>` (IPv6 hosts in brackets), so
 * the same serial on two servers names two targets and an id always says which server to ask.
 */
import type { TargetInfo } from '../../../../shared/frame.ts';
import type { ServerAddress } from './locate.ts';

/** `host:port` as `adb -H host -P port` takes it; `[v6]:port` for IPv6. */
export function parseServerAddress(s: string): ServerAddress | { error: string } {
  const text = s.trim();
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || !Number.isInteger(port) || port < 1 || port > 65535) {
    return { error: `"${s}" is not host:port (e.g. 192.168.1.20:5037, lab-box:5037 or [::1]:5037)` };
  }
  const host = (m[1] ?? m[2])!;
  if (m[2] !== undefined && !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(host)) {
    return { error: `"${s}" does not name a host` };
  }
  return { host: host.toLowerCase(), port };
}

/** The key an address is known by (and written into target ids). */
export function serverKey(a: ServerAddress): string {
  return `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;
}

/** Hosts that name this machine compare equal (the local server listed again is not a second server). */
export function sameServer(a: ServerAddress, b: ServerAddress): boolean {
  const local = (h: string): string => (h === 'localhost' || h === '::1' || /^127\./.test(h) ? 'loopback' : h);
  return a.port === b.port && local(a.host) === local(b.host);
}

/** The extra servers from settings, in order, without the default one and without repeats. */
export function extraServers(configured: readonly string[], defaultServer: ServerAddress | undefined): ServerAddress[] {
  const out: ServerAddress[] = [];
  for (const s of configured) {
    const a = parseServerAddress(s);
    if ('error' in a) continue; // the settings schema has refused it already
    if (defaultServer && sameServer(a, defaultServer)) continue;
    if (out.some((o) => sameServer(o, a))) continue;
    out.push(a);
  }
  return out;
}

export interface DeviceRef {
  /** The target id: `android:<serial>` or `android:<host>:<port>/<serial>`. */
  id: string;
  /** undefined: the default (local) server; else the key of one of `android.servers`. */
  server?: string;
  serial: string;
}

export function targetId(server: string | undefined, serial: string): string {
  return server === undefined ? `android:${serial}` : `android:${server}/${serial}`;
}

/**
 * The server and serial of a target id. A `host:port/` prefix counts only when it names a
 * configured server (serials hold `:` themselves, e.g. `127.0.0.1:5555`); anything else is a
 * serial on the default server. undefined: not an Android id at all.
 */
export function parseTargetId(id: string, servers: readonly string[]): DeviceRef | undefined {
  if (!id.startsWith('android:') || id.length <= 'android:'.length) return undefined;
  const rest = id.slice('android:'.length);
  const slash = rest.indexOf('/');
  if (slash > 0 && slash < rest.length - 1) {
    const prefix = rest.slice(0, slash);
    if (servers.includes(prefix)) return { id, server: prefix, serial: rest.slice(slash + 1) };
  }
  return { id, serial: rest };
}

/** A listed device and what names it across servers (the kernel's boot id, when it could be read). */
export interface ListedTarget {
  info: TargetInfo;
  bootId?: string;
}

/**
 * One entry per phone: the same device attached to two servers (same boot id) is listed once,
 * under the first server in order (the default one first) where it is ready, with the other ids
 * in `details.alsoAs`. Every id keeps working; this only keeps the list from doubling.
 */
export function dedupeTargets(listed: readonly ListedTarget[]): TargetInfo[] {
  const groups = new Map<string, ListedTarget[]>();
  for (const l of listed) {
    if (!l.bootId) continue;
    const g = groups.get(l.bootId);
    if (g) g.push(l);
    else groups.set(l.bootId, [l]);
  }
  const out: TargetInfo[] = [];
  for (const l of listed) {
    const g = l.bootId ? groups.get(l.bootId) : undefined;
    if (!g || g.length === 1) {
      out.push(l.info);
      continue;
    }
    const keep = g.find((x) => x.info.state === 'device') ?? g[0]!;
    if (keep !== l) continue;
    out.push({ ...l.info, details: { ...l.info.details, alsoAs: g.filter((x) => x !== keep).map((x) => x.info.id) } });
  }
  return out;
}

/** `f` over `items`, at most `limit` at a time, results in order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
