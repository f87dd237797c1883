/**
 * Replaying a routine without a model. Inputs are checked before anything is touched; the target
 * is found by what the routine names (a tab by origin, a window by app, a device by package in
 * front). Each step then finds its element afresh by role and name in the target's own text,
 * waiting until exactly one is there; calls the very tool a live agent calls (so the pause
 * switch, read-only, the allowlist, confinement, masking and the activity log apply as they do
 * to an agent), aimed at that element's node; and checks the outcome the recording saw. When an
 * element is missing or matches more than one place, or an outcome differs, the replay stops
 * there with ROUTINE_DIVERGED (the step, what it expected, what it saw, a frame of the screen):
 * no later step runs, and a step that diverges before acting touches nothing.
 */
import { SightlineError, isSightlineError } from '../../../shared/errors.ts';
import type { ScreenTextPort, Session, TargetsPort } from '../ports.ts';
import type { UiNode } from '../../../shared/frame.ts';
import type { TextItem } from '../sources/source.ts';
import { matchItem } from '../text/items.ts';
import { findText, type TextMatch } from '../text/match.ts';
import { bare, originOf, pageOf } from './build.ts';
import { READ_KINDS, describeRead, readBack, readTarget } from './reads.ts';
import { inputsNamed, withInputs, type Routine, type RoutineStep, type StepAim } from './format.ts';

export interface ReplayDeps {
  /** Call a tool as a live agent does (its validation, the gate, the activity log); resolves to its structured result. */
  call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  text: Pick<ScreenTextPort, 'read'>;
  targets: TargetsPort;
  session?: Session;
  signal: AbortSignal;
  progress?(p: { label: string; done: number; total: number }): void;
}

export interface ReplayOptions {
  inputs: Readonly<Record<string, string>>;
  /** The target to act on, instead of the one the routine names. */
  target?: string;
  /** How long a step waits for its element (and a navigation for its page), ms. */
  stepTimeoutMs?: number;
  pollMs?: number;
}

export interface StepReport {
  step: number;
  kind: string;
  aim?: string;
  ok: true;
  ms: number;
  /** What the tool said it did (its structured result, trimmed to the facts). */
  result: Record<string, unknown>;
}

export interface ReplayReport {
  routine: string;
  target: string;
  steps: StepReport[];
  /** What the routine's reads saw (a text found, a tree query), step by step. */
  outputs: { step: number; what: string; lines: string[] }[];
  ms: number;
}

/** What ROUTINE_DIVERGED carries in `details`. */
export interface Divergence {
  step: number;
  kind: string;
  expected: string;
  saw: string;
  frame?: string;
}

const DEFAULT_TIMEOUT_MS = 5000;

/** The inputs' values, refused before the first step when one that is needed is missing. */
export function resolveInputs(r: Routine, given: Readonly<Record<string, string>>): Map<string, string> {
  const used = new Set<string>();
  for (const s of r.steps) inputsNamed(s.params, used);
  const unknown = Object.keys(given).filter((k) => !r.inputs.some((i) => i.name === k));
  if (unknown.length) throw new SightlineError('INVALID_ARGUMENT', `Routine "${r.name}" has no input ${unknown.map((k) => `"${k}"`).join(', ')}.`, `Its inputs: ${r.inputs.map((i) => i.name).join(', ') || 'none'}.`);
  const values = new Map<string, string>();
  const missing: string[] = [];
  for (const i of r.inputs) {
    if (!used.has(i.name)) continue;
    const v = given[i.name] ?? i.default;
    if (v === undefined) missing.push(i.name);
    else values.set(i.name, v);
  }
  if (missing.length) {
    throw new SightlineError('INPUT_REQUIRED', `Routine "${r.name}" needs ${missing.map((k) => `"${k}"`).join(', ')}: nothing was done.`, `Give ${missing.map((k) => `${k}=…`).join(' ')} (inputs; a secret is never stored in the routine).`, { missing });
  }
  return values;
}

