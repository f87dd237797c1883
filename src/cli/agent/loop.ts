/**
 * The see → decide → act loop: capture a small image, send it with the goal, the
 * step history and the last outcome, parse one strict action, check it, act through Sightline,
 * repeat. Every stop is decided before anything is acted on, so nothing happens after a stop.
 */
import { describeAction, outOfFrame, parseAction, pointOf, toToolCall, tooUnsure, unsupportedForm, type Action, type Capabilities, type Size, type ToolCall } from './action.ts';
import type { RunArtifacts } from './artifacts.ts';
import { stepDirName } from './artifacts.ts';
import { errorCode, resultText, type SightlineClient, type ToolResult } from './mcp.ts';
import { repairText, stepText, visibleNodes, type HistoryEntry, type UiNode } from './prompt.ts';
import { ModelError, type ModelImage, type ModelProvider, type ModelReply, type ModelTurn } from './providers/types.ts';
import { stop, stopWith, StopSignal, type Stop } from './stops.ts';
import type { TargetEntry } from './target.ts';

export interface FrameInfo {
  ref: string;
  image: Size;
  sourceSize: Size;
  origin: { x: number; y: number };
  scale: number;
}

export interface StepTimings {
  captureMs: number;
  treeMs?: number;
  buildMs: number;
  modelMs?: number;
  actMs?: number;
  totalMs: number;
  /** Everything but the model call: capture, UI tree, request build, parsing, action. */
  overheadMs: number;
}

export interface StepRecord {
  step: number;
  startedAt: string;
  frame?: FrameInfo;
  screenshot?: string;
  /** The model's action as parsed (action.json), and a one-line description of it. */
  decision?: Action;
  action?: string;
  why?: string;
  confidence?: number;
  repaired?: boolean;
  call?: ToolCall;
  imagePoint?: { x: number; y: number };
  /** Where the point lands in the source's own space: the server's answer, else origin + image × scale. */
  devicePoint?: { x: number; y: number };
  outcome: string;
  result?: { ok: boolean; code?: string; text: string };
  timings: StepTimings;
}

export interface LoopContext {
  goal: string;
  target: TargetEntry;
  maxSteps: number;
  minConfidence: number;
  maxDimension?: number;
  dryRun: boolean;
  /** A tab is acted on only while it shows one of these origins (none: no confinement, --roam). */
  confine?: { origins: readonly string[] };
  system: string;
  caps: Capabilities;
  client: SightlineClient;
  provider: ModelProvider;
  artifacts: RunArtifacts;
  reporter: Reporter;
  /** Aborted at the wall-time limit (reason "wallTime") or by Ctrl-C ("interrupted"). */
  signal: AbortSignal;
  remainingMs(): number;
}

/** How a run reports itself as it goes (output.ts: a line per step, or one JSON document). */
export interface Reporter {
  stepStarted(step: number, maxSteps: number): void;
  stepDone(s: StepRecord, maxSteps: number): void;
  summary(r: RunSummary): void;
}

export interface RunSummary {
  runId: string;
  artifacts: string;
  goal: string;
  target?: { id: string; title: string; source: string; kind: string };
  provider: string;
  model: string;
  baseUrl?: string;
  dryRun: boolean;
  limits: { maxSteps: number; maxTimeMs: number; minConfidence: number };
  startedAt: string;
  endedAt: string;
  durationMs: number;
  /** Start-up before the first step: the MCP server, the target list, the provider's SDK. */
  startup?: { connectMs: number; targetsMs: number; providerMs: number };
  stop: Stop;
  steps: StepRecord[];
}

/** source = origin + image × scale (the frame's mapping, image/mapping.ts). */
export function mapToSource(frame: FrameInfo, p: { x: number; y: number }): { x: number; y: number } {
  const r = (n: number): number => Math.round(n * 100) / 100;
  return { x: r(frame.origin.x + p.x * frame.scale), y: r(frame.origin.y + p.y * frame.scale) };
}

function abortStop(signal: AbortSignal): StopSignal {
  return signal.reason === 'interrupted' ? stopWith('interrupted', 'interrupted by the user') : stopWith('wallTime', 'the maximum wall time was reached');
}

