/**
 * The discovery file: how `sightline mcp` finds a running app (or `sightline serve`)
 * and proxies to it, so every agent shares one catalog and the app's OS permissions.
 * It holds the endpoint and the token, so it is readable by the user alone.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DISCOVERY_FILE = 'discovery.json';

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
export async function findRunningApp(dataDir: string, timeoutMs = 1500): Promise<Discovery | undefined> {
  const d = readDiscoveryFile(dataDir);
  if (!d || !pidAlive(d.pid)) return undefined;
  try {
    const r = await fetch(`${d.url}/api/status`, { headers: { Authorization: `Bearer ${d.token}` }, signal: AbortSignal.timeout(timeoutMs) });
    await r.body?.cancel();
    return r.ok ? d : undefined;
  } catch {
    return undefined;
  }
}
