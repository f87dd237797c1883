/**
 * Routines as the tools and the CLI use them: saved from the activity log (a run, or a range of
 * entries), listed, read from the store or a file, and replayed as a run of their own. A replay
 * leaves `<data dir>/runs/<id>/run.json` named after its routine, and each of its actions carries
 * that run id in the activity log, so the dashboard shows it as a run like an agent's.
 */
import { mkdirSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { ActivityEntry, ActivityQuery } from '../../../shared/activity.ts';
import { SightlineError, isSightlineError } from '../../../shared/errors.ts';
import type { ReadsLog } from '../catalog/reads.ts';
import { buildRoutine } from './build.ts';
import { readParams } from './reads.ts';
import { ROUTINE_NAME, type Routine } from './format.ts';
import { replay, describeStep, resolveInputs, type ReplayDeps, type ReplayOptions, type ReplayReport } from './replay.ts';
import { RoutineStore, readRoutine, type RoutineSummary } from './store.ts';

/** Entries read to build one routine (a run has at most a few hundred actions). */
const MAX_ENTRIES = 1000;

export interface SaveRequest {
  name: string;
  description?: string;
  /** The actions of this agent run (the activity log's run id). */
  runId?: string;
  /** Or the activity-log entries from this id to `toAction` (both included)… */
  fromAction?: number;
  toAction?: number;
  /**
   * …or, with this MCP session's id, this session's own actions: all of them, or the
   * `fromAction`-th to the `toAction`-th (1 its first, both included).
   */
  session?: string;
  /** Only these activity-log entries (ids, as a person ticked them), of the run when `runId` is given. */
  actions?: readonly number[];
  /** Input name → step number: that step's typed text becomes an input. */
  inputs?: Readonly<Record<string, number>>;
  replace?: boolean;
}

export interface RoutinesDeps {
  dataDir: string;
  activity: { list(q: ActivityQuery): ActivityEntry[] };
  /** What agents read between actions (waits, texts found, tree queries). */
  reads?: Pick<ReadsLog, 'add' | 'following'>;
  /** A read's arguments with the secrets the privacy settings name blanked, as the activity log keeps an action's. */
  blank?: (params: Record<string, unknown>) => Record<string, unknown>;
}

export class Routines {
  readonly store: RoutineStore;
  readonly #d: RoutinesDeps;

  constructor(d: RoutinesDeps) {
    this.#d = d;
    this.store = new RoutineStore(d.dataDir);
  }

  save(req: SaveRequest): { routine: Routine; path: string } {
    if (!ROUTINE_NAME.test(req.name)) throw new SightlineError('INVALID_ARGUMENT', `"${req.name}" is not a routine name.`, 'Use letters, digits, "_", "-" and ".", starting with a letter or digit (at most 64).');
    const entries = entriesFor(this.#d.activity, req);
    const page = pageBefore(this.#d.activity, entries[0]!);
    const reads = this.#d.reads?.following(entries.map((e) => e.id)) ?? [];
    const routine = buildRoutine(entries, {
      ...(page ? { page } : {}),
      reads,
      name: req.name,
      ...(req.description ? { description: req.description } : {}),
      from: req.runId !== undefined ? { run: req.runId } : { actions: [entries[0]!.id, entries.at(-1)!.id] },
      ...(req.inputs ? { inputs: req.inputs } : {}),
    });
    return { routine, path: this.store.save(routine, req.replace === true) };
  }

  /**
   * Keep a read a routine saved from this run can replay: a wait, a text found on a target, a
   * tree query. A read that cannot be kept never fails the tool that made it.
   */
  noteRead(tool: string, args: Readonly<Record<string, unknown>>, by: { client?: string; session?: string; run?: string }): void {
    const params = readParams(tool, args);
    if (!params || typeof args.target !== 'string' || !this.#d.reads) return;
    try {
      this.#d.reads.add({ at: new Date().toISOString(), tool, target: args.target, params: this.#d.blank ? this.#d.blank(params) : params, ...by });
    } catch {
      // A routine saved later lacks this read; the agent's answer does not.
    }
  }

  list(): RoutineSummary[] {
    return this.store.list();
  }

  /** A routine by name, or a routine file by path (anything with a slash or ending in .json). */
  load(nameOrFile: string): Routine {
    return /[\\/]|\.json$/.test(nameOrFile) ? readRoutine(nameOrFile) : this.store.get(nameOrFile);
  }

  /**
   * Replay as a run: the run id goes with every call (`call` receives it), run.json says how it
   * went, step by step, whether it finished or stopped.
   */
  async run(routine: Routine, deps: (run: { id: string; artifacts: string }) => ReplayDeps, o: ReplayOptions): Promise<ReplayReport & { runId: string }> {
    // A missing input is refused before anything, a run record included.
    resolveInputs(routine, o.inputs);
    const startedAt = new Date();
    const id = `routine-${routine.name}-${startedAt.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${Math.random().toString(36).slice(2, 6)}`;
    const dir = join(this.#d.dataDir, 'runs', id);
    const record = new RunRecord(dir, routine, startedAt);
    const base = deps({ id, artifacts: dir });
    const d: ReplayDeps = {
      ...base,
      progress: (p) => {
        base.progress?.(p);
        record.step(p.done);
      },
    };
    record.write('running');
    try {
      const report = await replay(routine, d, o);
      record.finish('done', { reason: 'done', exitCode: 0, message: `${report.steps.length} steps replayed` }, report);
      return { ...report, runId: id };
    } catch (e) {
      const code = isSightlineError(e) ? e.code : 'INTERNAL';
      record.finish('stopped', { reason: code === 'ROUTINE_DIVERGED' ? 'diverged' : 'error', exitCode: exitCodeOf(e), message: (e as Error).message, code });
      if (isSightlineError(e)) throw new SightlineError(e.code, e.message, e.hint, { ...e.details, runId: id });
      throw e;
    }
  }
}

/**
 * `sightline replay`'s exit codes: 0 done; 3 ROUTINE_DIVERGED (the page differs: nothing after the
 * step was done); 4 an input is missing (nothing was done); 5 the gate refused (paused, read-only,
 * not allowed); 2 the routine or its target cannot be found or read; 1 anything else.
 */
export function exitCodeOf(e: unknown): number {
  if (!isSightlineError(e)) return 1;
  switch (e.code) {
    case 'ROUTINE_DIVERGED':
      return 3;
    case 'INPUT_REQUIRED':
      return 4;
    case 'INPUT_PAUSED':
    case 'READ_ONLY':
    case 'NOT_ALLOWED':
    case 'PERMISSION_DENIED':
      return 5;
    case 'ROUTINE_NOT_FOUND':
    case 'TARGET_NOT_FOUND':
    case 'INVALID_ARGUMENT':
      return 2;
    default:
      return 1;
  }
}

/** run.json of a replay, in the shape the dashboard reads an agent run's (runs/runs.ts). */
class RunRecord {
  readonly #dir: string;
  readonly #routine: Routine;
  readonly #startedAt: Date;
  #at = 0;

  constructor(dir: string, routine: Routine, startedAt: Date) {
    this.#dir = dir;
    this.#routine = routine;
    this.#startedAt = startedAt;
  }

  step(done: number): void {
    this.#at = done;
    this.write('running');
  }

  finish(status: string, stop: { reason: string; exitCode: number; message: string; code?: string }, report?: ReplayReport): void {
    this.#at = report ? report.steps.length : this.#at;
    this.write(status, stop);
  }

  write(status: string, stop?: { reason: string; exitCode: number; message: string; code?: string }): void {
    const r = this.#routine;
    const endedAt = stop ? new Date() : undefined;
    const json = {
      runId: this.#dir.split(/[\\/]/).at(-1),
      goal: `routine ${r.name}`,
      routine: r.name,
      status,
      startedAt: this.#startedAt.toISOString(),
      ...(endedAt ? { endedAt: endedAt.toISOString(), durationMs: endedAt.getTime() - this.#startedAt.getTime() } : {}),
      ...(stop ? { stop } : {}),
      steps: r.steps.map((s, i) => ({ step: i + 1, action: describeStep(s), outcome: i < this.#at ? 'done' : i === this.#at && stop && stop.reason !== 'done' ? stop.reason : 'pending' })),
    };
    try {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      const tmp = join(this.#dir, 'run.json.tmp');
      writeFileSync(tmp, `${JSON.stringify(json, null, 2)}\n`, { mode: 0o600 });
      renameSync(tmp, join(this.#dir, 'run.json'));
    } catch {
      // The replay's own answer and the activity log say what happened; run.json is for the dashboard.
    }
  }
}

function checkedRange(req: SaveRequest): { from: number; to: number } {
  const { fromAction: from, toAction: to } = req;
  if (from === undefined || to === undefined) throw new SightlineError('INVALID_ARGUMENT', 'Give "runId", or "fromAction" and "toAction".', 'Activity-log entry ids are in the dashboard\'s Activity view and in GET /api/activity.');
  if (to < from) throw new SightlineError('INVALID_ARGUMENT', `"toAction" ${to} is before "fromAction" ${from}.`, 'Give the older entry first.');
  if (to - from >= MAX_ENTRIES) throw new SightlineError('INVALID_ARGUMENT', `A routine is at most ${MAX_ENTRIES} entries of the log.`, 'Save a shorter range.');
  return { from, to };
}

/** The entries a person chose by id (of the run, when one is named), oldest first; an id not there is refused. */
function chosen(activity: RoutinesDeps['activity'], req: SaveRequest, ids: readonly number[]): ActivityEntry[] {
  if (req.session !== undefined || req.fromAction !== undefined || req.toAction !== undefined) throw new SightlineError('INVALID_ARGUMENT', 'Give "actions" alone, or with "runId"; not with a range.', 'The ids chosen name the actions already.');
  const want = new Set(ids);
  if (!want.size) throw new SightlineError('INVALID_ARGUMENT', 'No action was chosen.', 'Choose at least one action to replay.');
  const newest = Math.max(...want);
  const oldest = Math.min(...want);
  if (newest - oldest >= MAX_ENTRIES) throw new SightlineError('INVALID_ARGUMENT', `A routine is at most ${MAX_ENTRIES} entries of the log apart.`, 'Save a shorter stretch of actions.');
  const pool = req.runId !== undefined ? activity.list({ run: req.runId, limit: MAX_ENTRIES }) : activity.list({ before: newest + 1, limit: MAX_ENTRIES });
  const found = oldestFirst(pool.filter((e) => want.has(e.id)));
  const missing = [...want].filter((id) => !found.some((e) => e.id === id));
  if (missing.length) throw new SightlineError('INVALID_ARGUMENT', `The activity log has no entry ${missing.slice(0, 5).join(', ')}${req.runId !== undefined ? ` in run "${req.runId}"` : ''}.`, 'Choose actions the Activity view shows; old entries may have been removed.');
  return found;
}

/** Oldest first. */
function oldestFirst(entries: ActivityEntry[]): ActivityEntry[] {
  return [...entries].sort((a, b) => a.id - b.id);
}

/**
 * The page a browser tab showed before `first`: where the newest earlier action on it led (a
 * navigation, a click that loaded a page), unless `first` aimed at a frame taken since then (a
 * capture, which the log does not list), whose label names the page as it was then. The label of
 * a frame taken before that navigation names the page it left.
 */
function pageBefore(activity: RoutinesDeps['activity'], first: ActivityEntry): string | undefined {
  if (!first.target?.startsWith('browser:')) return undefined;
  const earlier = activity.list({ target: first.target, before: first.id, limit: 50 }).sort((a, b) => b.id - a.id);
  const nav = earlier.find((e) => e.result === 'ok' && e.outcome?.navigated);
  if (!nav) return undefined;
  const framesSince = new Set(earlier.filter((e) => e.id >= nav.id).map((e) => e.frameRef));
  const label = first.targetLabel?.document;
  if (first.frameRef && !framesSince.has(first.frameRef) && label && /^https?:/.test(label)) return label;
  return nav.outcome!.navigated!.url;
}

/** The entries a save request names, oldest first. */
function entriesFor(activity: RoutinesDeps['activity'], req: SaveRequest): ActivityEntry[] {
  if (req.actions !== undefined) return chosen(activity, req, req.actions);
  if (req.runId !== undefined) {
    if (req.fromAction !== undefined || req.toAction !== undefined) throw new SightlineError('INVALID_ARGUMENT', 'Give "runId" or "fromAction"/"toAction", not both.', 'A run names its actions already.');
    const entries = oldestFirst(activity.list({ run: req.runId, limit: MAX_ENTRIES }));
    if (!entries.length) throw new SightlineError('RUN_NOT_FOUND', `The activity log has no action of run "${req.runId}".`, 'Use a run id the Activity view shows.');
    return entries;
  }
  if (req.session !== undefined) {
    const mine = oldestFirst(activity.list({ session: req.session, limit: MAX_ENTRIES }));
    if (!mine.length) throw new SightlineError('INVALID_ARGUMENT', 'This session has taken no action yet.', 'Act first (click, type_text, …), then save them; or give "runId".');
    const { from, to } = req.fromAction === undefined && req.toAction === undefined ? { from: 1, to: mine.length } : checkedRange(req);
    if (to > mine.length) throw new SightlineError('INVALID_ARGUMENT', `This session has taken ${mine.length} action${mine.length === 1 ? '' : 's'}; there is no action ${to}.`, `Give fromAction and toAction from 1 to ${mine.length}.`);
    return mine.slice(from - 1, to);
  }
  const { from, to } = checkedRange(req);
  const entries = oldestFirst(activity.list({ before: to + 1, limit: MAX_ENTRIES }).filter((e) => e.id >= from));
  if (!entries.length) throw new SightlineError('INVALID_ARGUMENT', `The activity log has no entry from ${from} to ${to}.`, 'Entry ids are in the Activity view; old entries may have been removed.');
  return entries;
}
