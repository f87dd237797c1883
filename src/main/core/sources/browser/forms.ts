/**
 * The module's form actions (tools select_option, set_checked, upload_file): each aims like a
 * click (a node, or a frame point re-mapped and scrolled into view), finds its control from what
 * is there, acts as a user's choice would (events the page listens to), reads the result back,
 * and tells the outcome like any action.
 */
import { SightlineError } from '../../../../shared/errors.ts';
import type { ActionDetails } from '../source.ts';
import { aimAt, aimOf, type AimAt } from './aiming.ts';
import { toFramePoint } from './frameState.ts';
import type { BrowserModuleAction } from './kinds.ts';
import { observe, type ObserveContext } from './outcome.ts';
import {
  CHECK_CLICK_FN,
  CHECK_INFO_FN,
  CHECK_STATE_FN,
  ELEMENT_FN,
  FIELD_KIND_FN,
  FILE_INPUT_FN,
  FILE_NAMES_FN,
  SELECT_FN,
  type CheckInfo,
  type ControlAim,
  type FieldKind,
  type FileInputInfo,
  type SelectResult,
} from './pageForms.ts';
import type { PageElement } from './pageScripts.ts';

export interface FormDeps {
  /** The real path of a file to upload: inside files.uploadRoots (judged with the action), else PATH_REFUSED. */
  file(path: string): Promise<string>;
}

export type FormAction = Extract<BrowserModuleAction, { kind: 'select_option' | 'set_checked' | 'upload_file' }>;
type Form<K extends FormAction['kind']> = Extract<FormAction, { kind: K }>;

export function isFormAction(a: { kind: string }): a is FormAction {
  return a.kind === 'select_option' || a.kind === 'set_checked' || a.kind === 'upload_file';
}

export async function performForm(ctx: ObserveContext, a: FormAction, deps: FormDeps): Promise<ActionDetails> {
  switch (a.kind) {
    case 'select_option':
      return selectOption(ctx, a);
    case 'set_checked':
      return setChecked(ctx, a);
    case 'upload_file':
      return uploadFile(ctx, a, deps);
  }
}

/** The aim of a form action: its node (given, or found by text), else its point. */
function formAim(a: FormAction): AimAt {
  const aim = aimOf(a);
  if (!aim) throw new SightlineError('INVALID_ARGUMENT', `${a.kind} needs a node or x, y.`, 'Give the control as node (from get_ui_tree) or x, y in image pixels of the frame.');
  return aim;
}

/** Where the page functions look for the control: the node itself, or the re-mapped point. */
function controlAim(aim: AimAt, points: { x: number; y: number }[]): ControlAim {
  return aim.node !== undefined ? { node: aim.node } : { point: points[0]! };
}

function named(el: PageElement | undefined): string {
  return el ? `${el.role}${el.name ? ` "${el.name}"` : ''}` : 'nothing';
}

async function selectOption(ctx: ObserveContext, a: Form<'select_option'>): Promise<ActionDetails> {
  const { value: values, label: labels, any } = a.params;
  const aim = formAim(a);
  const pre = await aimAt(ctx.tabs, ctx.tab, { frame: ctx.frame, from: aim, hit: true, observe: ctx.after !== 'none' });
  const wanted = values ?? labels ?? any!;
  const by = values ? 'value' : labels ? 'label' : 'any';
  const { outcome, value: r } = await observe(ctx, pre, () => ctx.tabs.call<SelectResult>(ctx.tab, SELECT_FN, [controlAim(aim, pre.points), wanted, by]));
  if (r?.error) {
    const what = named(r.el);
    switch (r.error) {
      case 'not-select':
        throw new SightlineError('INVALID_ARGUMENT', `${what} is not a drop-down (select element), nor labels one.`, 'For a custom drop-down, click it, then click the option (get_ui_tree lists the options once it is open).');
      case 'disabled':
        throw new SightlineError('INVALID_ARGUMENT', `${what} is disabled.`, 'Do what enables it first.');
      case 'not-multiple':
        throw new SightlineError('INVALID_ARGUMENT', `${what} takes one option, not ${wanted.length}.`, 'Give one value or label.');
      case 'option-disabled':
        throw new SightlineError('INVALID_ARGUMENT', `The option "${r.missing}" of ${what} is disabled.`, 'Choose another option.');
      case 'no-option': {
        const list = (r.options ?? []).map((o) => (o.label === o.value ? `"${o.label}"` : `"${o.label}" (value "${o.value}")`)).join(', ');
        throw new SightlineError('INVALID_ARGUMENT', `${what} has no option ${by === 'value' ? 'with value' : by === 'label' ? 'labelled' : 'labelled or with value'} "${r.missing}".`, `Its options: ${list || 'none'}.`);
      }
    }
  }
  const selected = r?.selected ?? [];
  const want = new Set(wanted.map((w) => w.trim().toLowerCase()));
  const keysOf = (o: { value: string; label: string }): string[] => (by === 'value' ? [o.value] : by === 'label' ? [o.label] : [o.label, o.value]);
  const matches = selected.length === wanted.length && selected.every((o) => keysOf(o).some((k) => want.has(k.trim().toLowerCase())));
  outcome.received = { ...(r?.el ?? {}), value: selected.map((o) => o.label).join(', '), valueMatches: matches };
  return { selected, changed: r?.changed ?? false, point: toFramePoint(pre.points[0]!, pre.scroll, ctx.frame), outcome };
}

