/**
 * A minimal MCP server over stdio that answers every tools/call with what it received: the
 * client's name and the request's `_meta`. Run by node directly (type stripping).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'meta-echo', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'list_targets', inputSchema: { type: 'object', properties: {} } }] }));
server.setRequestHandler(CallToolRequestSchema, async (req) => ({
  content: [{ type: 'text', text: JSON.stringify({ client: server.getClientVersion()?.name, meta: req.params._meta ?? null, env: Object.keys(process.env) }) }],
}));
await server.connect(new StdioServerTransport());
