/**
 * Bridge overhead: the same `tools/call` in-process (in-memory transport), over stdio
 * to `sightline mcp --in-process`, and over stdio relayed to a running `sightline serve`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, stdioClient } from '../tests/support/cli.ts';
import { startHarness, tempDir } from '../tests/support/mcpHarness.ts';
import type { BenchSection } from './types.ts';

const N = 200;
const WARMUP = 20;

/** Structural, so it takes the project's SDK Client (bench/ has its own copy for the peers). */
interface Caller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

async function p50(client: Caller): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + N; i++) {
    const t = performance.now();
    await client.callTool({ name: 'list_screenshots', arguments: { max: 5 } });
    if (i >= WARMUP) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export default async function run(): Promise<BenchSection> {
  const off = { sources: { desktop: { enabled: false }, browser: { enabled: false }, android: { enabled: false }, manictime: { enabled: false } } };
  const inproc = await startHarness({ sources: [] });
  const base = await p50(inproc.client);
  await inproc.close();

  const dir = tempDir();
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(off));
  const direct = await stdioClient(['mcp', '--data-dir', dir, '--in-process']);
  const stdio = await p50(direct.client);
  await direct.client.close();

  const served = await serve(dir);
  const relayed = await stdioClient(['mcp', '--data-dir', dir]);
  const relay = await p50(relayed.client);
  await relayed.client.close();
  await served.stop();

  return {
    title: 'Bridge: tools/call round trip',
    rows: [
      { metric: 'in-process (in-memory transport) p50', value: base, unit: 'ms' },
      { metric: 'stdio, core in the sightline mcp process, p50', value: stdio, unit: 'ms', ratio: stdio / base, against: 'in-process' },
      { metric: 'stdio overhead', value: stdio - base, unit: 'ms' },
      { metric: 'stdio relayed to the app (sightline serve) p50', value: relay, unit: 'ms', ratio: relay / base, against: 'in-process' },
      { metric: 'relay overhead', value: relay - base, unit: 'ms' },
    ],
    notes: [`list_screenshots (max 5) on an empty catalog, ${N} calls after ${WARMUP} warm-up, sequential.`],
  };
}
