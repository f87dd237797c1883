/**
 * A routine on disk: one JSON file, versioned, one step per action. A step names what it acts
 * on as the page or app describes it (role and accessible name, a field's label), never by a
 * point or a node id of the run it came from, so it finds the element again wherever it moved.
 * Its target is named as the allowlist judges it (a tab by origin, a window by app, a device by
 * the package in front). A value that was a secret is never written: the step reads it from an
 * input (`{"input": "password"}`) the person gives at replay.
 */
import { z } from 'zod';
import { INPUT_NAME } from '../../../shared/routineNames.ts';

export const ROUTINE_FORMAT = 'sightline-routine';
export const ROUTINE_VERSION = 1;

/** A routine's name is also its file name. */
export const ROUTINE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export { INPUT_NAME };

/** A value given at replay: `{"input": "email"}` in place of a literal. */
export const inputRef = z.object({ input: z.string().regex(INPUT_NAME) }).strict();
export type InputRef = z.infer<typeof inputRef>;

export const routineTarget = z.discriminatedUnion('source', [
  z.object({ source: z.literal('browser'), origin: z.string().min(1).max(2048) }).strict(),
  z.object({ source: z.literal('desktop'), app: z.string().min(1).max(512) }).strict(),
  z.object({ source: z.literal('android'), package: z.string().min(1).max(512) }).strict(),
]);
export type RoutineTarget = z.infer<typeof routineTarget>;

/** The element a step acts on, as the page or app names it. */
export const stepAim = z
  .object({
    /** ARIA role (browser), class (Android), accessible role (desktop), when it was known. */
    role: z.string().min(1).max(128).optional(),
    /** The accessible name, label, placeholder or visible text. */
    name: z.string().min(1).max(500),
    /** `field`: only controls that take typed text; `control`: anything that can be acted on. */
    purpose: z.enum(['control', 'field']),
  })
  .strict();
export type StepAim = z.infer<typeof stepAim>;

export const stepExpect = z
  .object({
    /** The page reached: origin and path (the query and fragment may differ between runs). */
    url: z.string().min(1).max(8192).optional(),
    /** The field's value read back equals the text typed. */
    valueTyped: z.boolean().optional(),
  })
  .strict();
export type StepExpect = z.infer<typeof stepExpect>;

/** The kinds a routine replays: each is the tool a live agent calls, with the same arguments. */
export const STEP_KINDS = ['click', 'type_text', 'press_key', 'navigate', 'fill_form', 'select_option', 'set_checked', 'hover', 'drag', 'handle_dialog', 'launch_app', 'wait_for', 'find_text', 'get_ui_tree'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** Where a recording acted, which a replay finds again by what the element is. */
const AIMED_ANEW = ['target', 'ref', 'x', 'y', 'node', 'index', 'toNode', 'toX', 'toY'];

export const routineStep = z
  .object({
    kind: z.enum(STEP_KINDS),
    aim: stepAim.optional(),
    /** Where a drag drops: the element found again by what it is, as the aim is. */
    to: stepAim.optional(),
    /** The tool's other arguments (no target, node, x, y or ref: those are found at replay); a value may be an input. */
    params: z.record(z.string(), z.unknown()).refine((p) => !AIMED_ANEW.some((k) => k in p), { message: 'a step names no target, ref, x, y, node, index or drop point: replay finds them anew' }),
    expect: stepExpect.optional(),
    /** What the step did when it was recorded, for the person reading the file. */
    note: z.string().max(500).optional(),
  })
  .strict();
export type RoutineStep = z.infer<typeof routineStep>;

export const routineInput = z
  .object({
    name: z.string().regex(INPUT_NAME),
    /** A password or payment value: never stored, never logged, always asked for. */
    secret: z.boolean(),
    description: z.string().max(500).optional(),
    /** The value used when none is given (never for a secret). */
    default: z.string().max(10_000).optional(),
  })
  .strict()
  .refine((i) => !(i.secret && i.default !== undefined), { message: 'a secret input has no default' });
export type RoutineInput = z.infer<typeof routineInput>;

export const routineSchema = z
  .object({
    format: z.literal(ROUTINE_FORMAT),
    version: z.literal(ROUTINE_VERSION),
    name: z.string().regex(ROUTINE_NAME),
    description: z.string().max(2000).optional(),
    createdAt: z.string(),
    /** Where it was recorded: a run id, or a range of activity-log entries. */
    from: z.object({ run: z.string().optional(), actions: z.tuple([z.int(), z.int()]).optional() }).strict().optional(),
    target: routineTarget,
    /** The page its first step acted on (origin and path): where a copy of the run, a Playwright test say, starts. */
    start: z.string().min(1).max(8192).optional(),
    inputs: z.array(routineInput).max(100),
    steps: z.array(routineStep).min(1).max(500),
  })
  .strict();
export type Routine = z.infer<typeof routineSchema>;

export function isInputRef(v: unknown): v is InputRef {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as { input?: unknown }).input === 'string';
}

/** Every input a value names, deep. */
export function inputsNamed(v: unknown, out = new Set<string>()): Set<string> {
  if (isInputRef(v)) out.add(v.input);
  else if (Array.isArray(v)) for (const x of v) inputsNamed(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) inputsNamed(x, out);
  return out;
}

/** The value with every input reference replaced by its value. */
export function withInputs(v: unknown, values: ReadonlyMap<string, string>): unknown {
  if (isInputRef(v)) return values.get(v.input);
  if (Array.isArray(v)) return v.map((x) => withInputs(x, values));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withInputs(x, values)]));
  return v;
}

/** A routine read from JSON text, checked: every input a step names is declared. */
export function parseRoutine(text: string, where: string): Routine {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new RoutineFormatError(`${where} is not JSON (${(e as Error).message}).`);
  }
  const parsed = routineSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RoutineFormatError(`${where}: "${issue?.path.join('.') || '(routine)'}": ${issue?.message ?? 'invalid'}.`);
  }
  const declared = new Set(parsed.data.inputs.map((i) => i.name));
  parsed.data.steps.forEach((s, i) => {
    for (const name of inputsNamed(s.params)) if (!declared.has(name)) throw new RoutineFormatError(`${where}: step ${i + 1} reads input "${name}", which "inputs" does not declare.`);
  });
  return parsed.data;
}

export class RoutineFormatError extends Error {
  override name = 'RoutineFormatError';
}
