/**
 * Start-up, as an MCP client sees it: spawn → `initialize` answered, and → `tools/list` answered, for
 * `sightline mcp --in-process` (a fresh data dir each spawn), Playwright MCP and chrome-devtools-mcp,
 * all spawned alike (the SDK client's bare environment) in the same rounds, in a random order. Also the
 * README config on the machine's older Node (the launcher re-executes on .node/'s Node 22), the
 * launcher's own overhead, and what each dependency costs to import in a fresh Node.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { isSupported } from '../bin/launcher.js';
import { CHROMIUM, isRoot } from '../tests/fixtures/browser/harness.ts';
import { peerEnv } from './peerEnv.ts';
import type { BenchRow, BenchSection } from './types.ts';

const RUNS = 12;
const WARMUP = 1;
const IMPORT_RUNS = 7;
const REPO = join(import.meta.dirname, '..');
const PEERS = join(import.meta.dirname, 'node_modules');
const BIN = join(REPO, 'bin', 'sightline.js');
const TARGET_MS = 500;

const p50 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r1 = (n: number): number => Math.round(n * 10) / 10;
const r2 = (n: number): number => Math.round(n * 100) / 100;

interface Contender {
  name: string;
  command: string;
  /** Called per spawn: Sightline gets a fresh data dir each time. */
  args: () => string[];
  env: Record<string, string>;
}

interface Timing {
  init: number;
  list: number;
  tools: number;
}

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'sightline-bench', version: '0' } } })}\n`;
const AFTER_INIT = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`;

/** One spawn, speaking JSON-RPC lines as the SDK client does: initialize at once, then initialized + tools/list. */
function spawnToAnswers(c: Contender): Promise<Timing> {
  return new Promise((ok, fail) => {
    const t0 = performance.now();
    const p = spawn(c.command, c.args(), { env: c.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let init = 0;
    let result: Timing | undefined;
    const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const msg = JSON.parse(out.slice(0, nl)) as { id?: number; error?: { message: string }; result?: { tools?: unknown[] } };
        out = out.slice(nl + 1);
        if (msg.error) return void (p.kill('SIGKILL'), fail(new Error(`${c.name}: ${msg.error.message}`)));
        if (msg.id === 1) {
          init = performance.now() - t0;
          p.stdin.write(AFTER_INIT);
        } else if (msg.id === 2) {
          result = { init, list: performance.now() - t0, tools: msg.result?.tools?.length ?? 0 };
          p.stdin.end();
          // A server that does not leave when its client goes is stopped (not timed).
          setTimeout(() => p.kill('SIGKILL'), 5000).unref();
        }
      }
    });
    p.once('error', fail);
    p.once('exit', (code) => {
      clearTimeout(timer);
      if (result) ok(result);
      else fail(new Error(`${c.name} exited ${code} before answering: ${err.trim().split('\n').slice(-3).join(' | ')}`));
    });
    p.stdin.write(INITIALIZE);
  });
}

