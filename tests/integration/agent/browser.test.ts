/**
 * `sightline agent` end to end against real Chromium: the built CLI, its own `sightline mcp`
 * child (or the running `sightline serve`), both providers' real SDKs talking to the scripted
 * model server. A run reaches its goal; each safety stop ends with its exit code, acts on nothing
 * after the stop, and says why in its artifacts.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunView } from '../../../src/shared/activity.ts';
import { connectDriver, driverPage, resizeViewport, serveFixtures, startChromium, type FixtureServer, type RunningChromium } from '../../fixtures/browser/harness.ts';
import { serve } from '../../support/cli.ts';
import { act, startFakeModelServer, type FakeModelServer, type Received } from '../../support/fakeModelServer.ts';
import { tempDir } from '../../support/mcpHarness.ts';
import { KEY, leaks, listFiles, runAgent, stepFiles, type AgentRun } from './harness.ts';

let srv: FixtureServer;
let chrome: RunningChromium;
let driver: Browser;
let page: Page;
let model: FakeModelServer;
let dataDir: string;
const settings = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ sources: { desktop: { enabled: false }, android: { enabled: false }, manictime: { enabled: false } }, browser: { endpoint: chrome.endpoint }, ...extra });

beforeAll(async () => {
  srv = await serveFixtures();
  chrome = await startChromium({ url: srv.url('page.html') });
  driver = await connectDriver(chrome.endpoint);
  const tabs = (await (await fetch(`${chrome.endpoint}/json/list`)).json()) as { id: string; type: string; url: string }[];
  page = await driverPage(driver, tabs.find((t) => t.type === 'page' && t.url.endsWith('page.html'))!.id);
  model = await startFakeModelServer({ key: KEY });
  dataDir = tempDir('sightline-agent-');
  writeFileSync(join(dataDir, 'settings.json'), settings());
});

afterAll(async () => {
  await model?.close();
  await driver?.disconnect();
  await chrome?.kill();
  chrome?.cleanup();
  await srv?.close();
});

beforeEach(async () => {
  await page.goto(srv.url('page.html'));
  await resizeViewport(page, 1280, 800);
  model.requests.length = 0;
});

const anthropic = (...args: string[]): string[] => ['--provider', 'anthropic', '--base-url', model.url, '--target', 'page.html', ...args];
const anthropicEnv = { ANTHROPIC_API_KEY: KEY };
const stepOf = (r: Received): number => Number(/Step (\d+) of/.exec(r.text)?.[1]);
const state = async <T>(expr: string): Promise<T> => (await page.evaluate(expr)) as T;

/** The centre of an element, in pixels of the image the model was told about. */
async function at(selector: string, r: Received): Promise<{ x: number; y: number }> {
  const box = await page.$eval(selector, (el) => {
    const b = el.getBoundingClientRect();
    return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
  });
  const k = r.stated!.width / 1280;
  return { x: Math.round(box.x * k), y: Math.round(box.y * k) };
}

function expectClean(r: AgentRun): void {
  expect(model.problems()).toEqual([]);
  expect(leaks(r)).toEqual([]);
  expect(r.files).toEqual(expect.arrayContaining(['run.json', 'target.json', 'system-prompt.md']));
}

// Each run starts two Node processes (the agent, its sightline mcp): give loaded machines room.
const slow = { timeout: 180_000 };