/** A Sightline error result of an action → the stop it means: paused (exit 8), a point outside the image (exit 6), any other refusal (exit 9). */
export function actionStop(code: string, text: string): StopSignal {
  if (code === 'INPUT_PAUSED') return stopWith('paused', text, code);
  if (code === 'POINT_OUTSIDE_FRAME') return stopWith('outOfFrame', text, code);
  return stopWith('refused', text, code);
}

async function guarded<T>(ctx: LoopContext, run: () => Promise<T>): Promise<T> {
  if (ctx.signal.aborted) throw abortStop(ctx.signal);
  try {
    return await run();
  } catch (e) {
    if (e instanceof StopSignal) throw e;
    if (ctx.signal.aborted) throw abortStop(ctx.signal);
    throw e;
  }
}

interface Captured {
  frame: FrameInfo;
  image: ModelImage;
}

async function capture(ctx: LoopContext): Promise<Captured> {
  const args = { target: ctx.target.id, ...(ctx.maxDimension ? { maxDimension: ctx.maxDimension } : {}) };
  const res = await guarded(ctx, () => ctx.client.call('capture', args, { signal: ctx.signal, timeoutMs: Math.ceil(ctx.remainingMs()) + 1000 }));
  if (res.isError) throw stopWith('error', `capture failed: ${resultText(res)}`, errorCode(res));
  const frame = (res.structuredContent as { frame?: FrameInfo } | undefined)?.frame;
  const img = res.content.find((c) => c.type === 'image' && c.data);
  if (!frame || !img?.data) throw stopWith('error', 'capture returned no image or no frame descriptor');
  return { frame: { ref: frame.ref, image: frame.image, sourceSize: frame.sourceSize, origin: frame.origin, scale: frame.scale }, image: { data: img.data, mimeType: img.mimeType ?? 'image/jpeg', width: frame.image.width, height: frame.image.height } };
}

async function uiNodes(ctx: LoopContext, state: { tree: boolean }, image: Size): Promise<UiNode[] | undefined> {
  if (!state.tree) return undefined;
  const res = await guarded(ctx, () => ctx.client.call('get_ui_tree', { target: ctx.target.id, maxNodes: 300 }, { signal: ctx.signal, timeoutMs: Math.ceil(ctx.remainingMs()) + 1000 }));
  if (res.isError) {
    // This target has no tree (a desktop window, say): stop asking for the rest of the run.
    state.tree = false;
    return undefined;
  }
  const nodes = (res.structuredContent as { nodes?: UiNode[] } | undefined)?.nodes ?? [];
  return visibleNodes(nodes, image);
}

const extension = (mime: string): string => (mime === 'image/png' ? 'png' : mime === 'image/webp' ? 'webp' : 'jpg');

interface Decision {
  action: Action;
  repaired: boolean;
}

/** Ask, parse, and on an unusable answer ask once more with the problem named; a second failure stops the run. */
async function decide(ctx: LoopContext, turn: ModelTurn, dir: string, timings: StepTimings): Promise<Decision> {
  const ask = async (t: ModelTurn, suffix: string): Promise<ModelReply> => {
    ctx.artifacts.write(`${dir}/request${suffix}.json`, ctx.provider.describeRequest(t));
    const t0 = performance.now();
    try {
      // The SDK's own timeout a little after ours, so the wall-time stop (not a retry) ends a slow call.
      return await guarded(ctx, () => ctx.provider.decide(t, { signal: ctx.signal, timeoutMs: Math.ceil(ctx.remainingMs()) + 1000 }));
    } catch (e) {
      if (e instanceof StopSignal) throw e;
      const err = e instanceof ModelError ? e : new ModelError((e as Error)?.message ?? String(e));
      ctx.artifacts.write(`${dir}/error${suffix}.txt`, `${err.message}\n`);
      throw stopWith('modelError', `the model call failed: ${err.message}`);
    } finally {
      // Counted even when the call fails, so a slow failure is not taken for loop overhead.
      timings.modelMs = (timings.modelMs ?? 0) + performance.now() - t0;
    }
  };
  const check = (text: string): { ok: true; action: Action } | { ok: false; problem: string } => {
    const parsed = parseAction(text);
    if (!parsed.ok) return parsed;
    const unsupported = unsupportedForm(parsed.action, ctx.caps);
    return unsupported ? { ok: false, problem: unsupported } : parsed;
  };
  const first = await ask(turn, '');
  writeReply(ctx, dir, '', first);
  const one = check(first.text);
  if (one.ok) return { action: one.action, repaired: false };
  const second = await ask({ ...turn, repair: { reply: first.text, text: repairText(one.problem) } }, '-repair');
  writeReply(ctx, dir, '-repair', second);
  const two = check(second.text);
  if (two.ok) return { action: two.action, repaired: true };
  throw stopWith('modelError', `the model answered malformed JSON twice: ${two.problem}`);
}

