/**
 * The browser module's own tools, made from its action kinds (kinds.ts). Each answers with the
 * core's action line and one line of its own facts; those facts are also in the structured
 * result's `details`.
 */
import { actionHints, actionTool } from '../../mcp/action.ts';
import { handleDialogKind, navigateKind, selectOptionKind, setCheckedKind, tabsKind, uploadFileKind } from './kinds.ts';

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

export const browserTools = [navigate, tabs, selectOption, setChecked, uploadFile, handleDialog];
