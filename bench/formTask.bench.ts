/**
 * The form task through an MCP client, Sightline against Playwright MCP on the same Chromium:
 * open a page, type a name into its field and submit, then press a button 3,000 px down
 * (tests/fixtures/browser/form.html). Counted per run: calls, and the tokens the model reads —
 * every text block of every answer at 4 characters a token (Playwright's page snapshots
 * included), plus each image's estimated vision tokens. The page's own state says whether the
 * task was done.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser } from 'puppeteer-core';
import { createBrowserSource } from '../src/main/core/sources/browser/browserSource.ts';
import { connectDriver, serveFixtures, startChromium, type FixtureServer, type RunningChromium } from '../tests/fixtures/browser/harness.ts';
import { startHarness } from '../tests/support/mcpHarness.ts';
import { countAnswer, tokens, type Call } from './economyAgent.ts';
import { peerEnv } from './peerEnv.ts';
import type { BenchRow, BenchSection } from './types.ts';

const PEERS = join(import.meta.dirname, 'node_modules');
const NAME = 'Ada Lovelace';

interface Tally {
  calls: number;
  textChars: number;
  imageTokens: number;
  structuredChars: number;
  log: string[];
}

/** Wrap a client's callTool: count the call and what the model reads of its answer; fail on an error result. */
function counted(call: Call, t: Tally): Call {
  return async (name, args) => {
    const r = await call(name, args);
    await countAnswer(r, t);
    if (r.structuredContent) t.structuredChars += JSON.stringify(r.structuredContent).length;
    const text = r.content.find((c) => c.type === 'text');
    if (process.env.FORM_TASK_DUMP) process.stderr.write(`--- ${name} (${r.content.map((c) => (c.type === 'text' ? c.text.length : 0)).reduce((a, b) => a + b, 0)} chars)\n${r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n')}\n`);
    t.log.push(`${name}: ${text && text.type === 'text' ? text.text.split('\n')[0]!.slice(0, 160) : ''}`);
    if (r.isError) throw new Error(`${name} failed: ${text && text.type === 'text' ? text.text : JSON.stringify(r)}`);
    return r;
  };
}

const tally = (): Tally => ({ calls: 0, textChars: 0, imageTokens: 0, structuredChars: 0, log: [] });

/** The page's state in the tab at `url` (read by the test's own CDP client). */
async function pageState(driver: Browser, url: string): Promise<{ sent: string[]; finished: number } | undefined> {
  for (const p of await driver.pages()) {
    if (p.url() !== url) continue;
    return (await p.evaluate('window.state')) as { sent: string[]; finished: number };
  }
  return undefined;
}

/** Sightline: open the page in a new tab, read its UI tree, type and submit by node, click the far button by node. */
async function sightline(chrome: RunningChromium, url: string, t: Tally): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-bench-form-'));
  const source = createBrowserSource({ settings: { endpoint: chrome.endpoint, headless: true }, dataDir });
  const h = await startHarness({ sources: [source], settings: { sources: { browser: { enabled: true } } } });
  try {
    const call = counted(h.call, t);
    const opened = await call('tabs', { action: 'new', url });
    const target = (opened.structuredContent as { details: { target: string } }).details.target;
    const tree = await call('get_ui_tree', { target });
    const nodes = (tree.structuredContent as { nodes: { id: string; role: string; name: string }[] }).nodes;
    const field = nodes.find((n) => n.role === 'textbox' && n.name === 'Name');
    const finish = nodes.find((n) => n.role === 'button' && n.name === 'Finish');
    if (!field || !finish) throw new Error(`the tree lacks the field or the button: ${JSON.stringify(nodes.map((n) => `${n.role} ${n.name}`))}`);
    await call('type_text', { target, node: field.id, text: NAME, submit: true });
    await call('click', { target, node: finish.id });
  } finally {
    await h.close();
    await source.dispose?.();
  }
}