describe('sightline agent on a real browser tab', slow, () => {
  it('fills the search field and presses Go (Anthropic SDK), with artifacts for every step', async () => {
    model.script(async (r) => {
      if (stepOf(r) === 1) return act({ action: 'type', text: 'sightline', ...(await at('#q', r)), why: 'Type the query into the search field' });
      if (stepOf(r) === 2) {
        // Click by node: the step's UI elements list the Go button with its id.
        const node = /^(\S+) button "Go"/m.exec(r.text)?.[1];
        return node ? act({ action: 'click', node, why: 'Press Go' }) : act({ action: 'noop', why: 'no Go button listed' });
      }
      return r.text.includes('click node') && /→ ok\s*$/m.test(r.text) ? act({ action: 'done', why: 'The page says Submitted' }) : act({ action: 'noop' });
    });
    const r = await runAgent([...anthropic('--goal', 'Search for "sightline"'), '--json'], { dataDir, env: anthropicEnv });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(await state<string[]>('window.state.submitted')).toEqual(['sightline']);
    expect(await page.$eval('#status', (el) => el.textContent)).toBe('Submitted: sightline');

    // What the model got: the image, its size stated, the goal, the history and the last outcome.
    expect(model.requests).toHaveLength(3);
    expect(model.requests.every((q) => q.provider === 'anthropic' && q.model === 'claude-sonnet-4-6')).toBe(true);
    expect(model.requests[0]!.image).toMatchObject({ mimeType: 'image/jpeg', width: 1000, height: 625 });
    expect(model.requests[0]!.text).toContain('Goal: Search for "sightline"');
    expect(model.requests[0]!.text).toContain('Last action: none yet');
    expect(model.requests[1]!.text).toMatch(/Last action: type "sightline" at \(\d+, \d+\) → ok/);
    expect(model.requests[2]!.text).toMatch(/1\. type "sightline".*→ ok\n2\. click node \S+ \(Press Go\) → ok/);

    // --json: the summary on stdout is run.json (less its status), nothing else.
    const run = r.run!;
    expect({ ...(JSON.parse(r.stdout) as object), status: 'done' }).toEqual(run);
    expect(run).toMatchObject({ status: 'done', stop: { reason: 'done', exitCode: 0 }, target: { title: 'Sightline browser test page' } });
    expect(run.steps.map((s) => s.outcome)).toEqual(['ok', 'ok', 'goal reached']);
    // The typed point: image pixels with the frame's ref, mapped by the server to CSS pixels.
    const typed = run.steps[0]!;
    expect(typed.call).toMatchObject({ name: 'type_text', arguments: { text: 'sightline', ref: typed.frame!.ref } });
    expect(typed.devicePoint!.x).toBeCloseTo(typed.imagePoint!.x * 1.28, 0);
    expectClean(r);
    expect(r.files).toEqual(expect.arrayContaining([...stepFiles(1), ...stepFiles(2), ...stepFiles(3), 'server.log']));
    // The screenshot on disk is the image the model saw.
    expect(readFileSync(join(r.dir!, 'step-01/screenshot.jpg')).length).toBe(model.requests[0]!.image!.bytes);
    expect(readFileSync(join(r.dir!, 'step-01/response.txt'), 'utf8')).toContain('"action":"type"');
  });

  it('reaches the goal through the OpenAI SDK, repairing one malformed answer, with live lines on stdout', async () => {
    let repaired = '';
    model.script(async (r) => {
      const n = stepOf(r);
      if (n === 1) return '```json\n' + act({ action: 'click', ...(await at('#q', r)), why: 'Focus the search field' }) + '\n```';
      if (n === 2 && !r.repair) return 'I will type the word now.';
      if (n === 2) {
        repaired = r.repair?.text ?? '';
        return act({ action: 'type', text: 'hello', why: 'Type into the focused field' });
      }
      if (n === 3) return act({ action: 'key', key: 'Enter', why: 'Submit the form' });
      return act({ action: 'done', why: 'Submitted' });
    });
    const r = await runAgent(['--provider', 'openai', '--base-url', model.openaiUrl, '--model', 'llava', '--target', 'Sightline browser test page', '--goal', 'Search for hello'], { dataDir, env: { OPENAI_API_KEY: KEY } });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(await state<string[]>('window.state.submitted')).toEqual(['hello']);
    expect(model.requests.map((q) => q.provider)).toEqual(['openai', 'openai', 'openai', 'openai', 'openai']);
    expect(model.requests[0]!.body).toMatchObject({ model: 'llava', max_tokens: 1024 });
    expect(repaired).toMatch(/not a JSON object/);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^step {1,2}1\/25 {2}click \(\d+, \d+\) {2}"Focus the search field" {2}→ ok {2}\d+ ms \(model \d+ ms\)$/);
    expect(lines[1]).toMatch(/^step {1,2}2\/25 {2}type "hello"/);
    expect(lines[2]).toMatch(/^step {1,2}3\/25 {2}key Enter/);
    expect(lines[4]).toMatch(/^Done in 4 steps, .*: Submitted$/);
    expect(lines[5]).toMatch(/^Exit 0\. Artifacts: /);
    expect(r.files).toEqual(expect.arrayContaining(['step-02/response.txt', 'step-02/response-repair.txt', 'step-02/request-repair.json']));
    expectClean(r);
  });

  it('--dry-run decides once and acts on nothing; --out puts the artifacts elsewhere', async () => {
    model.script(async (r) => act({ action: 'click', ...(await at('#counter', r)) }));
    const out = join(tempDir('sightline-agent-out-'), 'run');
    const r = await runAgent([...anthropic('--goal', 'Click the red button', '--dry-run', '--out', out)], { dataDir, env: anthropicEnv });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.dir).toBe(out);
    expect(r.run!.artifacts).toBe(out);
    expect(await state<number>('window.state.counter')).toBe(0);
    expect(r.run!.steps[0]!.outcome).toMatch(/^not acted \(dry run\): would call click/);
    expect(r.run!.steps[0]!.devicePoint).toBeDefined();
    expectClean(r);
  });
});

