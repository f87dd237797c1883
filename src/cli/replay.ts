/**
 * `sightline replay NAME|FILE [--input k=v …] [--target ID] [--timeout MS] [--json]`: replay a
 * routine without a model, through the same tools and gate as an agent (a core in this process,
 * on the data directory's catalog). Progress goes to stderr, the result to stdout. The exit code
 * says how it ended (see exitCodeOf): 0 done, 3 diverged, 4 an input missing, 5 refused by the
 * gate, 2 the routine or its target not found, 1 anything else.
 */
import { parseArgs } from 'node:util';
import { SessionFrames } from '../main/core/frames/session.ts';
import { formatError, isSightlineError, SightlineError } from '../shared/errors.ts';

export const REPLAY_USAGE = `Usage: sightline replay NAME|FILE [--input k=v …] [--target ID] [--timeout MS] [--json] [--data-dir DIR]

Replays a saved routine (a name from <data dir>/routines, or a routine file) step by step.
  --input k=v   an input's value (repeat for each); a secret input is always asked for
  --target ID   act on this target instead of the one the routine names
  --timeout MS  how long each step waits for its element (default 5000)
  --json        print the report (or the error, with its details) as JSON
Exit codes: 0 done · 3 ROUTINE_DIVERGED (nothing after the step was done) · 4 an input is missing
(nothing was done) · 5 refused (paused, read-only, not allowed) · 2 routine or target not found · 1 other.
`;

export interface ReplayIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export async function runReplay(argv: string[], dataDir: string, io: ReplayIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      input: { type: 'string', multiple: true },
      target: { type: 'string' },
      timeout: { type: 'string' },
      json: { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help || positionals.length !== 1) {
    (values.help ? io.stdout : io.stderr).write(REPLAY_USAGE);
    return values.help ? 0 : 2;
  }
  const [{ createCore }, { ToolCaller }, { exitCodeOf }] = await Promise.all([import('../main/core/core.ts'), import('../main/core/mcp/server.ts'), import('../main/core/routines/routines.ts')]);
  const say = (line: string): void => void io.stderr.write(`${line}\n`);
  const core = await createCore({ dataDir, log: say });
  const controller = new AbortController();
  const onSignal = (): void => controller.abort(new SightlineError('CANCELLED', 'Interrupted.', 'Replay it again when ready.'));
  process.once('SIGINT', onSignal);
  try {
    const inputs = parseInputs(values.input ?? []);
    const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
    if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 100 || timeout > 600_000)) throw new SightlineError('INVALID_ARGUMENT', `--timeout must be 100–600000 ms, not ${values.timeout}.`, 'Give milliseconds, e.g. --timeout 10000.');
    await core.sources.health();
    const routine = core.routines.load(positionals[0]!);
    const tools = new ToolCaller(core);
    const ctx = tools.context({ session: new SessionFrames(), signal: controller.signal, client: 'sightline replay', progress: (p) => say(p.label) });
    const report = await core.routines.run(
      routine,
      (run) => ({ call: (tool, args) => ctx.call(tool, args, run), text: core.text, targets: core.targets, session: ctx.session, signal: controller.signal, progress: ctx.progress }),
      { inputs, ...(values.target ? { target: values.target } : {}), ...(timeout ? { stepTimeoutMs: timeout } : {}) },
    );
    if (values.json) io.stdout.write(`${JSON.stringify({ ok: true, ...report }, null, 2)}\n`);
    else {
      io.stdout.write(`Routine "${report.routine}" done on ${report.target}: ${report.steps.length} steps in ${report.ms} ms (run ${report.runId}).\n`);
      // What it read goes to stdout as lines of its own, for a script to take.
      for (const o of report.outputs) io.stdout.write(`Step ${o.step}, ${o.what}:\n${o.lines.map((l) => `  ${l}\n`).join('')}`);
    }
    return 0;
  } catch (e) {
    if (values.json) {
      const error = isSightlineError(e) ? { code: e.code, message: e.message, hint: e.hint, ...(e.details ? { details: e.details } : {}) } : { code: 'INTERNAL', message: String((e as Error)?.message ?? e) };
      io.stdout.write(`${JSON.stringify({ ok: false, error }, null, 2)}\n`);
    } else {
      say(isSightlineError(e) ? formatError(e.code, e.message, e.hint) : `sightline replay: ${(e as Error)?.stack ?? String(e)}`);
    }
    return exitCodeOf(e);
  } finally {
    process.off('SIGINT', onSignal);
    await core.close();
  }
}

/** `k=v` pairs; a value may hold "=". */
function parseInputs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i <= 0) throw new SightlineError('INVALID_ARGUMENT', `--input "${p}" is not k=v.`, 'Give --input name=value, once per input.');
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}

export const ROUTINE_USAGE = `Usage: sightline routine list | export NAME|FILE [--playwright] | import FILE [--replace]   [--data-dir DIR]

  list                 the saved routines, their targets and inputs
  export NAME          the routine's file on stdout (--playwright: as a Playwright test)
  import FILE          check a routine file and add it to <data dir>/routines
`;

/** `sightline routine …`: routines as files, without starting a core. */
export async function runRoutineCommand(argv: string[], dataDir: string, io: ReplayIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { playwright: { type: 'boolean', default: false }, replace: { type: 'boolean', default: false }, 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
  });
  const [verb, arg] = positionals;
  if (values.help || !verb) {
    (values.help ? io.stdout : io.stderr).write(ROUTINE_USAGE);
    return values.help ? 0 : 2;
  }
  const [{ RoutineStore, readRoutine }, { toPlaywright }, { exitCodeOf }] = await Promise.all([import('../main/core/routines/store.ts'), import('../main/core/routines/playwright.ts'), import('../main/core/routines/routines.ts')]);
  const store = new RoutineStore(dataDir);
  try {
    if (verb === 'list') {
      for (const r of store.list()) io.stdout.write(`${r.name}\t${r.steps} steps\t${Object.values(r.target).join(' ')}\t${r.inputs.map((i) => `${i.name}${i.required ? '' : '?'}${i.secret ? ' (secret)' : ''}`).join(', ')}\n`);
      return 0;
    }
    if ((verb === 'export' || verb === 'import') && !arg) throw new SightlineError('INVALID_ARGUMENT', `routine ${verb} needs a ${verb === 'export' ? 'name' : 'file'}.`, ROUTINE_USAGE);
    if (verb === 'export') {
      const r = /[\\/]|\.json$/.test(arg!) ? readRoutine(arg!) : store.get(arg!);
      io.stdout.write(values.playwright ? toPlaywright(r) : `${JSON.stringify(r, null, 2)}\n`);
      return 0;
    }
    if (verb === 'import') {
      const r = readRoutine(arg!);
      io.stdout.write(`Imported routine "${r.name}" (${r.steps.length} steps): ${store.save(r, values.replace === true)}\n`);
      return 0;
    }
    io.stderr.write(`Unknown routine command "${verb}".\n\n${ROUTINE_USAGE}`);
    return 2;
  } catch (e) {
    io.stderr.write(`${isSightlineError(e) ? formatError(e.code, e.message, e.hint) : String((e as Error)?.message ?? e)}\n`);
    return exitCodeOf(e);
  }
}
