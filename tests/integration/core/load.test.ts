/**
 * Many agents on one target at once: captures that ask for the same thing share one
 * screenshot and one catalog row, and each agent's session still acts in that frame.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../../src/main/core/mcp/server.ts';
import { FakeSource, type FakeWindow } from '../../support/fakeSource.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';

const WIN: FakeWindow = { id: 'desktop:window:1', app: 'Notes', x: 100, y: 50, width: 800, height: 500, pixelRatio: 1 };
const OTHER: FakeWindow = { id: 'desktop:window:2', app: 'Mail', x: 0, y: 0, width: 800, height: 500, pixelRatio: 1 };

type Call = (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;

describe('captures under load', () => {
  let h: Harness;
  let fake: FakeSource;
  const clients: Client[] = [];
  beforeEach(async () => {
    fake = new FakeSource({ ...WIN }, { ...OTHER });
    fake.captureDelayMs = 150;
    h = await startHarness({ sources: [fake] });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await h.close();
  });

  async function agents(n: number): Promise<Call[]> {
    const server = createMcpServer(h.core, { log: () => undefined });
    const calls: Call[] = [];
    for (let i = 0; i < n; i++) {
      const [a, b] = InMemoryTransport.createLinkedPair();
      // One server per client, as the bridge gives each stdio client its own session.
      const s = i === 0 ? server : createMcpServer(h.core, { log: () => undefined });
      await s.connect(b);
      const c = new Client({ name: `agent-${i}`, version: '1' });
      await c.connect(a);
      await c.listTools();
      clients.push(c);
      calls.push((name, args = {}) => c.callTool({ name, arguments: args }) as Promise<CallToolResult>);
    }
    return calls;
  }

  it('eight agents capturing the same window at once share one screenshot and one row, and each acts in it', async () => {
    const calls = await agents(8);
    const results = await Promise.all(calls.map((call) => call('capture', { target: WIN.id, maxDimension: 400 })));
    for (const r of results) expect(r.isError, textOf(r)).toBeFalsy();
    const refs = new Set(results.map((r) => (r.structuredContent as { frame: { ref: string } }).frame.ref));
    expect(refs.size).toBe(1);
    expect(fake.captures).toBe(1);
    expect(h.core.frames.count({ source: 'desktop' })).toBe(1);
    // Each agent's session knows the frame: a click in its image coordinates lands (scale 2).
    const click = await calls[5]!('click', { target: WIN.id, x: 100, y: 50 });
    expect(click.isError, textOf(click)).toBeFalsy();
    expect(fake.actions.at(-1)).toMatchObject({ kind: 'click', point: { x: 100 + 200, y: 50 + 100 } });
  });

  it('does not share captures with different parameters, and captures different windows side by side', async () => {
    const calls = await agents(4);
    const results = await Promise.all([
      calls[0]!('capture', { target: WIN.id, maxDimension: 400 }),
      calls[1]!('capture', { target: WIN.id, maxDimension: 300 }),
      calls[2]!('capture', { target: OTHER.id, maxDimension: 400 }),
      calls[3]!('capture', { target: OTHER.id, maxDimension: 400, format: 'png' }),
    ]);
    for (const r of results) expect(r.isError, textOf(r)).toBeFalsy();
    expect(new Set(results.map((r) => (r.structuredContent as { frame: { ref: string } }).frame.ref)).size).toBe(4);
    expect(fake.captures).toBe(4);
    // The screenshots overlapped, not one after another.
    expect(fake.mostAtOnce).toBe(4);
  });

  it('a capture that follows one already finished takes a new screenshot', async () => {
    await h.call('capture', { target: WIN.id, maxDimension: 400 });
    await h.call('capture', { target: WIN.id, maxDimension: 400 });
    expect(fake.captures).toBe(2);
    expect(h.core.frames.count({ source: 'desktop' })).toBe(2);
  });
});
