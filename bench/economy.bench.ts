/**
 * Agent economy: seven common web tasks (tests/fixtures/browser/economy/), each done through MCP
 * by Sightline, Playwright MCP and chrome-devtools-mcp on the same Chromium, with the sequence of
 * calls a competent agent would make with each server's tools, deciding every step from the
 * answers it read (refs, uids and node ids are parsed from answer text, never known in advance).
 * Counted per task: calls, the tokens the model reads (text ÷ 4, images width × height ÷ 750),
 * wall time. Whether a task was done is read from the page's own state by the bench's own CDP
 * client. Also the size of each server's tools/list, which an agent pays once per session.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Browser } from 'puppeteer-core';
import { createBrowserSource } from '../src/main/core/sources/browser/browserSource.ts';
import { connectDriver, serveFixtures, startChromium, type FixtureServer, type RunningChromium } from '../tests/fixtures/browser/harness.ts';
import { startAdb } from '../tests/integration/android/harness.ts';
import { startHarness } from '../tests/support/mcpHarness.ts';
import { startXvfb } from '../tests/support/xvfb.ts';
import { counted, tally, tokens, type Call, type Tally } from './economyAgent.ts';
import { peerEnv } from './peerEnv.ts';
import { playwrightAgent } from './economyPlaywright.ts';
import { chromeDevtoolsAgent } from './economyDevtools.ts';
import { sightlineAgent } from './economySightline.ts';
import { TASKS, type Agent, type TaskId } from './economyTasks.ts';
import type { BenchRow, BenchSection } from './types.ts';

const PEERS = join(import.meta.dirname, 'node_modules');
const r2 = (n: number): number => Math.round(n * 100) / 100;
/** Whole runs of all servers, one after another in each: the wall time is a median of these (env ECONOMY_ROUNDS). */
const ROUNDS = Number(process.env.ECONOMY_ROUNDS) || 3;

interface TaskResult {
  id: TaskId;
  tally: Tally;
  ms: number;
  done: boolean;
  error?: string;
}

/**
 * What an agent reads once per session: tools/list (name + description + input schema of every
 * tool, and the whole list as JSON) and the server's instructions from initialize, in characters.
 */
interface ListSize {
  schemaChars: number;
  listChars: number;
  instructionsChars: number;
  toolCount: number;
}

interface ServerRun extends ListSize {
  name: string;
  tasks: TaskResult[];
}

/**
 * Rounds: calls and tokens hardly vary (the sequences are fixed by the pages; a snapshot may catch
 * the page a moment earlier or later); each task shows the round of median tokens and the median
 * wall time, and counts as done only if it was done in every round.
 */
function merge(rounds: ServerRun[], notes: string[]): ServerRun {
  const first = rounds[0]!;
  const tasks = first.tasks.map((t) => {
    const all = rounds.map((r) => r.tasks.find((x) => x.id === t.id)!);
    const ms = all.map((x) => x.ms).sort((a, b) => a - b);
    const byTokens = [...all].sort((a, b) => tokens(a.tally) - tokens(b.tally));
    const mid = byTokens[Math.floor(byTokens.length / 2)]!;
    if (byTokens.some((x) => x.tally.calls !== mid.tally.calls || tokens(x.tally) !== tokens(mid.tally))) {
      notes.push(`${first.name}, task ${t.id}: the rounds took ${all.map((x) => `${x.tally.calls} calls ${tokens(x.tally)} tokens`).join(', ')}; the table shows the median.`);
    }
    const failed = all.find((x) => !x.done);
    return { ...mid, ms: ms[Math.floor(ms.length / 2)]!, done: !failed, ...(failed?.error ? { error: failed.error } : {}) };
  });
  return { ...first, tasks };
}

function listSize(tools: Tool[], instructions: string | undefined): ListSize {
  const schemaChars = tools.reduce((n, t) => n + t.name.length + (t.description ?? '').length + JSON.stringify(t.inputSchema).length, 0);
  return { schemaChars, listChars: JSON.stringify({ tools }).length, instructionsChars: instructions?.length ?? 0, toolCount: tools.length };
}

/** The page state of the tab showing `page` for `by` (the token each server's URLs carry). */
async function pageState(driver: Browser, page: string, by: string): Promise<unknown> {
  for (const p of await driver.pages()) {
    const u = p.url();
    if (u.includes(`/economy/${page}`) && u.includes(`by=${by}`)) return p.evaluate('window.state');
  }
  return undefined;
}

/** Leave one blank tab in front, so the next server starts as on a fresh browser window. */
async function freshTab(driver: Browser): Promise<void> {
  const blank = await driver.newPage();
  for (const p of await driver.pages()) if (p !== blank) await p.close().catch(() => undefined);
  await blank.bringToFront();
}

