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
    "Open a URL in a browser tab, or go back, forward or reload; waits for the page to load (waitUntil). details has the page's url, title and HTTP status. Older frames of the tab become stale: capture again.",
  answer: (d) => (str(d.url) ? `Now at ${str(d.url)}${str(d.title) ? ` ("${str(d.title)}")` : ''}${typeof d.status === 'number' ? `, HTTP ${d.status}` : ''}.` : undefined),
  says: ['navigated'],
});

const tabs = actionTool(tabsKind, {
  title: 'Open, close or bring forward a tab (browser)',
  description:
    'action new: open a tab, optionally at url (in the browser of target: a tab id, or "browser:<endpoint>/"; default the local browser); details.target is its id. close: close the target tab. select: bring the target tab to the front.',
  answer: (d, a) =>
    a.action === 'new' ? `New tab ${str(d.target)}${str(d.title) ? `: "${str(d.title)}"` : ''}${typeof d.status === 'number' && d.status >= 400 ? `, HTTP ${d.status}` : ''}.` : undefined,
});

const selectOption = actionTool(selectOptionKind, {
  title: 'Choose an option of a drop-down (browser)',
  description:
    'Choose options of a drop-down (a select element) by label (the text shown) or value, aimed at by x, y (image pixels of the frame), node or text (the select, its label or a wrapper). Fires input and change as a user does; details.selected lists the options now selected.',
});

const setChecked = actionTool(setCheckedKind, {
  title: 'Check or uncheck a checkbox (browser)',
  description:
    'Set a checkbox, radio button or switch to checked true or false, aimed at by x, y (image pixels of the frame), node or text (the box or its label). Clicks it only when it must change, then reads the state back (details.checked).',
  answer: (d, a) =>
    d.how === 'already' ? `It was already ${a.checked ? 'checked' : 'unchecked'}: nothing clicked.` : `It is now ${d.checked === true ? 'checked' : d.checked === false ? 'unchecked' : String(d.checked)}.`,
  says: ['received'],
});

const uploadFile = actionTool(uploadFileKind, {
  title: 'Upload files into a file input (browser)',
  description:
    'Put files into a file input (input type=file), aimed at by x, y (image pixels of the frame), node or text (the input, its label or a wrapper). Paths must be absolute and inside a folder of files.uploadRoots. details.files has the names the input now holds.',
});

const handleDialog = actionTool(handleDialogKind, {
  title: 'Answer a dialog (browser)',
  description:
    'Accept or dismiss the alert, confirm, prompt or beforeunload dialog open on a tab (list_targets shows state "dialog"); promptText answers a prompt. The result tells what the page did next, as for the action that opened the dialog.',
  annotations: actionHints,
});

export const browserTools = [navigate, tabs, selectOption, setChecked, uploadFile, handleDialog];
