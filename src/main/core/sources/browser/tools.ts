/**
 * The browser module's own tools. Each goes through the core's action gate (pause, read-only,
 * allowlist, activity log) as a custom action `browser:<verb>`, and answers with what the page
 * did: one line of text for the model and the same facts as structured content.
 */
import { z } from 'zod';
import { SightlineError } from '../../../../shared/errors.ts';
import { actionHints } from '../../mcp/action.ts';
import { actionOutput, refField, xField, yField } from '../../mcp/schemas.ts';
import { defineTool, type ToolContext } from '../../mcp/tool.ts';
import type { ActionRequest, ActionResult } from '../../ports.ts';
import type { ActionOutcome } from '../source.ts';
import type { ToolResponse } from '../../mcp/response.ts';

const tabField = z.string().min(1).max(512).describe('A browser tab id from list_targets ("browser:…").');
const optionalTab = tabField.optional().describe('A browser tab id from list_targets ("browser:…"). Optional when "ref" is given.');
const nodeField = z.string().min(1).max(128).optional().describe('A node id from get_ui_tree (the control, its label or a wrapper), instead of x, y. Found again at its current place, scrolled into view if needed.');
const afterField = z.enum(['none', 'summary']).optional().describe('summary (default): say what was hit, what changed, whether the page navigated or a dialog opened; none: just act.');
const waitUntilField = z.enum(['commit', 'domcontentloaded', 'load', 'networkidle']).optional().describe('When the navigation counts as done (default load; networkidle: load, then 500 ms without requests).');
const timeoutField = z.int().min(0).max(120_000).optional().describe('Longest wait for the load, in ms (default 15000); the call returns then, saying it is still loading.');

const element = z.object({ role: z.string().optional(), name: z.string().optional(), node: z.string().optional() });
const rect = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });
const dialog = z.object({ type: z.enum(['alert', 'confirm', 'prompt', 'beforeunload']), message: z.string(), defaultPrompt: z.string().optional() });

/** The action result as the core returns it, with the outcome the browser reports. */
const browserActionOutput = actionOutput.extend({
  hit: element.extend({ app: z.string().optional() }).optional(),
  received: element.extend({ value: z.string().optional(), valueMatches: z.boolean().optional() }).optional(),
  navigated: z.object({ url: z.string(), title: z.string().optional() }).optional(),
  dialog: dialog.optional(),
  title: z.object({ from: z.string(), to: z.string() }).optional(),
  changed: rect.optional().describe('The region that changed, in image pixels of changedRef (or source units when changedRef is absent).'),
  changedRef: z.string().optional(),
  changedUnknown: z.boolean().optional(),
  afterRef: z.string().optional(),
  remapped: z.string().optional(),
  keyboardShown: z.boolean().optional(),
});

const OUTCOME_KEYS = ['hit', 'received', 'navigated', 'dialog', 'title', 'changed', 'changedRef', 'changedUnknown', 'afterRef', 'remapped', 'keyboardShown'] as const;

/** The outcome of a result: the core's fields, else what the source put in its details. */
function outcomeOf(r: ActionResult): ActionOutcome & { changedRef?: string; afterRef?: string } {
  const fromSource = (r.details?.outcome ?? {}) as ActionOutcome;
  const out: Record<string, unknown> = { ...fromSource };
  const top = r as unknown as Record<string, unknown>;
  for (const k of OUTCOME_KEYS) if (top[k] !== undefined) out[k] = top[k];
  return out;
}

/** One sentence per fact the model needs next (navigation, dialog, value read back, change). */
export function outcomeText(o: ActionOutcome): string {
  const parts: string[] = [];
  if (o.hit?.role) parts.push(`hit ${o.hit.role}${o.hit.name ? ` "${o.hit.name}"` : ''}`);
  if (o.received) {
    const r = o.received;
    const v = r.value !== undefined ? ` now "${r.value}"` : '';
    parts.push(`${r.role ?? 'element'}${r.name ? ` "${r.name}"` : ''}${v}${r.valueMatches === false ? ' (NOT what was asked)' : ''}`);
  }
  if (o.navigated) parts.push(`navigated to ${o.navigated.url}${o.navigated.title ? ` ("${o.navigated.title}")` : ''}`);
  else if (o.title) parts.push(`title "${o.title.from}" → "${o.title.to}"`);
  if (o.dialog) parts.push(`a ${o.dialog.type} dialog is open ("${o.dialog.message}"): answer it with handle_dialog`);
  if (o.changed) parts.push(`changed region (${[o.changed.x, o.changed.y, o.changed.width, o.changed.height].map(Math.round).join(', ')})`);
  if (o.remapped) parts.push(o.remapped);
  return parts.join('; ');
}

