/**
 * The desktop accessibility tree (part of the desktop section): get_ui_tree of the GTK 3 form and
 * a click by text through MCP, each against a bare AT-SPI walk of the same window (role, states,
 * name, extents and children of every element, nothing more: tests/support/atspiWalk.ts) as the
 * floor, measured in the same rounds. The same walk over both D-Bus libraries is how the product's
 * library was chosen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createDesktopSource } from '../src/main/core/sources/desktop/desktopSource.ts';
import { startA11y, startGtkApp } from '../tests/support/a11y.ts';
import { bareWalk, findWindow, nativeBus, nextBus, type BareBus } from '../tests/support/atspiWalk.ts';
import { startHarness, textOf } from '../tests/support/mcpHarness.ts';
import { startXvfb } from '../tests/support/xvfb.ts';
import type { BenchRow } from './types.ts';

const WARMUP = 5;
const RUNS = Number(process.env.BENCH_N ?? 30);

const p50 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r1 = (n: number): number => Math.round(n * 10) / 10;
const r2 = (n: number): number => Math.round(n * 100) / 100;

function ok(r: CallToolResult, what: string): CallToolResult {
  if (r.isError) throw new Error(`${what}: ${textOf(r)}`);
  return r;
}

function shuffle<T>(xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

export async function measureTree(): Promise<{ rows: BenchRow[]; notes: string[] }> {
  const x = await startXvfb('1280x800');
  const a = await startA11y(x);
  const app = await startGtkApp(a, { title: 'Sightline Bench Form', geometry: '420x360+120+80' });
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-bench-tree-'));
  const env = { PATH: process.env.PATH };
  const h = await startHarness({ dataDir, sources: [createDesktopSource({ settings: { display: x.display }, env })], env });
  const buses: BareBus[] = [nativeBus(a.busAddress)];
  const next = nextBus(a.busAddress);
  if (next) buses.push(next);
  try {
    const target = `desktop:window:${app.windowId}`;
    ok(await h.call('capture', { target }), 'capture');
    const root = await findWindow(buses[0]!, 'Sightline Bench Form');
    if (!root) throw new Error('the form is not on the accessibility bus');
    const walks = new Map<string, number[]>(buses.map((b) => [b.library, []]));
    const tree: number[] = [];
    const click: number[] = [];
    let elements = 0;
    let nodes = 0;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const steps: (() => Promise<void>)[] = [
        ...buses.map((b) => async () => {
          const t = performance.now();
          elements = (await bareWalk(b, root)).length;
          if (i >= WARMUP) walks.get(b.library)!.push(performance.now() - t);
        }),
        async () => {
          const t = performance.now();
          const r = ok(await h.call('get_ui_tree', { target }), 'get_ui_tree');
          if (i >= WARMUP) tree.push(performance.now() - t);
          nodes = (r.structuredContent as { nodes: unknown[] }).nodes.length;
        },
        async () => {
          const seen = app.next((e) => e.event === 'click' && e.button === 'Save');
          const t = performance.now();
          ok(await h.call('click', { target, text: 'Save', after: 'none' }), 'click');
          await seen;
          if (i >= WARMUP) click.push(performance.now() - t);
        },
      ];
      for (const step of shuffle(steps)) await step();
    }
    const floor = p50(walks.get('@homebridge/dbus-native')!);
    const rows: BenchRow[] = [
      { metric: `floor: bare AT-SPI walk of the GTK form (${elements} elements), @homebridge/dbus-native, p50`, value: r1(floor), unit: 'ms' },
    ];
    const nextWalk = walks.get('dbus-next');
    if (nextWalk?.length) rows.push({ metric: 'the same walk over dbus-next, p50', value: r1(p50(nextWalk)), unit: 'ms', ratio: r2(p50(nextWalk) / floor), against: '@homebridge/dbus-native' });
    rows.push(
      { metric: `Sightline get_ui_tree of the form (MCP tool, ${nodes} nodes), p50`, value: r1(p50(tree)), unit: 'ms', ratio: r2(p50(tree) / floor), against: 'floor', target: '≤ 100 ms', pass: p50(tree) <= 100 },
      { metric: 'Sightline click by text "Save" (MCP tool) until the app sees the press, p50', value: r1(p50(click)), unit: 'ms', ratio: r2(p50(click) / floor), against: 'floor', target: '≤ 150 ms', pass: p50(click) <= 150 },
    );
    const notes = [
      `Accessibility tree: Xvfb 1280×800 + openbox, a private session bus with at-spi2-core, the GTK 3 form of tests/fixtures/desktop/gtkApp.py (420×360); p50 of ${RUNS} rounds after ${WARMUP} warm-ups, the walks, get_ui_tree and the click in a random order each round. get_ui_tree adds the window lookup, the handles (ids kept across reads), the texts, relations and the mapping to image pixels; the click reads the tree, finds the text, reads the tree again to place the node, then clicks (nut-js) and waits for GTK's "clicked".`,
    ];
    return { rows, notes };
  } finally {
    for (const b of buses) b.close();
    await h.close();
    await app.close();
    await a.stop();
    await x.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
