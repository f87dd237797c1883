/**
 * A routine from what the activity log recorded of a run: each successful action becomes a
 * step that aims by the element's role and name (the text the agent aimed at, else what the
 * source said it hit or typed into), with the tool's other arguments and the outcome to check
 * (the page reached, the value read back). What the log does not hold whole becomes an input:
 * text typed into a password field, a form's values (logged as lengths), long text (shortened).
 */
import type { ActivityEntry, ElementDescription } from '../../../shared/activity.ts';
import { SightlineError } from '../../../shared/errors.ts';
import { HIDDEN_PASSWORD, INPUT_NAME, SHORTENED, inputNameOf } from '../../../shared/routineNames.ts';
import type { ReadEntry } from '../catalog/reads.ts';
import { fold } from '../text/match.ts';
import { placeReads, stepNumber } from './reads.ts';
import { ROUTINE_FORMAT, ROUTINE_VERSION, STEP_KINDS, type Routine, type RoutineInput, type RoutineStep, type RoutineTarget, type StepAim, type StepKind } from './format.ts';

/** Actions left out of a routine: replay brings each element into view itself. */
const SKIPPED = new Set(['scroll', 'scroll_into_view']);
/** A form label that names a secret (a form's values are logged as lengths: its secrets are known by their labels). */
const SECRET_LABEL = /pass(word|code|phrase)?|\bpin\b|card|cvc|cvv|security code|iban|secret|token/i;
/** How the gate logs a form's text value (its length only). */
const FORM_LENGTH = /^\(\d+ characters\)$/;

export interface BuildOptions {
  name: string;
  description?: string;
  /** Where the entries came from, for the file's `from`. */
  from: Routine['from'];
  /** Action number (1-based, among those kept) → input name: its typed text becomes an input, the recorded text its default. */
  inputs?: Readonly<Record<string, number>>;
  /** The page the first action acted on, when the log knows it from before the entries (the navigation that opened it). */
  page?: string;
  /** What the run read after the entries' actions (the catalog's reads): waits and its last reads become steps. */
  reads?: readonly ReadEntry[];
  now?: Date;
}

/** The routine of `entries` (oldest first; refused and non-action entries are left out). */
export function buildRoutine(entries: readonly ActivityEntry[], o: BuildOptions): Routine {
  const done = entries.filter((e) => e.result === 'ok' && !SKIPPED.has(e.tool));
  if (!done.length) throw new SightlineError('INVALID_ARGUMENT', 'Those actions hold no successful action to replay.', 'Pick a run or a range of activity-log entries with at least one successful click, type_text, navigate or fill_form.');
  const targets = new Set(done.map((e) => e.target));
  if (targets.size > 1) throw new SightlineError('UNSUPPORTED', `Those actions act on ${targets.size} targets (${[...targets].join(', ')}); a routine acts on one.`, 'Save the actions on each target as a routine of its own (fromAction/toAction).');
  const inputs = new Inputs();
  const placed = placeReads(done, o.reads ?? []);
  const acts = done.map((e, i) => stepOf(e, stepNumber(i, placed), inputs));
  for (const [name, n] of Object.entries(o.inputs ?? {})) inputs.choose(name, acts[n - 1], n, stepNumber(n - 1, placed));
  const steps = acts.flatMap((s, i) => [s, ...(placed.get(i) ?? [])]);
  return {
    format: ROUTINE_FORMAT,
    version: ROUTINE_VERSION,
    name: o.name,
    ...(o.description ? { description: o.description } : {}),
    createdAt: (o.now ?? new Date()).toISOString(),
    ...(o.from ? { from: o.from } : {}),
    ...targetOf(done, o.page),
    inputs: inputs.list(),
    steps,
  };
}

