/**
 * An Android routine end to end on the fake device behind the real adb server: an agent's run
 * recorded through MCP (launch the app, type into the Email field by its hint, tap the password
 * field and type, press Enter, tap Sign in), saved (the password becomes a required input),
 * replayed on the screen afresh, on a screen that changed (a banner above the form, the button
 * moved, another screen size and density), and on screens where it must stop (the button
 * relabelled, a field gone) without any input after the step that differs.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { androidModule } from '../../../src/main/core/sources/android/module.ts';
import type { FakeAdbDevice } from '../../support/fakeAdbDevice.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { startAdb, type AdbHarness } from '../android/harness.ts';
import { divergence } from './kit.ts';

const PKG = 'com.example.fake';
const EMAIL = 'ada@example.org';
const PASSWORD = 'correct-horse-42';
const FIELD = 'com.example.fake:id/';

let adb: AdbHarness;
let d: FakeAdbDevice;
let h: Harness;
let target: string;
/** The routine's secret input (named after its field when saved). */
let secret = '';

beforeAll(async () => {
  adb = await startAdb();
  d = await adb.device();
  d.ui.screen = 'signin';
  target = `android:${d.serial}`;
  h = await startHarness({ env: adb.env, modules: [androidModule] });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await adb?.stop();
});

async function ok(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const r = await h.call(name, args);
  expect(r.isError, textOf(r)).toBeFalsy();
  return r;
}

/** The sign-in screen afresh (empty fields, nothing pressed), laid out as `layout` says. */
function fresh(layout: typeof d.ui.signin = {}): void {
  d.ui.screen = 'signin';
  d.ui.signin = layout;
  d.ui.values.clear();
  d.ui.focused = undefined;
  d.ui.imeShown = false;
  d.ui.pressed.length = 0;
  d.ui.submitted.length = 0;
  d.foreground = 'com.android.launcher3';
}

const fields = (): { email?: string; password?: string } => ({ email: d.ui.values.get(`${FIELD}email`), password: d.ui.values.get(`${FIELD}password`) });

