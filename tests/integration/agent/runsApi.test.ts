/**
 * The dashboard API over agent runs, through the real `sightline serve`: the agent's own MCP
 * client (src/cli/agent/mcp.ts) relays through `sightline mcp` to the running server, so every
 * action it asks for is logged under its run; `/api/activity?run=` lists exactly a run's
 * actions, `/api/runs/:id` reads its run.json and lists its files, and a file is served only
 * from `<data dir>/runs/<id>/` (after symlinks), with the token, to a loopback Origin.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunArtifacts } from '../../../src/cli/agent/artifacts.ts';
import { connectSightline, type SightlineClient } from '../../../src/cli/agent/mcp.ts';
import type { ApiError } from '../../../src/shared/api.ts';
import type { ActivityEntry, RunView } from '../../../src/shared/activity.ts';
import { BIN, serve, type Served } from '../../support/cli.ts';
import { tempDir } from '../../support/mcpHarness.ts';

const TARGET = 'desktop:window:0x3a00007';

describe('agent runs in the dashboard API', () => {
  let dataDir: string;
  let s: Served;
  let shot: Buffer;
  let a: RunArtifacts;
  let b: RunArtifacts;
  const clients: SightlineClient[] = [];

  /** A run as `sightline agent` leaves it: run.json, target.json and a step with its screenshot. */
  async function writeRun(run: RunArtifacts, goal: string, steps: number): Promise<void> {
    run.write('target.json', { id: TARGET, title: 'main.ts — sightline', source: 'desktop', kind: 'window' });
    const records = [];
    for (let n = 1; n <= steps; n++) {
      run.write(`step-0${n}/screenshot.jpg`, shot);
      run.write(`step-0${n}/action.json`, { step: n, action: `click (${n * 10}, 20)` });
      records.push({ step: n, startedAt: new Date().toISOString(), screenshot: `step-0${n}/screenshot.jpg`, action: `click (${n * 10}, 20)`, why: 'the button', outcome: 'refused: SOURCE_DISABLED', timings: { totalMs: 5, overheadMs: 5 } });
    }
    run.write('run.json', { runId: run.id, artifacts: run.dir, goal, target: { id: TARGET, title: 'main.ts — sightline', source: 'desktop', kind: 'window' }, provider: 'anthropic', model: 'claude-test', dryRun: false, startedAt: new Date().toISOString(), endedAt: new Date().toISOString(), durationMs: 1234, stop: { reason: 'refused', exitCode: 6, message: 'SOURCE_DISABLED', code: 'SOURCE_DISABLED' }, steps: records, status: 'stopped' });
    expect(await run.flush()).toBeUndefined();
  }

  /** The agent's MCP client, relayed by `sightline mcp` to the running server. */
  async function agentClient(run: RunArtifacts): Promise<SightlineClient> {
    const c = await connectSightline({ command: process.execPath, args: [BIN, 'mcp', '--data-dir', dataDir], env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' }, run: { id: run.id, artifacts: run.dir }, version: '0.0.0' });
    clients.push(c);
    return c;
  }

  beforeAll(async () => {
    dataDir = tempDir('sightline-runs-api-');
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ sources: { desktop: { enabled: false }, browser: { enabled: false }, android: { enabled: false }, manictime: { enabled: false } } }));
    shot = await sharp({ create: { width: 64, height: 40, channels: 3, background: '#3a6' } }).jpeg().toBuffer();
    a = RunArtifacts.create({ dataDir, goal: 'Click the red button', at: new Date(), secrets: [] });
    b = RunArtifacts.create({ dataDir, goal: 'Open the settings', at: new Date(), secrets: [] });
    await writeRun(a, 'Click the red button', 2);
    await writeRun(b, 'Open the settings', 1);
    s = await serve(dataDir);
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await s?.stop();
  });

  const auth = (): Record<string, string> => ({ Authorization: `Bearer ${s.token}` });
  const get = (path: string, headers: Record<string, string> = auth()): Promise<Response> => fetch(`${s.base}${path}`, { headers });
  const json = async <T>(path: string): Promise<T> => (await get(path)).json() as Promise<T>;
  const error = async (path: string, status: number): Promise<ApiError> => {
    const r = await get(path);
    expect(r.status, path).toBe(status);
    return ((await r.json()) as { error: ApiError }).error;
  };

  it('logs each action under the run its MCP calls named, and filters the log by run', async () => {
    const ca = await agentClient(a);
    await ca.call('click', { target: TARGET, x: 10, y: 20 });
    await ca.call('click', { target: TARGET, x: 20, y: 20 });
    const cb = await agentClient(b);
    await cb.call('press_key', { target: TARGET, key: 'Enter' });

    const ofA = (await json<{ entries: ActivityEntry[] }>(`/api/activity?run=${a.id}`)).entries;
    expect(ofA.map((e) => [e.tool, e.run?.id, e.client])).toEqual([
      ['click', a.id, 'sightline-agent'],
      ['click', a.id, 'sightline-agent'],
    ]);
    expect(ofA[0]!.run!.artifacts).toBe(a.dir);
    const ofB = (await json<{ entries: ActivityEntry[] }>(`/api/activity?run=${b.id}`)).entries;
    expect(ofB.map((e) => e.tool)).toEqual(['press_key']);
    expect((await json<{ entries: ActivityEntry[] }>('/api/activity?run=no-such-run')).entries).toEqual([]);
    // The whole log still has them all, newest first.
    expect((await json<{ entries: ActivityEntry[] }>('/api/activity')).entries.map((e) => e.run?.id)).toEqual([b.id, a.id, a.id]);
    const bad = await error('/api/activity?run=..%2Fx', 400);
    expect(bad).toMatchObject({ code: 'INVALID_ARGUMENT', key: 'run' });
    expect(bad.hint).toBeTruthy();
  });

  it('reads a run: its run.json summary, steps with their screenshots, and its files', async () => {
    const run = await json<RunView>(`/api/runs/${a.id}`);
    expect(run).toMatchObject({ id: a.id, goal: 'Click the red button', status: 'stopped', stop: { reason: 'refused', exitCode: 6, code: 'SOURCE_DISABLED' }, model: 'claude-test', target: { id: TARGET, title: 'main.ts — sightline' } });
    expect(run.steps).toEqual([
      { step: 1, action: 'click (10, 20)', why: 'the button', outcome: 'refused: SOURCE_DISABLED', screenshot: 'step-01/screenshot.jpg' },
      { step: 2, action: 'click (20, 20)', why: 'the button', outcome: 'refused: SOURCE_DISABLED', screenshot: 'step-02/screenshot.jpg' },
    ]);
    expect(run.files.map((f) => f.path)).toEqual(['run.json', 'step-01/action.json', 'step-01/screenshot.jpg', 'step-02/action.json', 'step-02/screenshot.jpg', 'target.json']);
    expect(run.files.find((f) => f.path === 'step-01/screenshot.jpg')!.bytes).toBe(shot.length);
    expect(run.problem).toBeUndefined();
  });

  it('serves a run’s files as what they are, never as a page that runs anything', async () => {
    const img = await get(`/api/runs/${a.id}/files/${encodeURIComponent('step-01/screenshot.jpg')}`);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await img.arrayBuffer()).equals(shot)).toBe(true);
    const summary = await get(`/api/runs/${a.id}/files/run.json`);
    expect(summary.headers.get('content-type')).toMatch(/^application\/json/);
    expect(summary.headers.get('x-content-type-options')).toBe('nosniff');
    expect(summary.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect(((await summary.json()) as { goal: string }).goal).toBe('Click the red button');
    // A file of a type the dashboard does not show is a download.
    writeFileSync(join(a.dir, 'notes.html'), '<script>alert(1)</script>');
    const html = await get(`/api/runs/${a.id}/files/notes.html`);
    expect(html.headers.get('content-type')).toBe('application/octet-stream');
    expect(html.headers.get('content-disposition')).toMatch(/^attachment/);
  });

  it('refuses what is not a run’s own file, with a code and a hint', async () => {
    const runs = join(dataDir, 'runs');
    // Names that are not names: traversal, hidden files, an absolute path.
    for (const p of ['..%2F..%2Ftoken', 'step-01%2F..%2F..%2F..%2Ftoken', '.hidden', '%2Fetc%2Fpasswd', 'a%2F%2Fb']) {
      const e = await error(`/api/runs/${a.id}/files/${p}`, 400);
      expect(e).toMatchObject({ code: 'INVALID_ARGUMENT', key: 'path' });
      expect(e.hint).toBeTruthy();
    }
    expect(await error('/api/runs/..', 404)).toBeTruthy(); // normalised away by the URL: no route
    expect((await error('/api/runs/.x', 400)).code).toBe('INVALID_ARGUMENT');
    // A symlink in the run folder to the token, and a run folder that is a link out of runs/.
    symlinkSync(join(dataDir, 'token'), join(a.dir, 'token.txt'));
    expect(await error(`/api/runs/${a.id}/files/token.txt`, 403)).toMatchObject({ code: 'PATH_REFUSED' });
    symlinkSync(dataDir, join(runs, 'escape'));
    expect(await error('/api/runs/escape', 404)).toMatchObject({ code: 'RUN_NOT_FOUND' });
    expect(await error('/api/runs/escape/files/token', 404)).toMatchObject({ code: 'RUN_NOT_FOUND' });
    // The listing never names the link.
    expect((await json<RunView>(`/api/runs/${a.id}`)).files.map((f) => f.path)).not.toContain('token.txt');
    // A run that is not here (e.g. written with --out elsewhere): not found, and why.
    const gone = await error('/api/runs/20991231-000000-elsewhere-abcd', 404);
    expect(gone).toMatchObject({ code: 'RUN_NOT_FOUND' });
    expect(gone.hint).toMatch(/--out/);
    expect(await error(`/api/runs/${a.id}/files/missing.json`, 409)).toMatchObject({ code: 'FILE_UNAVAILABLE' });
    // A folder is not a file.
    expect(await error(`/api/runs/${a.id}/files/step-01`, 403)).toMatchObject({ code: 'PATH_REFUSED' });
  });

  it('needs the token and a loopback Origin like the rest of the API', async () => {
    const path = `/api/runs/${a.id}/files/run.json`;
    expect((await get(path, {})).status).toBe(401);
    expect((await get(path, { Authorization: 'Bearer nope' })).status).toBe(401);
    expect((await get(path, { ...auth(), Origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(`/api/runs/${a.id}`, {})).status).toBe(401);
    // The token file itself is never among what a run serves.
    expect(readFileSync(join(dataDir, 'token'), 'utf8').trim()).toBe(s.token);
  });

  it('a run still going (run.json without steps) shows its steps from the folders; a torn run.json says so', async () => {
    const c = RunArtifacts.create({ dataDir, goal: 'Still going', at: new Date(), secrets: [] });
    c.write('run.json', { runId: c.id, goal: 'Still going', status: 'running' });
    c.write('step-01/screenshot.jpg', shot);
    expect(await c.flush()).toBeUndefined();
    expect(await json<RunView>(`/api/runs/${c.id}`)).toMatchObject({ goal: 'Still going', status: 'running', steps: [{ step: 1, screenshot: 'step-01/screenshot.jpg' }] });
    mkdirSync(join(c.dir, 'step-02'));
    writeFileSync(join(c.dir, 'run.json'), '{"runId": "x", "goal": ');
    const torn = await json<RunView>(`/api/runs/${c.id}`);
    expect(torn.problem).toMatch(/not valid JSON/);
    expect(torn.files.map((f) => f.path)).toContain('step-01/screenshot.jpg');
  });
});
