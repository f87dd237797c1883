/**
 * The strict action JSON the model answers with (click / noop / done, with why and
 * confidence), extended with type, key and scroll, and click by node or text where the server's
 * tools accept them. Parsing and the safety checks are pure.
 */
import { z } from 'zod';

const why = z.string().trim().min(1).max(1000).describe('One short sentence: why this action.');
const confidence = z.number().min(0).max(1).describe('0–1: how sure the model is that this action is right.');
const coord = z.number().finite();
const done = z.boolean().optional().describe('true when this action completes the goal.');

const click = z.strictObject({ action: z.literal('click'), x: coord.optional(), y: coord.optional(), node: z.string().min(1).max(128).optional(), text: z.string().min(1).max(500).optional(), why, confidence, done });
const type = z.strictObject({ action: z.literal('type'), text: z.string().min(1).max(10_000), x: coord.optional(), y: coord.optional(), node: z.string().min(1).max(128).optional(), why, confidence, done });
const key = z.strictObject({ action: z.literal('key'), key: z.string().min(1).max(64), why, confidence, done });
const scroll = z.strictObject({ action: z.literal('scroll'), deltaX: coord.optional(), deltaY: coord.optional(), x: coord.optional(), y: coord.optional(), why, confidence, done });
const noop = z.strictObject({ action: z.literal('noop'), why, confidence, done: z.literal(false).optional() });
const finished = z.strictObject({ action: z.literal('done'), why, confidence, done: z.literal(true).optional() });

export const actionSchema = z.discriminatedUnion('action', [click, type, key, scroll, noop, finished]).superRefine((a, ctx) => {
  const hasX = 'x' in a && a.x !== undefined;
  const hasY = 'y' in a && a.y !== undefined;
  if (hasX !== hasY) ctx.addIssue({ code: 'custom', message: 'give both x and y, or neither', path: [hasX ? 'y' : 'x'] });
  if (a.action === 'click') {
    const ways = [hasX && hasY, a.node !== undefined, a.text !== undefined].filter(Boolean).length;
    if (ways !== 1) ctx.addIssue({ code: 'custom', message: 'a click needs exactly one of: x and y, node, text', path: ['x'] });
  }
  if (a.action === 'type' && a.node !== undefined && hasX) ctx.addIssue({ code: 'custom', message: 'type at x, y or at a node, not both', path: ['node'] });
  if (a.action === 'scroll' && !a.deltaX && !a.deltaY) ctx.addIssue({ code: 'custom', message: 'a scroll needs a non-zero deltaX or deltaY', path: ['deltaY'] });
});

export type Action = z.infer<typeof actionSchema>;

export type ParseResult = { ok: true; action: Action } | { ok: false; problem: string };

/**
 * The model's text → an action. The whole reply must be one JSON object; a single ```json fence
 * around it is tolerated (models add one even when told not to), prose around it is not.
 */
export function parseAction(text: string): ParseResult {
  let body = text.trim();
  const fence = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i.exec(body);
  if (fence) body = fence[1]!.trim();
  if (!body.startsWith('{')) return { ok: false, problem: body ? 'the reply is not a JSON object (it must start with "{" and contain nothing else)' : 'the reply is empty' };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    return { ok: false, problem: `the reply is not valid JSON (${(e as Error).message})` };
  }
  const parsed = actionSchema.safeParse(value);
  if (parsed.success) return { ok: true, action: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `"${issue.path.join('.')}": ` : '';
  return { ok: false, problem: `the JSON does not match the action schema (${where}${issue?.message ?? 'invalid'})` };
}

/** What the server's tools accept, read from tools/list: the agent offers the model only that. */
export interface Capabilities {
  type: boolean;
  key: boolean;
  scroll: boolean;
  clickNode: boolean;
  clickText: boolean;
  typeNode: boolean;
  uiTree: boolean;
}

export interface ToolShape {
  name: string;
  inputSchema: { properties?: Record<string, unknown> };
}

export function capabilitiesOf(tools: readonly ToolShape[]): Capabilities {
  const props = (name: string): Record<string, unknown> | undefined => tools.find((t) => t.name === name)?.inputSchema.properties;
  const has = (name: string, prop: string): boolean => Object.hasOwn(props(name) ?? {}, prop);
  const uiTree = tools.some((t) => t.name === 'get_ui_tree');
  return {
    type: props('type_text') !== undefined,
    key: props('press_key') !== undefined,
    scroll: props('scroll') !== undefined,
    clickNode: uiTree && has('click', 'node'),
    clickText: has('click', 'text'),
    typeNode: uiTree && has('type_text', 'node'),
    uiTree,
  };
}

