/** `sightline serve`: the core with the dashboard and Streamable HTTP MCP on 127.0.0.1, headless. */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeDiscoveryFile, writeDiscoveryFile } from '../main/core/bridge/discovery.ts';
import { createCore, type Core } from '../main/core/core.ts';
import { startServer } from '../main/core/http/server.ts';
import type { ConnectInfo } from '../shared/api.ts';
import { VERSION } from '../main/core/version.ts';

/** The built dashboard beside this bundle (out/main/cli.js → out/renderer). */
function dashboardDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, '..', 'renderer'), join(here, '..', '..', 'renderer'), resolve(here, '../../../out/renderer')]) {
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return undefined;
}

/**
 * How an MCP client that spawns its server runs this checkout's relay: this Node (22.12 or newer,
 * whatever the client's PATH holds) on bin/sightline.js, with this data directory.
 */
function stdioLauncher(dataDir: string): ConnectInfo['stdio'] | undefined {
  // This module may be bundled into a chunk a folder deeper: the checkout is the nearest folder up with bin/sightline.js.
  let dir = dirname(fileURLToPath(import.meta.url));
  let bin: string | undefined;
  for (let up = 0; up < 5 && !bin; up++, dir = dirname(dir)) if (existsSync(join(dir, 'bin', 'sightline.js'))) bin = join(dir, 'bin', 'sightline.js');
  if (!bin) return undefined;
  // MCP clients start servers with a bare environment: on X11 the display must be named.
  const display = process.platform === 'linux' ? process.env.DISPLAY : undefined;
  return { command: process.execPath, args: [bin, 'mcp', '--data-dir', dataDir], ...(display ? { env: { DISPLAY: display } } : {}) };
}

export async function runServe(dataDir: string, port: number | undefined, log: (line: string) => void): Promise<void> {
  const core = await createCore({ dataDir, log });
  const stopMaintenance = core.startMaintenance(log);
  indexArchives(core, log);
  const stdio = stdioLauncher(dataDir);
  const server = await startServer(core, { port, staticDir: dashboardDir(), log, ...(stdio ? { stdio } : {}) });
  writeDiscoveryFile(dataDir, { pid: process.pid, url: server.url, mcpUrl: server.mcpUrl, token: server.token, version: VERSION, startedAt: new Date().toISOString() });
  process.stdout.write(`Sightline ${VERSION} (headless)\nDashboard: ${server.dashboardUrl}\nMCP: ${server.mcpUrl}\nData: ${dataDir}\n${server.portNote ? `Note: ${server.portNote}\n` : ''}`);
  const stop = async (): Promise<void> => {
    stopMaintenance();
    removeDiscoveryFile(dataDir);
    await server.close();
    await core.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

/** Index the archives now, so the dashboard shows them (and their progress) without waiting for an agent. */
function indexArchives(core: Core, log: (line: string) => void): void {
  for (const name of core.sources.names('archive')) {
    if (!core.sources.isEnabled(name)) continue;
    void core.history.refreshArchive(name, new AbortController().signal).catch((e: unknown) => log(`[sightline] ${name} index: ${(e as Error).message}`));
  }
}