/** Playwright MCP on the same Chromium (--cdp-endpoint): navigate, read the snapshot, type with submit, click, by snapshot refs. */
async function playwright(chrome: RunningChromium, url: string, t: Tally, notes: string[]): Promise<boolean> {
  const home = mkdtempSync(join(tmpdir(), 'sightline-bench-pw-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(PEERS, '@playwright/mcp/cli.js'), '--cdp-endpoint', chrome.endpoint, '--output-dir', join(home, 'out')],
    stderr: 'ignore',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...peerEnv(home) },
  });
  const client = new Client({ name: 'sightline-bench', version: '0' });
  try {
    await client.connect(transport);
    const call = counted((name, args) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>, t);
    // Element arguments are "ref" in older versions, "target" since 0.0.7x.
    const tools = (await client.listTools()).tools;
    const refKey = 'ref' in ((tools.find((x) => x.name === 'browser_click')?.inputSchema.properties ?? {}) as object) ? 'ref' : 'target';
    await call('browser_navigate', { url });
    // Action answers link their page snapshot as a file; browser_snapshot returns it (with the refs) as text.
    const snap = await call('browser_snapshot', {});
    const snapshot = snap.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    const ref = (role: string, name: string): string => {
      const m = new RegExp(`${role} "${name}"[^\\n]*\\[ref=(e\\d+)\\]`).exec(snapshot);
      if (!m) throw new Error(`no ${role} "${name}" in the snapshot`);
      return m[1]!;
    };
    await call('browser_type', { element: 'Name field', [refKey]: ref('textbox', 'Name'), text: NAME, submit: true });
    await call('browser_click', { element: 'Finish button', [refKey]: ref('button', 'Finish') });
    return true;
  } catch (e) {
    notes.push(`Playwright MCP could not run the task: ${(e as Error).message.replace(/\s+/g, " ").slice(0, 400)}`);
    return false;
  } finally {
    await client.close().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  }
}

export default async function run(): Promise<BenchSection> {
  const notes: string[] = [];
  const rows: BenchRow[] = [];
  let srv: FixtureServer | undefined;
  let chrome: RunningChromium | undefined;
  let driver: Browser | undefined;
  try {
    srv = await serveFixtures();
    chrome = await startChromium({ url: 'about:blank' });
    driver = await connectDriver(chrome.endpoint);

    const sl = tally();
    const slUrl = srv.url('form.html?by=sightline');
    await sightline(chrome, slUrl, sl).catch((e: unknown) => notes.push(`Sightline could not finish the task: ${(e as Error).message.split('\n')[0]}`));
    const slState = await pageState(driver, slUrl);
    const slDone = slState?.sent[0] === NAME && slState.finished === 1;
    // Out of the way: a tab in front would leave Playwright's in the background, where no animation frame runs.
    for (const p of await driver.pages()) if (p.url() === slUrl) await p.close();

    const pw = tally();
    const pwUrl = srv.url('form.html?by=playwright');
    const pwRan = await playwright(chrome, pwUrl, pw, notes);
    const pwState = pwRan ? await pageState(driver, pwUrl) : undefined;
    const pwDone = pwState?.sent[0] === NAME && pwState.finished === 1;

    rows.push({ metric: `Sightline: form task calls (${slDone ? 'done' : 'NOT done'})`, value: sl.calls, unit: 'calls', target: '≤ Playwright + 1', pass: slDone && pwRan && sl.calls <= pw.calls + 1 });
    rows.push({
      metric: 'Sightline: form task tokens read by the model (text ÷ 4 + images)',
      value: tokens(sl),
      unit: 'tokens',
      ...(pwRan ? { ratio: Math.round((tokens(sl) / tokens(pw)) * 100) / 100, against: 'Playwright MCP', target: '< 1×', pass: slDone && tokens(sl) < tokens(pw) } : {}),
    });
    if (pwRan) {
      rows.push({ metric: `Playwright MCP: form task calls (${pwDone ? 'done' : 'NOT done'})`, value: pw.calls, unit: 'calls' });
      rows.push({ metric: 'Playwright MCP: form task tokens (its snapshots as text ÷ 4)', value: tokens(pw), unit: 'tokens' });
    }
    rows.push({ metric: 'Sightline: structured content beside the text (not counted above)', value: Math.round(sl.structuredChars / 4), unit: 'tokens' });
    notes.push(
      `Sightline's calls: ${sl.log.join(' | ')}`,
      ...(pwRan ? [`Playwright MCP's calls: ${pw.log.map((l) => l.slice(0, 60)).join(' | ')}`] : []),
      'One headless Chromium (Debian\'s), both clients on it: Sightline over its in-process MCP server (browser.endpoint), Playwright MCP 0.0.83 over stdio with --cdp-endpoint. Each opens the page in a tab of its own; the page counts the submitted name and the far button\'s click.',
      'Tokens are what the model reads: every text block at 4 characters a token, and each image\'s width × height / 750 (this task needs none). Playwright MCP 0.0.83 links each action\'s page snapshot as a file and returns it as text only from browser_snapshot, which the task calls once to learn the refs (its text counted like the rest). structuredContent is for programs; its size is shown apart.',
    );
  } finally {
    await driver?.disconnect().catch(() => undefined);
    await chrome?.kill();
    chrome?.cleanup();
    await srv?.close();
  }
  return { title: 'Browser form task through MCP (vs Playwright MCP)', rows, notes };
}
