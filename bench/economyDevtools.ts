/**
 * chrome-devtools-mcp's side of the economy benchmark: read take_snapshot, act by its uids; an
 * action that changes what the next step needs asks for includeSnapshot, which saves a call.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { callText, ok, type Call } from './economyAgent.ts';
import { FULL_NAME, PASSWORD, USER, type Agent } from './economyTasks.ts';

interface SnapNode {
  uid: string;
  role: string;
  name: string;
}

/** The snapshot's lines: `uid=1_5 textbox "Username"`, static text as `uid=1_2 "text"`. */
export function parseSnapshot(text: string): SnapNode[] {
  const nodes: SnapNode[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*uid=(\S+)(?:\s+([\w-]+))?(?:\s+"((?:[^"\\]|\\.)*)")?/.exec(line);
    if (m) nodes.push({ uid: m[1]!, role: m[2] ?? 'StaticText', name: (m[3] ?? '').replace(/\\"/g, '"') });
  }
  return nodes;
}

function find(nodes: SnapNode[], roles: string[], name: string): SnapNode {
  const hit = nodes.find((n) => roles.includes(n.role) && n.name === name) ?? nodes.find((n) => roles.includes(n.role) && n.name.includes(name));
  if (!hit) throw new Error(`no ${roles.join('/')} "${name}" in the snapshot`);
  return hit;
}

/** A list item by its text: the item itself when it is named, else the text inside it. */
function item(nodes: SnapNode[], text: string): SnapNode {
  return nodes.find((n) => n.role === 'listitem' && n.name === text) ?? find(nodes, ['StaticText'], text);
}

export function chromeDevtoolsAgent(_tools: Tool[], file: string): Agent {
  const snapshot = async (call: Call): Promise<SnapNode[]> => parseSnapshot(callText(await ok(call('take_snapshot', {}))));
  return {
    async signin(call, url) {
      await ok(call('navigate_page', { type: 'url', url }));
      const s = await snapshot(call);
      await ok(
        call('fill_form', {
          elements: [
            { uid: find(s, ['textbox'], 'Username').uid, value: USER },
            { uid: find(s, ['textbox'], 'Password').uid, value: PASSWORD },
          ],
        }),
      );
      await ok(call('click', { uid: find(s, ['button'], 'Sign in').uid }));
    },
    async search(call, url) {
      await ok(call('navigate_page', { type: 'url', url }));
      const s = await snapshot(call);
      await ok(call('fill', { uid: find(s, ['searchbox', 'textbox'], 'Search').uid, value: 'marmalade' }));
      let results = parseSnapshot(callText(await ok(call('press_key', { key: 'Enter', includeSnapshot: true }))));
      // The results come from the server: when the snapshot does not show them yet, wait (its answer has a snapshot).
      if (!results.some((n) => n.role === 'link' && n.name === 'Lemon marmalade')) results = parseSnapshot(callText(await ok(call('wait_for', { text: ['Lemon marmalade'] }))));
      await ok(call('click', { uid: find(results, ['link'], 'Lemon marmalade').uid }));
    },
    async form(call, url) {
      await ok(call('navigate_page', { type: 'url', url }));
      const s = await snapshot(call);
      await ok(
        call('fill_form', {
          elements: [
            { uid: find(s, ['textbox'], 'Full name').uid, value: FULL_NAME },
            { uid: find(s, ['combobox'], 'Country').uid, value: 'Portugal' },
            { uid: find(s, ['checkbox'], 'Send me the newsletter').uid, value: 'true' },
          ],
        }),
      );
      await ok(call('upload_file', { uid: find(s, ['button'], 'Attachment').uid, filePaths: [file] }));
      await ok(call('click', { uid: find(s, ['button'], 'Send application').uid }));
    },
    async dialog(call, url) {
      await ok(call('navigate_page', { type: 'url', url }));
      const s = await snapshot(call);
      const r = await ok(call('click', { uid: find(s, ['button'], 'Delete draft').uid }));
      if (!/dialog/i.test(callText(r))) throw new Error(`the click's answer tells of no dialog: ${callText(r).slice(0, 200)}`);
      await ok(call('handle_dialog', { action: 'accept' }));
    },
    async later(call, url) {
      await ok(call('navigate_page', { type: 'url', url }));
      const s = await snapshot(call);
      await ok(call('click', { uid: find(s, ['button'], 'Check availability').uid }));
      const waited = parseSnapshot(callText(await ok(call('wait_for', { text: ['Reserve now'] }))));
      // wait_for answers with a snapshot; without one, take it.
      const after = waited.some((n) => n.role === 'button' && n.name === 'Reserve now') ? waited : await snapshot(call);
      await ok(call('click', { uid: find(after, ['button'], 'Reserve now').uid }));
    },
    async reorder(call, url) {
      await ok(call('navigate_page', { type: 'url', url }));
      const s = await snapshot(call);
      await ok(call('drag', { from_uid: item(s, 'Run the tests').uid, to_uid: item(s, 'Plan the release').uid }));
    },
    async read(call, url) {
      await ok(call('navigate_page', { type: 'url', url }));
      const headings = (await snapshot(call)).filter((n) => n.role === 'heading');
      return headings.at(-1)?.name ?? '';
    },
  };
}