/** Spawn → exit of a process (for the launcher and import costs). */
function spawnToExit(command: string, args: string[], env: Record<string, string>, cwd = REPO): Promise<number> {
  return new Promise((ok, fail) => {
    const t0 = performance.now();
    const p = spawn(command, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.once('error', fail);
    p.once('exit', (code) => (code === 0 ? ok(performance.now() - t0) : fail(new Error(`${command} ${args.join(' ')} exited ${code}: ${err.slice(-500)}`))));
  });
}

/** The machine's Node older than 22.12 outside .node/ (Debian 12: /usr/bin/node), if any. */
async function olderSystemNode(): Promise<{ path: string; version: string } | undefined> {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    try {
      accessSync(path, constants.X_OK);
    } catch {
      continue;
    }
    const version = await new Promise<string>((ok) => {
      const p = spawn(path, ['-p', 'process.versions.node'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let s = '';
      p.stdout.on('data', (d: Buffer) => (s += d.toString()));
      p.once('exit', () => ok(s.trim()));
      p.once('error', () => ok(''));
    });
    if (version && !isSupported(version)) return { path, version };
  }
  return undefined;
}

/** Whether something listens on the adb server port (Sightline's android health starts one when not). */
function adbListening(): Promise<boolean> {
  return new Promise((ok) => {
    const s = connect(5037, '127.0.0.1');
    s.once('connect', () => (s.destroy(), ok(true)));
    s.once('error', () => ok(false));
  });
}

/** Interleaved rounds of every contender; the first WARMUP rounds are not counted. */
async function rounds(contenders: Contender[], notes: string[]): Promise<Map<string, Timing[]>> {
  const t = new Map<string, Timing[]>(contenders.map((c) => [c.name, []]));
  const dead = new Set<string>();
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const c of [...contenders].sort(() => Math.random() - 0.5)) {
      if (dead.has(c.name)) continue;
      try {
        const r = await spawnToAnswers(c);
        if (i >= WARMUP) t.get(c.name)!.push(r);
      } catch (e) {
        dead.add(c.name);
        notes.push(`${c.name} could not be measured: ${(e as Error).message.split('\n')[0]}`);
      }
    }
  }
  return t;
}

