/**
 * Sightline's side of the economy benchmark: aim by visible text or field label, as its tools
 * invite; when an answer says AMBIGUOUS_TEXT, act on the listed match of the wanted role, or
 * read the UI tree and act by node. Form fields go in one fill_form call when the server lists it.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { callText, ok, type Call } from './economyAgent.ts';
import { FULL_NAME, PASSWORD, USER, type Agent } from './economyTasks.ts';

const EDITABLE = ['textbox', 'searchbox', 'combobox', 'spinbutton', 'textarea'];
const ACTIONABLE = ['button', 'link', 'menuitem', 'tab', 'checkbox', 'radio', 'option', 'switch'];
const ROLES = new Set([...EDITABLE, ...ACTIONABLE, 'heading', 'listitem', 'label', 'text', 'statictext', 'paragraph', 'listbox', 'generic', 'img', 'cell', 'row']);

interface TreeNode {
  id: string;
  role: string;
  name: string;
}

/** get_ui_tree's text: one node a line, `<id> <role> "<name>" …` after a header line. */
export function parseTree(text: string): TreeNode[] {
  const nodes: TreeNode[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\S+) ([\w-]+) "(.*?)"(?=\s|$)/.exec(line.trim());
    if (m) nodes.push({ id: m[1]!, role: m[2]!.toLowerCase(), name: m[3]! });
  }
  return nodes;
}

const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The one node named `name` (exactly, else containing it) of a wanted role; undefined when that is not one node. */
function pick(nodes: TreeNode[], name: string, roles: string[]): TreeNode | undefined {
  const tiers = [
    nodes.filter((n) => same(n.name, name) && roles.includes(n.role)),
    nodes.filter((n) => n.name.toLowerCase().includes(name.toLowerCase()) && roles.includes(n.role)),
  ];
  for (const t of tiers) if (t.length === 1) return t[0];
  return undefined;
}

/**
 * The node id of the one listed match of a wanted role in an AMBIGUOUS_TEXT answer, when the
 * answer gives roles and node ids (one match per numbered item or per line).
 */
export function pickFromAmbiguity(message: string, name: string, roles: string[]): string | undefined {
  const items = message.split(/(?:^|[;\n])\s*(?=\d+[:.)]\s)/).slice(1);
  const listed = items.map((item) => {
    const node = /\bnode:?\s+([^\s,;)]+)/.exec(item)?.[1] ?? /\b(?=[a-z0-9]*[a-z])[a-z0-9]+\.\d+\b/i.exec(item)?.[0];
    // The role is the word before the quoted name ("2. link "Forgot password?" node …"), else any role word.
    const before = /([a-z-]+)\s*["“]/i.exec(item)?.[1]?.toLowerCase();
    const role = before && ROLES.has(before) ? before : item.toLowerCase().match(/[a-z]+/g)?.find((w) => ROLES.has(w));
    const quoted = /["“]([^"”]*)["”]/.exec(item)?.[1] ?? '';
    return { node, role, name: quoted };
  });
  const wanted = listed.filter((l) => l.node && l.role && roles.includes(l.role));
  const exact = wanted.filter((l) => same(l.name, name));
  if (exact.length === 1) return exact[0]!.node;
  if (wanted.length === 1) return wanted[0]!.node;
  return undefined;
}

