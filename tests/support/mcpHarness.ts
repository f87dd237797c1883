/** An in-process core + MCP server + SDK client joined by an in-memory transport. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createCore, type Core, type CoreOptions } from '../../src/main/core/index.ts';
import { createMcpServer } from '../../src/main/core/mcp/server.ts';
import type { Source } from '../../src/main/core/sources/source.ts';
import { moduleFor } from './modules.ts';

export interface Harness {
  core: Core;
  client: Client;
  dataDir: string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export function tempDir(prefix = 'sightline-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export type HarnessOptions = Omit<CoreOptions, 'dataDir'> & {
  dataDir?: string;
  /** Ready-made sources, each registered as a module of its own name. */
  sources?: Source[];
};

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = options.dataDir ?? tempDir();
  const { sources, ...rest } = options;
  const core = await createCore({ ...rest, dataDir, ...(sources ? { modules: [...(rest.modules ?? []), ...sources.map((s) => moduleFor(s))] } : {}) });
  await core.sources.health();
  const server = createMcpServer(core, { log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(clientSide);
  // The SDK client validates structuredContent against each tool's outputSchema once it has listed them.
  await client.listTools();
  return {
    core,
    client,
    dataDir,
    call: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    async close() {
      await client.close();
      await server.close();
      await core.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The text of a result's first text block. */
export function textOf(r: CallToolResult): string {
  const t = r.content.find((c) => c.type === 'text');
  return t && t.type === 'text' ? t.text : '';
}
