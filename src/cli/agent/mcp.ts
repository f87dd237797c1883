/**
 * The agent is an MCP client of Sightline like any other: it spawns `sightline mcp` (which relays
 * to the running app, else runs the core in-process), so its captures and actions land in the
 * catalog, the activity log and the dashboard. Every tools/call carries the run in `_meta`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ToolShape } from './action.ts';
import { isSecretEnv } from './args.ts';

export const CLIENT_NAME = 'sightline-agent';
export const RUN_META_KEY = 'sightline/run';

export interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
}

export interface ToolResult {
  isError?: boolean;
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
}

export interface SightlineClient {
  readonly tools: readonly ToolShape[];
  call(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ToolResult>;
  close(): Promise<void>;
}

export interface RunMeta {
  id: string;
  /** The run's artifact directory (absolute). */
  artifacts: string;
}

/** `node [loader flags] <this CLI> mcp --data-dir DIR`: the same sightline the user ran. */
export function sightlineMcpCommand(dataDir: string, argv1 = process.argv[1], execArgv = process.execArgv): { command: string; args: string[] } {
  if (!argv1) throw new Error('cannot tell which sightline CLI to start (process.argv[1] is empty)');
  // Keep loader flags (type stripping, --import), not a debugger's port.
  const flags = execArgv.filter((a) => !/^--inspect/.test(a));
  return { command: process.execPath, args: [...flags, argv1, 'mcp', '--data-dir', dataDir] };
}

/** The environment for the server process: ours, less every secret (the model's key stays here). */
export function serverEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !isSecretEnv(k)) out[k] = v;
  return out;
}

export async function connectSightline(options: {
  command: string;
  args: string[];
  env: Record<string, string>;
  run: RunMeta;
  version: string;
  onStderr?: (chunk: string) => void;
}): Promise<SightlineClient> {
  const transport = new StdioClientTransport({ command: options.command, args: options.args, env: options.env, stderr: 'pipe' });
  transport.stderr?.on('data', (d: Buffer) => options.onStderr?.(d.toString()));
  const client = new Client({ name: CLIENT_NAME, version: options.version });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const meta = { [RUN_META_KEY]: { id: options.run.id, artifacts: options.run.artifacts } };
  return {
    tools: tools as ToolShape[],
    async call(name, args, opts = {}) {
      const res = await client.callTool({ name, arguments: args, _meta: meta }, undefined, {
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}),
      });
      return res as ToolResult;
    },
    close: () => client.close(),
  };
}

/** An error result's text starts with its code: `INPUT_PAUSED: … Hint: …`. */
export function errorCode(res: ToolResult): string {
  const text = resultText(res);
  return /^([A-Z][A-Z_]+):/.exec(text)?.[1] ?? 'UNKNOWN';
}

export function resultText(res: ToolResult): string {
  return res.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');
}
