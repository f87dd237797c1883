/**
 * The browser module's own action kinds: navigation, tabs, dialogs and form controls. Each goes
 * through the core's action gate like a click (pause, read-only, the allowlist, the activity log,
 * the session's frames, node and text aims, the outcome report) and reaches the browser source
 * with its typed parameters.
 */
import { z } from 'zod';
import { SightlineError } from '../../../../shared/errors.ts';
import { afterField, aimFields, aimOf, defineAction, nodeField, viaModule } from '../../actionDefs.ts';
import type { ModuleAction } from '../source.ts';
import { normaliseUrl } from './urls.ts';
import { originOf } from './urlPolicy.ts';

export const WAIT_UNTIL = ['commit', 'domcontentloaded', 'load', 'networkidle'] as const;
export type WaitUntil = (typeof WAIT_UNTIL)[number];

export interface LoadParams {
  waitUntil?: WaitUntil;
  timeoutMs?: number;
}
export interface NavigateParams extends LoadParams {
  url?: string;
  action?: 'back' | 'forward' | 'reload';
}
export interface TabsParams extends LoadParams {
  action: 'new' | 'close' | 'select';
  url?: string;
}

/** The browser module's actions as its source receives them. */
export type BrowserModuleAction =
  | ModuleAction<'navigate', NavigateParams>
  | ModuleAction<'tabs', TabsParams>
  | ModuleAction<'handle_dialog', { accept: boolean; promptText?: string }>
  | ModuleAction<'select_option', { label?: string[]; value?: string[]; /** fill_form: each an option's label, else its value. */ any?: string[] }>
  | ModuleAction<'set_checked', { checked: boolean }>
  | ModuleAction<'upload_file', { paths: string[] }>
  | ModuleAction<'fill_form', { fields: FilledField[] }>;

/** A form field as the source receives it: its node (given, or found by its label) and the value to set. */
export interface FilledField {
  node: string;
  label?: string;
  value: string | boolean | string[];
}

/** The origin a URL leads to, as the allowlist judges pages; none for about:blank and URLs the source refuses anyway. */
function originOfInput(url: string | undefined): string | undefined {
  return url === undefined ? undefined : originOf(normaliseUrl(url));
}

const tabField = z.string().min(1).max(512).describe('Tab id.');
const waitUntilField = z.enum(WAIT_UNTIL).optional().describe('Done when (default load).');
const timeoutField = z.int().min(0).max(120_000).optional().describe('Longest wait, ms (default 15000).');
const load = (a: LoadParams): LoadParams => ({ ...(a.waitUntil ? { waitUntil: a.waitUntil } : {}), ...(a.timeoutMs !== undefined ? { timeoutMs: a.timeoutMs } : {}) });

/** Where a form kind aims: x, y (image pixels of the frame), a node, or visible text. */
const formAim = {
  ...aimFields,
  target: tabField.optional().describe('Tab id; optional with ref.'),
  text: aimFields.text.describe('The control or its label, e.g. "Country".'),
};

export const navigateKind = defineAction({
  name: 'navigate',
  aim: 'none',
  input: {
    target: tabField,
    url: z.string().min(1).max(8192).optional().describe('http(s): or about:blank.'),
    action: z.enum(['back', 'forward', 'reload']).optional(),
    waitUntil: waitUntilField,
    timeoutMs: timeoutField,
  },
  check: (a) => {
    if (a.url !== undefined && a.action !== undefined) throw new SightlineError('INVALID_ARGUMENT', 'Give "url" or "action", not both.', 'url opens a page; action moves in the history or reloads.');
    if (a.url === undefined && a.action === undefined) throw new SightlineError('INVALID_ARGUMENT', 'navigate needs "url", or "action" back, forward or reload.', 'Give url: "https://…" or action: "back".');
    if (a.url !== undefined) normaliseUrl(a.url);
  },
  // The allowlist judges the page it leaves and the one it goes to.
  allow: (a) => {
    const origin = originOfInput(a.url);
    return origin ? { also: origin } : undefined;
  },
  build: (a, at): BrowserModuleAction => ({ kind: 'navigate', target: at.target, params: { ...(a.url !== undefined ? { url: normaliseUrl(a.url) } : {}), ...(a.action ? { action: a.action } : {}), ...load(a) } }),
  performer: viaModule('browser', 'navigate'),
});

