/**
 * A desktop routine end to end on a real X11 desktop (Xvfb + openbox, a real AT-SPI bus): an
 * agent's run on a GTK 3 form recorded through MCP (type into Email and Password by their labels,
 * click Save), saved (the password becomes a required input), replayed on a fresh window of the
 * same app, on one moved and resized, and on one whose Save button is relabelled, where it stops
 * before clicking anything. A Tk window shows no tree: its routine aims by the words OCR reads.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDesktopSource } from '../../../src/main/core/sources/desktop/desktopSource.ts';
import { startA11y, startGtkApp, type A11ySession, type GtkApp } from '../../support/a11y.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { divergence } from './kit.ts';
import { startTestApp, startXvfb, type AppEvent, type TestApp, type XDisplay } from '../../support/xvfb.ts';

const EMAIL = 'ada@example.org';
const PASSWORD = 'correct-horse-42';

let x: XDisplay;
let a: A11ySession;
let h: Harness;

beforeAll(async () => {
  x = await startXvfb('1280x800');
  a = await startA11y(x);
  const env = { PATH: process.env.PATH };
  h = await startHarness({ sources: [createDesktopSource({ settings: { display: x.display }, env })], env });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await a?.stop();
  await x?.stop();
});

async function ok(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const r = await h.call(name, args);
  expect(r.isError, textOf(r)).toBeFalsy();
  return r;
}

/** The newest run.json of a routine's replays. */
function lastRun(routine: string): { goal: string; status: string; startedAt: string; stop?: { reason: string }; steps: { outcome: string }[] } {
  const runs = readdirSync(join(h.dataDir, 'runs'))
    .filter((n) => n.startsWith(`routine-${routine}-2`))
    .map((n) => JSON.parse(readFileSync(join(h.dataDir, 'runs', n, 'run.json'), 'utf8')) as ReturnType<typeof lastRun>);
  return runs.sort((p, q) => p.startedAt.localeCompare(q.startedAt)).at(-1)!;
}