/** Run the seven tasks with one agent: each on its own tally and clock; the page's state says whether it was done. */
async function runTasks(name: string, by: string, agent: Agent, raw: Call, srv: FixtureServer, driver: Browser): Promise<TaskResult[]> {
  const results: TaskResult[] = [];
  for (const task of TASKS) {
    const t = tally();
    const call = counted(raw, t);
    const url = srv.url(`economy/${task.page}?by=${by}`);
    const started = performance.now();
    let answer = '';
    let error: string | undefined;
    try {
      answer = (await agent[task.id](call, url)) ?? '';
    } catch (e) {
      error = (e as Error).message.replace(/\s+/g, ' ').slice(0, 300);
    }
    const ms = performance.now() - started;
    const state = await pageState(driver, task.page, by).catch(() => undefined);
    const done = !error && task.check(state, answer);
    if (!done && !error) error = `the page's state says not done: ${JSON.stringify(state)?.slice(0, 200)}; answer ${JSON.stringify(answer.slice(0, 80))}`;
    process.stderr.write(`  ${name} ${task.id}: ${t.calls} calls, ${tokens(t)} tokens, ${Math.round(ms)} ms${done ? '' : ` NOT done (${error})`}\n`);
    results.push({ id: task.id, tally: t, ms, done, ...(error ? { error } : {}) });
  }
  return results;
}