function writeReply(ctx: LoopContext, dir: string, suffix: string, reply: ModelReply): void {
  ctx.artifacts.write(`${dir}/response${suffix}.txt`, reply.text);
  ctx.artifacts.write(`${dir}/response${suffix}.json`, reply.raw);
}

async function act(ctx: LoopContext, call: ToolCall): Promise<ToolResult> {
  // The signal is not passed on: an action under way finishes; the next one is never started.
  if (ctx.signal.aborted) throw abortStop(ctx.signal);
  return ctx.client.call(call.name, call.arguments, { timeoutMs: 60_000 });
}

/**
 * A tab that left the run's origins (a link followed, a redirect, a page that sent it away)
 * ends the run as a refusal: nothing more is done there, and the model sees no more of it.
 */
async function checkOrigin(ctx: LoopContext, record: StepRecord): Promise<void> {
  if (!ctx.confine) return;
  const res = await ctx.client.call('list_targets', { source: 'browser' }, { signal: ctx.signal, timeoutMs: 30_000 });
  const targets = res.isError ? [] : ((res.structuredContent as { targets?: { id: string; details?: { url?: unknown } }[] } | undefined)?.targets ?? []);
  const url = targets.find((t) => t.id === ctx.target.id)?.details?.url;
  // A tab that is gone is the capture's to report.
  if (typeof url !== 'string') return;
  const origin = URL.canParse(url) ? new URL(url).origin : 'null';
  if (ctx.confine.origins.includes(origin)) return;
  const message = `the tab left ${ctx.confine.origins[0]} for ${origin === 'null' ? url.slice(0, 80) : origin}; the run acts on its tab's own origin only (--allow-origin ${origin === 'null' ? 'ORIGIN' : origin}, or --roam, widens it)`;
  record.outcome = 'refused: LEFT_ORIGIN';
  throw stopWith('refused', message, 'LEFT_ORIGIN');
}

