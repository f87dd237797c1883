/**
 * Agent runs as the dashboard reads them: each `sightline agent` run leaves a folder
 * `<data dir>/runs/<id>/` (run.json, the target, the prompts, one folder per step with its
 * screenshot). The activity log names a run by the id its MCP calls carried; this reads the
 * run's summary and hands out its files.
 *
 * Only that folder is ever read. A run id or file path is a name, never a path the client
 * chose: the id is one folder name, a file path is names without dots in front, and what they
 * name is resolved through every symlink and must still lie inside the run's folder, itself
 * inside the runs folder (a link out of either is refused). The artifacts path an MCP client
 * put in `_meta` is shown, never followed: a run written elsewhere (`--out`) is not served.
 */
import { constants } from 'node:fs';
import { lstat, open, readdir, realpath } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, sep } from 'node:path';
import { RUN_ID } from '../../../shared/api.ts';
import type { RunStepView, RunSummary, RunView } from '../../../shared/activity.ts';
import { SightlineError } from '../../../shared/errors.ts';
import type { RunFile, RunsPort } from '../ports.ts';

/** run.json is a few KB per step; anything far larger is not ours. */
const MAX_SUMMARY_BYTES = 8 << 20;
/** An artifact handed out whole (a screenshot, a raw model response). */
const MAX_FILE_BYTES = 64 << 20;
/** Files listed per run (a run has at most a few hundred). */
const MAX_FILES = 2000;
const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;
const STEP_DIR = /^step-(\d{1,4})$/;

/** What an artifact is served as; anything else is a download. */
const TYPES: Record<string, string> = {
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.log': 'text/plain; charset=utf-8',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
};

export class AgentRuns implements RunsPort {
  /** `<data dir>/runs`. */
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  async get(id: string): Promise<RunView> {
    const dir = await this.#runDir(id);
    const files = await listFiles(dir);
    const view: RunView = { id, steps: stepsFromFiles(files), files };
    let text: string;
    try {
      text = (await readInside(dir, 'run.json', MAX_SUMMARY_BYTES)).toString('utf8');
    } catch (e) {
      return { ...view, problem: e instanceof SightlineError ? e.message : `run.json could not be read: ${(e as Error).message}` };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // The agent rewrites it whole; a torn read shows the files until the next look.
      return { ...view, problem: 'run.json is not valid JSON (it may be being rewritten).' };
    }
    return { ...view, ...summaryOf(json), steps: mergeSteps(stepsOf(json), view.steps) };
  }