async function runSightline(chrome: RunningChromium, srv: FixtureServer, driver: Browser, uploadDir: string): Promise<ServerRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-bench-economy-'));
  const source = createBrowserSource({ settings: { endpoint: chrome.endpoint, headless: true }, dataDir });
  const h = await startHarness({ sources: [source], settings: { sources: { browser: { enabled: true } }, files: { uploadRoots: [uploadDir] } } });
  try {
    const tools = (await h.client.listTools()).tools;
    const agent = sightlineAgent(tools, join(uploadDir, 'cv.pdf'));
    const tasks = await runTasks('Sightline', 'sightline', agent, h.call, srv, driver);
    return { name: 'Sightline', tasks, ...listSize(tools, h.client.getInstructions()) };
  } finally {
    await h.close();
    await source.dispose?.();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Sightline's tools/list with every live source up, as on a developer's machine: an X display
 * (Xvfb + openbox) for the desktop, the bench's Chromium, and a device behind the real adb server.
 */
async function sightlineEverySource(chrome: RunningChromium, notes: string[]): Promise<ListSize | undefined> {
  const x = await startXvfb();
  const adb = await startAdb();
  try {
    await adb.device();
    const h = await startHarness({
      env: { ...adb.env, DISPLAY: x.display },
      settings: { browser: { endpoint: chrome.endpoint, headless: true } },
    });
    try {
      const health = await h.core.sources.health();
      // The ManicTime archive adds no tools of its own: it is not needed up for this list.
      const down = health.filter((s) => s.enabled && !s.available && s.source !== 'manictime').map((s) => s.source);
      if (down.length) notes.push(`With every source meant to be up, ${down.join(', ')} said unavailable; its tools may be missing from that list.`);
      return listSize((await h.client.listTools()).tools, h.client.getInstructions());
    } finally {
      await h.close();
    }
  } catch (e) {
    notes.push(`Sightline's tools/list with every source up could not be measured: ${(e as Error).message.split('\n')[0]}`);
    return undefined;
  } finally {
    await adb.stop();
    await x.stop();
  }
}

/** A peer over stdio in a bare environment (its own HOME, no browser download), on the bench's Chromium. */
async function runPeer(name: string, by: string, args: string[], make: (tools: Tool[]) => Agent, srv: FixtureServer, driver: Browser, home: string): Promise<ServerRun> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    stderr: 'ignore',
    // Playwright MCP reads files only under its working folder (no MCP roots here): the upload lies there.
    cwd: home,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...peerEnv(home) },
  });
  const client = new Client({ name: 'sightline-bench', version: '0' });
  try {
    await client.connect(transport);
    const tools = (await client.listTools()).tools;
    const raw: Call = (tool, a) => client.callTool({ name: tool, arguments: a }) as Promise<CallToolResult>;
    const tasks = await runTasks(name, by, make(tools), raw, srv, driver);
    return { name, tasks, ...listSize(tools, client.getInstructions()) };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Rows: each task's Sightline figure against the best peer that did it, then the totals, then tools/list. */
function rowsFor(sl: ServerRun, peers: ServerRun[], every: ListSize | undefined): { rows: BenchRow[]; notes: string[]; summary: string } {
  const rows: BenchRow[] = [];
  const fmt = (n: number): string => Math.round(n).toLocaleString('en');
  /** Sightline's figure against the best peer among those that did the work; every peer's figure in the against column. */
  const compare = (metric: string, unit: string, f: (r: ServerRun) => number, done: (r: ServerRun) => boolean, target?: string): BenchRow => {
    const ok = peers.filter(done);
    const best = ok.length ? Math.min(...ok.map(f)) : undefined;
    const against = peers.map((p) => `${p.name} ${fmt(f(p))}${unit === 'ms' ? ' ms' : ''}${done(p) ? '' : ' (not done)'}`).join(', ');
    const mine = f(sl);
    return {
      metric,
      value: Math.round(mine),
      unit,
      ...(best ? { ratio: r2(mine / best) } : {}),
      against,
      ...(target ? { target, pass: done(sl) && best !== undefined && (target === 'fewest' ? mine < best : mine <= best) } : {}),
    };
  };
  const of = (r: ServerRun, id: TaskId): TaskResult => r.tasks.find((t) => t.id === id)!;
  let worse = 0;
  for (const task of TASKS) {
    const done = (r: ServerRun): boolean => of(r, task.id).done;
    const notDone = [sl, ...peers].filter((r) => !done(r)).map((r) => r.name);
    const label = `${task.n}. ${task.title}${notDone.length ? ` (NOT done by ${notDone.join(', ')})` : ''}`;
    const calls = compare(`${label}: Sightline calls`, 'calls', (r) => of(r, task.id).tally.calls, done, '≤ best peer');
    if (!calls.pass) worse++;
    rows.push(calls);
    rows.push(compare(`${label}: Sightline tokens read`, 'tokens', (r) => tokens(of(r, task.id).tally), done, '≤ best peer'));
    rows.push(compare(`${label}: Sightline wall time`, 'ms', (r) => of(r, task.id).ms, done));
  }
  const allDone = (r: ServerRun): boolean => r.tasks.every((t) => t.done);
  const total = (f: (t: TaskResult) => number) => (r: ServerRun): number => r.tasks.reduce((n, t) => n + f(t), 0);
  rows.push(compare(`All seven tasks: Sightline calls${allDone(sl) ? '' : ' (not all done)'}`, 'calls', total((t) => t.tally.calls), allDone, 'fewest'));
  rows.push(compare('All seven tasks: Sightline tokens read', 'tokens', total((t) => tokens(t.tally)), allDone, 'fewest'));
  rows.push(compare('All seven tasks: Sightline wall time', 'ms', total((t) => t.ms), allDone));
  rows.push({ metric: 'Tasks where Sightline needs more calls than the best peer (or fails)', value: worse, unit: 'tasks', target: '0', pass: worse === 0 });
  const [fewestCalls, fewestTokens] = rows.slice(-4, -2).map((r) => r.pass === true);
  const summary = `Goal: Sightline with the fewest calls in total ${fewestCalls ? 'met' : 'NOT met'}; the fewest tokens in total ${fewestTokens ? 'met' : 'NOT met'}; no task with more calls than the best peer ${worse === 0 ? 'met' : `NOT met (${worse} of ${TASKS.length} tasks)`}.`;
  const listed = (metric: string, f: (r: ServerRun) => number): BenchRow => ({
    ...compare(metric, 'tokens', f, () => true),
    against: peers.map((p) => `${p.name} ${fmt(f(p))} (${p.toolCount} tools)`).join(', '),
  });
  rows.push(listed(`tools/list, browser source only (${sl.toolCount} tools): Sightline name + description + input schema`, (r) => r.schemaChars / 4));
  rows.push(listed('tools/list, browser source only: Sightline whole answer as JSON (output schemas included)', (r) => r.listChars / 4));
  rows.push(compare("initialize: Sightline's server instructions", 'tokens', (r) => r.instructionsChars / 4, () => true));
  rows.push(compare('Read once per session, browser source only: Sightline whole tools/list + instructions', 'tokens', (r) => (r.listChars + r.instructionsChars) / 4, () => true));
  if (every) {
    rows.push({ metric: `tools/list, every source up (${every.toolCount} tools): Sightline name + description + input schema`, value: Math.round(every.schemaChars / 4), unit: 'tokens', target: '≤ 5,000', pass: every.schemaChars / 4 <= 5000 });
    rows.push({ metric: 'tools/list, every source up: Sightline whole answer as JSON', value: Math.round(every.listChars / 4), unit: 'tokens', target: '≤ 8,000', pass: every.listChars / 4 <= 8000 });
    rows.push({ metric: 'Read once per session, every source up: Sightline whole tools/list + instructions', value: Math.round((every.listChars + every.instructionsChars) / 4), unit: 'tokens' });
  }
  const notes = [sl, ...peers].map(
    (r) => `${r.name}'s calls: ${r.tasks.map((t) => `(${TASKS.find((x) => x.id === t.id)!.n}) ${t.tally.log.join(' → ')}${t.done ? '' : ` ✗ ${t.error ?? ''}`}`).join(' ')}`,
  );
  return { rows, notes, summary };
}

export default async function run(): Promise<BenchSection> {
  const notes: string[] = [];
  let srv: FixtureServer | undefined;
  let chrome: RunningChromium | undefined;
  let driver: Browser | undefined;
  const home = mkdtempSync(join(tmpdir(), 'sightline-bench-economy-home-'));
  try {
    srv = await serveFixtures();
    chrome = await startChromium({ url: 'about:blank' });
    driver = await connectDriver(chrome.endpoint);
    // One small file to upload, in the temp folder: chrome-devtools-mcp reads files only there by default.
    writeFileSync(join(home, 'cv.pdf'), '%PDF-1.4\n% a one-page CV\n');

    const every = await sightlineEverySource(chrome, notes);
    await freshTab(driver);
    const runs: ServerRun[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      process.stderr.write(`  round ${round + 1} of ${ROUNDS}\n`);
      const sl = await runSightline(chrome, srv, driver, home);
      await freshTab(driver);
      const pw = await runPeer(
        'Playwright MCP',
        'playwright',
        [join(PEERS, '@playwright/mcp/cli.js'), '--cdp-endpoint', chrome.endpoint, '--output-dir', join(home, 'pw-out')],
        (tools) => playwrightAgent(tools, join(home, 'cv.pdf')),
        srv,
        driver,
        home,
      );
      await freshTab(driver);
      const cdm = await runPeer(
        'chrome-devtools-mcp',
        'devtools',
        [join(PEERS, 'chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'), '--browserUrl', chrome.endpoint, '--no-usage-statistics', '--no-performance-crux', '--no-page-id-routing'],
        (tools) => chromeDevtoolsAgent(tools, join(home, 'cv.pdf')),
        srv,
        driver,
        home,
      );
      await freshTab(driver);
      runs.push([sl, pw, cdm]);
    }
    const varied: string[] = [];
    const [sl, pw, cdm] = [0, 1, 2].map((i) => merge(runs.map((r) => r[i]!), varied)) as [ServerRun, ServerRun, ServerRun];
    const { rows, notes: calls, summary } = rowsFor(sl, [pw, cdm], every);
    notes.unshift(summary);
    notes.push(
      'Tasks: (1) sign in (a "Forgot password?" link and a "Sign in to Acme" heading beside the fields and the "Sign in" button); (2) search "marmalade" and open "Lemon marmalade" (the results come from the server 300 ms after the submit; "Lemon marmalade tart" is listed too; the field and its button are both "Search"); (3) a form: text, select, checkbox, file upload, submit; (4) a button that asks window.confirm, accepted; (5) a button whose answer appears 1 s later, then clicked; (6) drag the last item of a list to the top (HTML5 drag and drop); (7) the text of the last heading, 2,000 px below the fold.',
      'Each server runs the seven tasks in one browser tab, each task starting from its page\'s URL (Sightline opens the tab with its first call). The sequences: Sightline aims by visible text or field label (an AMBIGUOUS_TEXT answer is followed by acting on the match of the right role that the answer lists, or else by get_ui_tree and the node; text not found yet is waited for with wait_for); when tools/list has fill_form, form fields go in one fill_form call. Playwright MCP and chrome-devtools-mcp act by the refs or uids of their snapshot, taken after each change the next step depends on (waiting for text the snapshot lacks yet; chrome-devtools-mcp: includeSnapshot on the action that changes the page; fill_form for several fields). Playwright MCP 0.0.83 also takes "a unique element selector" in place of a ref, which an agent would have to guess without a snapshot: not used.',
      `${ROUNDS} rounds, each server in turn; per task the median wall time, and the calls and tokens of the round of median tokens (they vary only where noted). One headless Chromium (Debian's): Sightline in-process (browser.endpoint), Playwright MCP 0.0.83 (--cdp-endpoint) and chrome-devtools-mcp 1.11.0 (--browserUrl, --no-page-id-routing) over stdio, so their wall times include the stdio hop. Tokens: every text block of every answer at 4 characters a token plus images at width × height ÷ 750 (no task needed one); structuredContent is for programs and not counted. Success is the page's own window.state (read over CDP by the bench) or, for (7), the heading's text in the agent's answer.`,
      'tools/list and the instructions initialize gives (what an agent reads once per session), tokens = characters ÷ 4: each peer as it lists itself; Sightline once as in the tasks (the browser source only, as an agent on a machine without a display or a phone sees it) and once with every live source up (Xvfb with openbox for the desktop, the same Chromium, a fake device behind the real adb server), the case its targets are for.',
      ...varied,
      ...calls,
    );
    return { title: 'Agent economy: seven web tasks through MCP (vs Playwright MCP, chrome-devtools-mcp)', rows, notes };
  } finally {
    await driver?.disconnect().catch(() => undefined);
    await chrome?.kill();
    chrome?.cleanup();
    await srv?.close();
    rmSync(home, { recursive: true, force: true });
  }
}