export default async function run(): Promise<BenchSection> {
  const notes: string[] = [];
  const rows: BenchRow[] = [];
  const tmp = mkdtempSync(join(tmpdir(), 'sightline-bench-startup-'));
  const adbBefore = await adbListening();
  const loadBefore = loadavg()[0]!;
  const home = join(tmp, 'home');
  mkdirSync(home);
  let dirs = 0;
  const freshDataDir = (): string => join(tmp, `data-${dirs++}`);
  // What the SDK's StdioClientTransport passes (HOME, LOGNAME, PATH, SHELL, TERM, USER), HOME made
  // fresh (the peers do not launch their browser before a tool call).
  const env = { ...getDefaultEnvironment(), ...peerEnv(home) };
  const node = process.execPath;
  const root = isRoot ? ['--no-sandbox'] : [];
  // The floor: a Node process with no imports that answers every request at once.
  const floorScript = `process.stdin.on('data',(d)=>{for(const l of d.toString().split('\\n'))if(l.includes('"id":')){const id=JSON.parse(l).id;process.stdout.write(JSON.stringify({jsonrpc:'2.0',id,result:id===2?{tools:[]}:{}})+'\\n')}});process.stdin.on('end',()=>process.exit(0))`;
  const old = await olderSystemNode();
  const contenders: Contender[] = [
    { name: 'floor', command: node, args: () => ['-e', floorScript], env },
    { name: 'Sightline', command: node, args: () => [BIN, 'mcp', '--in-process', '--data-dir', freshDataDir()], env },
    {
      name: 'Playwright MCP',
      command: node,
      args: () => [join(PEERS, '@playwright/mcp/cli.js'), '--headless', '--executable-path', CHROMIUM, '--isolated', ...root, '--output-dir', join(tmp, 'pw-out')],
      env,
    },
    {
      name: 'chrome-devtools-mcp',
      command: node,
      args: () => [join(PEERS, 'chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'), '--headless', '--executablePath', CHROMIUM, '--isolated', ...root.map((a) => `--chromeArg=${a}`), '--no-usage-statistics', '--no-performance-crux'],
      env,
    },
  ];
  if (old) contenders.push({ name: 'Sightline via old Node', command: old.path, args: () => [BIN, 'mcp', '--in-process', '--data-dir', freshDataDir()], env });
  try {
    const t = await rounds(contenders, notes);
    const stat = (name: string): { init: number; list: number; tools: number } | undefined => {
      const xs = t.get(name);
      if (!xs?.length) return undefined;
      return { init: p50(xs.map((x) => x.init)), list: p50(xs.map((x) => x.list)), tools: xs[xs.length - 1]!.tools };
    };
    const floor = stat('floor');
    const sl = stat('Sightline');
    if (floor) rows.push({ metric: 'floor: a bare Node script answering initialize, p50', value: r1(floor.init), unit: 'ms' });
    if (sl) {
      rows.push({ metric: 'Sightline `mcp --in-process`: spawn → initialize answered, p50', value: r1(sl.init), unit: 'ms', ...(floor ? { ratio: r2(sl.init / floor.init), against: 'floor' } : {}), target: `≤ ${TARGET_MS} ms`, pass: sl.init <= TARGET_MS });
      rows.push({ metric: `Sightline: spawn → tools/list answered (${sl.tools} tools), p50`, value: r1(sl.list), unit: 'ms' });
    }
    for (const peer of ['Playwright MCP', 'chrome-devtools-mcp']) {
      const p = stat(peer);
      if (!p) continue;
      rows.push({ metric: `${peer}: spawn → initialize answered, p50`, value: r1(p.init), unit: 'ms', ...(floor ? { ratio: r2(p.init / floor.init), against: 'floor' } : {}) });
      rows.push({ metric: `${peer}: spawn → tools/list answered (${p.tools} tools), p50`, value: r1(p.list), unit: 'ms' });
      if (sl) rows.push({ metric: `Sightline vs ${peer}, spawn → tools/list, p50`, value: r1(sl.list), unit: 'ms', ratio: r2(sl.list / p.list), against: peer });
    }
    const viaOld = stat('Sightline via old Node');
    if (old && viaOld && sl) {
      rows.push({ metric: `Sightline on the system Node ${old.version} (${old.path}, re-executes on .node/): spawn → initialize, p50`, value: r1(viaOld.init), unit: 'ms', ratio: r2(viaOld.init / sl.init), against: 'Sightline on Node 22' });
    }
    if (old) rows.push(...(await launcherOverhead(old.path, tmp, env)));
    else notes.push('No Node older than 22.12 outside .node/ on this machine: the launcher never re-executes here, so its overhead is not measured.');
    rows.push(...(await importCosts(env)));
    notes.push(
      `p50 of ${RUNS} spawns each after ${WARMUP} warm-up round; every round spawns each contender once, in a random order, with the SDK stdio client's bare environment (HOME, LOGNAME, PATH, SHELL, TERM, USER; HOME fresh). The client writes initialize at once, then initialized + tools/list; times run from spawn() to the answer's line on stdout.`,
      `Load average ${loadBefore.toFixed(1)} → ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores during this run (other work on the machine): absolute times scale with it, as the floor row shows; compare ratios.`,
      `Sightline runs with default settings and a fresh --data-dir per spawn (catalog created and migrated each time). Peers: Playwright MCP --headless --isolated --executable-path ${CHROMIUM}; chrome-devtools-mcp --headless --isolated --executablePath ${CHROMIUM} --no-usage-statistics --no-performance-crux; neither launches the browser before a tool call.`,
    );
  } finally {
    // The android source's health check starts an adb server when none runs; stop the one this run started.
    if (!adbBefore && (await adbListening())) await spawnToExit('adb', ['-P', '5037', 'kill-server'], env).catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
  return { title: 'Start-up: spawn to initialize and tools/list', rows, notes };
}

/** The launcher alone: bin/ in a stub checkout whose out/main/cli.js exits at once, on each Node. */
async function launcherOverhead(oldNode: string, tmp: string, env: Record<string, string>): Promise<BenchRow[]> {
  const stub = join(tmp, 'stub');
  cpSync(join(REPO, 'bin'), join(stub, 'bin'), { recursive: true });
  mkdirSync(join(stub, 'out', 'main'), { recursive: true });
  writeFileSync(join(stub, 'out', 'main', 'cli.js'), '');
  writeFileSync(join(stub, 'package.json'), '{"type":"module"}');
  const dotNode = join(REPO, '.node');
  if (!existsSync(join(dotNode, 'bin', 'node'))) return [];
  symlinkSync(dotNode, join(stub, '.node'));
  const new22 = join(dotNode, 'bin', 'node');
  const cases: [string, string, string[]][] = [
    ['old', oldNode, [join(stub, 'bin', 'sightline.js')]],
    ['new', new22, [join(stub, 'bin', 'sightline.js')]],
    ['oldBare', oldNode, ['-e', '']],
    ['newBare', new22, ['-e', '']],
  ];
  const t = new Map<string, number[]>(cases.map(([k]) => [k, []]));
  for (let i = 0; i < 2 + 20; i++) {
    for (const [k, cmd, args] of [...cases].sort(() => Math.random() - 0.5)) {
      const ms = await spawnToExit(cmd, args, env);
      if (i >= 2) t.get(k)!.push(ms);
    }
  }
  const [o, n, ob, nb] = ['old', 'new', 'oldBare', 'newBare'].map((k) => p50(t.get(k)!)) as [number, number, number, number];
  return [
    { metric: 'launcher on Node 22 (runs the CLI in place), spawn → exit with an empty CLI, p50', value: r1(n), unit: 'ms', ratio: r2(n / nb), against: '`node -e ""` on Node 22' },
    { metric: 'launcher on the old Node, re-executing on Node 22, spawn → exit with an empty CLI, p50', value: r1(o), unit: 'ms', ratio: r2(o / n), against: 'launcher on Node 22' },
    { metric: 're-exec overhead (the two above: p50 difference)', value: r1(o - n), unit: 'ms', ratio: r2((o - n) / ob), against: 'old Node `-e ""` boot' },
    { metric: 'old Node `-e ""` boot, p50', value: r1(ob), unit: 'ms' },
  ];
}

/** What each dependency costs to import in a fresh Node 22 (p50 of spawn → exit, minus a bare Node's). */
async function importCosts(env: Record<string, string>): Promise<BenchRow[]> {
  const sets: [string, string[]][] = [
    ['bare Node', []],
    ['@modelcontextprotocol/sdk server + stdio', ['@modelcontextprotocol/sdk/server/index.js', '@modelcontextprotocol/sdk/server/stdio.js']],
    ['zod', ['zod']],
    ['puppeteer-core', ['puppeteer-core']],
    ['sharp', ['sharp']],
    ['better-sqlite3', ['better-sqlite3']],
    ['@devicefarmer/adbkit', ['@devicefarmer/adbkit']],
    ['fast-xml-parser', ['fast-xml-parser']],
    ['node-screenshots', ['node-screenshots']],
    ['@nut-tree-fork/nut-js', ['@nut-tree-fork/nut-js']],
    ['date-fns (its index, unbundled)', ['date-fns']],
    ['the built CLI (out/main/cli.js --help: every module it imports)', ['./out/main/cli.js']],
  ];
  const t = new Map<string, number[]>(sets.map(([k]) => [k, []]));
  for (let i = 0; i < 1 + IMPORT_RUNS; i++) {
    for (const [k, mods] of [...sets].sort(() => Math.random() - 0.5)) {
      const args = mods[0] === './out/main/cli.js' ? [join(REPO, 'out/main/cli.js'), '--help'] : ['--input-type=module', '-e', mods.map((m) => `await import(${JSON.stringify(m)});`).join('')];
      const ms = await spawnToExit(process.execPath, args, env);
      if (i >= 1) t.get(k)!.push(ms);
    }
  }
  const bare = p50(t.get('bare Node')!);
  return sets
    .filter(([k]) => k !== 'bare Node')
    .map(([k]) => {
      const cost = p50(t.get(k)!) - bare;
      return { metric: `import cost in a fresh Node: ${k}, p50 − bare Node (${r1(bare)} ms)`, value: r1(cost), unit: 'ms', ratio: r2(cost / bare), against: 'bare Node boot' };
    });
}
