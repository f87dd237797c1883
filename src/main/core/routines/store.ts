/**
 * Routines live as `<data dir>/routines/<name>.json`, one readable file each, so a person can
 * review, diff, copy (export) and drop one in (import). A name is a file name, never a path.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SightlineError } from '../../../shared/errors.ts';
import { ROUTINE_NAME, RoutineFormatError, inputsNamed, parseRoutine, type Routine } from './format.ts';

/** A routine file is a few KB; anything far larger is not one. */
const MAX_BYTES = 1 << 20;

export interface RoutineSummary {
  name: string;
  description?: string;
  target: Routine['target'];
  steps: number;
  inputs: { name: string; secret: boolean; required: boolean; description?: string }[];
}

export class RoutineStore {
  /** `<data dir>/routines`. */
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'routines');
  }

  /** Write a routine; an existing one of that name is replaced only when `replace` says so. */
  save(routine: Routine, replace = false): string {
    checkName(routine.name);
    const path = join(this.dir, `${routine.name}.json`);
    if (!replace && exists(path)) throw new SightlineError('INVALID_ARGUMENT', `A routine "${routine.name}" exists already.`, 'Give another name, or replace: true to overwrite it.');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // Written whole, then renamed: a reader never sees half a routine.
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(routine, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, path);
    return path;
  }

  get(name: string): Routine {
    checkName(name);
    const path = join(this.dir, `${name}.json`);
    if (!exists(path)) throw new SightlineError('ROUTINE_NOT_FOUND', `No routine "${name}" in ${this.dir}.`, 'Call list_routines, or save one with save_routine.');
    return readRoutine(path);
  }

  /** Remove a routine's file (its replays stay in the activity log). */
  remove(name: string): void {
    checkName(name);
    const path = join(this.dir, `${name}.json`);
    if (!exists(path)) throw new SightlineError('ROUTINE_NOT_FOUND', `No routine "${name}" in ${this.dir}.`, 'The Routines view lists the routines saved.');
    unlinkSync(path);
  }

  list(): RoutineSummary[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((f) => f.endsWith('.json') && ROUTINE_NAME.test(f.slice(0, -5)));
    } catch {
      return [];
    }
    return names.sort().flatMap((f) => {
      try {
        return [summaryOf(readRoutine(join(this.dir, f)))];
      } catch {
        // A file that does not parse is left for the person to fix; it is not a routine until then.
        return [];
      }
    });
  }
}

/** A routine file anywhere (`sightline replay FILE`, an import), checked. */
export function readRoutine(path: string): Routine {
  let text: string;
  try {
    if (statSync(path).size > MAX_BYTES) throw new SightlineError('INVALID_ARGUMENT', `${path} is larger than a routine can be (${MAX_BYTES} bytes).`, 'Give a routine file saved by Sightline.');
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof SightlineError) throw e;
    throw new SightlineError('ROUTINE_NOT_FOUND', `${path} cannot be read (${(e as Error).message}).`, 'Give a routine name from list_routines or the path of a routine file.');
  }
  try {
    return parseRoutine(text, path);
  } catch (e) {
    if (e instanceof RoutineFormatError) throw new SightlineError('INVALID_ARGUMENT', e.message, 'Fix the file (its format is described in docs/architecture.md, "Routines"), or save it again.');
    throw e;
  }
}

export function summaryOf(r: Routine): RoutineSummary {
  const used = new Set<string>();
  for (const s of r.steps) inputsNamed(s.params, used);
  return {
    name: r.name,
    ...(r.description ? { description: r.description } : {}),
    target: r.target,
    steps: r.steps.length,
    inputs: r.inputs.filter((i) => used.has(i.name)).map((i) => ({ name: i.name, secret: i.secret, required: i.default === undefined, ...(i.description ? { description: i.description } : {}) })),
  };
}

function checkName(name: string): void {
  if (!ROUTINE_NAME.test(name)) throw new SightlineError('INVALID_ARGUMENT', `"${name}" is not a routine name.`, 'Use letters, digits, "_", "-" and ".", starting with a letter or digit (at most 64).');
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
