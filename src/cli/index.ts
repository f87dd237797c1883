/**
 * The `sightline` command. `mcp` speaks MCP over stdio (stdout carries JSON-RPC
 * only; logs go to stderr), `serve` runs the headless server and dashboard.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatError, isSightlineError } from '../shared/errors.ts';
import { resolveDataDir } from '../main/core/settings/dataDir.ts';
import { VERSION } from '../main/core/version.ts';

const USAGE = `sightline ${VERSION} — eyes and hands for AI agents

Usage:
  sightline mcp   [--data-dir DIR] [--in-process]   MCP over stdio (what an MCP client spawns)
  sightline serve [--data-dir DIR] [--port N]       headless server: dashboard + Streamable HTTP MCP
                                                    (no --port: the port used last, kept in DIR/port)
  sightline agent --goal "…" --target T [options]   a vision model reaches a goal through Sightline (agent --help)
  sightline replay NAME|FILE [--input k=v …] [--target ID] [--json]
                                                    replay a saved routine without a model (replay --help)
  sightline routine list | export NAME [--playwright] | import FILE
  sightline --version | --help

mcp relays to the Sightline app when it runs (one catalog, the app's permissions),
else runs the core in this process. --in-process skips the relay.
Data directory: --data-dir, else SIGHTLINE_DATA_DIR, else the platform default.
`;

const log = (line: string): void => void process.stderr.write(`${line}\n`);

export async function main(argv: string[]): Promise<void> {
  // `agent` has flags of its own (src/cli/agent/args.ts); its module and the model SDKs load only now.
  if (argv[0] === 'agent') {
    const { runAgentCli } = await import('./agent/index.ts');
    const code = await runAgentCli(argv.slice(1), { env: process.env, stdout: process.stdout, stderr: process.stderr, version: VERSION });
    // Exit now (the model SDK's keep-alive sockets would hold the process), once stdout has drained.
    await new Promise<void>((done) => process.stdout.write('', () => done()));
    process.exit(code);
  }
  // `replay` and `routine` have flags of their own (--input, repeated) and an exit code that says how it ended.
  if (argv[0] === 'replay' || argv[0] === 'routine') {
    const { runReplay, runRoutineCommand } = await import('./replay.ts');
    const rest = argv.slice(1);
    const at = rest.indexOf('--data-dir');
    const dir = at >= 0 ? rest[at + 1] : rest.find((a) => a.startsWith('--data-dir='))?.slice('--data-dir='.length);
    const io = { stdout: process.stdout, stderr: process.stderr };
    const code = await (argv[0] === 'replay' ? runReplay : runRoutineCommand)(rest, resolve(resolveDataDir(dir)), io);
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
    // Each command loads only what it needs (start-up time is what an MCP client waits for).
    case 'mcp':
      return (await import('./mcp.ts')).runMcp(dataDir, values['in-process'] ?? false, log);
    case 'serve': {
      // No --port: the port this data directory used last, so open dashboards find the server again.
      const port = values.port === undefined ? undefined : Number(values.port);
      if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new Error(`--port must be 0–65535, not ${values.port}`);
      return (await import('./serve.ts')).runServe(dataDir, port, log);
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
