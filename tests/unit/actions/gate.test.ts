/**
 * The action gate on its own, through its ports: a fake source that judges frames and records
 * what it is asked to do, an in-memory frame store, a policy and an activity log.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAction, viaInput } from '../../../src/main/core/actionDefs.ts';
import { clickKind, dragKind, typeTextKind } from '../../../src/main/core/actions/kinds.ts';
import { ActionGate, type GateDeps } from '../../../src/main/core/actions/gate.ts';
import type { FrameRecord } from '../../../src/main/core/catalog/types.ts';
import type { ActionKind, ArgsOf, ScreenTextResult } from '../../../src/main/core/ports.ts';
import type { SourceAction, TargetFacts } from '../../../src/main/core/sources/source.ts';
import type { ActivityEntry } from '../../../src/shared/activity.ts';
import { SightlineError } from '../../../src/shared/errors.ts';
import { FakeSource } from '../../support/fakeSource.ts';

const signal = new AbortController().signal;
const TARGET = 'desktop:window:1';

/** A frame of the fake window as captured at (x, y), 2 source units per image pixel. */
function frameOf(source: FakeSource, ref = 'f1'): FrameRecord {
  const w = source.windows.get(TARGET)!;
  return {
    ref,
    source: 'desktop',
    target: TARGET,
    capturedAt: new Date().toISOString(),
    image: { width: w.width / 2, height: w.height / 2 },
    sourceSize: { width: w.width, height: w.height },
    origin: { x: w.x, y: w.y },
    scale: 2,
    state: { width: w.width, height: w.height, x: w.x, y: w.y },
    format: 'jpeg',
    bytes: 1,
    pinned: false,
    hasFull: false,
    external: false,
  };
}

function setup(o: { paused?: boolean; allow?: boolean; text?: ScreenTextResult; logFails?: boolean } = {}) {
  /** What the policy was asked under the source's lock. */
  const judged: TargetFacts[] = [];
  const source = new FakeSource({ id: TARGET, app: 'Editor', x: 100, y: 50, width: 800, height: 600, pixelRatio: 1 });
  const frames = new Map<string, FrameRecord>();
  const latest = frameOf(source);
  frames.set(latest.ref, latest);
  const log: Omit<ActivityEntry, 'id'>[] = [];
  const warnings: string[] = [];
  const deps: GateDeps = {
    sources: { sourceOf: (t) => t.slice(0, t.indexOf(':')), forTarget: async () => source },
    frames: {
      find: (ref) => frames.get(ref),
      latest: () => latest,
      capture: () => Promise.reject(new Error('no capture in these tests')),
      crop: () => Promise.reject(new Error('no crop in these tests')),
      read: () => Promise.reject(new Error('no read in these tests')),
    },
    policy: {
      admit: () => {
        if (o.paused) throw new SightlineError('INPUT_PAUSED', 'paused', 'wait');
      },
      target: (facts) => {
        judged.push(facts);
        if (o.allow === false) throw new SightlineError('NOT_ALLOWED', 'not on the list', 'ask');
      },
      place: () => undefined,
      confined: () => o.allow !== undefined,
      file: async (path) => path,
    },
    text: {
      read: async () => o.text ?? { items: [], via: 'tree' },
      readFrame: () => Promise.reject(new Error('unused')),
      find: () => Promise.reject(new Error('unused')),
    },
    activity: {
      append: (e) => {
        if (o.logFails) throw new SightlineError('STORAGE_FULL', 'The disk is full.', 'Free space.');
        log.push(e);
      },
    },
    warn: (m) => warnings.push(m),
  };
  const gate = new ActionGate(deps);
  const act = <S extends z.ZodRawShape, A>(kind: ActionKind<S, A>, args: Record<string, unknown>) => gate.act(kind, z.object(kind.input).parse(args) as ArgsOf<S>, { signal, client: 'test' });
  return { source, gate, act, log, warnings, latest, judged, o };
}

const codeOf = (e: unknown): string | undefined => (e instanceof SightlineError ? e.code : undefined);