async function setChecked(ctx: ObserveContext, a: Form<'set_checked'>): Promise<ActionDetails> {
  const want = a.params.checked;
  const { tabs, tab } = ctx;
  const aim = formAim(a);
  const pre = await aimAt(tabs, tab, { frame: ctx.frame, from: aim, hit: true, observe: ctx.after !== 'none' });
  const info = await tabs.call<CheckInfo>(tab, CHECK_INFO_FN, [controlAim(aim, pre.points)]);
  if (info.error || !info.control) throw new SightlineError('INVALID_ARGUMENT', `${named(info.el)} is not a checkbox, radio button or switch (nor labels one).`, 'Aim at the box or its label; get_ui_tree shows role checkbox, radio or switch.');
  const c = info.control;
  if (info.disabled) throw new SightlineError('INVALID_ARGUMENT', `${named(c)} is disabled.`, 'Do what enables it first.');
  if (info.kind === 'radio' && !want && info.checked === true) {
    throw new SightlineError('INVALID_ARGUMENT', `${named(c)} is a radio button: it is unchecked by checking another one of its group.`, 'Call set_checked with checked: true on the option you want.');
  }
  let how = 'already';
  const { outcome } = await observe(ctx, pre, async () => {
    if (info.checked === want) return;
    const page = await tabs.page(tab);
    if (info.clickAt) {
      // A real click, so the page's own handlers run as for a user.
      await page.mouse.click(info.clickAt.x, info.clickAt.y);
      how = 'clicked';
    }
    if ((await tabs.call<boolean | 'mixed' | null>(tab, CHECK_STATE_FN, [c.node])) !== want) {
      await tabs.call(tab, CHECK_CLICK_FN, [c.node]);
      how = info.clickAt ? 'clicked, then the element\'s click()' : 'the element\'s click() (it is not drawn where it can be clicked)';
    }
  });
  const now = outcome.dialog ? undefined : await tabs.call<boolean | 'mixed' | null>(tab, CHECK_STATE_FN, [c.node]);
  outcome.received = { ...c, ...(now !== undefined && now !== null ? { value: String(now), valueMatches: now === want } : {}) };
  const notes = [now !== undefined && now !== want ? `${named(c)} is still ${String(now)}: the page did not let it change` : undefined].filter(Boolean);
  return { checked: now ?? undefined, how, point: toFramePoint(info.clickAt ?? pre.points[0]!, pre.scroll, ctx.frame), outcome, ...(notes.length ? { note: notes.join('; ') } : {}) };
}

async function uploadFile(ctx: ObserveContext, a: Form<'upload_file'>, deps: FormDeps): Promise<ActionDetails> {
  const { paths } = a.params;
  // Every file must lie inside files.uploadRoots, after symlinks: checked before the page is touched.
  const real = await Promise.all(paths.map((p) => deps.file(p)));
  const { tabs, tab } = ctx;
  const aim = formAim(a);
  const pre = await aimAt(tabs, tab, { frame: ctx.frame, from: aim, hit: true, observe: ctx.after !== 'none' });
  const info = await tabs.call<FileInputInfo>(tab, FILE_INPUT_FN, [controlAim(aim, pre.points)]);
  if (info.error === 'disabled') throw new SightlineError('INVALID_ARGUMENT', `${named(info.input)} is disabled.`, 'Do what enables it first.');
  if (info.error || !info.input) throw new SightlineError('INVALID_ARGUMENT', `${named(info.el)} is not a file input (nor labels one), and the page has no single file input.`, 'Aim at the file input, its label, or the element that wraps it (get_ui_tree).');
  if (real.length > 1 && !info.multiple) throw new SightlineError('INVALID_ARGUMENT', `${named(info.input)} takes one file, not ${real.length}.`, 'Give one path.');
  const input = info.input;
  const { outcome } = await observe(ctx, pre, async () => {
    const { objectId } = await tabs.callWithLoader(tab, ELEMENT_FN, [input.node], { byReference: true });
    if (!objectId) throw new SightlineError('NODE_NOT_FOUND', `The file input ${input.node} is no longer on the page.`, 'Call get_ui_tree again.');
    try {
      // Chrome reads the files and fires input and change itself.
      await tab.session.send('DOM.setFileInputFiles', { files: real, objectId });
    } finally {
      tabs.release(tab);
    }
  });
  const names = outcome.dialog ? undefined : await tabs.call<string[] | null>(tab, FILE_NAMES_FN, [input.node]);
  const expected = real.map((p) => p.split(/[\\/]/).pop() ?? p);
  outcome.received = { ...input, ...(names ? { value: names.join(', '), valueMatches: names.length === expected.length && names.every((n, i) => n === expected[i]) } : {}) };
  const notes = [info.onlyOne ? `the aim is not a file input; used the page's only file input ${named(input)}` : undefined].filter(Boolean);
  return { files: names ?? [], point: toFramePoint(pre.points[0]!, pre.scroll, ctx.frame), outcome, ...(notes.length ? { note: notes.join('; ') } : {}) };
}

