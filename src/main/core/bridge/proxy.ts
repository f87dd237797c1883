/**
 * `sightline mcp` while the app runs: relay JSON-RPC between the client's stdio and
 * the app's Streamable HTTP endpoint, message for message. The app does the work.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Discovery } from './discovery.ts';

export async function runProxy(app: Discovery, log: (line: string) => void): Promise<void> {
  const upstream = new StreamableHTTPClientTransport(new URL(app.mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${app.token}` } },
  });
  const stdio = new StdioServerTransport();
  let closing = false;
  const shutdown = (why: string): void => {
    if (closing) return;
    closing = true;
    log(`[sightline] bridge closing: ${why}`);
    // End the session at the app, so it does not count a client that has gone.
    void upstream
      .terminateSession()
      .catch(() => undefined)
      .then(() => Promise.allSettled([upstream.close(), stdio.close()]))
      .then(() => process.exit(0));
  };
  stdio.onmessage = (msg) => {
    upstream.send(msg).catch((e: unknown) => {
      log(`[sightline] bridge: the app did not take a message: ${(e as Error).message}`);
      // Answer requests so the client does not hang, then go.
      if ('id' in msg && 'method' in msg) {
        void stdio.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32000, message: 'Sightline app unreachable; restart the MCP server.' } });
      }
      shutdown('the app is unreachable');
    });
  };
  upstream.onmessage = (msg) => void stdio.send(msg);
  upstream.onerror = (e) => log(`[sightline] bridge: ${e.message}`);
  upstream.onclose = () => shutdown('the app closed the connection');
  stdio.onclose = () => shutdown('the client closed stdin');
  process.stdin.once('end', () => shutdown('the client closed stdin'));
  process.on('SIGINT', () => shutdown('interrupted'));
  process.on('SIGTERM', () => shutdown('terminated'));
  await upstream.start();
  await stdio.start();
  log(`[sightline] bridge: relaying to the app at ${app.url} (pid ${app.pid})`);
}