export async function replay(r: Routine, d: ReplayDeps, o: ReplayOptions): Promise<ReplayReport> {
  const started = performance.now();
  const values = resolveInputs(r, o.inputs);
  const target = await findTarget(r, d, o.target);
  const timeoutMs = o.stepTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pollMs = o.pollMs ?? 200;
  const steps: StepReport[] = [];
  const outputs: ReplayReport['outputs'] = [];
  for (const [i, step] of r.steps.entries()) {
    const n = i + 1;
    d.signal.throwIfAborted();
    d.progress?.({ label: `step ${n}/${r.steps.length}: ${describeStep(step)}`, done: i, total: r.steps.length });
    const t0 = performance.now();
    const diverge = async (expected: string, saw: string): Promise<never> => {
      const frame = await frameOf(d, target);
      const details: Divergence = { step: n, kind: step.kind, expected, saw, ...(frame ? { frame } : {}) };
      throw new SightlineError('ROUTINE_DIVERGED', `Step ${n} (${describeStep(step)}): expected ${expected}; saw ${saw}. Nothing after it was done.`, frame ? `Look at frame ${frame}; fix the routine or the page, then replay.` : 'Fix the routine or the page, then replay.', details as unknown as Record<string, unknown>);
    };
    const args: Record<string, unknown> = { ...(withInputs(step.params, values) as Record<string, unknown>), target };
    if (step.aim) {
      const found = await findElement(d, target, step, step.aim, timeoutMs, pollMs);
      if ('diverged' in found) await diverge(found.expected, found.diverged);
      else if ('node' in found) args.node = found.node;
      // Read by OCR: the tool aims by the same words again, and refuses (AMBIGUOUS_TEXT) rather than guess.
      else args[step.aim.purpose === 'field' ? 'field' : 'text'] = found.text;
    }
    if (step.to) {
      const drop = await findElement(d, target, step, step.to, timeoutMs, pollMs);
      if ('diverged' in drop) await diverge(`to drop on ${drop.expected}`, drop.diverged);
      else if ('node' in drop) args.toNode = drop.node;
    }
    let result: Record<string, unknown>;
    try {
      result = await d.call(step.kind, args);
    } catch (e) {
      // A form field the page no longer names (or names twice) is the page differing, like an element; the gate's refusals are not.
      if (isSightlineError(e) && (e.code === 'NODE_NOT_FOUND' || e.code === 'AMBIGUOUS_TEXT')) await diverge(step.kind === 'fill_form' ? 'each field by its label' : 'the element', `${e.code}: ${e.message}`);
      // The dialog the recording answered did not open: nothing was answered.
      if (isSightlineError(e) && step.kind === 'handle_dialog' && e.code === 'INVALID_ARGUMENT') await diverge('a dialog open', e.message);
      if (isSightlineError(e) && step.kind === 'wait_for' && e.code === 'TIMEOUT') await diverge(readTarget(step), e.message);
      throw e;
    }
    const seen = (READ_KINDS as readonly string[]).includes(step.kind) ? readBack(step, result) : [];
    if (!seen) await diverge(readTarget(step), 'none');
    else if (seen.length) outputs.push({ step: n, what: describeRead(step), lines: seen });
    await checkOutcome(d, step, result, target, timeoutMs, pollMs, diverge);
    steps.push({ step: n, kind: step.kind, ...(step.aim ? { aim: aimText(step.aim) } : {}), ok: true, ms: Math.round(performance.now() - t0), result: facts(result) });
  }
  d.progress?.({ label: `${r.name}: ${r.steps.length} steps done`, done: r.steps.length, total: r.steps.length });
  return { routine: r.name, target, steps, outputs, ms: Math.round(performance.now() - started) };
}

/** The one target the routine names (or the one given among them): a tab showing its origin, a window of its app, a device with its package in front. */
async function findTarget(r: Routine, d: ReplayDeps, given: string | undefined): Promise<string> {
  const t = r.target;
  const listed = (await d.targets.list(t.source, d.signal)).targets;
  let named = listed.filter((x) => {
    if (t.source === 'browser') return typeof x.details?.url === 'string' && originOf(x.details.url) === t.origin;
    if (t.source === 'android') return x.app === t.package || x.details?.package === t.package;
    return x.app === t.app;
  });
  // A routine that starts by launching its app needs it in front of no device yet: any one ready device will do.
  const first = r.steps[0];
  if (!named.length && t.source === 'android' && first?.kind === 'launch_app' && first.params.package === t.package) named = listed.filter((x) => x.state === 'device');
  const what = t.source === 'browser' ? `a tab at ${t.origin}` : t.source === 'android' ? `a device with ${t.package} in front` : `a window of ${t.app}`;
  // A target given picks among those the routine names; it never takes the routine somewhere it was not recorded.
  if (given !== undefined) {
    if (named.some((x) => x.id === given)) return given;
    throw new SightlineError('INVALID_ARGUMENT', `Routine "${r.name}" acts on ${what}; ${given} is not one${named.length ? ` (${named.map((x) => x.id).join(', ')} ${named.length === 1 ? 'is' : 'are'})` : ''}. Nothing was done.`, named.length ? 'Give one of those, or leave the target out when there is one.' : 'Open it first; list_targets shows what is there.');
  }
  if (named.length === 1) return named[0]!.id;
  if (!named.length) throw new SightlineError('TARGET_NOT_FOUND', `Routine "${r.name}" acts on ${what}, and there is none.`, `Open it, or give the target to act on (target / --target) from list_targets.`);
  throw new SightlineError('INVALID_ARGUMENT', `Routine "${r.name}" acts on ${what}, and there are ${named.length}: ${named.map((x) => x.id).join(', ')}.`, 'Give the one to act on (target / --target).');
}

