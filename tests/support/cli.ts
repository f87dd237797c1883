/** Spawning the real `sightline` CLI (built: out/main/cli.js) for integration tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const BIN = resolve(import.meta.dirname, '../../bin/sightline.js');

/** An MCP client over stdio, spawned with the bare environment MCP clients give (plus PATH for node). */
export async function stdioClient(args: string[], env: Record<string, string> = {}, name = 'stdio-test'): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...args], env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => err };
}

export interface Served {
  proc: ChildProcess;
  dashboardUrl: string;
  mcpUrl: string;
  base: string;
  token: string;
  /** What it printed on stdout so far. */
  output(): string;
  stop(): Promise<void>;
}

/** `sightline serve --port 0` (`port: 'remembered'`: no --port), waiting for its Dashboard:/MCP: lines. */
export async function serve(dataDir: string, env: Record<string, string> = {}, options: { port?: number | 'remembered' } = {}): Promise<Served> {
  const port = options.port ?? 0;
  const args = [BIN, 'serve', ...(port === 'remembered' ? [] : ['--port', String(port)]), '--data-dir', dataDir];
  const proc = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`serve did not start: ${out}\n${err}`)), 30_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/^MCP: /m.test(out)) {
        clearTimeout(timer);
        ok();
      }
    });
    proc.once('exit', (code) => fail(new Error(`serve exited ${code}: ${err}`)));
  });
  const dashboardUrl = /^Dashboard: (\S+)$/m.exec(out)![1]!;
  const mcpUrl = /^MCP: (\S+)$/m.exec(out)![1]!;
  const u = new URL(dashboardUrl);
  return {
    proc,
    dashboardUrl,
    mcpUrl,
    base: u.origin,
    token: u.searchParams.get('token')!,
    output: () => out,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    },
  };
}

export async function httpClient(mcpUrl: string, token: string, name = 'http-test'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}