/** One step; returns the stop when the run ends here. */
async function step(ctx: LoopContext, n: number, history: HistoryEntry[], state: { tree: boolean }, record: StepRecord): Promise<Stop | undefined> {
  const dir = stepDirName(n);
  await checkOrigin(ctx, record);
  const t0 = performance.now();
  const cap = await capture(ctx);
  const t1 = performance.now();
  record.timings.captureMs = t1 - t0;
  record.frame = cap.frame;
  record.screenshot = `${dir}/screenshot.${extension(cap.image.mimeType)}`;
  ctx.artifacts.write(record.screenshot, Buffer.from(cap.image.data, 'base64'));

  const nodes = await uiNodes(ctx, state, cap.frame.image);
  const t2 = performance.now();
  if (state.tree || nodes) record.timings.treeMs = t2 - t1;
  const text = stepText({ goal: ctx.goal, step: n, maxSteps: ctx.maxSteps, targetTitle: `${ctx.target.title} (${ctx.target.id})`, image: cap.frame.image, history, ...(nodes ? { nodes } : {}) });
  const turn: ModelTurn = { system: ctx.system, text, image: cap.image };
  ctx.artifacts.write(`${dir}/prompt.txt`, `${text}\n`);
  record.timings.buildMs = performance.now() - t2;

  const decision = await decide(ctx, turn, dir, record.timings);
  const a = decision.action;
  record.decision = a;
  record.action = describeAction(a);
  record.why = a.why;
  record.confidence = a.confidence;
  if (decision.repaired) record.repaired = true;
  const point = pointOf(a);
  if (point) {
    record.imagePoint = point;
    record.devicePoint = mapToSource(cap.frame, point);
  }
  if (ctx.signal.aborted) throw abortStop(ctx.signal);
  const unsure = tooUnsure(a, ctx.minConfidence);
  if (unsure) {
    record.outcome = `not acted: ${unsure}`;
    return stop('lowConfidence', unsure);
  }
  const outside = outOfFrame(a, cap.frame.image);
  if (outside) {
    record.outcome = `not acted: ${outside}`;
    return stop('outOfFrame', outside);
  }
  if (a.action === 'done') {
    record.outcome = 'goal reached';
    return stop('done', a.why);
  }
  if (a.action === 'noop') {
    record.outcome = 'nothing done (noop)';
    return undefined;
  }
  // The page may have moved on while the model thought.
  await checkOrigin(ctx, record);
  const call = toToolCall(a, ctx.target.id, cap.frame.ref)!;
  record.call = call;
  if (ctx.dryRun) {
    record.outcome = `not acted (dry run): would call ${call.name}`;
    return stop('done', `dry run: decided ${record.action}; nothing was acted on`);
  }
  const t3 = performance.now();
  const res = await act(ctx, call);
  record.timings.actMs = performance.now() - t3;
  const resText = resultText(res);
  if (res.isError) {
    const code = errorCode(res);
    record.result = { ok: false, code, text: resText };
    record.outcome = `refused: ${code}`;
    return actionStop(code, resText).stop;
  }
  const sc = res.structuredContent as { sourcePoint?: { x: number; y: number }; imagePoint?: { x: number; y: number }; note?: string; received?: { password?: boolean } } | undefined;
  // Text typed into a password field is kept out of every file of the run, those written already included.
  if (call.name === 'type_text' && sc?.received?.password && typeof call.arguments.text === 'string') ctx.artifacts.addSecret(call.arguments.text);
  if (sc?.sourcePoint) record.devicePoint = sc.sourcePoint;
  if (sc?.imagePoint && !record.imagePoint) record.imagePoint = sc.imagePoint;
  record.result = { ok: true, text: resText };
  record.outcome = `ok${sc?.note ? ` (${sc.note})` : ''}`;
  return a.done ? stop('done', a.why) : undefined;
}

export async function runLoop(ctx: LoopContext): Promise<{ stop: Stop; steps: StepRecord[] }> {
  const steps: StepRecord[] = [];
  const history: HistoryEntry[] = [];
  const state = { tree: ctx.caps.uiTree };
  for (let n = 1; n <= ctx.maxSteps; n++) {
    ctx.reporter.stepStarted(n, ctx.maxSteps);
    const record: StepRecord = { step: n, startedAt: new Date().toISOString(), outcome: 'not finished', timings: { captureMs: 0, buildMs: 0, totalMs: 0, overheadMs: 0 } };
    const t0 = performance.now();
    let ended: Stop | undefined;
    try {
      ended = await step(ctx, n, history, state, record);
    } catch (e) {
      ended = e instanceof StopSignal ? e.stop : stop('error', (e as Error)?.message ?? String(e));
      if (record.outcome === 'not finished') record.outcome = `stopped: ${ended.reason}`;
    }
    const total = performance.now() - t0;
    record.timings.totalMs = total;
    record.timings.overheadMs = total - (record.timings.modelMs ?? 0);
    for (const k of Object.keys(record.timings) as (keyof StepTimings)[]) record.timings[k] = Math.round(record.timings[k]! * 10) / 10;
    steps.push(record);
    // Written once the step is over, so its timings and outcome are final.
    if (record.screenshot) ctx.artifacts.write(`${stepDirName(n)}/action.json`, record);
    ctx.reporter.stepDone(record, ctx.maxSteps);
    if (ended) return { stop: ended, steps };
    history.push({ step: n, action: record.action ?? '?', why: record.why ?? '', outcome: record.outcome });
  }
  return { stop: stop('maxSteps', `${ctx.maxSteps} steps taken without reaching the goal`), steps };
}