/** Run a browser action through the gate and answer with its outcome plus the tool's own facts. */
async function answer(ctx: ToolContext, req: ActionRequest, res: ToolResponse, own: (d: Record<string, unknown>) => { text: string; fields: Record<string, unknown> }): Promise<void> {
  const r = await ctx.actions.act(req, { client: ctx.client, signal: ctx.signal });
  const d = r.details ?? {};
  const o = outcomeOf(r);
  const mine = own(d);
  // A navigation is the tool's own answer for navigate and tabs: not repeated as an outcome.
  const extra = outcomeText(req.tool === 'browser:navigate' || req.tool === 'browser:tabs' ? { ...o, navigated: undefined } : o);
  const target = typeof mine.fields.target === 'string' ? mine.fields.target : r.target;
  const note = r.note && !extra.includes(r.note) && !mine.text.includes(r.note) ? ` (${r.note})` : '';
  res.text(`${req.tool.replace(/^browser:/, '')} on ${target}: ${mine.text}${extra ? `; ${extra}` : ''}${note}.`);
  const shown: Record<string, unknown> = { ok: true, target: r.target, ...o, ...mine.fields };
  if (r.frameRef) shown.frameRef = r.frameRef;
  if (r.imagePoint) shown.imagePoint = r.imagePoint;
  if (r.note) shown.note = r.note;
  res.structured(shown);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const navigate = defineTool({
  name: 'navigate',
  title: 'Navigate a tab (browser)',
  description: 'Open a URL in a browser tab, or go back, forward or reload; waits for the page to load (waitUntil) and returns its URL, title and HTTP status. Older frames of the tab become stale: capture again.',
  input: {
    target: tabField,
    url: z.string().min(1).max(8192).optional().describe('The URL to open (https:// is added to a bare host).'),
    action: z.enum(['back', 'forward', 'reload']).optional().describe('Instead of url: move in the tab history or reload.'),
    waitUntil: waitUntilField,
    timeoutMs: timeoutField,
  },
  output: browserActionOutput.extend({ url: z.string().optional(), status: z.number().optional(), waitedMs: z.number().optional() }),
  annotations: actionHints,
  async handle(ctx, args, res) {
    const { target, ...params } = args;
    await answer(ctx, { tool: 'browser:navigate', target, params }, res, (d) => ({
      text: `${str(d.url) ?? 'done'}${str(d.title) ? ` ("${str(d.title)}")` : ''}${typeof d.status === 'number' ? `, HTTP ${d.status}` : ''}`,
      fields: { url: d.url, ...(typeof d.status === 'number' ? { status: d.status } : {}), waitedMs: d.waitedMs },
    }));
  },
});

const tabs = defineTool({
  name: 'tabs',
  title: 'Open, close or bring forward a tab (browser)',
  description:
    'action new: open a tab (in the browser of target, a tab id or "browser:<endpoint>/"; default the local browser), optionally at url, and return its id. close: close the target tab. select: bring the target tab to the front.',
  input: {
    action: z.enum(['new', 'close', 'select']).describe('What to do.'),
    target: tabField.optional().describe('close, select: the tab. new: a tab or "browser:<endpoint>/" naming the browser to open it in (default the local browser).'),
    url: z.string().min(1).max(8192).optional().describe('new: the URL to open (default about:blank).'),
    waitUntil: waitUntilField,
    timeoutMs: timeoutField,
  },
  output: browserActionOutput.extend({ url: z.string().optional(), closed: z.boolean().optional() }),
  annotations: actionHints,
  async handle(ctx, args, res) {
    const { target, ...params } = args;
    if (params.action !== 'new' && !target) throw new SightlineError('INVALID_ARGUMENT', `tabs ${params.action} needs "target".`, 'Give a tab id from list_targets.');
    await answer(ctx, { tool: 'browser:tabs', target: target ?? 'browser:', params }, res, (d) => ({
      text: params.action === 'new' ? `opened${str(d.url) ? ` at ${str(d.url)}` : ''}${str(d.title) ? ` ("${str(d.title)}")` : ''}` : params.action === 'close' ? 'closed' : 'in front',
      fields: { target: d.target, ...(d.url ? { url: d.url } : {}), ...(d.closed ? { closed: true } : {}) },
    }));
  },
});

const aimFields = {
  target: optionalTab,
  ref: refField.optional(),
  x: xField.optional(),
  y: yField.optional(),
  node: nodeField,
  after: afterField,
};

const selectOption = defineTool({
  name: 'select_option',
  title: 'Choose an option of a drop-down (browser)',
  description:
    'Choose options of a drop-down (a select element) by label (the text shown) or value, aimed at by node or x, y (image pixels of the frame; the select, its label or a wrapper). Fires input and change as a user does; returns the options now selected.',
  input: {
    ...aimFields,
    label: z.union([z.string(), z.array(z.string()).min(1).max(100)]).optional().describe('Option text(s) as shown; several only for a multiple select.'),
    value: z.union([z.string(), z.array(z.string()).min(1).max(100)]).optional().describe('Instead of label: option value attribute(s).'),
  },
  output: browserActionOutput.extend({ selected: z.array(z.object({ value: z.string(), label: z.string() })).optional() }),
  annotations: actionHints,
  async handle(ctx, args, res) {
    const { target, ref, x, y, node, after, ...rest } = args;
    await answer(ctx, { tool: 'browser:select_option', target, ref, x, y, after, params: { ...rest, ...(node ? { node } : {}) } }, res, (d) => {
      const sel = (d.selected ?? []) as { value: string; label: string }[];
      return { text: `selected ${sel.map((o) => `"${o.label}"`).join(', ') || 'nothing'}`, fields: { selected: sel } };
    });
  },
});

const setChecked = defineTool({
  name: 'set_checked',
  title: 'Check or uncheck a checkbox (browser)',
  description:
    'Set a checkbox, radio button or switch to checked true or false, aimed at by node or x, y (image pixels of the frame; the box or its label). Clicks it only when it must change, then reads the state back.',
  input: { ...aimFields, checked: z.boolean().describe('The state wanted.') },
  output: browserActionOutput.extend({ checked: z.union([z.boolean(), z.literal('mixed')]).optional() }),
  annotations: actionHints,
  async handle(ctx, args, res) {
    const { target, ref, x, y, node, after, checked } = args;
    await answer(ctx, { tool: 'browser:set_checked', target, ref, x, y, after, params: { checked, ...(node ? { node } : {}) } }, res, (d) => ({
      text: d.how === 'already' ? `already ${checked ? 'checked' : 'unchecked'}` : `now ${d.checked === true ? 'checked' : d.checked === false ? 'unchecked' : String(d.checked)}`,
      fields: d.checked !== undefined ? { checked: d.checked } : {},
    }));
  },
});

const uploadFile = defineTool({
  name: 'upload_file',
  title: 'Upload files into a file input (browser)',
  description:
    'Put files into a file input (input type=file), aimed at by node or x, y (image pixels of the frame; the input, its label or a wrapper). Paths must be absolute and inside a folder of files.uploadRoots. Returns the file names the input now holds.',
  input: { ...aimFields, paths: z.array(z.string().min(1).max(4096)).min(1).max(100).describe('Absolute paths of the files.') },
  output: browserActionOutput.extend({ files: z.array(z.string()).optional() }),
  annotations: actionHints,
  async handle(ctx, args, res) {
    const { target, ref, x, y, node, after, paths } = args;
    await answer(ctx, { tool: 'browser:upload_file', target, ref, x, y, after, params: { paths, ...(node ? { node } : {}) } }, res, (d) => {
      const files = (d.files ?? []) as string[];
      return { text: `the input holds ${files.map((f) => `"${f}"`).join(', ') || 'no file'}`, fields: { files } };
    });
  },
});

const handleDialog = defineTool({
  name: 'handle_dialog',
  title: 'Answer a dialog (browser)',
  description: 'Accept or dismiss the alert, confirm, prompt or beforeunload dialog open on a tab (list_targets shows state "dialog"); promptText answers a prompt. Returns what the page did next.',
  input: {
    target: tabField,
    accept: z.boolean().describe('true: OK / Leave; false: Cancel / Stay.'),
    promptText: z.string().max(10_000).optional().describe('The text to answer a prompt with (when accepting).'),
  },
  output: browserActionOutput.extend({ accepted: z.boolean().optional(), handled: dialog.omit({ defaultPrompt: true }).optional() }),
  annotations: actionHints,
  async handle(ctx, args, res) {
    const { target, ...params } = args;
    await answer(ctx, { tool: 'browser:handle_dialog', target, params }, res, (d) => ({
      text: str(d.note) ?? (params.accept ? 'accepted' : 'dismissed'),
      fields: { accepted: params.accept, ...(d.handled ? { handled: d.handled } : {}) },
    }));
  },
});

export const browserTools = [navigate, tabs, selectOption, setChecked, uploadFile, handleDialog];
