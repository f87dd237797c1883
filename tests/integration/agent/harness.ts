/**
 * Running the real built `sightline agent` (bin/sightline.js → out/main/cli.js) as a user would,
 * asynchronously: the fake model server answers from this same process, so nothing may block it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BIN } from '../../support/cli.ts';

export const KEY = 'sk-test-0123456789abcdef-SECRET';

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** The run's artifact folder and its run.json (undefined when none was made). */
  dir?: string;
  run?: RunJson;
  files: string[];
}

export interface RunJson {
  runId: string;
  artifacts: string;
  status: string;
  durationMs: number;
  stop: { reason: string; exitCode: number; message: string; code?: string };
  steps: {
    step: number;
    action?: string;
    outcome: string;
    call?: { name: string; arguments: Record<string, unknown> };
    imagePoint?: { x: number; y: number };
    devicePoint?: { x: number; y: number };
    frame?: { ref: string; image: { width: number; height: number }; origin: { x: number; y: number }; scale: number };
    screenshot?: string;
    timings: { totalMs: number; overheadMs: number; modelMs?: number };
  }[];
  target?: { id: string; title: string };
}

export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out.sort();
}

function runNames(dataDir: string): string[] {
  const runs = join(dataDir, 'runs');
  return existsSync(runs) ? readdirSync(runs).sort() : [];
}

/**
 * The run folder this agent made under <dataDir>/runs: the one that was not there before it.
 * (Names sort by the second they started, then a random suffix: two runs in one second sort either way.)
 */
function newRun(dataDir: string, before: ReadonlySet<string>): string | undefined {
  const made = runNames(dataDir).filter((n) => !before.has(n));
  return made.length ? join(dataDir, 'runs', made.at(-1)!) : undefined;
}

export interface AgentOptions {
  dataDir: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** Called once the process runs (e.g. to interrupt it at the right moment). */
  onSpawn?: (proc: ChildProcess) => void;
}

export async function runAgent(args: string[], o: AgentOptions): Promise<AgentRun> {
  const env: Record<string, string | undefined> = { ...process.env, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined, ...o.env };
  const t0 = Date.now();
  const before = new Set(runNames(o.dataDir));
  const proc = spawn(process.execPath, [BIN, 'agent', '--data-dir', o.dataDir, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  o.onSpawn?.(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((ok, fail) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      fail(new Error(`agent did not exit in ${o.timeoutMs ?? 150_000} ms\n${stdout}\n${stderr}`));
    }, o.timeoutMs ?? 150_000);
    proc.once('exit', (c) => {
      clearTimeout(timer);
      ok(c);
    });
  });
  const outIdx = args.indexOf('--out');
  const dir = outIdx >= 0 ? args[outIdx + 1] : newRun(o.dataDir, before);
  const runFile = dir ? join(dir, 'run.json') : undefined;
  const run = runFile && existsSync(runFile) ? (JSON.parse(readFileSync(runFile, 'utf8')) as RunJson) : undefined;
  return { code, stdout, stderr, ms: Date.now() - t0, ...(dir ? { dir } : {}), ...(run ? { run } : {}), files: dir ? listFiles(dir) : [] };
}

/** No file of the run, and neither output stream, holds the key. */
export function leaks(r: AgentRun, key = KEY): string[] {
  const found: string[] = [];
  if (r.stdout.includes(key)) found.push('stdout');
  if (r.stderr.includes(key)) found.push('stderr');
  for (const f of r.files) if (readFileSync(join(r.dir!, f)).includes(key)) found.push(f);
  return found;
}

/** The files every finished step leaves. */
export function stepFiles(n: number, acted = true): string[] {
  const d = `step-${String(n).padStart(2, '0')}`;
  return [`${d}/action.json`, `${d}/prompt.txt`, `${d}/request.json`, `${d}/response.json`, `${d}/response.txt`, `${d}/screenshot.jpg`].filter((f) => acted || !f.endsWith('action.json'));
}