type Found = { node: string } | { text: string } | { diverged: string; expected: string };

/** What a step can aim at by words OCR read, where a target has no tree: a point those words are at. */
const OCR_KINDS = new Set(['click', 'hover', 'type_text']);

/**
 * The element a step aims at, found by what it is: the items of the target's text whose name
 * (text, label, placeholder) is the step's name, whole; a field only among controls that take
 * text; the recorded role narrowing several. Waits while there is none; more than one is refused
 * at once (which one the recording meant cannot be told).
 */
async function findElement(d: ReplayDeps, target: string, step: RoutineStep, aim: StepAim, timeoutMs: number, pollMs: number): Promise<Found> {
  const deadline = performance.now() + timeoutMs;
  const expected = `exactly one ${aimText(aim)}`;
  for (;;) {
    const read = await d.text.read(target, { signal: d.signal, ...(d.session ? { session: d.session } : {}) });
    if (read.via === 'ocr') {
      if (!OCR_KINDS.has(step.kind)) return { expected, diverged: `a target whose text could only be read by OCR (no element to ${step.kind} by what it is)` };
      const words = ocrMatches(read.items, aim);
      if (words.length === 1) return { text: aim.name };
      if (words.length > 1) return { expected, diverged: `${words.length} places read by OCR: ${words.slice(0, 5).map((m) => `"${short(m.text)}" at (${Math.round(m.center.x)}, ${Math.round(m.center.y)})`).join(', ')}` };
    } else {
      let found = matches(read.items, aim);
      if (!found.length) found = await belowTheFold(d, target, aim);
      if (found.length === 1) return { node: found[0]!.node! };
      if (found.length > 1) return { expected, diverged: `${found.length} places: ${found.slice(0, 5).map((i) => `${i.role ?? 'element'} "${short(i.label ?? i.text)}" (node ${i.node})`).join(', ')}` };
    }
    if (performance.now() >= deadline) return { expected, diverged: `none after ${timeoutMs} ms${nearby(read.items, aim)}` };
    await sleep(pollMs, d.signal);
  }
}

/** Roles of controls that take typed text, as the trees name them (ARIA, AT-SPI, Android classes). */
const FIELD_ROLE = /^(textbox|searchbox|combobox|spinbutton|entry|text|password text)$|EditText$/i;

/**
 * The aimed element among the nodes the target does not show now (a control moved below the
 * fold): the text read is what is in view, the tree is the whole page. Acting on such a node by
 * its id scrolls it into view first. None when the target has no tree.
 */
async function belowTheFold(d: ReplayDeps, target: string, aim: StepAim): Promise<TextItem[]> {
  let nodes: UiNode[];
  try {
    nodes = ((await d.call('get_ui_tree', { target, query: aim.name.slice(0, 200), maxNodes: 50 })).nodes as UiNode[] | undefined) ?? [];
  } catch (e) {
    if (isSightlineError(e) && e.code !== 'CANCELLED') return [];
    throw e;
  }
  const items = nodes
    .filter((n) => n.inViewport === false && n.name)
    .map((n): TextItem => {
      const field = FIELD_ROLE.test(n.role);
      return { text: n.name, node: n.id, role: n.role, bounds: n.bounds, confidence: 1, editable: field, takesValue: field || n.value !== undefined, actionable: n.clickable !== false };
    });
  return matches(items, aim);
}

/** Where OCR read the aim's name as whole words, exactly (a misread is not the element: the replay stops instead). */
export function ocrMatches(items: readonly TextItem[], aim: StepAim): TextMatch[] {
  return findText(items.map(matchItem), aim.name, { fuzzy: false }).filter((m) => m.wholeWord);
}

