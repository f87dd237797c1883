/**
 * What the lead's server side relies on: every tools/call of a run carries
 * `_meta["sightline/run"] = {id, artifacts}`, from a client named `sightline-agent`, and the
 * server process never gets the model's key.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_NAME, RUN_META_KEY, connectSightline, resultText, serverEnv } from '../../../src/cli/agent/mcp.ts';

describe('the agent as an MCP client', () => {
  it('sends the run in _meta on every call, under its own name, without the key in the server env', async () => {
    const client = await connectSightline({
      command: process.execPath,
      args: [resolve(import.meta.dirname, 'metaEchoServer.ts')],
      env: serverEnv({ ...process.env, ANTHROPIC_API_KEY: 'sk-never-passed', OPENAI_API_KEY: 'sk-never-either' }),
      run: { id: '20261122-010203-x-ab12', artifacts: '/data/runs/20261122-010203-x-ab12' },
      version: '0.0.0',
    });
    try {
      expect(client.tools.map((t) => t.name)).toEqual(['list_targets']);
      for (let i = 0; i < 2; i++) {
        const seen = JSON.parse(resultText(await client.call('list_targets', {}))) as { client: string; meta: Record<string, unknown>; env: string[] };
        expect(seen.client).toBe(CLIENT_NAME);
        expect(seen.meta[RUN_META_KEY]).toEqual({ id: '20261122-010203-x-ab12', artifacts: '/data/runs/20261122-010203-x-ab12' });
        expect(seen.env).not.toContain('ANTHROPIC_API_KEY');
        expect(seen.env).not.toContain('OPENAI_API_KEY');
      }
    } finally {
      await client.close();
    }
  });
});
