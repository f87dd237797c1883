/**
 * The browser module's own tools, made from its action kinds (kinds.ts). Each answers with the
 * core's action line and one line of its own facts; those facts are also in the structured
 * result's `details`.
 */
import { actionHints, actionTool } from '../../mcp/action.ts';
import { fillFormKind, handleDialogKind, navigateKind, selectOptionKind, setCheckedKind, tabsKind, uploadFileKind } from './kinds.ts';
import type { FilledReport } from './forms.ts';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const navigate = actionTool(navigateKind, {
  title: 'Navigate a tab (browser)',
  description:
    'Open a URL in a tab, or go back, forward or reload; waits for the load.',
  answer: (d) => (str(d.url) ? `Now at ${str(d.url)}${str(d.title) ? ` ("${str(d.title)}")` : ''}${typeof d.status === 'number' ? `, HTTP ${d.status}` : ''}.` : undefined),
  says: ['navigated'],
});

const tabs = actionTool(tabsKind, {
  title: 'Open, close or bring forward a tab (browser)',
  description:
    'Open a new tab (at url), close a tab, or bring one to the front.',
  answer: (d, a) =>
    a.action === 'new' ? `New tab ${str(d.target)}${str(d.title) ? `: "${str(d.title)}"` : ''}${typeof d.status === 'number' && d.status >= 400 ? `, HTTP ${d.status}` : ''}.` : undefined,
});

const selectOption = actionTool(selectOptionKind, {
  title: 'Choose an option of a drop-down (browser)',
  description:
    'Choose options of a drop-down by label or value, as a user does.',
});

const setChecked = actionTool(setCheckedKind, {
  title: 'Check or uncheck a checkbox (browser)',
  description:
    'Check or uncheck a checkbox, radio or switch (clicked only if it must change).',
  answer: (d, a) =>
    d.how === 'already' ? `It was already ${a.checked ? 'checked' : 'unchecked'}: nothing clicked.` : `It is now ${d.checked === true ? 'checked' : d.checked === false ? 'unchecked' : String(d.checked)}.`,
  says: ['received'],
});

const uploadFile = actionTool(uploadFileKind, {
  title: 'Upload files into a file input (browser)',
  description:
    'Put files (inside files.uploadRoots) into a file input.',
});

const handleDialog = actionTool(handleDialogKind, {
  title: 'Answer a dialog (browser)',
  description:
    'Accept or dismiss the dialog open on a tab; promptText answers a prompt.',
  annotations: actionHints,
});

const fillForm = actionTool(fillFormKind, {
  title: 'Fill a form (browser)',
  description: 'Set several fields in one call, each by label or node: text, option, checkbox or radio (true/false), files. Says what each holds after.',
  answer: (d) => {
    const fields = (d.fields ?? []) as FilledReport[];
    const shown = (f: FilledReport): string => (f.password ? '(hidden)' : f.value === undefined ? '?' : JSON.stringify(f.value.length > 40 ? `${f.value.slice(0, 39)}…` : f.value));
    return `Filled ${fields.length}: ${fields.map((f) => `${f.label !== undefined ? `"${f.label}"` : f.node} = ${shown(f)}`).join(', ')}.`;
  },
});

export const browserTools = [navigate, tabs, selectOption, setChecked, uploadFile, fillForm, handleDialog];