  async list(limit: number): Promise<Omit<RunSummary, 'actions'>[]> {
    const root = await realpath(this.root).catch(() => undefined);
    if (!root) return [];
    const dirs = (await readdir(root, { withFileTypes: true }).catch(() => [])).filter((d) => d.isDirectory() && RUN_ID.test(d.name));
    const out = await Promise.all(
      dirs.map(async (d): Promise<Omit<RunSummary, 'actions'> | undefined> => {
        const dir = join(root, d.name);
        const st = await lstat(dir).catch(() => undefined);
        if (!st) return undefined;
        let summary: ReturnType<typeof summaryOf> = {};
        try {
          summary = summaryOf(JSON.parse((await readInside(dir, 'run.json', MAX_SUMMARY_BYTES)).toString('utf8')));
        } catch {
          // A run that wrote no run.json yet (or is rewriting it) is listed by its folder alone.
        }
        const { goal, status, stop } = summary;
        const startedAt = summary.startedAt && Number.isFinite(Date.parse(summary.startedAt)) ? summary.startedAt : st.birthtime.getTime() > 0 ? st.birthtime.toISOString() : st.mtime.toISOString();
        return defined({ id: d.name, startedAt, goal, status, stop });
      }),
    );
    return out
      .filter((r) => r !== undefined)
      .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt))
      .slice(0, limit) as Omit<RunSummary, 'actions'>[];
  }

  async file(id: string, path: string): Promise<RunFile> {
    const names = path.split('/');
    if (names.length > 4 || !names.every((n) => FILE_NAME.test(n))) {
      throw new SightlineError('INVALID_ARGUMENT', `"${path}" is not a file of a run.`, 'Give a path inside the run folder such as "step-01/screenshot.jpg" (no "..", no hidden files).');
    }
    const dir = await this.#runDir(id);
    const data = await readInside(dir, names.join(sep), MAX_FILE_BYTES);
    const name = names.at(-1) as string;
    const type = TYPES[extname(name).toLowerCase()];
    return { data, contentType: type ?? 'application/octet-stream', download: type === undefined, name };
  }

  /** The run's folder, resolved, inside the resolved runs folder. */
  async #runDir(id: string): Promise<string> {
    if (!RUN_ID.test(id)) throw new SightlineError('INVALID_ARGUMENT', `"${id}" is not a run id.`, 'Use the run id the activity log shows (its folder name under runs/).');
    const notFound = (): SightlineError =>
      new SightlineError(
        'RUN_NOT_FOUND',
        `No artifacts for run ${id} in ${this.root}.`,
        'A run started with --out keeps its artifacts in that folder (the dashboard serves only the data directory\'s runs/); a deleted folder is gone.',
      );
    const root = await realpath(this.root).catch(() => undefined);
    if (!root) throw notFound();
    const dir = await realpath(join(root, id)).catch(() => undefined);
    if (!dir || !inside(root, dir)) throw notFound();
    const st = await lstat(dir);
    if (!st.isDirectory()) throw notFound();
    return dir;
  }
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** The bytes of `rel` under `dir`, after every symlink is resolved; a regular file of at most `max` bytes. */
async function readInside(dir: string, rel: string, max: number): Promise<Buffer> {
  const missing = new SightlineError('FILE_UNAVAILABLE', `The run has no file ${rel.split(sep).join('/')}.`, 'List the run\'s files (GET /api/runs/:id) and pick one of them.');
  const real = await realpath(join(dir, rel)).catch(() => undefined);
  if (!real) throw missing;
  if (!inside(dir, real)) throw new SightlineError('PATH_REFUSED', `${rel.split(sep).join('/')} leads out of the run's folder.`, 'Only files inside the run folder are served; a symlink out of it is refused.');
  const fh = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
  if (!fh) throw missing;
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new SightlineError('PATH_REFUSED', `${rel.split(sep).join('/')} is not a regular file.`, 'Pick a file of the run, not a folder.');
    if (st.size > max) throw new SightlineError('PATH_REFUSED', `${rel.split(sep).join('/')} is ${st.size} bytes, more than the ${max} an artifact may be.`, 'Open it from the run folder on disk.');
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/** Regular files of the run's folder and its step folders (symlinks are not listed), by path. */
async function listFiles(dir: string): Promise<{ path: string; bytes: number }[]> {
  const out: { path: string; bytes: number }[] = [];
  const walk = async (rel: string[], depth: number): Promise<void> => {
    const entries = await readdir(join(dir, ...rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (out.length >= MAX_FILES || !FILE_NAME.test(e.name)) continue;
      if (e.isDirectory() && depth < 2) await walk([...rel, e.name], depth + 1);
      else if (e.isFile()) {
        const st = await lstat(join(dir, ...rel, e.name)).catch(() => undefined);
        if (st) out.push({ path: [...rel, e.name].join('/'), bytes: st.size });
      }
    }
  };
  await walk([], 0);
  return out.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
}

/** Steps as the folders tell them: `step-NN/`, with its screenshot when one was written. */
function stepsFromFiles(files: readonly { path: string }[]): RunStepView[] {
  const steps = new Map<number, RunStepView>();
  for (const { path } of files) {
    const [folder, name] = path.split('/');
    const n = folder ? STEP_DIR.exec(folder)?.[1] : undefined;
    if (n === undefined || name === undefined) continue;
    const step = steps.get(Number(n)) ?? { step: Number(n) };
    if (/^screenshot\.(jpe?g|png|webp)$/.test(name)) step.screenshot = path;
    steps.set(step.step, step);
  }
  return [...steps.values()].sort((a, b) => a.step - b.step);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** Keep only what is defined (RunView's optional fields are absent, never undefined). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The fields the dashboard shows, each taken only when it has the right type. */
function summaryOf(json: unknown): Omit<RunView, 'id' | 'steps' | 'files'> {
  const j = obj(json) ?? {};
  const stop = obj(j.stop);
  const target = obj(j.target);
  return defined({
    goal: str(j.goal),
    status: str(j.status),
    stop: stop && str(stop.reason) ? defined({ reason: str(stop.reason) as string, exitCode: num(stop.exitCode), message: str(stop.message), code: str(stop.code) }) : undefined,
    startedAt: str(j.startedAt),
    endedAt: str(j.endedAt),
    durationMs: num(j.durationMs),
    provider: str(j.provider),
    model: str(j.model),
    dryRun: typeof j.dryRun === 'boolean' ? j.dryRun : undefined,
    target: target && str(target.id) ? defined({ id: str(target.id) as string, title: str(target.title), source: str(target.source) }) : undefined,
  });
}

function stepsOf(json: unknown): RunStepView[] {
  const steps = obj(json)?.steps;
  if (!Array.isArray(steps)) return [];
  return steps.flatMap((s) => {
    const o = obj(s);
    const step = num(o?.step);
    if (!o || step === undefined) return [];
    // Only a screenshot that names a file of a step folder (never a path out).
    const shot = str(o.screenshot);
    return [defined({ step, action: str(o.action), why: str(o.why), outcome: str(o.outcome), screenshot: shot && /^step-\d{1,4}\/screenshot\.(jpe?g|png|webp)$/.test(shot) ? shot : undefined })];
  });
}

/** run.json's steps, completed by the folders' (a run still going has only the folders). */
function mergeSteps(fromSummary: readonly RunStepView[], fromFiles: readonly RunStepView[]): RunStepView[] {
  const by = new Map<number, RunStepView>();
  for (const s of fromFiles) by.set(s.step, s);
  for (const s of fromSummary) by.set(s.step, { ...by.get(s.step), ...s });
  return [...by.values()].sort((a, b) => a.step - b.step);
}
