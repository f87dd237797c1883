/**
 * Routines: the seven economy tasks done once by the scripted agent through Sightline's MCP
 * tools, each saved with save_routine, then replayed with run_routine (one call, no model) on
 * fresh pages and on changed pages (ids renamed, a banner above the content, controls moved,
 * restyled). Whether a replay did the task is read from the page's own state; on a changed page
 * a replay that does not finish must stop with ROUTINE_DIVERGED having done no wrong action.
 * Replay time is compared with the same steps written by hand in Playwright (playwright-core
 * over CDP, the same Chromium, the same pages), measured in the same run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'puppeteer-core';
import { createBrowserSource } from '../src/main/core/sources/browser/browserSource.ts';
import { connectDriver, startChromium } from '../tests/fixtures/browser/harness.ts';
import { startHarness, type Harness } from '../tests/support/mcpHarness.ts';
import { callText, countAnswer, tally, tokens, type Call } from './economyAgent.ts';
import { sightlineAgent } from './economySightline.ts';
import { FULL_NAME, ORDER, PASSWORD, TASKS, USER, type Task, type TaskId } from './economyTasks.ts';
import { handWritten } from './routinesPlaywright.ts';
import { buttonsOf, pageHtml, servePages, type PageServer, type Variant } from './routinesPages.ts';
import type { BenchRow, BenchSection } from './types.ts';

/** Rounds of replay and hand-written Playwright, alternating: the times are medians (env ROUTINES_ROUNDS). */
const ROUNDS = Number(process.env.ROUTINES_ROUNDS) || 5;
const r2 = (n: number): number => Math.round(n * 100) / 100;
const PW_VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'node_modules', 'playwright-core', 'package.json'), 'utf8')) as { version: string }).version;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** What the person gives a replay: the values the log never held (a form's text, a password). */
const INPUTS: Partial<Record<TaskId, Record<string, string>>> = {
  signin: { username: USER, password: PASSWORD },
  form: { full_name: FULL_NAME, country: 'Portugal' },
};

/** A page state that shows an action the task never asks for: a replay must never leave one. */
const WRONG: Record<TaskId, (s: Record<string, unknown> | undefined) => boolean> = {
  signin: (s) => ((s?.submits as { user: string; password: string }[] | undefined) ?? []).some((x) => x.user !== USER || x.password !== PASSWORD),
  search: (s) => ((s?.opened as string[] | undefined) ?? []).some((x) => x !== 'Lemon marmalade'),
  form: (s) => ((s?.submits as unknown[] | undefined) ?? []).some((x) => JSON.stringify(x) !== JSON.stringify({ name: FULL_NAME, country: 'pt', news: true, files: ['cv.pdf'] })),
  dialog: (s) => Number(s?.asked ?? 0) > 1,
  later: (s) => Number(s?.checks ?? 0) > 1,
  reorder: (s) => Number(s?.drops ?? 0) > 0 && JSON.stringify(s?.order) !== JSON.stringify(ORDER),
  read: () => false,
};

interface Saved {
  task: Task;
  steps?: number;
  error?: string;
}

interface Replay {
  done: boolean;
  ms: number;
  calls: number;
  tokens: number;
  structuredTokens: number;
  code?: string;
  /** The step a divergence names. */
  step?: number;
  message?: string;
  wrong: boolean;
}

/** The scripted agent does each task once; each task's actions after the one that opened its page are saved as a routine. */
async function record(h: Harness, srv: PageServer, upload: string): Promise<Saved[]> {
  const agent = sightlineAgent((await h.client.listTools()).tools, upload);
  const call: Call = (name, args) => h.call(name, args);
  const count = (): number => h.core.activity.list({ limit: 1000 }).length;
  // The agent's first page opens its tab; every task then starts with a navigation, as a routine replayed on an open page does.
  await agent.read(call, srv.url('article.html', { by: 'warmup' }));
  const saved: Saved[] = [];
  for (const task of TASKS) {
    const before = count();
    await agent[task.id](call, srv.url(task.page, { by: 'record' }));
    const after = count();
    if (after - before < 1) {
      saved.push({ task, error: 'the agent took no action' });
      continue;
    }
    // A task whose one action opened its page (reading it) is that navigation and the reads after it.
    const r = await h.call('save_routine', { name: task.id, fromAction: after - before >= 2 ? before + 2 : before + 1, toAction: after });
    saved.push(r.isError ? { task, error: callText(r).slice(0, 200) } : { task, steps: (r.structuredContent as { steps: number }).steps });
  }
  return saved;
}

async function pageFor(driver: Browser, by: string): Promise<Page> {
  for (const p of await driver.pages()) if (p.url().includes(`by=${by}`)) return p;
  throw new Error(`no tab shows by=${by}`);
}

/** Load the task's page in the agent's tab, then replay its routine with one counted call; the page's state says what was done. */
async function replayOnce(h: Harness, driver: Browser, srv: PageServer, s: Saved, variant: Variant, tab: { by: string }): Promise<Replay> {
  const by = `${variant}${Math.random().toString(36).slice(2, 7)}`;
  const page = await pageFor(driver, tab.by);
  // A routine that opens its page itself asks for it with no variant: the server serves this one.
  srv.serve(variant);
  await page.goto(srv.url(s.task.page, { by, variant }));
  const t = tally();
  const args = { name: s.task.id, ...(INPUTS[s.task.id] ? { inputs: INPUTS[s.task.id] } : {}) };
  const started = performance.now();
  const r = (await h.call('run_routine', args)) as CallToolResult;
  const ms = performance.now() - started;
  await countAnswer(r, t);
  const state = (await page.evaluate('window.state')) as Record<string, unknown> | undefined;
  tab.by = new URL(page.url()).searchParams.get('by') ?? by;
  const text = callText(r);
  const step = /^ROUTINE_DIVERGED: Step (\d+)/.exec(text)?.[1];
  return {
    done: !r.isError && s.task.check(state, text),
    ms,
    calls: t.calls,
    // What the model reads (the answer's text, as the economy counts it) and what it writes (the request).
    tokens: tokens(t) + Math.round(JSON.stringify({ name: 'run_routine', arguments: args }).length / 4),
    structuredTokens: Math.round(JSON.stringify(r.structuredContent ?? {}).length / 4),
    ...(r.isError ? { code: /^([A-Z_]+):/.exec(text)?.[1] ?? 'ERROR', message: text.slice(0, 240) } : {}),
    ...(step ? { step: Number(step) } : {}),
    wrong: WRONG[s.task.id](state),
  };
}

/** The step a replay on the relabelled page must stop at: the first aiming at a button the page renamed (none: it must finish). */
function relabelledStep(h: Harness, s: Saved): number | undefined {
  const buttons = new Set(buttonsOf(pageHtml(s.task.page)).map((b) => b.toLowerCase()));
  const routine = JSON.parse(readFileSync(join(h.dataDir, 'routines', `${s.task.id}.json`), 'utf8')) as { steps: { aim?: { name: string; purpose: string }; to?: { name: string; purpose: string } }[] };
  // A field is found by its label, which the relabelling leaves alone (the search box is labelled "Search" like its button).
  const i = routine.steps.findIndex((st) => [st.aim, st.to].some((a) => a && a.purpose === 'control' && buttons.has(a.name.toLowerCase())));
  return i < 0 ? undefined : i + 1;
}

export default async function run(): Promise<BenchSection> {
  const srv = await servePages();
  const chrome = await startChromium({ url: 'about:blank' });
  const driver = await connectDriver(chrome.endpoint);
  const home = mkdtempSync(join(tmpdir(), 'sightline-bench-routines-'));
  const cv = join(home, 'cv.pdf');
  writeFileSync(cv, '%PDF-1.4\n% a one-page CV\n');
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-bench-routines-data-'));
  const source = createBrowserSource({ settings: { endpoint: chrome.endpoint, headless: true }, dataDir });
  const h = await startHarness({ sources: [source], settings: { sources: { browser: { enabled: true } }, files: { uploadRoots: [home] } } });
  try {
    const saved = await record(h, srv, cv);
    const replayed = saved.filter((s) => s.steps !== undefined);
    const tab = { by: 'record' };
    const m: Measured = { fresh: new Map(), changed: new Map(), relabelled: new Map(), hand: new Map() };
    for (let round = 0; round < ROUNDS; round++) {
      // The same steps by hand in Playwright, each on a fresh page, timed from the page loaded. Playwright
      // is connected only meanwhile: while connected it answers every dialog of the browser itself.
      const pw = await chromium.connectOverCDP(chrome.endpoint);
      try {
        const pwPage = await pw.contexts()[0]!.newPage();
        srv.serve('fresh');
        for (const s of saved) {
          await pwPage.goto(srv.url(s.task.page, { by: `pw${round}` }));
          const t0 = performance.now();
          await handWritten[s.task.id](pwPage, cv);
          m.hand.set(s.task.id, [...(m.hand.get(s.task.id) ?? []), performance.now() - t0]);
        }
        await pwPage.close();
      } finally {
        await pw.close().catch(() => undefined);
      }
      for (const s of replayed) {
        const r = await replayOnce(h, driver, srv, s, 'fresh', tab);
        m.fresh.set(s.task.id, [...(m.fresh.get(s.task.id) ?? []), r]);
        if (!r.done) process.stderr.write(`  ${s.task.id} fresh: NOT done ${r.message ?? ''}\n`);
      }
    }
    for (const variant of ['changed', 'relabelled'] as const) {
      for (const s of replayed) {
        const r = await replayOnce(h, driver, srv, s, variant, tab);
        m[variant].set(s.task.id, { ...r, expectStep: variant === 'relabelled' ? relabelledStep(h, s) : undefined });
        process.stderr.write(`  ${s.task.id} ${variant}: ${r.done ? 'done' : `NOT done ${r.message ?? ''}`}${r.wrong ? ' WRONG ACTION' : ''}\n`);
      }
    }
    const notes: string[] = [];
    return { title: 'Routines: the economy tasks saved once, replayed without a model', rows: rows(saved, m, notes), notes };
  } finally {
    await h.close();
    await source.dispose?.();
    await driver.disconnect().catch(() => undefined);
    await chrome.kill();
    chrome.cleanup();
    await srv.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Measured {
  fresh: Map<TaskId, Replay[]>;
  changed: Map<TaskId, Replay & { expectStep?: number }>;
  relabelled: Map<TaskId, Replay & { expectStep?: number }>;
  hand: Map<TaskId, number[]>;
}

function rows(saved: Saved[], m: Measured, notes: string[]): BenchRow[] {
  const n = saved.length;
  const unsaved = saved.filter((s) => s.steps === undefined).map((s) => `(${s.task.n})`);
  const freshDone = saved.filter((s) => (m.fresh.get(s.task.id) ?? []).length > 0 && m.fresh.get(s.task.id)!.every((r) => r.done));
  const changedDone = saved.filter((s) => m.changed.get(s.task.id)?.done);
  const changedStopped = [...m.changed.values()].filter((r) => !r.done);
  // On relabelled pages: a replay whose routine aims at a renamed button stops right there; one that does not, finishes.
  const relabelled = [...m.relabelled.values()];
  const relabelledRight = relabelled.filter((r) => (r.expectStep === undefined ? r.done : r.code === 'ROUTINE_DIVERGED' && r.step === r.expectStep));
  const all = [...[...m.fresh.values()].flat(), ...m.changed.values(), ...relabelled];
  const wrong = all.filter((r) => r.wrong).length;
  // Time per step over the tasks replayed: the routine's steps, the same actions by hand.
  const timed = freshDone.filter((s) => s.steps);
  const steps = timed.reduce((k, s) => k + s.steps!, 0);
  const replayMs = timed.reduce((k, s) => k + median(m.fresh.get(s.task.id)!.map((r) => r.ms)), 0);
  const handMs = timed.reduce((k, s) => k + median(m.hand.get(s.task.id)!), 0);
  const perTask = [...m.fresh.values()].flat();
  const maxTokens = Math.max(...perTask.map((r) => r.tokens));
  const maxCalls = Math.max(...perTask.map((r) => r.calls));
  for (const s of saved) {
    const f = m.fresh.get(s.task.id);
    const c = m.changed.get(s.task.id);
    const l = m.relabelled.get(s.task.id);
    const handT = median(m.hand.get(s.task.id) ?? []);
    const replayT = median((f ?? []).map((r) => r.ms));
    notes.push(
      `(${s.task.n}) ${s.task.title}: ${
        s.steps === undefined
          ? `not saved: ${s.error}; by hand in Playwright ${Math.round(handT)} ms`
          : `${s.steps} step${s.steps === 1 ? '' : 's'}; fresh pages ${f?.filter((r) => r.done).length ?? 0}/${f?.length ?? 0} done, median ${Math.round(replayT)} ms against ${Math.round(handT)} ms by hand in Playwright (${r2(replayT / handT)}×); changed page ${c?.done ? 'done' : `not done: ${c?.message ?? ''}`}; relabelled page ${l?.done ? 'done' : `stopped: ${l?.message?.split('. Hint')[0] ?? ''}`}${l?.expectStep ? ` (must stop at step ${l.expectStep})` : ' (aims at no renamed button: must finish)'}; run_routine ${f?.[0]?.tokens ?? 0} tokens (+${f?.[0]?.structuredTokens ?? 0} of structuredContent)`
      }`,
    );
  }
  notes.push(
    `Recorded once by the economy bench's scripted Sightline agent (bench/economySightline.ts) on the seven pages; each task's actions after the one that opened its page saved with save_routine (a task whose one action opened its page, reading it, is that navigation and the reads after it: the replay opens the page the recording read, in the variant being measured). Each replay: the bench loads the page in the agent's tab, then one run_routine call. Changed pages (bench/routinesPages.ts): every id renamed (the page's script follows), a banner above the content, restyled, forms and lists laid out in reverse, the first two sibling buttons swapped. Relabelled pages: every button the page is served with says "… now".`,
    `By hand in Playwright (bench/routinesPlaywright.ts): playwright-core ${PW_VERSION} over CDP on the same Chromium and pages, getByRole/getByLabel locators with their auto-wait, the time from the page loaded to the last step's return. ${ROUNDS} rounds alternate the two; medians. A drag replays with the drag tool's default 300 ms move (Playwright's dragTo moves at once), so it is the one task slower than by hand.`,
    'Tokens: the run_routine request (name and inputs, as JSON) and the answer\'s text at 4 characters a token, as the economy bench counts; structuredContent is for programs and is listed apart.',
  );
  return [
    { metric: `Tasks saved as routines and replayed on fresh pages: done${unsaved.length ? ` (${unsaved.join(', ')} not saved: no action)` : ''}`, value: freshDone.length, unit: `of ${n}`, target: `${n}/${n}`, pass: freshDone.length === n },
    { metric: 'Replayed on changed pages (ids renamed, banner, controls moved, restyled): done', value: changedDone.length, unit: `of ${n}`, target: `≥ ${n - 1}/${n}`, pass: changedDone.length >= n - 1 },
    { metric: 'Changed-page replays not done that stopped with ROUTINE_DIVERGED', value: changedStopped.filter((r) => r.code === 'ROUTINE_DIVERGED').length, unit: `of ${changedStopped.length}`, target: 'all', pass: changedStopped.every((r) => r.code === 'ROUTINE_DIVERGED') },
    { metric: 'Relabelled pages: replays that stopped with ROUTINE_DIVERGED at the step aiming at a renamed button (or finished when none)', value: relabelledRight.length, unit: `of ${relabelled.length}`, target: 'all', pass: relabelledRight.length === relabelled.length },
    { metric: 'Replays that left a wrong action on the page (all rounds and pages)', value: wrong, unit: `of ${all.length}`, target: '0', pass: wrong === 0 },
    { metric: `Replay time per step (${steps} steps of ${timed.length} tasks, medians of ${ROUNDS} rounds)`, value: steps ? replayMs / steps : NaN, unit: 'ms', ratio: r2(replayMs / handMs), against: `the same steps by hand in Playwright: ${steps ? Math.round(handMs / steps) : '?'} ms a step`, target: '≤ 1.5×', pass: replayMs / handMs <= 1.5 },
    slowest(timed, m),
    { metric: 'Calls an agent makes per task with run_routine (most)', value: maxCalls, unit: 'calls', target: '1', pass: maxCalls === 1 },
    { metric: 'Tokens per task with run_routine: the request + the answer text (most)', value: maxTokens, unit: 'tokens', target: '≤ 150', pass: maxTokens <= 150 },
  ];
}

/** The task whose replay is slowest against its steps by hand: a per-step total can hide one. */
function slowest(timed: Saved[], m: Measured): BenchRow {
  const ratios = timed.map((s) => ({ s, ratio: median(m.fresh.get(s.task.id)!.map((r) => r.ms)) / median(m.hand.get(s.task.id)!) })).sort((a, b) => b.ratio - a.ratio);
  const worst = ratios[0];
  return { metric: `Slowest task against its steps by hand${worst ? `: (${worst.s.task.n}) ${worst.s.task.title}` : ''}`, value: worst ? r2(worst.ratio) : NaN, unit: '×', against: ratios.slice(1).map((x) => `(${x.s.task.n}) ${r2(x.ratio)}×`).join(', ') };
}
