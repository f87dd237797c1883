import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redact, RunArtifacts, runName, slugify } from '../../../src/cli/agent/artifacts.ts';
import { actionStop, mapToSource } from '../../../src/cli/agent/loop.ts';
import { stepLine, summaryLines } from '../../../src/cli/agent/output.ts';
import { EXIT } from '../../../src/cli/agent/stops.ts';

describe('run folders', () => {
  it('are named <time>-<slug>-<rand>', () => {
    expect(slugify('Fill the "Search" form — now!')).toBe('fill-the-search-form-now');
    expect(slugify('Ééé')).toBe('eee');
    expect(slugify('???')).toBe('run');
    expect(runName(new Date(2026, 10, 22, 1, 2, 3), 'Click Go', 'ab12')).toBe('20261122-010203-click-go-ab12');
  });
  it('never hold a secret', async () => {
    expect(redact('key sk-123456 and sk-123456', ['sk-123456', 'ab'])).toBe('key [redacted] and [redacted]');
    const data = mkdtempSync(join(tmpdir(), 'sightline-artifacts-'));
    const run = RunArtifacts.create({ dataDir: data, goal: 'g', at: new Date(), secrets: ['sk-secret-1'] });
    expect(run.dir.startsWith(join(data, 'runs'))).toBe(true);
    run.write('a/b.json', { said: 'sk-secret-1' });
    run.write('c.txt', 'sk-secret-1');
    expect(await run.flush()).toBeUndefined();
    expect(readFileSync(join(run.dir, 'a/b.json'), 'utf8')).toContain('[redacted]');
    expect(readFileSync(join(run.dir, 'c.txt'), 'utf8')).toBe('[redacted]');
  });
  it('--out must be new or empty', () => {
    const out = mkdtempSync(join(tmpdir(), 'sightline-out-'));
    const run = RunArtifacts.create({ dataDir: '/nonexistent', out, goal: 'g', at: new Date(), secrets: [] });
    expect(run.dir).toBe(out);
    expect(existsSync('/nonexistent')).toBe(false);
    writeFileSync(join(out, 'x'), '');
    expect(() => RunArtifacts.create({ dataDir: '/nonexistent', out, goal: 'g', at: new Date(), secrets: [] })).toThrow(/not empty/);
  });
});

describe('stops and output', () => {
  it('maps action errors to their stops', () => {
    expect(actionStop('INPUT_PAUSED', 't').stop).toMatchObject({ reason: 'paused', exitCode: EXIT.paused, code: 'INPUT_PAUSED' });
    expect(actionStop('POINT_OUTSIDE_FRAME', 't').stop.exitCode).toBe(EXIT.outOfFrame);
    expect(actionStop('FRAME_STALE', 't').stop).toMatchObject({ reason: 'refused', exitCode: 9 });
    expect(new Set(Object.values(EXIT)).size).toBe(Object.keys(EXIT).length);
  });
  it('maps image points as the server does', () => {
    expect(mapToSource({ ref: 'r', image: { width: 600, height: 375 }, sourceSize: { width: 800, height: 500 }, origin: { x: 40, y: 60 }, scale: 4 / 3 }, { x: 300, y: 272 })).toEqual({ x: 440, y: 422.67 });
  });
  it('prints a line per step and a summary', () => {
    const s = { step: 3, startedAt: '', action: 'click (1, 2)', why: 'Press Go', outcome: 'ok', timings: { captureMs: 1, buildMs: 1, modelMs: 1234.5, totalMs: 1300, overheadMs: 65.5 } };
    expect(stepLine(s, 25)).toBe('step  3/25  click (1, 2)  "Press Go"  → ok  1300 ms (model 1235 ms)');
    const lines = summaryLines({ runId: 'r', artifacts: '/a', goal: 'g', provider: 'anthropic', model: 'm', dryRun: false, limits: { maxSteps: 25, maxTimeMs: 1, minConfidence: 0 }, startedAt: '', endedAt: '', durationMs: 12_345, stop: { reason: 'paused', exitCode: 8, message: 'paused', code: 'INPUT_PAUSED' }, steps: [s] });
    expect(lines).toEqual(['Stopped (paused, INPUT_PAUSED) after 1 step, 12.3 s: paused', 'Exit 8. Artifacts: /a']);
  });
});
