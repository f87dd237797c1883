/**
 * `sightline mcp`: MCP over stdio (stdout carries JSON-RPC only; logs go to stderr). Relays to
 * the running app when there is one, else runs the core in this process. Only what the chosen
 * path needs is loaded: an MCP client waits for `initialize` while this process starts.
 */
import { findRunningApp } from '../main/core/bridge/discovery.ts';

export async function runMcp(dataDir: string, inProcess: boolean, log: (line: string) => void): Promise<void> {
  if (!inProcess) {
    const app = await findRunningApp(dataDir);
    if (app) {
      const { runProxy } = await import('../main/core/bridge/proxy.ts');
      return runProxy(app, log);
    }
  }
  const [{ createCore }, { createMcpServer }, { StdioServerTransport }] = await Promise.all([
    import('../main/core/core.ts'),
    import('../main/core/mcp/server.ts'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const core = await createCore({ dataDir, log });
  const server = createMcpServer(core, { log });
  const transport = new StdioServerTransport();
  let stopMaintenance = (): void => undefined;
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
  // Retention and the first health checks start once the client can talk to us.
  stopMaintenance = core.startMaintenance(log);
  log(`[sightline] MCP on stdio (in-process core, data ${dataDir})`);
}