describe('safety stops', slow, () => {
  it('max steps: exit 3 after exactly N actions', async () => {
    model.script(async (r) => act({ action: 'click', ...(await at('#counter', r)) }));
    const r = await runAgent(anthropic('--goal', 'Click forever', '--max-steps', '3'), { dataDir, env: anthropicEnv });
    expect(r.code, r.stderr).toBe(3);
    expect(await state<number>('window.state.counter')).toBe(3);
    expect(model.requests).toHaveLength(3);
    expect(r.run!.stop).toMatchObject({ reason: 'maxSteps', exitCode: 3 });
    expectClean(r);
  });

  it('wall time: exit 4 while the model thinks; its late answer is never acted on', async () => {
    // The limit counts from the agent's start, start-up included (a few seconds on a loaded
    // machine): 8 s leaves the first step room to finish before the second one waits.
    model.script(async (r) => (stepOf(r) === 1 ? act({ action: 'click', ...(await at('#counter', r)) }) : { delayMs: 60_000, then: act({ action: 'click', ...(await at('#counter', r)) }) }));
    const r = await runAgent(anthropic('--goal', 'Click twice', '--max-time', '8s'), { dataDir, env: anthropicEnv });
    expect(r.code, r.stderr).toBe(4);
    expect(r.run!.durationMs).toBeGreaterThanOrEqual(8_000);
    expect(r.run!.durationMs).toBeLessThan(10_000);
    expect(r.run!.stop).toMatchObject({ reason: 'wallTime', exitCode: 4 });
    expect(r.run!.steps.map((s) => s.outcome)).toEqual(['ok', 'stopped: wallTime']);
    expect(model.requests).toHaveLength(2);
    await new Promise((ok) => setTimeout(ok, 500));
    expect(await state<number>('window.state.counter')).toBe(1);
    expectClean(r);
  });

  it('malformed JSON twice: exit 5 after one repair prompt, nothing acted', async () => {
    model.script(() => 'Sure! I would click the red button.');
    const r = await runAgent(anthropic('--goal', 'Click the red button'), { dataDir, env: anthropicEnv });
    expect(r.code, r.stderr).toBe(5);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.repair).toMatchObject({ reply: 'Sure! I would click the red button.', text: expect.stringMatching(/cannot be used: the reply is not a JSON object/) });
    expect(r.run!.stop).toMatchObject({ reason: 'modelError', exitCode: 5, message: expect.stringMatching(/malformed JSON twice/) });
    expect(await state<number>('window.state.counter')).toBe(0);
    expect(r.files).toEqual(expect.arrayContaining(['step-01/response.txt', 'step-01/response-repair.txt']));
    expectClean(r);
  });

  it('a provider error (HTTP 401) is a model error: exit 5, and the key is not in the message', async () => {
    model.script(() => ({ status: 401, message: 'invalid x-api-key' }));
    const r = await runAgent(['--provider', 'openai', '--base-url', model.openaiUrl, '--model', 'gpt-4.1', '--target', 'page.html', '--goal', 'x'], { dataDir, env: { OPENAI_API_KEY: KEY } });
    expect(r.code, r.stderr).toBe(5);
    expect(r.run!.stop.message).toMatch(/HTTP 401/);
    expect(r.files).toContain('step-01/error.txt');
    expectClean(r);
  });

  it('out-of-frame click: exit 6, nothing clicked', async () => {
    model.script((r) => act({ action: 'click', x: r.stated!.width + 5, y: 10 }));
    const r = await runAgent(anthropic('--goal', 'Click the red button'), { dataDir, env: anthropicEnv });
    expect(r.code, r.stderr).toBe(6);
    expect(r.run!.stop).toMatchObject({ reason: 'outOfFrame', message: '(1005, 10) is outside the 1000×625 image' });
    expect(r.run!.steps[0]!.outcome).toMatch(/^not acted/);
    expect(await state<unknown[]>('window.state.clicks')).toEqual([]);
    expectClean(r);
  });

  it('low confidence: exit 7 below --min-confidence, nothing clicked', async () => {
    model.script(async (r) => act({ action: 'click', ...(await at('#counter', r)), confidence: 0.2 }));
    const r = await runAgent(anthropic('--goal', 'Click the red button', '--min-confidence', '0.6'), { dataDir, env: anthropicEnv });
    expect(r.code, r.stderr).toBe(7);
    expect(r.run!.stop).toMatchObject({ reason: 'lowConfidence', message: 'confidence 0.2 is below --min-confidence 0.6' });
    expect(await state<number>('window.state.counter')).toBe(0);
    expectClean(r);
  });

  it('a refused action (allowlist): exit 9 with the code, nothing clicked', async () => {
    const dir = tempDir('sightline-agent-refused-');
    writeFileSync(join(dir, 'settings.json'), settings({ input: { allowlist: ['example.org'] } }));
    model.script(async (r) => act({ action: 'click', ...(await at('#counter', r)) }));
    const r = await runAgent(anthropic('--goal', 'Click the red button'), { dataDir: dir, env: anthropicEnv });
    expect(r.code, r.stderr).toBe(9);
    expect(r.run!.stop).toMatchObject({ reason: 'refused', code: 'NOT_ALLOWED' });
    expect(r.run!.steps[0]!.outcome).toBe('refused: NOT_ALLOWED');
    expect(await state<number>('window.state.counter')).toBe(0);
    expectClean(r);
  });

  it('the pause switch flipped mid-run in the running app: exit 8, the agent relays through it, nothing after', async () => {
    const dir = tempDir('sightline-agent-pause-');
    writeFileSync(join(dir, 'settings.json'), settings());
    const app = await serve(dir);
    try {
      model.script(async (r) => {
        if (stepOf(r) === 2) {
          const res = await fetch(`${app.base}/api/input/pause`, { method: 'POST', headers: { Authorization: `Bearer ${app.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ paused: true }) });
          expect(res.status).toBe(200);
        }
        return act({ action: 'click', ...(await at('#counter', r)) });
      });
      const r = await runAgent(anthropic('--goal', 'Click the red button twice'), { dataDir: dir, env: anthropicEnv });
      expect(r.code, r.stderr).toBe(8);
      expect(r.run!.stop).toMatchObject({ reason: 'paused', code: 'INPUT_PAUSED' });
      expect(r.run!.steps.map((s) => s.outcome)).toEqual(['ok', 'refused: INPUT_PAUSED']);
      expect(await state<number>('window.state.counter')).toBe(1);
      expect(readFileSync(join(r.dir!, 'server.log'), 'utf8')).toMatch(/bridge: relaying to the app/);
      // The app logged the agent's actions under its client name.
      const log = (await (await fetch(`${app.base}/api/activity?limit=10`, { headers: { Authorization: `Bearer ${app.token}` } })).json()) as { entries: { tool: string; client?: string }[] };
      expect(log.entries.filter((e) => e.tool === 'click').length).toBe(2);
      expect(JSON.stringify(log.entries)).toContain('sightline-agent');
      // …under its run: the dashboard filters by it and serves the run's own artifacts.
      const auth = { headers: { Authorization: `Bearer ${app.token}` } };
      const id = r.run!.runId;
      const ofRun = (await (await fetch(`${app.base}/api/activity?run=${id}`, auth)).json()) as { entries: { tool: string; result: string; run?: { id: string } }[] };
      expect(ofRun.entries.map((e) => [e.tool, e.result, e.run?.id])).toEqual([
        ['click', 'INPUT_PAUSED', id],
        ['click', 'ok', id],
      ]);
      const view = (await (await fetch(`${app.base}/api/runs/${id}`, auth)).json()) as RunView;
      expect(view).toMatchObject({ id, goal: 'Click the red button twice', status: 'stopped', stop: { reason: 'paused' } });
      expect(view.steps.map((s) => s.screenshot)).toEqual(r.run!.steps.map((s) => s.screenshot));
      const shot = await fetch(`${app.base}/api/runs/${id}/files/${encodeURIComponent(view.steps[0]!.screenshot!)}`, auth);
      expect(shot.status).toBe(200);
      expect(Buffer.from(await shot.arrayBuffer()).equals(readFileSync(join(r.dir!, view.steps[0]!.screenshot!)))).toBe(true);
      expectClean(r);
    } finally {
      await app.stop();
    }
  });

  it('Ctrl-C while the model thinks: exit 130, nothing acted', async () => {
    let proc: ChildProcess | undefined;
    model.script(async (r) => {
      proc?.kill('SIGINT');
      return { delayMs: 60_000, then: act({ action: 'click', ...(await at('#counter', r)) }) };
    });
    const r = await runAgent(anthropic('--goal', 'Click the red button'), { dataDir, env: anthropicEnv, onSpawn: (p) => (proc = p) });
    expect(r.code, r.stderr).toBe(130);
    expect(r.run!.stop).toMatchObject({ reason: 'interrupted', exitCode: 130 });
    expect(await state<number>('window.state.counter')).toBe(0);
    expectClean(r);
  });

  it('text typed into a password field reaches the page, and no file of the run nor of the data directory holds it', async () => {
    const secret = 'Typed-Secret-pw!42';
    await page.goto(srv.url('secrets.html'));
    await resizeViewport(page, 1280, 800);
    model.script(async (r) => (stepOf(r) === 1 ? act({ action: 'type', text: secret, ...(await at('#login', r)), why: 'Set the new password' }) : act({ action: 'done', why: 'Password set' })));
    const r = await runAgent(['--provider', 'anthropic', '--base-url', model.url, '--target', 'secrets.html', '--goal', `Set the new password to ${secret}`], { dataDir, env: anthropicEnv });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(await state<string>('document.getElementById("login").value')).toBe(secret);
    expect(leaks(r, secret)).toEqual(['stdout']);
    expect(readFileSync(join(r.dir!, 'step-01/action.json'), 'utf8')).toContain('typed 18 characters into a password field');
    const files = listFiles(dataDir).filter((f) => !f.startsWith('runs/') || f.startsWith(`runs/${basename(r.dir!)}/`));
    for (const f of files) expect(readFileSync(join(dataDir, f)).includes(secret), f).toBe(false);
  });

  it('a target that matches nothing is a usage error (exit 2) listing the targets', async () => {
    const r = await runAgent(anthropic('--goal', 'x').map((a) => (a === 'page.html' ? 'no-such-tab' : a)), { dataDir, env: anthropicEnv });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/No target matches "no-such-tab"[\s\S]*page\.html/);
    expect(model.requests).toHaveLength(0);
  });
});
