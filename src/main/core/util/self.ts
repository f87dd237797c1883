/**
 * What is Sightline's own: the ports its servers listen on (in this process, and the one the
 * discovery file of its data directory names), the processes it runs in, and its `/auth` URLs.
 * An agent never operates these, whatever the allowlist says: a tab showing the dashboard could
 * change every setting (upload roots, the allowlist, the pause switch), and an /auth URL carries
 * the token that opens it.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The file `sightline mcp` finds a running app by (written by the app and `sightline serve`). */
export const DISCOVERY_FILE = 'discovery.json';

/** Ports this process serves the dashboard, API and MCP on. */
const served = new Set<number>();

/** Record a port this process serves; the returned function forgets it (on close). */
export function addOwnPort(port: number): () => void {
  served.add(port);
  return () => void served.delete(port);
}

export interface OwnFacts {
  /** Loopback ports Sightline answers on. */
  ports: ReadonlySet<number>;
  /** Processes whose windows are Sightline's (this one, and the app the discovery file names). */
  pids: ReadonlySet<number>;
  /** The data directory (real path): the token, the catalog, the frames and settings.json. */
  dataDir?: string;
}

/** Read now: another Sightline (the tray app, `sightline serve`) may have started since. */
export function ownFacts(dataDir: string | undefined): OwnFacts {
  const ports = new Set(served);
  const pids = new Set([process.pid]);
  if (dataDir) {
    try {
      const d = JSON.parse(readFileSync(join(dataDir, DISCOVERY_FILE), 'utf8')) as { pid?: unknown; url?: unknown; mcpUrl?: unknown };
      if (typeof d.pid === 'number') pids.add(d.pid);
      for (const u of [d.url, d.mcpUrl]) {
        const port = typeof u === 'string' ? portOf(u) : undefined;
        if (port) ports.add(port);
      }
    } catch {
      // No app running (or an unreadable file): only this process's own servers count.
    }
  }
  return { ports, pids, ...(dataDir ? { dataDir: realOrSame(dataDir) } : {}) };
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Whether `path` (made real) is `dir` or lies under it. */
export function isInside(path: string, dir: string): boolean {
  const real = realOrSame(path);
  const d = realOrSame(dir);
  return real === d || real.startsWith(d.endsWith(sep) ? d : d + sep);
}

/** The local path of a file: URL, or undefined for any other URL. */
export function filePathOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'file:' ? fileURLToPath(u) : undefined;
  } catch {
    return undefined;
  }
}

/** Names that reach this machine's loopback interface (the names Sightline's server answers to, and their kin). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || h === '0.0.0.0' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1' || h === '::ffff:7f00:1';
}

function portOf(url: string): number | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  } catch {
    return undefined;
  }
}

/** Why `url` is Sightline's own (its dashboard, API or an /auth URL), or undefined when it is not. */
export function ownUrl(url: string, own: OwnFacts): string | undefined {
  const file = filePathOf(url);
  if (file !== undefined) return own.dataDir && isInside(file, own.dataDir) ? `${url} is inside Sightline's data directory (its token, catalog and settings)` : undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !isLoopbackHost(u.hostname)) return undefined;
  const port = portOf(url);
  if (port !== undefined && own.ports.has(port)) return `${u.origin} is Sightline's own dashboard and API`;
  if (u.pathname.replace(/\/+$/, '') === '/auth') return `${u.origin}/auth is a Sightline sign-in URL (it carries the dashboard's token)`;
  return undefined;
}