function stepOf(e: ActivityEntry, n: number, inputs: Inputs): RoutineStep {
  const kind = e.tool as StepKind;
  if (!(STEP_KINDS as readonly string[]).includes(kind)) {
    throw new SightlineError('UNSUPPORTED', `Action ${e.id} (${e.tool}) cannot be replayed by a routine.`, `A routine replays ${STEP_KINDS.join(', ')}; save the actions around it (fromAction/toAction).`);
  }
  const p = e.params ?? {};
  const out = e.outcome ?? {};
  const { target: _t, ref: _r, x: _x, y: _y, node: _n, text: _text, field: _f, index: _i, after: _a, toNode: _tn, toX: _tx, toY: _ty, ...rest } = p;
  const note = e.message ? e.message.slice(0, 500) : undefined;
  const expectUrl = out.navigated ? { url: pageOf(out.navigated.url) } : undefined;
  const base = { kind, ...(note ? { note } : {}) };
  switch (kind) {
    case 'type_text': {
      const aim = p.field !== undefined ? fieldAim(String(p.field), out.received ?? out.hit) : p.node !== undefined || p.x !== undefined ? elementAim(out.received, e, 'field') : undefined;
      const secret = out.received?.password === true || (typeof p.text === 'string' && HIDDEN_PASSWORD.test(p.text));
      const long = typeof p.text === 'string' && SHORTENED.test(p.text);
      const label = aim?.name ?? 'text';
      const text = secret || long ? { input: inputs.add(label, secret, `Typed into “${label}” (step ${n})${secret ? ': a secret, never stored' : ''}.`) } : p.text;
      return { ...base, ...(aim ? { aim } : {}), params: { ...rest, text }, ...(secret ? {} : { expect: { valueTyped: true, ...expectUrl } }) };
    }
    case 'fill_form': {
      const fields = (Array.isArray(p.fields) ? p.fields : []).map((f: unknown, i) => {
        const field = f as { label?: string; node?: string; value?: unknown };
        if (field.label === undefined) throw new SightlineError('UNSUPPORTED', `Action ${e.id} (fill_form) named field ${i + 1} by a node id, which does not outlive its page.`, 'Fill the form by label ("label": "Email") and save again.');
        // The log holds a text value's length only: the value is asked for at replay.
        const value = typeof field.value === 'string' && FORM_LENGTH.test(field.value) ? { input: inputs.add(field.label, SECRET_LABEL.test(field.label), `“${field.label}” (step ${n}).`) } : field.value;
        return { label: field.label, value };
      });
      return { ...base, params: { ...rest, fields }, ...(expectUrl ? { expect: expectUrl } : {}) };
    }
    case 'press_key':
    case 'launch_app':
      return { ...base, params: rest, ...(expectUrl ? { expect: expectUrl } : {}) };
    case 'navigate':
    case 'handle_dialog':
      return { ...base, params: rest, ...(expectUrl ? { expect: expectUrl } : {}) };
    case 'drag': {
      // Both ends by what the source said they were: the element dragged and the one dropped on.
      if (!out.drop?.name) throw new SightlineError('UNSUPPORTED', `Action ${e.id} (drag) dropped on a point the log names no element for.`, 'Drag onto an element (toNode) in the run you save, so the routine can find the drop again.');
      return { ...base, aim: elementAim(out.hit, e, 'control'), to: { ...(out.drop.role ? { role: out.drop.role } : {}), name: out.drop.name, purpose: 'control' }, params: rest, ...(expectUrl ? { expect: expectUrl } : {}) };
    }
    default: {
      // click, hover, select_option, set_checked: the element by the text aimed at, else by what was hit.
      const aim = p.text !== undefined ? textAim(String(p.text), out.hit) : elementAim(out.hit, e, 'control');
      return { ...base, aim, params: rest, ...(expectUrl ? { expect: expectUrl } : {}) };
    }
  }
}

/** The text the agent aimed at; the role of what it hit when that is the same element. */
function textAim(text: string, hit: ElementDescription | undefined): StepAim {
  const role = hit?.role && hit.name && bare(hit.name) === bare(text) ? hit.role : undefined;
  return { ...(role ? { role } : {}), name: text, purpose: 'control' };
}

function fieldAim(label: string, received: ElementDescription | undefined): StepAim {
  return { ...(received?.role ? { role: received.role } : {}), name: label, purpose: 'field' };
}

/** An action aimed at a node or a point is aimed at again by what the source said was there. */
function elementAim(el: ElementDescription | undefined, e: ActivityEntry, purpose: StepAim['purpose']): StepAim {
  if (!el?.name) {
    throw new SightlineError(
      'UNSUPPORTED',
      `Action ${e.id} (${e.tool}) aimed at ${e.params?.node !== undefined ? `node ${String(e.params.node)}` : 'a point'} whose element has no name to find it by again.`,
      'Act by visible text (text/field) in the run you save, so the routine can find the element on a changed page.',
    );
  }
  return { ...(el.role ? { role: el.role } : {}), name: el.name, purpose };
}