describe('an Android routine', () => {
  it('is saved from the actions an agent made on the device; its target is the package it launched; the password is a required input', async () => {
    fresh();
    await ok('launch_app', { target, package: PKG });
    await ok('type_text', { target, field: 'Email', text: EMAIL });
    await ok('click', { target, text: 'Password' });
    await ok('type_text', { target, text: PASSWORD });
    await ok('press_key', { target, key: 'Enter' });
    await ok('click', { target, text: 'Sign in' });
    expect(fields()).toEqual({ email: EMAIL, password: PASSWORD });
    expect(d.ui.pressed).toEqual(['Sign in']);

    const r = await ok('save_routine', { name: 'phone-signin' });
    const s = r.structuredContent as { path: string; inputs: { name: string; secret: boolean; required: boolean }[]; steps: number; target: unknown };
    expect(s.steps).toBe(6);
    expect(s.target).toEqual({ source: 'android', package: PKG });
    expect(s.inputs).toEqual([expect.objectContaining({ secret: true, required: true })]);
    secret = s.inputs[0]!.name;
    const file = readFileSync(s.path, 'utf8');
    expect(file).not.toContain(PASSWORD);
    const routine = JSON.parse(file) as { steps: { kind: string; aim?: unknown; params: Record<string, unknown> }[] };
    expect(routine.steps.map((x) => x.kind)).toEqual(['launch_app', 'type_text', 'click', 'type_text', 'press_key', 'click']);
    expect(routine.steps[0]).toMatchObject({ params: { package: PKG } });
    expect(routine.steps[1]).toMatchObject({ aim: { name: 'Email', purpose: 'field' }, params: { text: EMAIL } });
    expect(routine.steps[2]).toMatchObject({ aim: { name: 'Password', purpose: 'control' } });
    expect(routine.steps[3]).toMatchObject({ params: { text: { input: s.inputs[0]!.name } } });
    expect(routine.steps[5]).toMatchObject({ aim: { role: 'android.widget.Button', name: 'Sign in', purpose: 'control' } });
    expect(JSON.stringify(routine)).not.toMatch(/"node"|"x":|"y":|"ref"/);
  });

  it('is looked for by the package in front, as list_targets names the device; one that launches its app needs only a device', async () => {
    const listed = (await ok('list_targets', {})).structuredContent as { targets: { id: string; app?: string; details?: Record<string, unknown> }[] };
    expect(listed.targets.find((t) => t.id === target)).toMatchObject({ app: PKG, details: { package: PKG } });
    // The same run without its launch: the app in front when it was recorded names the device.
    const part = (await ok('save_routine', { name: 'phone-signin-in-app', fromAction: 2, toAction: 6 })).structuredContent as { target: unknown; inputs: { name: string }[] };
    expect(part.target).toEqual({ source: 'android', package: PKG });
    fresh();
    const before = d.inputs.length;
    const r = await h.call('run_routine', { name: 'phone-signin-in-app', inputs: { [part.inputs[0]!.name]: PASSWORD } });
    expect(textOf(r)).toBe(`TARGET_NOT_FOUND: Routine "phone-signin-in-app" acts on a device with ${PKG} in front, and there is none. Hint: Open it, or give the target to act on (target / --target) from list_targets.`);
    expect(d.inputs.length).toBe(before);
    d.foreground = PKG;
    await ok('run_routine', { name: 'phone-signin-in-app', inputs: { [part.inputs[0]!.name]: PASSWORD } });
    expect(fields()).toEqual({ email: EMAIL, password: PASSWORD });
    expect(d.ui.pressed).toEqual(['Sign in']);
  });

  it('replays on the screen afresh: the app launched, both fields typed, Enter and the button pressed; a run named after it, each step with its frames', async () => {
    fresh();
    const starts = d.apps.started.length;
    const r = await ok('run_routine', { name: 'phone-signin', inputs: { [secret]: PASSWORD } });
    const out = r.structuredContent as { runId: string; target: string; steps: { ok: boolean }[] };
    expect(out.target).toBe(target);
    expect(out.steps).toHaveLength(6);
    expect(d.foreground).toBe(PKG);
    expect(d.apps.started.slice(starts)).toEqual([expect.objectContaining({ component: `${PKG}/.MainActivity` })]);
    expect(fields()).toEqual({ email: EMAIL, password: PASSWORD });
    expect(d.ui.submitted).toEqual([PASSWORD]);
    expect(d.ui.pressed).toEqual(['Sign in']);

    const acts = h.core.activity.list({ run: out.runId });
    expect(acts.map((a) => a.tool).reverse()).toEqual(['launch_app', 'type_text', 'click', 'type_text', 'press_key', 'click']);
    expect(acts.every((a) => a.result === 'ok' && a.run?.id === out.runId)).toBe(true);
    // The taps and the typing have a frame before and after, as a live agent's do.
    expect(acts.filter((a) => a.tool !== 'launch_app' && a.tool !== 'press_key').every((a) => a.frameRef && a.afterRef)).toBe(true);
    expect(JSON.stringify(acts)).not.toContain(PASSWORD);
    const run = JSON.parse(readFileSync(join(h.dataDir, 'runs', out.runId, 'run.json'), 'utf8')) as { goal: string; status: string };
    expect(run).toMatchObject({ goal: 'routine phone-signin', status: 'done' });
  });

  it('replays on a changed screen: a banner above the form, the button moved above the fields, another screen size and density', async () => {
    const was = { w: d.naturalWidth, h: d.naturalHeight, density: d.density };
    fresh({ banner: 'New: sign in with your passkey', moved: true });
    d.naturalWidth = 720;
    d.naturalHeight = 1280;
    d.density = 320;
    try {
      await ok('run_routine', { name: 'phone-signin', inputs: { [secret]: PASSWORD } });
      expect(fields()).toEqual({ email: EMAIL, password: PASSWORD });
      expect(d.ui.pressed).toEqual(['Sign in']);
      // The tap landed inside the moved button, on the smaller screen: (0.08..0.4, 0.32..0.38) of 720×1280.
      const tap = d.inputs.filter((i) => i.kind === 'tap').at(-1) as { x: number; y: number };
      expect(tap.x).toBeLessThan(0.4 * 720);
      expect(tap.y).toBeGreaterThan(0.32 * 1280);
      expect(tap.y).toBeLessThan(0.38 * 1280);
    } finally {
      d.naturalWidth = was.w;
      d.naturalHeight = was.h;
      d.density = was.density;
    }
  });

  it('stops at the relabelled button with ROUTINE_DIVERGED (step, kind, expected, saw, frame) and taps nothing after it', { timeout: 30_000 }, async () => {
    fresh({ button: 'Log in' });
    const before = d.inputs.length;
    const r = await h.call('run_routine', { name: 'phone-signin', inputs: { [secret]: PASSWORD } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^ROUTINE_DIVERGED: Step 6 \(click android\.widget\.Button "Sign in"\): expected exactly one .*"Sign in"; saw none after \d+ ms; there is .*"Log in"/);
    expect(textOf(r)).toMatch(/Nothing after it was done\. Hint: Look at frame \S+/);
    // Steps 1–5 acted (the fields hold their text, Enter was pressed); nothing was tapped after them.
    expect(fields()).toEqual({ email: EMAIL, password: PASSWORD });
    expect(d.ui.pressed).toEqual([]);
    const after = d.inputs.slice(before);
    expect(after.at(-1)).toMatchObject({ kind: 'key', code: 66 });
    expect(h.core.activity.list({ limit: 1 })[0]!.tool).not.toBe('click');
    // The run says where it stopped, as the dashboard shows it.
    type Run = { status: string; startedAt: string; stop: { reason: string; exitCode: number }; steps: { outcome: string }[] };
    const runs = readdirSync(join(h.dataDir, 'runs'))
      .filter((x) => x.startsWith('routine-phone-signin-2'))
      .map((x) => JSON.parse(readFileSync(join(h.dataDir, 'runs', x, 'run.json'), 'utf8')) as Run);
    const run = runs.sort((p, q) => p.startedAt.localeCompare(q.startedAt)).at(-1)!;
    expect(run).toMatchObject({ status: 'stopped', stop: { reason: 'diverged', exitCode: 3 } });
    expect(run.steps.map((x) => x.outcome)).toEqual(['done', 'done', 'done', 'done', 'done', 'diverged']);
  });

  it('stops at its first field when the Email field is gone, having typed nothing', { timeout: 30_000 }, async () => {
    fresh({ noEmail: true });
    const before = d.inputs.length;
    // In process, as `sightline replay` runs it: the details the stop carries.
    const stop = await divergence(h, 'phone-signin', { [secret]: PASSWORD });
    expect(stop).toMatchObject({ step: 2, kind: 'type_text', expected: expect.stringMatching(/^exactly one .*"Email"$/), saw: expect.stringMatching(/^none after \d+ ms/) });
    expect(h.core.frames.find(stop.frame!)?.target).toBe(target);
    expect(d.inputs.slice(before)).toEqual([]);
    expect(fields()).toEqual({ email: undefined, password: undefined });
  });
});
