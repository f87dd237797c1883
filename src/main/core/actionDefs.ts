/**
 * How an action kind is defined: the input fields every kind reads its target, frame and aim
 * from, `defineAction`, and which port performs a kind. It sits below both the action service
 * (actions/, which runs kinds through the gate) and the sources (whose modules define kinds of
 * their own), so a source defines its kinds without reaching the service above it.
 *
 * The fields' descriptions are short: the conventions behind them (image pixels of the latest
 * capture, node handles, text aims, what `after` reports) are the server's instructions, said once
 * per session rather than once per tool in every tools/list.
 */
import { z } from 'zod';
import { SightlineError } from '../../shared/errors.ts';
import type { Point } from '../../shared/frame.ts';
import type { ActionKind, Mapped, Performer } from './ports.ts';
import { portOf } from './sources/aim.ts';
import type { BuiltinActionKind, PendingAction, Source, SourceAction, StoredFrame } from './sources/source.ts';

export type { ActionKind, AimRule, AnyActionKind, ArgsOf, Mapped, Performer } from './ports.ts';

// ── fields ─────────────────────────────────────────────────────────────────────────────────

export const targetField = z.string().min(1).max(512).describe('Target id; optional with ref.');
export const refField = z.string().min(1).max(128).describe('Frame ref x, y are in (default: latest capture).');
export const xField = z.number().finite().describe('Image px from the left.');
export const yField = z.number().finite().describe('Image px from the top.');
export const nodeField = z.string().min(1).max(128).describe('Node id from get_ui_tree.');
export const textAimField = z.string().min(1).max(500).describe('Visible text to act on, e.g. "Submit".');
export const indexField = z.int().min(1).max(1000).describe('Which match, 1 = first listed.');
export const afterField = z.enum(['none', 'summary', 'image']);

/** The aim fields of a pointer kind: x, y, a node or visible text, on a target or in a named frame. */
export const aimFields = {
  x: xField.optional(),
  y: yField.optional(),
  node: nodeField.optional(),
  text: textAimField.optional(),
  index: indexField.optional(),
  target: targetField.optional(),
  ref: refField.optional(),
  after: afterField.optional(),
};

/** The target-or-frame fields of a kind that aims at nothing. */
export const targetFields = {
  target: targetField.optional(),
  ref: refField.optional().describe('Names the target by a frame of it.'),
  after: afterField.optional(),
};

// ── kinds ──────────────────────────────────────────────────────────────────────────────────

export function defineAction<S extends z.ZodRawShape, A>(kind: ActionKind<S, A>): ActionKind<S, A> {
  return kind;
}

/** The input port performs a built-in kind, when the source says it does (else why it makes no sense there). */
export function viaInput(kind: BuiltinActionKind): (source: Source) => Performer<SourceAction> {
  return (source) => {
    const input = portOf(source, 'input');
    if (!input.actions.includes(kind)) {
      const why = input.unsupported?.[kind];
      if (why) throw new SightlineError('UNSUPPORTED', why.message, why.hint);
      throw new SightlineError('UNSUPPORTED', `${kind} is not supported by the ${source.name} source.`, `Supported: ${input.actions.join(', ') || 'none'}.`);
    }
    return (action, signal) => input.perform(action, signal);
  };
}

/** A source module's own kind: only that source performs it, through its input port. */
export function viaModule(source: string, kind: string): (s: Source) => Performer<unknown> {
  return (s) => {
    if (s.name !== source) throw new SightlineError('UNSUPPORTED', `${kind} works on ${source} targets, not ${s.name}.`, `Give a ${source}:… target from list_targets.`);
    const input = portOf(s, 'input');
    return (action, signal) => input.perform(action as PendingAction<never>, signal);
  };
}

/** The aim of a pointer action, as its source reads it. */
export function aimOf(at: Mapped): { frame?: StoredFrame; point?: Point; node?: string } {
  return { ...(at.frame ? { frame: at.frame } : {}), ...(at.point ? { point: at.point } : {}), ...(at.node !== undefined ? { node: at.node } : {}) };
}

/** Long text is kept short in the log. */
export function shorten(v: string, max = 200): string {
  return v.length > max ? `${v.slice(0, max)}… (${v.length} chars)` : v;
}
