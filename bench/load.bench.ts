/**
 * Load: 8 `sightline mcp` clients relayed to one `sightline serve`, all capturing the
 * same Chromium tab at once, as the hostile test did. Captures asking for the same thing while
 * one is in flight share it (one screenshot, one row). Against, in the same run: one client
 * capturing alone (the p95 target), and the same 8 clients each asking for a different size,
 * which cannot share and so run one after another as every capture did before sharing (the
 * throughput target: ≥ 3× that).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serveFixtures, startChromium } from '../tests/fixtures/browser/harness.ts';
import { serve, stdioClient } from '../tests/support/cli.ts';
import { tempDir } from '../tests/support/mcpHarness.ts';
import type { BenchSection } from './types.ts';

const CLIENTS = 8;
const ROUNDS = 9;
const SINGLE = 30;

type Caller = Awaited<ReturnType<typeof stdioClient>>['client'];

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))]!;
}

async function shot(c: Caller, args: Record<string, unknown>): Promise<number> {
  const t = performance.now();
  const r = (await c.callTool({ name: 'capture', arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(`capture failed: ${JSON.stringify(r.content)}`);
  return performance.now() - t;
}

/** Every client captures once per round, all at once; `args(i)` is client i's request. */
async function together(clients: Caller[], args: (i: number) => Record<string, unknown>): Promise<{ perSecond: number; times: number[] }> {
  const times: number[] = [];
  const t = performance.now();
  for (let round = 0; round < ROUNDS; round++) times.push(...(await Promise.all(clients.map((c, i) => shot(c, args(i))))));
  return { perSecond: times.length / ((performance.now() - t) / 1000), times };
}

export default async function run(): Promise<BenchSection> {
  const srv = await serveFixtures();
  const chrome = await startChromium({ url: srv.url('actions.html') });
  const dir = tempDir();
  const off = { enabled: false };
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ sources: { desktop: off, android: off, manictime: off, browser: { enabled: true } }, browser: { endpoint: chrome.endpoint } }));
  const served = await serve(dir);
  const clients: { client: Caller }[] = [];
  try {
    for (let i = 0; i < CLIENTS; i++) clients.push(await stdioClient(['mcp', '--data-dir', dir], {}, `load-${i}`));
    const callers = clients.map((c) => c.client);
    const listed = (await callers[0]!.callTool({ name: 'list_targets', arguments: { source: 'browser' } })) as { structuredContent?: { targets: { id: string; details?: { url?: string } }[] } };
    const tab = listed.structuredContent?.targets.find((t) => t.details?.url?.endsWith('actions.html'))?.id;
    if (!tab) throw new Error('the fixture tab is not listed');
    const same = { target: tab, maxDimension: 1000 };

    for (let i = 0; i < 5; i++) await shot(callers[0]!, same);
    const single: number[] = [];
    for (let i = 0; i < SINGLE; i++) single.push(await shot(callers[0]!, same));
    const alone = pct(single, 0.5);

    const shared = await together(callers, () => same);
    const distinct = await together(callers, (i) => ({ target: tab, maxDimension: 600 + 50 * i }));
    const p95 = pct(shared.times, 0.95);
    const gain = shared.perSecond / distinct.perSecond;
    return {
      title: 'Load: 8 bridged clients capturing one tab',
      rows: [
        { metric: 'one client alone, capture p50', value: alone, unit: 'ms' },
        { metric: `${CLIENTS} clients, same request, captures per second in all`, value: shared.perSecond, unit: '/s', ratio: gain, against: `${CLIENTS} clients, different sizes (no sharing)`, target: '≥ 3×', pass: gain >= 3 },
        { metric: `${CLIENTS} clients, different sizes, captures per second in all`, value: distinct.perSecond, unit: '/s' },
        { metric: `${CLIENTS} clients, same request, capture p95`, value: p95, unit: 'ms', ratio: p95 / alone, against: 'one client alone, p50', target: '≤ 2×', pass: p95 / alone <= 2 },
        { metric: `${CLIENTS} clients, same request, capture p50`, value: pct(shared.times, 0.5), unit: 'ms' },
      ],
      notes: [
        `Each client is its own \`sightline mcp\` process relayed to one \`sightline serve\`; ${ROUNDS} rounds of ${CLIENTS} captures at once (1000 px JPEG of a 1280×800 headless Chromium tab), after ${SINGLE} single captures.`,
        'Different sizes cannot share a screenshot, so they run one after another on the tab: what every capture did before requests were shared.',
      ],
    };
  } finally {
    for (const c of clients) await c.client.close().catch(() => undefined);
    await served.stop();
    await chrome.kill();
    chrome.cleanup();
    await srv.close();
  }
}
