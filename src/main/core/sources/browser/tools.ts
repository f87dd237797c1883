/**
 * The browser module's own tools. Each goes through the core's action gate as a custom action
 * `browser:<verb>` (pause, read-only, allowlist, activity log, the session's frames, node and
 * text aims, the outcome report), answers with the core's action line, and adds one line of its
 * own facts; those facts are also in the structured result's `details`.
 */
import { z } from 'zod';
import { SightlineError } from '../../../../shared/errors.ts';
import { actionHints, runAction } from '../../mcp/action.ts';
import type { ToolResponse } from '../../mcp/response.ts';
import { actionOutput, afterField, indexField, nodeField, refField, textAimField, xField, yField } from '../../mcp/schemas.ts';
import { defineTool, type ToolContext } from '../../mcp/tool.ts';
import type { ActionRequest } from '../../ports.ts';
import { normaliseUrl } from './navigation.ts';
import { originOf } from './urlPolicy.ts';

/** The origin a URL leads to, as the allowlist judges pages; none for about:blank and URLs the source refuses anyway. */
function originOfInput(url: string | undefined): string | undefined {
  return url === undefined ? undefined : originOf(normaliseUrl(url));
}

const tabField = z.string().min(1).max(512).describe('A browser tab id from list_targets ("browser:…").');
const waitUntilField = z.enum(['commit', 'domcontentloaded', 'load', 'networkidle']).optional().describe('When the navigation counts as done (default load; networkidle: load, then 500 ms without requests).');
const timeoutField = z.int().min(0).max(120_000).optional().describe('Longest wait for the load, in ms (default 15000); the call returns then, saying it is still loading.');

/** Where a form tool aims: x, y (image pixels of the frame), a node, or visible text. */
const aimFields = {
  target: tabField.optional().describe('A browser tab id from list_targets ("browser:…"). Optional when "ref" is given.'),
  ref: refField.optional(),
  x: xField.optional(),
  y: yField.optional(),
  node: nodeField.optional(),
  text: textAimField.optional().describe('Visible text to aim at instead of x, y: the control\'s label, e.g. "Country".'),
  index: indexField.optional(),
  after: afterField.optional(),
};

type Aim = { target?: string; ref?: string; x?: number; y?: number; node?: string; text?: string; index?: number; after?: 'none' | 'summary' | 'image' };

/** The gate's request for a form tool: the aim as the core reads it, the rest as params. */
function formRequest(tool: string, aim: Aim, params: Record<string, unknown>): ActionRequest {
  const { text, ...rest } = aim;
  return { tool, ...rest, ...(text !== undefined ? { find: text } : {}), params };
}

/** The core's answer, then one line of the tool's own facts (from the source's details). */
async function answer(ctx: ToolContext, req: ActionRequest, res: ToolResponse, own: (d: Record<string, unknown>) => string | undefined): Promise<void> {
  const r = await runAction(ctx, req, res);
  const line = own(r.details ?? {});
  if (line) res.text(line);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const navigate = defineTool({
  name: 'navigate',
  title: 'Navigate a tab (browser)',
  description:
    "Open a URL in a browser tab, or go back, forward or reload; waits for the page to load (waitUntil). details has the page's url, title and HTTP status. Older frames of the tab become stale: capture again.",
  input: {
    target: tabField,
    url: z.string().min(1).max(8192).optional().describe('The URL to open: http:, https: or about:blank (https:// is added to a bare host).'),
    action: z.enum(['back', 'forward', 'reload']).optional().describe('Instead of url: move in the tab history, or reload.'),
    waitUntil: waitUntilField,
    timeoutMs: timeoutField,
  },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, args, res) {
    const { target, ...params } = args;
    // The allowlist judges the page it leaves and the one it goes to.
    const origin = originOfInput(params.url);
    const allow = origin ? { allow: { also: origin } } : {};
    await answer(ctx, { tool: 'browser:navigate', target, params, ...allow }, res, (d) =>
      str(d.url) ? `Now at ${str(d.url)}${str(d.title) ? ` ("${str(d.title)}")` : ''}${typeof d.status === 'number' ? `, HTTP ${d.status}` : ''}.` : undefined,
    );
  },
});