/** An action the server cannot take (the model used a form that was not offered) is malformed, not refused. */
export function unsupportedForm(a: Action, caps: Capabilities): string | undefined {
  if (a.action === 'type' && !caps.type) return 'the "type" action is not available for this target';
  if (a.action === 'key' && !caps.key) return 'the "key" action is not available for this target';
  if (a.action === 'scroll' && !caps.scroll) return 'the "scroll" action is not available for this target';
  if (a.action === 'click' && a.node !== undefined && !caps.clickNode) return 'click by "node" is not available; click at x, y';
  if (a.action === 'click' && a.text !== undefined && !caps.clickText) return 'click by "text" is not available; click at x, y';
  if (a.action === 'type' && a.node !== undefined && !caps.typeNode) return 'type at a "node" is not available; give x, y';
  return undefined;
}

export interface Size {
  width: number;
  height: number;
}

/** A point is inside a frame when 0 ≤ x < width and 0 ≤ y < height (as the gate judges it). */
export function pointOf(a: Action): { x: number; y: number } | undefined {
  return 'x' in a && a.x !== undefined && 'y' in a && a.y !== undefined ? { x: a.x, y: a.y } : undefined;
}

export function outOfFrame(a: Action, image: Size): string | undefined {
  const p = pointOf(a);
  if (!p) return undefined;
  if (p.x >= 0 && p.y >= 0 && p.x < image.width && p.y < image.height) return undefined;
  return `(${p.x}, ${p.y}) is outside the ${image.width}×${image.height} image`;
}

/** Acting (and declaring the goal reached) needs confidence; saying "not sure" (noop) never stops the run. */
export function tooUnsure(a: Action, minConfidence: number): string | undefined {
  if (a.action === 'noop' || a.confidence >= minConfidence) return undefined;
  return `confidence ${a.confidence} is below --min-confidence ${minConfidence}`;
}

export interface ToolCall {
  name: 'click' | 'type_text' | 'press_key' | 'scroll';
  arguments: Record<string, unknown>;
}

/** The MCP call for an action: image-pixel points go with the step's frame ref, so the server maps them. */
export function toToolCall(a: Action, target: string, frameRef: string): ToolCall | undefined {
  const at = (p: { x?: number; y?: number }): Record<string, unknown> => (p.x !== undefined && p.y !== undefined ? { ref: frameRef, x: p.x, y: p.y } : {});
  switch (a.action) {
    case 'click':
      if (a.node !== undefined) return { name: 'click', arguments: { target, node: a.node } };
      if (a.text !== undefined) return { name: 'click', arguments: { target, text: a.text } };
      return { name: 'click', arguments: { target, ...at(a) } };
    case 'type':
      return { name: 'type_text', arguments: { target, text: a.text, ...(a.node !== undefined ? { node: a.node } : at(a)) } };
    case 'key':
      return { name: 'press_key', arguments: { target, key: a.key } };
    case 'scroll':
      return { name: 'scroll', arguments: { target, ...at(a), deltaX: a.deltaX ?? 0, deltaY: a.deltaY ?? 0 } };
    case 'noop':
    case 'done':
      return undefined;
  }
}

/** One short line for the terminal and the step history: `click (412, 220)`, `type "hello"`. */
export function describeAction(a: Action): string {
  const p = pointOf(a);
  const at = p ? ` (${round(p.x)}, ${round(p.y)})` : '';
  switch (a.action) {
    case 'click':
      return `click${a.node !== undefined ? ` node ${a.node}` : a.text !== undefined ? ` text ${JSON.stringify(clip(a.text, 40))}` : at}`;
    case 'type':
      return `type ${JSON.stringify(clip(a.text, 40))}${a.node !== undefined ? ` at node ${a.node}` : p ? ` at${at}` : ''}`;
    case 'key':
      return `key ${a.key}`;
    case 'scroll':
      return `scroll ${a.deltaX ?? 0},${a.deltaY ?? 0}${p ? ` at${at}` : ''}`;
    default:
      return a.action;
  }
}

const round = (n: number): number => Math.round(n * 10) / 10;
export const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