describe('the action gate', () => {
  it('maps the image point through the frame and the move the source judged, and logs the attempt', async () => {
    const { source, act, log } = setup();
    source.windows.get(TARGET)!.x += 30; // moved since the frame: re-mapped, not stale
    const r = await act(clickKind, { target: TARGET, x: 10, y: 20, after: 'none' });
    expect(source.actions).toHaveLength(1);
    expect(source.actions[0]).toMatchObject({ kind: 'click', point: { x: 100 + 20 + 30, y: 50 + 40 }, button: 'left', clicks: 1 });
    expect(r).toMatchObject({ ok: true, target: TARGET, imagePoint: { x: 10, y: 20 }, sourcePoint: { x: 150, y: 90 }, frameRef: 'f1' });
    expect(log).toEqual([expect.objectContaining({ tool: 'click', result: 'ok', target: TARGET, source: 'desktop', frameRef: 'f1', imagePoint: { x: 10, y: 20 } })]);
  });

  it('refuses in the order policy, target, staleness, point, touching nothing', async () => {
    // Each case breaks every rule after the one it expects: the first broken rule answers.
    const paused = setup({ paused: true, allow: false });
    paused.source.windows.get(TARGET)!.width = 900;
    expect(codeOf(await paused.act(clickKind, { target: TARGET, x: 5000, y: 5000 }).catch((e) => e))).toBe('INPUT_PAUSED');
    expect(paused.log[0]).toMatchObject({ result: 'INPUT_PAUSED', target: TARGET });

    const refused = setup({ allow: false });
    refused.source.windows.get(TARGET)!.width = 900;
    expect(codeOf(await refused.act(clickKind, { target: TARGET, x: 5000, y: 5000 }).catch((e) => e))).toBe('NOT_ALLOWED');
    // Judged on the target as the source read it, under its lock.
    expect(refused.judged).toEqual([{ kind: 'app', app: 'Editor', label: `Fake ${TARGET}` }]);

    const gone = setup();
    gone.source.windows.get(TARGET)!.gone = true;
    expect(codeOf(await gone.act(clickKind, { target: TARGET, x: 5000, y: 5000 }).catch((e) => e))).toBe('TARGET_NOT_FOUND');

    const stale = setup();
    stale.source.windows.get(TARGET)!.width = 900;
    expect(codeOf(await stale.act(clickKind, { target: TARGET, x: 5000, y: 5000 }).catch((e) => e))).toBe('FRAME_STALE');

    const outside = setup();
    expect(codeOf(await outside.act(clickKind, { target: TARGET, x: 400, y: 10 }).catch((e) => e))).toBe('POINT_OUTSIDE_FRAME');
    for (const s of [paused, refused, gone, stale, outside]) expect(s.source.actions).toEqual([]);
  });

  it('judges the policy when the source holds the target, not when the call arrived: a pause pressed while it waits stops it', async () => {
    const { source, act, o } = setup();
    // Another call holds the target: this one waits for it, then is judged.
    let release!: () => void;
    source.busy = new Promise<void>((r) => (release = r));
    const pending = act(typeTextKind, { target: TARGET, text: 'hello', after: 'none' }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    o.paused = true;
    release();
    expect(codeOf(await pending)).toBe('INPUT_PAUSED');
    expect(source.actions).toEqual([]);
  });

  it('refuses a source that would act without judging first', async () => {
    const { source, act } = setup();
    source.skipJudge = true;
    const e = await act(clickKind, { target: TARGET, x: 10, y: 10, after: 'none' }).catch((x: unknown) => x);
    expect(codeOf(e)).toBe('INTERNAL');
    expect((e as Error).message).toMatch(/without being judged/);
    expect(source.actions).toEqual([]);
  });

  it('acts on a node although the frame is stale: the frame only places what changed', async () => {
    const { source, act } = setup();
    source.nodes.push({ id: 'n1', role: 'button', name: 'OK', bounds: { x: 200, y: 100, width: 40, height: 20 } });
    source.windows.get(TARGET)!.width = 900;
    const r = await act(clickKind, { target: TARGET, node: 'n1', after: 'none' });
    expect(source.actions[0]).toMatchObject({ kind: 'click', node: 'n1', point: { x: 320, y: 160 } });
    // The frame no longer shows the window: no image point is claimed in it.
    expect(r.imagePoint).toBeUndefined();
  });

  it('maps a drag end and scroll deltas through the same frame', async () => {
    const { source, act } = setup();
    await act(dragKind, { target: TARGET, x: 10, y: 10, toX: 100, toY: 50, after: 'none' });
    expect(source.actions[0]).toMatchObject({ kind: 'drag', point: { x: 120, y: 70 }, to: { x: 300, y: 150 }, durationMs: 300 });
    expect(codeOf(await act(dragKind, { target: TARGET, x: 10, y: 10, toX: 1000, toY: 50 }).catch((e) => e))).toBe('POINT_OUTSIDE_FRAME');
    expect(source.actions).toHaveLength(1);
  });

  it('aims by text through the text port: at the node a tree names, at the point OCR read (and says it was OCR)', async () => {
    const { source, act } = setup({ text: { via: 'tree', items: [{ text: 'Save', bounds: { x: 300, y: 300, width: 40, height: 20 }, node: 'save' }] } });
    source.nodes.push({ id: 'save', role: 'button', name: 'Save', bounds: { x: 300, y: 300, width: 40, height: 20 } });
    const r = await act(clickKind, { target: TARGET, text: 'save', after: 'none' });
    expect(source.actions[0]).toMatchObject({ node: 'save' });
    expect(r.note ?? '').not.toMatch(/found/);
    const ocr = setup({ text: { via: 'ocr', items: [{ text: 'Save', bounds: { x: 300, y: 300, width: 40, height: 20 } }] } });
    const read = await ocr.act(clickKind, { target: TARGET, text: 'save', after: 'none' });
    expect(ocr.source.actions[0]).toMatchObject({ point: { x: 320, y: 310 } });
    expect(read.note).toMatch(/found “Save” by OCR/);
  });

  it('says the action was done when its log entry cannot be written, and tells the server log', async () => {
    const { act, warnings } = setup({ logFails: true });
    const r = await act(typeTextKind, { target: TARGET, text: 'hello', after: 'none' });
    expect(r.ok).toBe(true);
    expect(r.warnings?.[0]).toMatch(/activity-log entry could not be written.*STORAGE_FULL/);
    expect(warnings[0]).toMatch(/^activity log: STORAGE_FULL/);
  });

  it('runs a kind defined outside the core exactly like a built-in one', async () => {
    // A new kind: one definition, performed by any source whose input port says it does.
    const wiggle = defineAction({
      name: 'wiggle',
      aim: 'required',
      input: { target: z.string(), x: z.number().optional(), y: z.number().optional(), times: z.int().min(1).max(5) },
      build: (_a, at): SourceAction => ({ kind: 'hover', target: at.target, ...(at.point ? { point: at.point } : {}) }),
      performer: viaInput('hover'),
    });
    const { source, act, log } = setup();
    await act(wiggle, { target: TARGET, x: 1, y: 1, times: 2, after: 'none' });
    expect(source.actions[0]).toMatchObject({ kind: 'hover', point: { x: 102, y: 52 } });
    expect(log[0]).toMatchObject({ tool: 'wiggle', params: { target: TARGET, x: 1, y: 1, times: 2 } });
  });
});