const tabs = defineTool({
  name: 'tabs',
  title: 'Open, close or bring forward a tab (browser)',
  description:
    'action new: open a tab, optionally at url (in the browser of target: a tab id, or "browser:<endpoint>/"; default the local browser); details.target is its id. close: close the target tab. select: bring the target tab to the front.',
  input: {
    action: z.enum(['new', 'close', 'select']).describe('What to do.'),
    target: tabField.optional().describe('close, select: the tab. new: a tab or "browser:<endpoint>/" naming the browser to open it in (default the local browser).'),
    url: z.string().min(1).max(8192).optional().describe('new: the URL to open (default about:blank).'),
    waitUntil: waitUntilField,
    timeoutMs: timeoutField,
  },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, args, res) {
    const { target, ...params } = args;
    if (params.action !== 'new' && !target) throw new SightlineError('INVALID_ARGUMENT', `tabs ${params.action} needs "target".`, 'Give a tab id from list_targets.');
    // A new tab reaches no page but the one it opens (none for a blank tab).
    const origin = originOfInput(params.url);
    const allow = params.action === 'new' ? { allow: origin ? { as: origin } : { none: true as const } } : {};
    await answer(ctx, { tool: 'browser:tabs', target: target ?? 'browser:', params, ...allow }, res, (d) =>
      params.action === 'new' ? `New tab ${str(d.target)}${str(d.title) ? `: "${str(d.title)}"` : ''}${typeof d.status === 'number' && d.status >= 400 ? `, HTTP ${d.status}` : ''}.` : undefined,
    );
  },
});

const selectOption = defineTool({
  name: 'select_option',
  title: 'Choose an option of a drop-down (browser)',
  description:
    'Choose options of a drop-down (a select element) by label (the text shown) or value, aimed at by x, y (image pixels of the frame), node or text (the select, its label or a wrapper). Fires input and change as a user does; details.selected lists the options now selected.',
  input: {
    ...aimFields,
    label: z.union([z.string(), z.array(z.string()).min(1).max(100)]).optional().describe('Option text(s) as shown; several only for a multiple select.'),
    value: z.union([z.string(), z.array(z.string()).min(1).max(100)]).optional().describe('Instead of label: option value attribute(s).'),
  },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, { label, value, ...aim }, res) {
    await answer(ctx, formRequest('browser:select_option', aim, { ...(label !== undefined ? { label } : {}), ...(value !== undefined ? { value } : {}) }), res, (d) => {
      const sel = (d.selected ?? []) as { value: string; label: string }[];
      return `Selected: ${sel.map((o) => `"${o.label}"`).join(', ') || 'nothing'}.`;
    });
  },
});

const setChecked = defineTool({
  name: 'set_checked',
  title: 'Check or uncheck a checkbox (browser)',
  description:
    'Set a checkbox, radio button or switch to checked true or false, aimed at by x, y (image pixels of the frame), node or text (the box or its label). Clicks it only when it must change, then reads the state back (details.checked).',
  input: { ...aimFields, checked: z.boolean().describe('The state wanted.') },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, { checked, ...aim }, res) {
    await answer(ctx, formRequest('browser:set_checked', aim, { checked }), res, (d) =>
      d.how === 'already' ? `It was already ${checked ? 'checked' : 'unchecked'}: nothing clicked.` : `It is now ${d.checked === true ? 'checked' : d.checked === false ? 'unchecked' : String(d.checked)}.`,
    );
  },
});

const uploadFile = defineTool({
  name: 'upload_file',
  title: 'Upload files into a file input (browser)',
  description:
    'Put files into a file input (input type=file), aimed at by x, y (image pixels of the frame), node or text (the input, its label or a wrapper). Paths must be absolute and inside a folder of files.uploadRoots. details.files has the names the input now holds.',
  input: { ...aimFields, paths: z.array(z.string().min(1).max(4096)).min(1).max(100).describe('Absolute paths of the files.') },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, { paths, ...aim }, res) {
    await answer(ctx, formRequest('browser:upload_file', aim, { paths }), res, (d) => {
      const files = (d.files ?? []) as string[];
      return `The input holds ${files.map((f) => `"${f}"`).join(', ') || 'no file'}.`;
    });
  },
});

const handleDialog = defineTool({
  name: 'handle_dialog',
  title: 'Answer a dialog (browser)',
  description:
    'Accept or dismiss the alert, confirm, prompt or beforeunload dialog open on a tab (list_targets shows state "dialog"); promptText answers a prompt. The result tells what the page did next, as for the action that opened the dialog.',
  input: {
    target: tabField,
    accept: z.boolean().describe('true: OK / Leave; false: Cancel / Stay.'),
    promptText: z.string().max(10_000).optional().describe('The text to answer a prompt with (when accepting).'),
  },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, args, res) {
    const { target, ...params } = args;
    await runAction(ctx, { tool: 'browser:handle_dialog', target, params }, res);
  },
});

export const browserTools = [navigate, tabs, selectOption, setChecked, uploadFile, handleDialog];
