/**
 * Routines through the dashboard's HTTP API, on the real server and a real Chromium: the token
 * and the Origin check like every route, each body validated (errors with a code, a message and
 * a hint), a routine saved from the activity-log entries a person ticked with a value made an
 * input, listed with its last replay, replayed through the same gate as an agent (its actions in
 * the log as a run named after it, asked by "dashboard"), refused before its first step when an
 * input is missing, answered "stopped" with the step where the page differs, and removed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/main/core/http/server.ts';
import type { ApiError, ProgressInfo } from '../../../src/shared/api.ts';
import type { RoutineDetail, RoutineRunResult, RoutineView } from '../../../src/shared/routines.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { evalIn, open, type Ctx } from '../browser/kit.ts';

let c: Ctx;
let h: Harness;
let server: RunningServer;
const EMAIL = 'ada@example.org';
const PASSWORD = 'correct-horse-42';

beforeAll(async () => {
  c = await open('routines/order.html');
  h = await startHarness({ sources: [c.source], settings: { sources: { browser: { enabled: true } } } });
  server = await startServer(h.core, { port: 0, log: () => undefined });
});

afterAll(async () => {
  await server?.close();
  await h?.close();
  await c?.close();
});

async function api<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: T }> {
  const res = await fetch(`${server.url}/api${path}`, {
    method,
    headers: { Authorization: `Bearer ${server.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as T };
}
const fail = (r: { json: unknown }): ApiError => (r.json as { error: ApiError }).error;

async function ok(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const r = await h.call(name, args);
  expect(r.isError, textOf(r)).toBeFalsy();
  return r;
}

const path = (): Promise<string> => evalIn<string>(c, 'location.pathname');
const clicked = async (): Promise<string[]> => (await evalIn<string[] | undefined>(c, 'window.state && window.state.clicked')) ?? [];

describe('routines over the dashboard API', () => {
  let ids: number[];

  it('refuses a request without the token, or from another origin', async () => {
    const bare = await fetch(`${server.url}/api/routines`);
    expect(bare.status).toBe(401);
    expect(((await bare.json()) as { error: ApiError }).error).toMatchObject({ code: 'PERMISSION_DENIED', hint: expect.stringContaining('Authorization') });
    const foreign = await api('POST', '/routines/x/run', {}, { Origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(fail(foreign)).toMatchObject({ code: 'PERMISSION_DENIED', message: 'Origin not allowed.' });
  });

  it('lists none at first, with the kinds of action a routine replays', async () => {
    const r = await api<{ routines: RoutineView[]; stepKinds: string[] }>('GET', '/routines');
    expect(r.status).toBe(200);
    expect(r.json.routines).toEqual([]);
    expect(r.json.stepKinds).toEqual(expect.arrayContaining(['click', 'type_text', 'navigate']));
    expect(r.json.stepKinds).not.toContain('scroll');
  });

  it('validates what saving takes: each error has a code, a message and a hint', async () => {
    await ok('capture', { target: c.target });
    await ok('type_text', { target: c.target, field: 'Email', text: EMAIL });
    await ok('type_text', { target: c.target, field: 'Password', text: PASSWORD });
    await ok('click', { target: c.target, text: 'Place order' });
    ids = h.core.activity
      .list({ limit: 50 })
      .filter((e) => e.result === 'ok' && e.tool !== 'capture')
      .map((e) => e.id)
      .sort((a, b) => a - b);
    expect(ids).toHaveLength(3);
    const cases: [unknown, number, RegExp][] = [
      [{}, 400, /body "name"/],
      [{ name: 'order' }, 400, /Give "runId", or the "actions" chosen/],
      [{ name: 'order', actions: [] }, 400, /body "actions"/],
      [{ name: 'order', actions: ids, extra: 1 }, 400, /body "extra"/],
      [{ name: '../etc', actions: ids }, 400, /is not a routine name/],
      [{ name: 'order', runId: 'no/such', actions: ids }, 400, /body "runId"/],
      [{ name: 'order', runId: 'no-such-run', actions: ids }, 400, /no entry .* in run "no-such-run"/],
      [{ name: 'order', actions: [ids[0]!, 999_999] }, 400, /A routine is at most 1000 entries of the log apart/],
      [{ name: 'order', actions: ids, inputs: { email: 2 } }, 400, /Action 2's text is already an input/],
      [{ name: 'order', actions: ids, inputs: { email: 3 } }, 400, /Action 3 types no text/],
    ];
    for (const [body, status, message] of cases) {
      const r = await api('POST', '/routines', body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      const e = fail(r);
      expect(e.code).toBe('INVALID_ARGUMENT');
      expect(e.message).toMatch(message);
      expect(e.hint, JSON.stringify(e)).toBeTruthy();
    }
    expect((await api('GET', '/routines')).json).toMatchObject({ routines: [] });
  });

  it('saves the actions ticked, a typed value made an input and the password a secret one, stored nowhere', async () => {
    const r = await api<RoutineDetail>('POST', '/routines', { name: 'order', actions: ids, inputs: { email: 1 } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({ name: 'order', steps: 3, from: { actions: [ids[0], ids[2]] } });
    expect(r.json.inputs).toEqual([
      expect.objectContaining({ name: 'password', secret: true, required: true }),
      expect.objectContaining({ name: 'email', secret: false, required: false }),
    ]);
    expect(r.json.stepList.map((s) => s.action)).toEqual(['type_text textbox "Email"', 'type_text textbox "Password"', 'click button "Place order"']);
    expect(r.json.stepList[0]!.inputs).toEqual(['email']);
    expect(r.json.stepList[2]!.expects).toMatch(/^the page http:\/\/127\.0\.0\.1:\d+\/routines\/done\.html$/);
    const file = readFileSync(join(h.dataDir, 'routines', 'order.json'), 'utf8');
    expect(file).not.toContain(PASSWORD);
    // Ticking two of three: the click alone.
    const one = await api<RoutineDetail>('POST', '/routines', { name: 'order-click', actions: [ids[2]!] });
    expect(one.json.steps).toBe(1);
    const again = await api('POST', '/routines', { name: 'order', actions: ids });
    expect(again.status).toBe(400);
    expect(fail(again)).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'A routine "order" exists already.' });
  });

  it('reads one routine by name only, never a path', async () => {
    expect((await api<RoutineDetail>('GET', '/routines/order')).json.stepList).toHaveLength(3);
    const missing = await api('GET', '/routines/nope');
    expect(missing.status).toBe(404);
    expect(fail(missing)).toMatchObject({ code: 'ROUTINE_NOT_FOUND', hint: expect.any(String) });
    const traversal = await api('GET', `/routines/${encodeURIComponent('../settings.json')}`);
    expect(traversal.status).toBe(400);
    expect(fail(traversal).message).toMatch(/is not a routine name/);
  });

  it('refuses a replay before its first step when the secret input is missing, or an input is unknown', async () => {
    await c.page.goto(c.srv.url('routines/order.html'));
    const r = await api('POST', '/routines/order/run', { inputs: {} });
    expect(r.status).toBe(422);
    expect(fail(r)).toMatchObject({ code: 'INPUT_REQUIRED', message: 'Routine "order" needs "password": nothing was done.', hint: expect.stringContaining('password=') });
    const unknown = await api('POST', '/routines/order/run', { inputs: { password: PASSWORD, colour: 'red' } });
    expect(fail(unknown)).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'Routine "order" has no input "colour".' });
    const bad = await api('POST', '/routines/order/run', { inputs: { password: 42 } });
    expect(fail(bad).message).toMatch(/body "inputs.password"/);
    expect(await clicked()).toEqual([]);
    expect(await path()).toBe('/routines/order.html');
  });

  it('replays through the same gate as an agent: a run named after it, its actions in the log as the dashboard’s', async () => {
    const told: string[] = [];
    const onProgress = (p: ProgressInfo): void => void told.push(`${p.label}${p.finished ? ' (finished)' : ''}`);
    h.core.events.on('progress', onProgress);
    const r = await api<RoutineRunResult>('POST', '/routines/order/run', { inputs: { password: PASSWORD, email: 'grace@example.org' } });
    h.core.events.off('progress', onProgress);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    // Every open dashboard's header follows the replay.
    expect(told).toEqual(['Routine order: step 1/3: type_text textbox "Email"', 'Routine order: step 2/3: type_text textbox "Password"', 'Routine order: step 3/3: click button "Place order"', 'Routine order: done (finished)']);
    expect(r.json).toMatchObject({ routine: 'order', status: 'done', done: 3, total: 3, target: c.target });
    expect(await path()).toBe('/routines/done.html');
    const acts = h.core.activity.list({ run: r.json.runId });
    expect(acts.map((a) => a.tool).sort()).toEqual(['click', 'type_text', 'type_text']);
    expect(acts.every((a) => a.client === 'dashboard')).toBe(true);
    // The input given replaced the value recorded.
    expect(acts.filter((a) => a.tool === 'type_text').map((a) => a.params?.text)).toContain('grace@example.org');
    expect(JSON.stringify(acts)).not.toContain(PASSWORD);
    const listed = await api<{ routines: RoutineView[] }>('GET', '/routines');
    const order = listed.json.routines.find((x) => x.name === 'order');
    expect(order?.last).toMatchObject({ runId: r.json.runId, status: 'done', durationMs: expect.any(Number) });
    // A run is saved whole, or the actions of it ticked; an action of another run is refused.
    const whole = await api<RoutineDetail>('POST', '/routines', { name: 'replayed', runId: r.json.runId });
    expect(whole.json).toMatchObject({ steps: 3, from: { run: r.json.runId } });
    const click = acts.find((a) => a.tool === 'click')!.id;
    expect((await api<RoutineDetail>('POST', '/routines', { name: 'replayed-click', runId: r.json.runId, actions: [click] })).json.steps).toBe(1);
    const other = await api('POST', '/routines', { name: 'mixed', runId: r.json.runId, actions: [click, ids[0]!] });
    expect(fail(other).message).toBe(`The activity log has no entry ${ids[0]} in run "${r.json.runId}".`);
    await api('DELETE', '/routines/replayed', {});
    await api('DELETE', '/routines/replayed-click', {});
  });

  it('answers "stopped" at the step where the page differs, touching nothing after it; the list says so', { timeout: 30_000 }, async () => {
    await c.page.goto(c.srv.url('routines/relabelled.html'));
    const r = await api<RoutineRunResult>('POST', '/routines/order/run', { inputs: { password: PASSWORD }, stepTimeoutMs: 1000 });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: 'stopped', done: 2, total: 3, stop: { code: 'ROUTINE_DIVERGED', step: 3, saw: expect.stringMatching(/^none after 1000 ms/) } });
    expect(r.json.stop?.expected).toMatch(/^exactly one (button|element) "Place order"$/);
    expect(r.json.stop?.hint).toMatch(/Look at frame \S+/);
    expect(await clicked()).toEqual([]);
    expect(await path()).toBe('/routines/relabelled.html');
    const order = (await api<{ routines: RoutineView[] }>('GET', '/routines')).json.routines.find((x) => x.name === 'order');
    expect(order?.last).toMatchObject({ runId: r.json.runId, status: 'stopped', stop: { code: 'ROUTINE_DIVERGED', step: 3 } });
  });

  it('removes a routine, and says so when there is none', async () => {
    expect((await api('DELETE', '/routines/order-click', {})).json).toEqual({ deleted: 'order-click' });
    const again = await api('DELETE', '/routines/order-click', {});
    expect(again.status).toBe(404);
    expect(fail(again).code).toBe('ROUTINE_NOT_FOUND');
    expect((await api<{ routines: RoutineView[] }>('GET', '/routines')).json.routines.map((x) => x.name)).toEqual(['order']);
  });
});
