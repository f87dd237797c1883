/**
 * The discovery file: how `sightline mcp` finds a running app (or `sightline serve`)
 * and proxies to it, so every agent shares one catalog and the app's OS permissions.
 * It holds the endpoint and the token, so it is readable by the user alone.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { DISCOVERY_FILE } from '../util/self.ts';

export interface Discovery {
  pid: number;
  url: string;
  mcpUrl: string;
  token: string;
  version: string;
  startedAt: string;
}

export function writeDiscoveryFile(dataDir: string, d: Discovery): string {
  const path = join(dataDir, DISCOVERY_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(d, null, 2), { mode: 0o600 });
  renameSync(tmp, path);
  return path;
}

/** Remove the file if it is ours (another instance may have replaced it). */
export function removeDiscoveryFile(dataDir: string, pid = process.pid): void {
  const d = readDiscoveryFile(dataDir);
  if (d && d.pid === pid) rmSync(join(dataDir, DISCOVERY_FILE), { force: true });
}

export function readDiscoveryFile(dataDir: string): Discovery | undefined {
  try {
    const d = JSON.parse(readFileSync(join(dataDir, DISCOVERY_FILE), 'utf8')) as Partial<Discovery>;
    if (typeof d.pid === 'number' && typeof d.mcpUrl === 'string' && typeof d.url === 'string' && typeof d.token === 'string') return d as Discovery;
  } catch {
    // absent or unreadable: no app
  }
  return undefined;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The running app, or undefined when the file is absent or stale: its process is
 * gone, or its server does not answer with our token within `timeoutMs`.
 */
export async function findRunningApp(dataDir: string, timeoutMs = 400): Promise<Discovery | undefined> {
  const d = readDiscoveryFile(dataDir);
  if (!d || !pidAlive(d.pid)) return undefined;
  return (await answers(`${d.url}/api/status`, d.token, timeoutMs)) ? d : undefined;
}

/**
 * Whether a local server answers 200 with our token. node:http, not fetch: loading fetch (undici)
 * costs ~100 ms that an MCP client waiting for `initialize` would pay. A loopback server that
 * does not answer within `timeoutMs` is treated as gone.
 */
function answers(url: string, token: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(url, { headers: { Authorization: `Bearer ${token}` }, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
    req.on('error', () => resolve(false));
  });
}