type FillForm = Extract<BrowserModuleAction, { kind: 'fill_form' }>;

/** One field as fill_form reports it: what it is and what it holds now. */
export interface FilledReport {
  label?: string;
  node: string;
  role?: string;
  name?: string;
  value?: string;
  valueMatches?: boolean;
  password?: boolean;
}

/**
 * Fill a form's fields in order, each the way its own tool sets it (typed into, chosen, checked,
 * given files), and read each back. Every field is looked at before the first is touched: a
 * control that is gone or is not a field, a value of the wrong kind, or a file outside the
 * upload folders refuses the whole call and changes nothing. A dialog a field opens stops the
 * rest and is told.
 */
export async function fillForm(ctx: ObserveContext, a: FillForm, deps: FormDeps, type: (node: string, text: string) => Promise<ActionDetails>): Promise<ActionDetails> {
  const quiet: ObserveContext = { ...ctx, after: 'none' };
  const plan: { node: string; label?: string; kind: FieldKind['kind']; value: string | boolean | string[] }[] = [];
  for (const f of a.params.fields) {
    const k = await ctx.tabs.call<FieldKind>(ctx.tab, FIELD_KIND_FN, [f.node]);
    const name = f.label !== undefined ? `Field "${f.label}"` : `Node ${f.node}`;
    if (k.kind === 'gone') throw new SightlineError('NODE_NOT_FOUND', `${name} is no longer on the page (or is not a node id from get_ui_tree).`, 'Call get_ui_tree again, or give the label.');
    if (k.kind === 'other') throw new SightlineError('INVALID_ARGUMENT', `${name} is ${named(k.el)}, not a field a form sets.`, 'Give a text field, drop-down, checkbox, radio or file input; click acts on the rest.');
    const want = k.kind === 'text' ? 'text (a string)' : k.kind === 'check' ? 'true or false' : k.kind === 'select' ? 'an option label (a string, or a list for a multiple select)' : 'file path(s)';
    const fits = k.kind === 'text' ? typeof f.value === 'string' : k.kind === 'check' ? typeof f.value === 'boolean' : typeof f.value !== 'boolean' && (k.multiple || typeof f.value === 'string' || f.value.length === 1);
    if (!fits) throw new SightlineError('INVALID_ARGUMENT', `${name} is ${named(k.el)}: its value is ${want}, not ${JSON.stringify(f.value)}.`, 'Give each field the kind of value its control takes.');
    if (k.kind === 'file') await Promise.all(list(f.value as string | string[]).map((p) => deps.file(p)));
    plan.push({ node: f.node, ...(f.label !== undefined ? { label: f.label } : {}), kind: k.kind, value: f.value });
  }
  const fields: FilledReport[] = [];
  const outcome: ActionDetails['outcome'] = {};
  for (const p of plan) {
    const base = { kind: p.kind, target: a.target, node: p.node } as const;
    let d: ActionDetails;
    switch (p.kind) {
      case 'text':
        d = await type(p.node, p.value as string);
        break;
      case 'select':
        d = await selectOption(quiet, { ...base, kind: 'select_option', params: { any: list(p.value as string | string[]) } });
        break;
      case 'check':
        d = await setChecked(quiet, { ...base, kind: 'set_checked', params: { checked: p.value as boolean } });
        break;
      default:
        d = await uploadFile(quiet, { ...base, kind: 'upload_file', params: { paths: list(p.value as string | string[]) } }, deps);
    }
    const r = d.outcome?.received;
    fields.push({ ...(p.label !== undefined ? { label: p.label } : {}), node: p.node, ...(r?.role ? { role: r.role } : {}), ...(r?.name ? { name: r.name } : {}), ...(r?.value !== undefined && !r.password ? { value: r.value } : {}), ...(r?.valueMatches !== undefined ? { valueMatches: r.valueMatches } : {}), ...(r?.password ? { password: true } : {}) });
    if (d.outcome?.dialog) {
      outcome.dialog = d.outcome.dialog;
      break;
    }
  }
  const off = fields.filter((f) => f.valueMatches === false).map((f) => `"${f.label ?? f.name ?? f.node}"`);
  return { fields, outcome, ...(off.length ? { note: `${off.join(', ')} did not take the value sent (a mask, a limit or a script changed it)` } : {}) };
}

const list = (v: string | string[]): string[] => (Array.isArray(v) ? v : [v]);