export function sightlineAgent(tools: Tool[], file: string): Agent {
  const hasFillForm = tools.some((t) => t.name === 'fill_form');
  let target: string | undefined;

  /** The first page opens a tab (its id is in the answer); later pages load in it. */
  async function go(call: Call, url: string): Promise<void> {
    if (target) {
      await ok(call('navigate', { target, url }));
      return;
    }
    const r = await ok(call('tabs', { action: 'new', url }));
    target = /\bbrowser:[A-Za-z0-9._/-]+/.exec(callText(r))?.[0];
    if (!target) throw new Error(`no tab id in the answer to tabs new: ${callText(r).slice(0, 200)}`);
  }

  async function tree(call: Call, query?: string): Promise<TreeNode[]> {
    return parseTree(callText(await ok(call('get_ui_tree', { target, ...(query ? { query } : {}) }))));
  }

  /** Act on the element showing `value` (as text or as a field's label); on AMBIGUOUS_TEXT, by node. */
  async function aim(call: Call, tool: string, args: Record<string, unknown>, key: 'text' | 'field', value: string, roles: string[]) {
    const r = await call(tool, { target, ...args, [key]: value });
    if (!r.isError) return r;
    const message = callText(r);
    if (!message.includes('AMBIGUOUS_TEXT')) throw new Error(message.slice(0, 400));
    const node = pickFromAmbiguity(message, value, roles) ?? pick(await tree(call, value), value, roles)?.id;
    if (!node) throw new Error(`no single ${roles.join('/')} "${value}" to act on`);
    return ok(call(tool, { target, ...args, node }));
  }

  /** An action on text that may not be there yet: when the answer says it is not found, wait for it and act again. */
  async function later(call: Call, act: () => Promise<unknown>, text: string): Promise<void> {
    try {
      await act();
    } catch (e) {
      if (!(e as Error).message.includes('NODE_NOT_FOUND')) throw e;
      await ok(call('wait_for', { target, text }));
      await act();
    }
  }

  /** Several fields in one call by label; when a label is ambiguous, again by the nodes of the tree. */
  async function fillForm(call: Call, fields: { field: string; value: string | boolean | string[]; roles: string[] }[]): Promise<void> {
    const r = await call('fill_form', { target, fields: fields.map(({ field, value }) => ({ label: field, value })) });
    if (!r.isError) return;
    if (!callText(r).includes('AMBIGUOUS_TEXT')) throw new Error(callText(r).slice(0, 400));
    const nodes = await tree(call);
    const byNode = fields.map(({ field, value, roles }) => {
      const node = pick(nodes, field, roles);
      if (!node) throw new Error(`no single ${roles.join('/')} "${field}" in the tree`);
      return { node: node.id, value };
    });
    await ok(call('fill_form', { target, fields: byNode }));
  }

  return {
    async signin(call, url) {
      await go(call, url);
      if (hasFillForm) {
        await fillForm(call, [
          { field: 'Username', value: USER, roles: EDITABLE },
          { field: 'Password', value: PASSWORD, roles: EDITABLE },
        ]);
        await aim(call, 'click', {}, 'text', 'Sign in', ACTIONABLE);
        return;
      }
      await aim(call, 'type_text', { text: USER }, 'field', 'Username', EDITABLE);
      await aim(call, 'type_text', { text: PASSWORD, submit: true }, 'field', 'Password', EDITABLE);
    },
    async search(call, url) {
      await go(call, url);
      await aim(call, 'type_text', { text: 'marmalade', submit: true }, 'field', 'Search', EDITABLE);
      await later(call, () => aim(call, 'click', {}, 'text', 'Lemon marmalade', ACTIONABLE), 'Lemon marmalade');
    },
    async form(call, url) {
      await go(call, url);
      if (hasFillForm) {
        await fillForm(call, [
          { field: 'Full name', value: FULL_NAME, roles: EDITABLE },
          { field: 'Country', value: 'Portugal', roles: ['combobox', 'listbox'] },
          { field: 'Send me the newsletter', value: true, roles: ['checkbox'] },
          { field: 'Attachment', value: [file], roles: ['button', 'textbox', 'file'] },
        ]);
      } else {
        await aim(call, 'type_text', { text: FULL_NAME }, 'field', 'Full name', EDITABLE);
        await aim(call, 'select_option', { label: 'Portugal' }, 'text', 'Country', ['combobox', 'listbox']);
        await aim(call, 'set_checked', { checked: true }, 'text', 'Send me the newsletter', ['checkbox']);
        await aim(call, 'upload_file', { paths: [file] }, 'text', 'Attachment', ['button', 'textbox', 'file']);
      }
      await aim(call, 'click', {}, 'text', 'Send application', ACTIONABLE);
    },
    async dialog(call, url) {
      await go(call, url);
      const r = await aim(call, 'click', {}, 'text', 'Delete draft', ACTIONABLE);
      if (!/dialog/i.test(callText(r))) throw new Error(`the click's answer tells of no dialog: ${callText(r).slice(0, 200)}`);
      await ok(call('handle_dialog', { target, accept: true }));
    },
    async later(call, url) {
      await go(call, url);
      await aim(call, 'click', {}, 'text', 'Check availability', ACTIONABLE);
      await ok(call('wait_for', { target, text: 'Reserve now' }));
      await aim(call, 'click', {}, 'text', 'Reserve now', ACTIONABLE);
    },
    async reorder(call, url) {
      await go(call, url);
      const nodes = await tree(call);
      const from = pick(nodes, 'Run the tests', ['listitem']);
      const to = pick(nodes, 'Plan the release', ['listitem']);
      if (!from || !to) throw new Error('the tree lacks the list items');
      await ok(call('drag', { target, node: from.id, toNode: to.id }));
    },
    async read(call, url) {
      await go(call, url);
      const headings = (await tree(call, 'heading')).filter((n) => n.role === 'heading');
      return headings.at(-1)?.name ?? '';
    },
  };
}
