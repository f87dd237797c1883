/**
 * The `sightline` command. `mcp` speaks MCP over stdio (stdout carries JSON-RPC
 * only; logs go to stderr), `serve` runs the headless server and dashboard.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { formatError, isSightlineError } from '../shared/errors.ts';
import { findRunningApp, removeDiscoveryFile, writeDiscoveryFile } from '../main/core/bridge/discovery.ts';
import { runProxy } from '../main/core/bridge/proxy.ts';
import { VERSION, createCore } from '../main/core/index.ts';
import { startServer } from '../main/core/http/server.ts';
import { createMcpServer } from '../main/core/mcp/server.ts';
import { resolveDataDir } from '../main/core/settings.ts';

const USAGE = `sightline ${VERSION} — eyes and hands for AI agents

Usage:
  sightline mcp   [--data-dir DIR] [--in-process]   MCP over stdio (what an MCP client spawns)
  sightline serve [--data-dir DIR] [--port N]       headless server: dashboard + Streamable HTTP MCP
  sightline agent --goal "…" --target T [options]   a vision model reaches a goal through Sightline (agent --help)
  sightline --version | --help

mcp relays to the Sightline app when it runs (one catalog, the app's permissions),
else runs the core in this process. --in-process skips the relay.
Data directory: --data-dir, else SIGHTLINE_DATA_DIR, else the platform default.
`;

const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** The built dashboard beside this bundle (out/main/cli.js → out/renderer). */
function dashboardDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, '..', 'renderer'), resolve(here, '../../../out/renderer')]) {
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return undefined;
}

async function runMcp(dataDir: string, inProcess: boolean): Promise<void> {
  if (!inProcess) {
    const app = await findRunningApp(dataDir);
    if (app) return runProxy(app, log);
  }
  const core = await createCore({ dataDir });
  const stopMaintenance = core.startMaintenance(log);
  const server = createMcpServer(core, { log });
  const transport = new StdioServerTransport();
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    stopMaintenance();
    await server.close().catch(() => undefined);
    await core.close();
    process.exit(0);
  };
  // The client going away ends stdin (the SDK's stdio transport does not report that).
  process.stdin.once('end', () => void stop());
  transport.onclose = () => void stop();
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  await server.connect(transport);
  log(`[sightline] MCP on stdio (in-process core, data ${dataDir})`);
}

async function runServe(dataDir: string, port: number): Promise<void> {
  const core = await createCore({ dataDir });
  const stopMaintenance = core.startMaintenance(log);
  // Index the archive now, so the dashboard shows it (and its progress) without waiting for an agent.
  void core.refreshArchive('manictime', new AbortController().signal).catch((e: unknown) => log(`[sightline] manictime index: ${(e as Error).message}`));
  const server = await startServer(core, { port, staticDir: dashboardDir(), log });
  writeDiscoveryFile(dataDir, { pid: process.pid, url: server.url, mcpUrl: server.mcpUrl, token: server.token, version: VERSION, startedAt: new Date().toISOString() });
  process.stdout.write(`Sightline ${VERSION} (headless)\nDashboard: ${server.dashboardUrl}\nMCP: ${server.mcpUrl}\nData: ${dataDir}\n`);
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

export async function main(argv: string[]): Promise<void> {
  // `agent` has flags of its own (src/cli/agent/args.ts); its module and the model SDKs load only now.
  if (argv[0] === 'agent') {
    const { runAgentCli } = await import('./agent/index.ts');
    const code = await runAgentCli(argv.slice(1), { env: process.env, stdout: process.stdout, stderr: process.stderr, version: VERSION });
    // Exit now (the model SDK's keep-alive sockets would hold the process), once stdout has drained.
    await new Promise<void>((done) => process.stdout.write('', () => done()));
    process.exit(code);
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      'in-process': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false },
    },
  });
  if (values.version) return void process.stdout.write(`${VERSION}\n`);
  const command = positionals[0];
  if (values.help || !command) return void process.stdout.write(USAGE);
  const dataDir = resolve(resolveDataDir(values['data-dir']));
  switch (command) {
    case 'mcp':
      return runMcp(dataDir, values['in-process'] ?? false);
    case 'serve': {
      const port = values.port === undefined ? 0 : Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0–65535, not ${values.port}`);
      return runServe(dataDir, port);
    }
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  log(isSightlineError(e) ? formatError(e.code, e.message, e.hint) : `sightline: ${(e as Error)?.message ?? String(e)}`);
  process.exit(1);
});
