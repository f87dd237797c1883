/**
 * Playwright MCP's side of the economy benchmark: read browser_snapshot, act by its refs. Action
 * answers of this version link their snapshot as a file, so a new snapshot is read after each
 * change the next step depends on.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { callText, ok, type Call } from './economyAgent.ts';
import { FULL_NAME, PASSWORD, USER, type Agent } from './economyTasks.ts';

interface SnapNode {
  role: string;
  name: string;
  ref: string;
  text: string;
}

/** The YAML snapshot's lines: `- role "name" [attrs] [ref=e5]: text` (some quoted whole in '…'). */
export function parseSnapshot(text: string): SnapNode[] {
  const nodes: SnapNode[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim().replace(/^- /, '').replace(/^'/, '');
    const ref = /\[ref=([\w-]+)\]/.exec(line)?.[1];
    const m = /^([\w-]+)(?: "((?:[^"\\]|\\.)*)")?/.exec(line);
    if (!ref || !m) continue;
    nodes.push({ role: m[1]!, name: (m[2] ?? '').replace(/\\"/g, '"'), ref, text: /\]: (.*)$/.exec(line)?.[1]?.trim() ?? '' });
  }
  return nodes;
}

function find(nodes: SnapNode[], roles: string[], name: string): SnapNode {
  const named = (n: SnapNode): string => n.name || n.text;
  const hit = nodes.find((n) => roles.includes(n.role) && named(n) === name) ?? nodes.find((n) => roles.includes(n.role) && named(n).includes(name));
  if (!hit) throw new Error(`no ${roles.join('/')} "${name}" in the snapshot`);
  return hit;
}

export function playwrightAgent(tools: Tool[], file: string): Agent {
  // Element arguments are "ref" in older versions, "target" since 0.0.7x.
  const key = 'ref' in ((tools.find((t) => t.name === 'browser_click')?.inputSchema.properties ?? {}) as object) ? 'ref' : 'target';
  const snapshot = async (call: Call): Promise<SnapNode[]> => parseSnapshot(callText(await ok(call('browser_snapshot', {}))));
  const el = (n: SnapNode, what: string): Record<string, string> => ({ element: what, [key]: n.ref });

  return {
    async signin(call, url) {
      await ok(call('browser_navigate', { url }));
      const s = await snapshot(call);
      await ok(
        call('browser_fill_form', {
          fields: [
            { [key]: find(s, ['textbox'], 'Username').ref, name: 'Username', type: 'textbox', value: USER },
            { [key]: find(s, ['textbox'], 'Password').ref, name: 'Password', type: 'textbox', value: PASSWORD },
          ],
        }),
      );
      await ok(call('browser_click', el(find(s, ['button'], 'Sign in'), 'Sign in button')));
    },
    async search(call, url) {
      await ok(call('browser_navigate', { url }));
      const s = await snapshot(call);
      await ok(call('browser_type', { ...el(find(s, ['searchbox', 'textbox'], 'Search'), 'Search field'), text: 'marmalade', submit: true }));
      // The results come from the server: when the snapshot does not show them yet, wait for them.
      let results = await snapshot(call);
      if (!results.some((n) => n.role === 'link' && n.name === 'Lemon marmalade')) {
        await ok(call('browser_wait_for', { text: 'Lemon marmalade' }));
        results = await snapshot(call);
      }
      await ok(call('browser_click', el(find(results, ['link'], 'Lemon marmalade'), 'Lemon marmalade result')));
    },
    async form(call, url) {
      await ok(call('browser_navigate', { url }));
      const s = await snapshot(call);
      await ok(
        call('browser_fill_form', {
          fields: [
            { [key]: find(s, ['textbox'], 'Full name').ref, name: 'Full name', type: 'textbox', value: FULL_NAME },
            { [key]: find(s, ['combobox'], 'Country').ref, name: 'Country', type: 'combobox', value: 'Portugal' },
            { [key]: find(s, ['checkbox'], 'Send me the newsletter').ref, name: 'Newsletter', type: 'checkbox', value: 'true' },
          ],
        }),
      );
      // A file input opens a file chooser; the upload tool answers it.
      const chooser = await ok(call('browser_click', el(find(s, ['button'], 'Attachment'), 'Attachment file input')));
      if (!/file chooser/i.test(callText(chooser))) throw new Error(`no file chooser after the click: ${callText(chooser).slice(0, 200)}`);
      await ok(call('browser_file_upload', { paths: [file] }));
      await ok(call('browser_click', el(find(s, ['button'], 'Send application'), 'Send application button')));
    },
    async dialog(call, url) {
      await ok(call('browser_navigate', { url }));
      const s = await snapshot(call);
      const r = await ok(call('browser_click', el(find(s, ['button'], 'Delete draft'), 'Delete draft button')));
      if (!/dialog/i.test(callText(r))) throw new Error(`the click's answer tells of no dialog: ${callText(r).slice(0, 200)}`);
      await ok(call('browser_handle_dialog', { accept: true }));
    },
    async later(call, url) {
      await ok(call('browser_navigate', { url }));
      const s = await snapshot(call);
      await ok(call('browser_click', el(find(s, ['button'], 'Check availability'), 'Check availability button')));
      await ok(call('browser_wait_for', { text: 'Reserve now' }));
      const after = await snapshot(call);
      await ok(call('browser_click', el(find(after, ['button'], 'Reserve now'), 'Reserve now button')));
    },
    async reorder(call, url) {
      await ok(call('browser_navigate', { url }));
      const s = await snapshot(call);
      const from = find(s, ['listitem'], 'Run the tests');
      const to = find(s, ['listitem'], 'Plan the release');
      await ok(call('browser_drag', { startElement: 'Run the tests', [`start${key[0]!.toUpperCase()}${key.slice(1)}`]: from.ref, endElement: 'Plan the release', [`end${key[0]!.toUpperCase()}${key.slice(1)}`]: to.ref }));
    },
    async read(call, url) {
      await ok(call('browser_navigate', { url }));
      const headings = (await snapshot(call)).filter((n) => n.role === 'heading');
      return headings.at(-1)?.name ?? '';
    },
  };
}
