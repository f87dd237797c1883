/**
 * Routines in the dashboard's API: listed with their last replay, read step by step, saved from a
 * run or from actions a person ticked in Activity, removed, and replayed. A replay from the
 * dashboard calls the very tools an agent's does (validation, the pause switch, read-only, the
 * allowlist, confinement, masking, the activity log) and is a run of its own, named after its
 * routine, as `run_routine` and `sightline replay` make it.
 */
import type { ProgressInfo } from '../../../shared/api.ts';
import type { RoutineDetail, RoutineLastRun, RoutineRunResult, RoutineStepView, RoutineView } from '../../../shared/routines.ts';
import type { RunSummary } from '../../../shared/activity.ts';
import { SightlineError, isSightlineError } from '../../../shared/errors.ts';
import { SessionFrames } from '../frames/session.ts';
import type { CallFacts } from '../mcp/server.ts';
import type { ToolContext } from '../mcp/tool.ts';
import type { RunsPort } from '../ports.ts';
import { STEP_KINDS, inputsNamed, type Routine, type RoutineStep } from '../routines/format.ts';
import { describeStep, type Divergence } from '../routines/replay.ts';
import type { Routines } from '../routines/routines.ts';
import { summaryOf } from '../routines/store.ts';

/** What the routes need: the routines, the runs' folders, tools called as an agent calls them, and where progress is told. */
export interface RoutineServices {
  routines: Routines;
  runs: RunsPort;
  tools: { context(facts: CallFacts): ToolContext };
  events: { emit(event: 'progress', progress: ProgressInfo): unknown };
}

/** Runs read to find each routine's last replay: all of them (the list reads every run.json anyway). */
const RUNS_READ = 100_000;
/** Who asked, in the activity log. */
const CLIENT = 'dashboard';

export async function listRoutines(s: RoutineServices): Promise<{ routines: RoutineView[]; stepKinds: string[] }> {
  const list = s.routines.list();
  const runs = list.length ? await s.runs.list(RUNS_READ) : [];
  const routines = await Promise.all(list.map(async (r) => withLast(s, r, runs)));
  return { routines, stepKinds: [...STEP_KINDS] };
}

export async function getRoutine(s: RoutineServices, name: string): Promise<RoutineDetail> {
  const r = s.routines.store.get(name);
  return detailOf(r, await lastOf(s, r.name, await s.runs.list(RUNS_READ)));
}

export function saveRoutine(s: RoutineServices, body: { name: string; description?: string | undefined; runId?: string | undefined; actions?: number[] | undefined; inputs?: Record<string, number> | undefined; replace?: boolean | undefined }): RoutineDetail {
  if (body.runId === undefined && body.actions === undefined) throw new SightlineError('INVALID_ARGUMENT', 'Give "runId", or the "actions" chosen.', 'The Activity view saves a run or a session from its heading.');
  const { routine } = s.routines.save({
    name: body.name,
    ...(body.description ? { description: body.description } : {}),
    ...(body.runId !== undefined ? { runId: body.runId } : {}),
    ...(body.actions !== undefined ? { actions: body.actions } : {}),
    ...(body.inputs ? { inputs: body.inputs } : {}),
    ...(body.replace ? { replace: true } : {}),
  });
  return detailOf(routine, undefined);
}

export function deleteRoutine(s: RoutineServices, name: string): { deleted: string } {
  s.routines.store.remove(name);
  return { deleted: name };
}

/**
 * Replay `name` and answer when it is done or has stopped. A replay that stopped after it began
 * is an answer (its run and its steps are in the activity log); one refused before anything was
 * done (an input missing, no such routine) is an error.
 */