describe('a desktop routine (GTK 3, AT-SPI)', { timeout: 120_000 }, () => {
  let app: GtkApp | undefined;
  let secret = '';

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  /** A fresh window of the form (the one window of its app on the desktop). */
  async function open(opts: { geometry?: string; saveLabel?: string } = {}): Promise<{ app: GtkApp; target: string }> {
    app = await startGtkApp(a, { title: 'Sightline Signup', ...opts });
    return { app, target: `desktop:window:${app.windowId}` };
  }

  /** The form reported a click (now or before: the click tool may answer after the app reports it). */
  const clicked = async (w: GtkApp): Promise<void> => {
    if (!w.events.some((e) => e.event === 'click')) await w.next((e) => e.event === 'click');
  };

  /** What the form saw: the last value of each field, and the buttons pressed. */
  const seen = (events: AppEvent[]): { email?: unknown; password?: unknown; clicks: unknown[] } => ({
    email: events.filter((e) => e.event === 'text' && e.field === 'email').at(-1)?.value,
    password: events.filter((e) => e.event === 'text' && e.field === 'password').at(-1)?.value,
    clicks: events.filter((e) => e.event === 'click').map((e) => e.button),
  });

  it('is saved from an agent’s actions on the form; it names the window’s app; the password is a required input', async () => {
    const { app: w, target } = await open();
    await ok('capture', { target });
    await ok('type_text', { target, field: 'Email', text: EMAIL });
    const typed = await ok('type_text', { target, field: 'Password', text: PASSWORD });
    await ok('click', { target, text: 'Save' });
    await clicked(w);
    // A password field found by its label is known as one: its text is neither answered nor logged.
    expect(JSON.stringify(typed)).not.toContain(PASSWORD);
    expect(textOf(typed)).toMatch(/typed 16 characters into a password field/);
    expect(JSON.stringify(h.core.activity.list({ limit: 10 }))).not.toContain(PASSWORD);
    expect(seen(w.events)).toEqual({ email: EMAIL, password: '***', clicks: ['Save'] });

    const s = (await ok('save_routine', { name: 'gtk-signup' })).structuredContent as { path: string; target: { source: string; app: string }; inputs: { name: string; secret: boolean; required: boolean }[]; steps: number };
    expect(s.steps).toBe(3);
    const listed = (await ok('list_targets', { source: 'desktop' })).structuredContent as { targets: { id: string; app?: string }[] };
    const app = listed.targets.find((t) => t.id === target)?.app;
    expect(app).toBeTruthy();
    expect(s.target).toEqual({ source: 'desktop', app });
    expect(s.inputs).toEqual([expect.objectContaining({ secret: true, required: true })]);
    secret = s.inputs[0]!.name;
    const file = readFileSync(s.path, 'utf8');
    expect(file).not.toContain(PASSWORD);
    const routine = JSON.parse(file) as { steps: { kind: string; aim?: unknown; params: Record<string, unknown> }[] };
    expect(routine.steps.map((st) => st.kind)).toEqual(['type_text', 'type_text', 'click']);
    expect(routine.steps[0]).toMatchObject({ aim: { name: 'Email', purpose: 'field' }, params: { text: EMAIL } });
    expect(routine.steps[1]).toMatchObject({ aim: { name: 'Password', purpose: 'field' }, params: { text: { input: secret } } });
    expect(routine.steps[2]).toMatchObject({ aim: { name: 'Save', purpose: 'control' } });
    expect(JSON.stringify(routine)).not.toMatch(/"node"|"x":|"y":|"ref"/);
  });

  it('replays on a fresh window of the app: both fields typed, Save pressed; a run named after it, each step with its frames', async () => {
    const { app: w, target } = await open();
    const r = await ok('run_routine', { name: 'gtk-signup', inputs: { [secret]: PASSWORD } });
    const out = r.structuredContent as { runId: string; target: string; steps: { ok: boolean }[] };
    expect(out.target).toBe(target);
    await clicked(w);
    expect(seen(w.events)).toEqual({ email: EMAIL, password: '***', clicks: ['Save'] });
    const acts = h.core.activity.list({ run: out.runId });
    expect(acts.map((e) => e.tool).reverse()).toEqual(['type_text', 'type_text', 'click']);
    expect(acts.every((e) => e.result === 'ok' && e.frameRef && e.afterRef)).toBe(true);
    expect(JSON.stringify(acts)).not.toContain(PASSWORD);
    const run = JSON.parse(readFileSync(join(h.dataDir, 'runs', out.runId, 'run.json'), 'utf8')) as { goal: string; status: string };
    expect(run).toMatchObject({ goal: 'routine gtk-signup', status: 'done' });
  });

  it('replays on a window moved and resized', async () => {
    const { app: w } = await open({ geometry: '640x520+560+220' });
    await ok('run_routine', { name: 'gtk-signup', inputs: { [secret]: PASSWORD } });
    await clicked(w);
    expect(seen(w.events)).toEqual({ email: EMAIL, password: '***', clicks: ['Save'] });
  });

  it('stops at the relabelled button with ROUTINE_DIVERGED and clicks nothing', async () => {
    const { app: w } = await open({ saveLabel: 'Submit' });
    const r = await h.call('run_routine', { name: 'gtk-signup', inputs: { [secret]: PASSWORD } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^ROUTINE_DIVERGED: Step 3 \(click .*"Save"\): expected exactly one .*"Save"; saw none after \d+ ms.* Nothing after it was done\. Hint: Look at frame \S+/);
    // The steps before it acted; no button was pressed, and nothing came after.
    await new Promise((ok) => setTimeout(ok, 300));
    expect(seen(w.events)).toEqual({ email: EMAIL, password: '***', clicks: [] });
    const run = lastRun('gtk-signup');
    expect(run).toMatchObject({ status: 'stopped', stop: { reason: 'diverged' } });
    expect(run.steps.map((s) => s.outcome)).toEqual(['done', 'done', 'diverged']);
  });
});

describe('a desktop routine where there is no tree (a Tk window, read by OCR)', { timeout: 120_000 }, () => {
  let tk: TestApp | undefined;
  const clicks = (w: TestApp): number => w.events.filter((e) => e.event === 'click').length;

  afterEach(async () => {
    await tk?.close();
    tk = undefined;
  });

  async function open(opts: { geometry?: string; label?: string } = {}): Promise<{ w: TestApp; target: string }> {
    tk = await startTestApp(x, { title: 'Sightline Tk Routine', geometry: '400x300+100+100', ...opts });
    return { w: tk, target: `desktop:window:${tk.windowId}` };
  }

  it('is saved from a click by text OCR found, and replays by the words OCR reads, on a window moved and resized', async () => {
    const first = await open();
    await ok('capture', { target: first.target });
    await ok('click', { target: first.target, text: 'Click me' });
    if (!clicks(first.w)) await first.w.next((e) => e.event === 'click');
    // This session acted on the GTK form before: the routine is its last action alone.
    const session = h.core.activity.list({ limit: 1 })[0]!.session!;
    const n = h.core.activity.list({ session, limit: 1000 }).length;
    const s = (await ok('save_routine', { name: 'tk-click', fromAction: n, toAction: n })).structuredContent as { path: string; target: { source: string; app: string } };
    expect(s.target.source).toBe('desktop');
    const routine = JSON.parse(readFileSync(s.path, 'utf8')) as { steps: unknown[] };
    expect(routine.steps).toEqual([expect.objectContaining({ kind: 'click', aim: { name: 'Click me', purpose: 'control' } })]);
    await tk!.close();

    const { w, target } = await open({ geometry: '560x380+620+360' });
    const out = (await ok('run_routine', { name: 'tk-click' })).structuredContent as { runId: string; target: string };
    expect(out.target).toBe(target);
    if (!clicks(w)) await w.next((e) => e.event === 'click');
    expect(clicks(w)).toBe(1);
    const acts = h.core.activity.list({ run: out.runId });
    expect(acts).toEqual([expect.objectContaining({ tool: 'click', result: 'ok', message: expect.stringMatching(/found “Click me” by OCR/) })]);
    expect(acts[0]!.frameRef && acts[0]!.afterRef).toBeTruthy();
    expect(lastRun('tk-click')).toMatchObject({ goal: 'routine tk-click', status: 'done' });
  });

  it('stops when OCR reads another label, clicking nothing', async () => {
    const { w, target } = await open({ label: 'Press here' });
    const r = await h.call('run_routine', { name: 'tk-click' });
    expect(textOf(r)).toMatch(/^ROUTINE_DIVERGED: Step 1 \(click element "Click me"\): expected exactly one element "Click me"; saw none after \d+ ms/);
    // In process, as `sightline replay` runs it: the details the stop carries, with a frame of the window.
    const stop = await divergence(h, 'tk-click');
    expect(stop).toMatchObject({ step: 1, kind: 'click', expected: 'exactly one element "Click me"', saw: expect.stringMatching(/^none after \d+ ms/) });
    expect(h.core.frames.find(stop.frame!)?.target).toBe(target);
    await new Promise((done) => setTimeout(done, 300));
    expect(clicks(w)).toBe(0);
    expect(lastRun('tk-click')).toMatchObject({ status: 'stopped', stop: { reason: 'diverged' } });
  });
});
