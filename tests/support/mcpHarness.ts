/** An in-process core + MCP server + SDK client joined by an in-memory transport. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createCore, type Core, type CoreOptions } from '../../src/main/core/index.ts';
import { createMcpServer } from '../../src/main/core/mcp/server.ts';

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

export async function startHarness(options: Omit<CoreOptions, 'dataDir'> & { dataDir?: string } = {}): Promise<Harness> {
  const dataDir = options.dataDir ?? tempDir();
  const core = await createCore({ ...options, dataDir });
  await core.registry.health();
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