export async function runRoutine(s: RoutineServices, name: string, body: { inputs?: Record<string, string> | undefined; stepTimeoutMs?: number | undefined }, signal: AbortSignal): Promise<RoutineRunResult> {
  // By name only: a path never reaches the store from the network.
  const routine = s.routines.store.get(name);
  const ctx = s.tools.context({ session: new SessionFrames(), signal, client: CLIENT, progress: () => undefined });
  const started = performance.now();
  let done = 0;
  let runId = '';
  // The header's progress bars show the replay step by step, to every dashboard open.
  const tell = (label: string, finished: boolean): void => void s.events.emit('progress', { id: `routine-${runId}`, label: `Routine ${routine.name}: ${label}`, done, total: routine.steps.length, finished });
  try {
    const report = await s.routines.run(
      routine,
      (run) => {
        runId = run.id;
        return {
          call: (tool, args) => ctx.call(tool, args, run),
          text: ctx.text,
          targets: ctx.targets,
          session: ctx.session,
          signal,
          progress: (p) => {
            done = p.done;
            // The last report ("N steps done") is said by the end itself.
            if (p.done < p.total) tell(p.label, false);
          },
        };
      },
      { inputs: body.inputs ?? {}, ...(body.stepTimeoutMs ? { stepTimeoutMs: body.stepTimeoutMs } : {}) },
    );
    tell('done', true);
    return { routine: routine.name, runId: report.runId, status: 'done', ms: report.ms, done: report.steps.length, total: routine.steps.length, target: report.target, ...(report.outputs.length ? { outputs: report.outputs } : {}) };
  } catch (e) {
    if (runId) tell('stopped', true);
    if (!runId || !isSightlineError(e)) throw e;
    const d = (e.details ?? {}) as Partial<Divergence>;
    return {
      routine: routine.name,
      runId,
      status: 'stopped',
      ms: Math.round(performance.now() - started),
      done,
      total: routine.steps.length,
      stop: {
        code: e.code,
        message: e.message,
        ...(e.hint ? { hint: e.hint } : {}),
        ...(typeof d.step === 'number' ? { step: d.step } : {}),
        ...(typeof d.expected === 'string' ? { expected: d.expected } : {}),
        ...(typeof d.saw === 'string' ? { saw: d.saw } : {}),
        ...(typeof d.frame === 'string' ? { frame: d.frame } : {}),
      },
    };
  }
}

async function withLast(s: RoutineServices, r: ReturnType<Routines['list']>[number], runs: readonly Omit<RunSummary, 'actions'>[]): Promise<RoutineView> {
  const last = await lastOf(s, r.name, runs);
  return { ...r, ...(last ? { last } : {}) };
}

/** The routine's newest replay: a run named after it (runs come newest first). */
async function lastOf(s: RoutineServices, name: string, runs: readonly Omit<RunSummary, 'actions'>[]): Promise<RoutineLastRun | undefined> {
  const run = runs.find((x) => x.goal === `routine ${name}` && x.id.startsWith(`routine-${name}-`));
  if (!run) return undefined;
  // How long it took, and the step it stopped at (the first neither done nor pending), are in its run.json.
  const view = await s.runs.get(run.id).catch(() => undefined);
  const step = view?.steps.find((x) => x.outcome !== undefined && x.outcome !== 'done' && x.outcome !== 'pending')?.step;
  return {
    runId: run.id,
    status: run.status ?? 'running',
    at: run.startedAt,
    ...(view?.durationMs !== undefined ? { durationMs: view.durationMs } : {}),
    ...(run.stop && run.status === 'stopped' ? { stop: { ...(run.stop.code ? { code: run.stop.code } : {}), ...(run.stop.message ? { message: run.stop.message } : {}), ...(step ? { step } : {}) } } : {}),
  };
}

function detailOf(r: Routine, last: RoutineLastRun | undefined): RoutineDetail {
  return {
    ...summaryOf(r),
    ...(last ? { last } : {}),
    createdAt: r.createdAt,
    ...(r.from ? { from: r.from as RoutineDetail['from'] & object } : {}),
    stepList: r.steps.map((step, i) => stepView(step, i + 1)),
  };
}

function stepView(step: RoutineStep, n: number): RoutineStepView {
  const inputs = [...inputsNamed(step.params)];
  const expects = [step.expect?.url ? `the page ${step.expect.url}` : '', step.expect?.valueTyped ? 'the field to read back the text' : ''].filter(Boolean).join('; ');
  return { step: n, kind: step.kind, action: describeStep(step), ...(expects ? { expects } : {}), ...(inputs.length ? { inputs } : {}) };
}