export const tabsKind = defineAction({
  name: 'tabs',
  aim: 'none',
  input: {
    action: z.enum(['new', 'close', 'select']),
    target: tabField.optional().describe('The tab; for new, a tab or "browser:<endpoint>/" of the browser to open in.'),
    url: z.string().min(1).max(8192).optional(),
    waitUntil: waitUntilField,
    timeoutMs: timeoutField,
  },
  check: (a) => {
    if (a.action !== 'new' && !a.target) throw new SightlineError('INVALID_ARGUMENT', `tabs ${a.action} needs "target".`, 'Give a tab id from list_targets.');
    if (a.url !== undefined) normaliseUrl(a.url);
  },
  defaultTarget: (a) => (a.action === 'new' ? 'browser:' : undefined),
  // A new tab reaches no page but the one it opens (none for a blank tab).
  allow: (a) => {
    if (a.action !== 'new') return undefined;
    const origin = originOfInput(a.url);
    return origin ? { as: origin } : { none: true };
  },
  build: (a, at): BrowserModuleAction => ({ kind: 'tabs', target: at.target, params: { action: a.action, ...(a.url !== undefined ? { url: normaliseUrl(a.url) } : {}), ...load(a) } }),
  performer: viaModule('browser', 'tabs'),
});

export const handleDialogKind = defineAction({
  name: 'handle_dialog',
  aim: 'none',
  input: {
    target: tabField,
    accept: z.boolean().describe('OK (true) or Cancel.'),
    promptText: z.string().max(10_000).optional(),
  },
  build: (a, at): BrowserModuleAction => ({ kind: 'handle_dialog', target: at.target, params: { accept: a.accept, ...(a.promptText !== undefined ? { promptText: a.promptText } : {}) } }),
  performer: viaModule('browser', 'handle_dialog'),
});

const oneOrMany = z.union([z.string(), z.array(z.string()).min(1).max(100)]);
const list = (v: string | string[] | undefined): string[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

export const selectOptionKind = defineAction({
  name: 'select_option',
  aim: 'required',
  input: {
    ...formAim,
    label: oneOrMany.optional().describe('Option text(s) shown.'),
    value: oneOrMany.optional().describe('Or option value(s).'),
  },
  check: (a) => {
    if ((a.value === undefined) === (a.label === undefined)) throw new SightlineError('INVALID_ARGUMENT', 'Give "value" or "label" (one of them).', "label is the text shown in the list; value is the option's value attribute.");
  },
  build: (a, at): BrowserModuleAction => ({ kind: 'select_option', target: at.target, ...aimOf(at), params: { ...(a.label !== undefined ? { label: list(a.label) } : {}), ...(a.value !== undefined ? { value: list(a.value) } : {}) } }),
  performer: viaModule('browser', 'select_option'),
});

export const setCheckedKind = defineAction({
  name: 'set_checked',
  aim: 'required',
  input: { ...formAim, checked: z.boolean() },
  build: (a, at): BrowserModuleAction => ({ kind: 'set_checked', target: at.target, ...aimOf(at), params: { checked: a.checked } }),
  performer: viaModule('browser', 'set_checked'),
});

export const uploadFileKind = defineAction({
  name: 'upload_file',
  aim: 'required',
  input: { ...formAim, paths: z.array(z.string().min(1).max(4096)).min(1).max(100).describe('Absolute paths.') },
  build: (a, at): BrowserModuleAction => ({ kind: 'upload_file', target: at.target, ...aimOf(at), params: { paths: a.paths } }),
  performer: viaModule('browser', 'upload_file'),
});

const formField = z.strictObject({
  label: z.string().min(1).max(500).optional().describe('Its label, placeholder or name.'),
  node: nodeField.optional(),
  value: z.union([z.string().max(10_000), z.boolean(), z.array(z.string().min(1).max(4096)).min(1).max(100)]).describe('Text, option label(s), true/false to check, or file path(s).'),
});

export const fillFormKind = defineAction({
  name: 'fill_form',
  aim: 'none',
  input: { target: tabField, fields: z.array(formField).min(1).max(50), after: afterField.optional() },
  check: (a) => {
    a.fields.forEach((f, i) => {
      if ((f.label === undefined) === (f.node === undefined)) throw new SightlineError('INVALID_ARGUMENT', `fields[${i}]: give "label" or "node" (one of them).`, 'label is the text by the control; node an id from get_ui_tree.');
    });
  },
  labels: (a) => a.fields.flatMap((f) => (f.label !== undefined ? [f.label] : [])),
  build: (a, at): BrowserModuleAction => ({
    kind: 'fill_form',
    target: at.target,
    params: { fields: a.fields.map((f) => ({ node: f.node ?? (at.labelled.get(f.label!) as string), ...(f.label !== undefined ? { label: f.label } : {}), value: f.value })) },
  }),
  performer: viaModule('browser', 'fill_form'),
  // Text typed into a form may be a secret (a password field): the log keeps how much, not what.
  logged: ({ fields, ...rest }) => ({ ...rest, fields: fields.map((f) => ({ ...(f.label !== undefined ? { label: f.label } : { node: f.node }), value: typeof f.value === 'string' ? `(${[...f.value].length} characters)` : f.value })) }),
});
