/**
 * What a run read, as routine steps. A wait it made between actions is waited for again; a text it
 * found or a tree query it made after its last action is read again on replay and handed back as
 * the routine's output. Reads made before an action, to find the way, are not kept: a replay finds
 * each element itself.
 */
import type { ActivityEntry } from '../../../shared/activity.ts';
import type { UiNode } from '../../../shared/frame.ts';
import type { ReadEntry } from '../catalog/reads.ts';
import type { RoutineStep } from './format.ts';

/** The tools whose reads a routine keeps. */
export const READ_KINDS = ['wait_for', 'find_text', 'get_ui_tree'] as const;

/** Lines of output a read hands back at most (a tree query can match a whole page). */
const MAX_LINES = 20;

/** What a read records of its arguments: what it read, never a node, a point or a frame. */
export function readParams(tool: string, args: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  switch (tool) {
    case 'wait_for':
      return args.text !== undefined || args.query !== undefined || args.networkIdle === true ? pick(args, ['text', 'query', 'networkIdle', 'gone', 'timeoutMs']) : undefined;
    case 'find_text':
      return args.target !== undefined ? pick(args, ['text', 'regex', 'max']) : undefined;
    case 'get_ui_tree':
      return typeof args.query === 'string' ? pick(args, ['query', 'maxNodes']) : undefined;
    default:
      return undefined;
  }
}

/**
 * The reads to replay after each action of `done` (by its index): a wait after the action it
 * followed, a text found or a tree query only after the last action. Reads of another target,
 * session or run, and reads before the first action, are left out.
 */
export function placeReads(done: readonly ActivityEntry[], reads: readonly ReadEntry[]): Map<number, RoutineStep[]> {
  const after = new Map<number, RoutineStep[]>();
  const first = done[0];
  if (!first) return after;
  const sessions = new Set(done.map((e) => e.session).filter((s) => s !== undefined));
  const runs = new Set(done.map((e) => e.run?.id).filter((r) => r !== undefined));
  for (const r of reads) {
    if (r.target !== first.target) continue;
    if (!((r.session !== undefined && sessions.has(r.session)) || (r.run !== undefined && runs.has(r.run)))) continue;
    let i = -1;
    for (let k = 0; k < done.length && done[k]!.id <= r.afterAction; k++) i = k;
    if (i < 0 || (r.tool !== 'wait_for' && i !== done.length - 1)) continue;
    const list = after.get(i) ?? [];
    list.push({ kind: r.tool as RoutineStep['kind'], params: r.params, note: r.tool === 'wait_for' ? 'waited for' : "read back as the routine's output" });
    after.set(i, list);
  }
  return after;
}

/** Where the `i`-th action's step (0-based) lands, numbered from 1, once the reads before it are placed. */
export function stepNumber(i: number, placed: ReadonlyMap<number, readonly RoutineStep[]>): number {
  let n = i + 1;
  for (const [k, list] of placed) if (k < i) n += list.length;
  return n;
}

/** What a replayed read saw, or undefined when it saw nothing it was made to see. */
export function readBack(step: RoutineStep, result: Readonly<Record<string, unknown>>): string[] | undefined {
  if (step.kind === 'find_text') {
    const matches = (result.matches as { text: string }[] | undefined) ?? [];
    return matches.length ? matches.slice(0, MAX_LINES).map((m) => m.text) : undefined;
  }
  if (step.kind === 'get_ui_tree') {
    const nodes = (result.nodes as UiNode[] | undefined) ?? [];
    return nodes.length ? nodes.slice(0, MAX_LINES).map((n) => `${n.role} "${n.name}"${n.value !== undefined && n.value !== '' ? ` = "${n.value}"` : ''}`) : undefined;
  }
  return [];
}

/** What a read step looks for, as a noun: `the text "Total"`, `"Reserve now" to appear`. */
export function readTarget(s: RoutineStep): string {
  const p = s.params;
  if (s.kind === 'get_ui_tree') return `nodes matching "${String(p.query)}" in the tree`;
  if (s.kind === 'find_text') return `the text "${String(p.text)}"`;
  if (p.networkIdle) return 'the network idle';
  return `${p.text !== undefined ? `"${String(p.text)}"` : `"${String(p.query)}" in the tree`} to ${p.gone ? 'go' : 'appear'}`;
}

/** A read step in words: `wait for "Reserve now" to appear`, `read the text "Total"`. */
export function describeRead(s: RoutineStep): string {
  return `${s.kind === 'wait_for' ? 'wait for' : 'read'} ${readTarget(s)}`;
}

function pick(args: Readonly<Record<string, unknown>>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]));
}