/** The routine's target as the allowlist judges it: a tab's origin, a window's app, a device's package in front. */
function targetOf(entries: readonly ActivityEntry[], page: string | undefined): { target: RoutineTarget; start?: string } {
  const first = entries[0]!;
  const source = first.source ?? first.target?.split(':')[0];
  if (source === 'browser') {
    const nav = entries.find((e) => e.tool === 'navigate' && typeof e.params?.url === 'string');
    const url = page ?? entries.map((e) => e.targetLabel?.document).find((d) => d && /^https?:/.test(d)) ?? (nav?.params?.url as string | undefined);
    const origin = url ? originOf(url) : undefined;
    if (!origin) throw new SightlineError('UNSUPPORTED', `The log does not say which page ${first.target} showed.`, 'Capture the tab once before acting, so its page is recorded.');
    // A routine that opens its page itself starts there; otherwise on the page its first action was on.
    const start = first.tool === 'navigate' ? undefined : page ?? first.targetLabel?.document;
    return { target: { source: 'browser', origin }, ...(start && originOf(start) ? { start: pageOf(start) } : {}) };
  }
  // A run that starts by launching an app acts on that app, whatever was in front before it.
  const launched = source === 'android' && first.tool === 'launch_app' && typeof first.params?.package === 'string' ? first.params.package : undefined;
  const app = launched ?? first.targetLabel?.app;
  if (!app) throw new SightlineError('UNSUPPORTED', `The log does not say which app ${first.target} showed.`, 'Capture the target once before acting, so its app is recorded.');
  if (source === 'android') return { target: { source: 'android', package: app } };
  if (source === 'desktop') return { target: { source: 'desktop', app } };
  throw new SightlineError('UNSUPPORTED', `A routine cannot act on ${source ?? 'this'} targets.`, 'Routines replay browser, desktop and Android actions.');
}

export function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.origin === 'null' ? undefined : u.origin;
  } catch {
    return undefined;
  }
}

/** Origin and path: what a replay must reach (a query or fragment may differ from run to run). */
export function pageOf(url: string): string {
  try {
    const u = new URL(url);
    return u.origin === 'null' ? url : `${u.origin}${u.pathname}`;
  } catch {
    return url;
  }
}

export function bare(s: string): string {
  return fold(s).text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

/** The inputs a routine asks for, named after their fields. */
class Inputs {
  readonly #list: RoutineInput[] = [];

  add(label: string, secret: boolean, description: string): string {
    const stem = inputNameOf(label, 'value');
    let name = stem;
    for (let i = 2; this.#list.some((x) => x.name === name); i++) name = `${stem}_${i}`;
    this.#list.push({ name, secret, description });
    return name;
  }

  /** Step `n`'s typed text becomes input `name`, the text recorded its default. */
  /** `n` as the caller numbered it (among the actions kept); `at` the step's number in the file. */
  choose(name: string, step: RoutineStep | undefined, n: number, at: number): void {
    if (!INPUT_NAME.test(name)) throw new SightlineError('INVALID_ARGUMENT', `"${name}" is not an input name.`, 'Use letters, digits and _, starting with a letter.');
    if (this.#list.some((x) => x.name === name)) throw new SightlineError('INVALID_ARGUMENT', `Input "${name}" is named twice.`, 'Give each input its own name.');
    if (!step || step.kind !== 'type_text') throw new SightlineError('INVALID_ARGUMENT', `Action ${n} types no text to make input "${name}" of.`, 'Name a type_text action (1 = the first action saved).');
    const text = step.params.text;
    if (typeof text !== 'string') throw new SightlineError('INVALID_ARGUMENT', `Action ${n}'s text is already an input.`, 'Leave it out of "inputs".');
    step.params.text = { input: name };
    this.#list.push({ name, secret: false, description: `Typed at step ${at}.`, default: text });
  }

  list(): RoutineInput[] {
    return this.#list;
  }
}