/** The items that are the aimed element, one per node. */
export function matches(items: readonly TextItem[], aim: StepAim): TextItem[] {
  const want = bare(aim.name);
  const byNode = new Map<string, TextItem>();
  for (const item of items) {
    if (item.node === undefined || byNode.has(item.node)) continue;
    if (bare(item.text) !== want && (item.label === undefined || bare(item.label) !== want)) continue;
    byNode.set(item.node, item);
  }
  let found = [...byNode.values()];
  if (aim.purpose === 'field') found = found.filter((i) => i.editable !== false && (i.editable === true || i.takesValue === true));
  else if (found.length > 1) found = prefer(found, (i) => i.actionable === true);
  if (aim.role && found.length > 1) found = prefer(found, (i) => sameRole(i.role, aim.role));
  return found;
}

/** A role as the text names it and as an action's hit did: Android says `Button` for `android.widget.Button`. */
function sameRole(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && (a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`));
}

function prefer(list: TextItem[], test: (i: TextItem) => boolean): TextItem[] {
  const kept = list.filter(test);
  return kept.length ? kept : list;
}

/** What is there instead, when the element is not: items of its role, or names that contain its name. */
function nearby(items: readonly TextItem[], aim: StepAim): string {
  const want = bare(aim.name);
  const near = items.filter((i) => i.node !== undefined && ((aim.role !== undefined && sameRole(i.role, aim.role)) || bare(i.label ?? i.text).includes(want))).slice(0, 5);
  return near.length ? `; there is ${near.map((i) => `${i.role ?? 'element'} "${short(i.label ?? i.text)}"`).join(', ')}` : '';
}

async function checkOutcome(d: ReplayDeps, step: RoutineStep, result: Record<string, unknown>, target: string, timeoutMs: number, pollMs: number, diverge: (expected: string, saw: string) => Promise<never>): Promise<void> {
  const exp = step.expect;
  if (!exp) return;
  if (exp.valueTyped) {
    const received = result.received as { valueMatches?: boolean; value?: string; password?: boolean } | undefined;
    if (received && received.valueMatches === false && !received.password) await diverge('the field to read back the text typed', received.value !== undefined ? `"${short(received.value)}"` : 'another value');
  }
  if (exp.url) {
    const navigated = (result.navigated as { url?: string } | undefined)?.url;
    let at = navigated ? pageOf(navigated) : undefined;
    // A page that loads after the action's answer is waited for, as long as an element is.
    const deadline = performance.now() + timeoutMs;
    while (at !== exp.url && performance.now() < deadline) {
      at = await urlOf(d, target);
      if (at === exp.url) break;
      await sleep(pollMs, d.signal);
    }
    if (at !== exp.url) await diverge(`the page ${exp.url}`, at ? `the page ${at}` : 'no page');
  }
}

async function urlOf(d: ReplayDeps, target: string): Promise<string | undefined> {
  const t = (await d.targets.list(undefined, d.signal)).targets.find((x) => x.id === target);
  return typeof t?.details?.url === 'string' ? pageOf(t.details.url) : undefined;
}

/** A frame of the screen where the replay stopped (none when it cannot be taken: the stop says why anyway). */
async function frameOf(d: ReplayDeps, target: string): Promise<string | undefined> {
  try {
    const r = await d.call('capture', { target });
    return (r.frame as { ref?: string } | undefined)?.ref;
  } catch {
    return undefined;
  }
}

/** The facts of a tool's answer worth keeping in a report (never a value read back). */
function facts(r: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['target', 'hit', 'navigated', 'dialog', 'title', 'note']) if (r[k] !== undefined) out[k] = r[k];
  if (r.received && typeof r.received === 'object') {
    const { value: _v, ...rest } = r.received as Record<string, unknown>;
    out.received = rest;
  }
  return out;
}

export function aimText(a: StepAim): string {
  return `${a.role ?? (a.purpose === 'field' ? 'field' : 'element')} "${short(a.name)}"`;
}

export function describeStep(s: RoutineStep): string {
  const p = s.params;
  switch (s.kind) {
    case 'navigate':
      return `navigate ${typeof p.url === 'string' ? p.url : String(p.action ?? '')}`;
    case 'press_key':
      return `press ${String(p.key)}`;
    case 'launch_app':
      return `launch_app ${String(p.package)}`;
    case 'wait_for':
    case 'find_text':
    case 'get_ui_tree':
      return describeRead(s);
    case 'fill_form':
      return `fill_form (${Array.isArray(p.fields) ? p.fields.length : 0} fields)`;
    case 'handle_dialog':
      return `${p.accept ? 'accept' : 'dismiss'} the dialog`;
    default:
      return s.aim ? `${s.kind} ${aimText(s.aim)}${s.to ? ` onto ${aimText(s.to)}` : ''}` : s.kind;
  }
}

function short(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 60 ? `${one.slice(0, 59)}…` : one;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((ok, fail) => {
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      ok();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      fail(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
