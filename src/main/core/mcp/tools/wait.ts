/**
 * wait_for: until text appears or goes, a UI-tree query matches (or stops), the network is idle
 * (browser), or a time has passed. Polls cheaply (a tree read, no image; OCR only where a source
 * has no tree text). A timeout is TIMEOUT with what was last seen.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { SightlineError } from '../../../../shared/errors.ts';
import { matchItem } from '../../text/items.ts';
import { findText } from '../../text/match.ts';
import { indexField, nodeField } from '../schemas.ts';
import { defineTool, type ToolContext } from '../tool.ts';

const MAX_TIMEOUT_MS = 120_000;

const waitOutput = z.object({
  met: z.boolean(),
  waitedMs: z.number().describe('How long it waited, in ms.'),
  what: z.string(),
  matches: z.array(z.object({ text: z.string(), node: z.string().optional() })).optional().describe('The text or nodes that matched (when waiting for them to appear).'),
  via: z.enum(['tree', 'ocr']).optional().describe('Where text was read: the page or UI tree, or OCR of a capture.'),
});

interface Probe {
  what: string;
  /** Whether the condition holds now, and what was seen (for the answer and a timeout). */
  check(): Promise<{ met: boolean; seen: string; matches?: { text: string; node?: string }[]; via?: 'tree' | 'ocr' }>;
  intervalMs: number;
}

const waitFor = defineTool({
  name: 'wait_for',
  title: 'Wait for',
  description:
    'Wait until text, a UI-tree query or a node appears (gone: disappears), the network is idle, or ms pass. TIMEOUT says what it last saw.',
  input: {
    target: z.string().min(1).max(512),
    text: z.string().min(1).max(500).optional(),
    query: z.string().min(1).max(200).optional().describe('As get_ui_tree query.'),
    node: nodeField.optional().describe('With gone.'),
    gone: z.boolean().optional(),
    networkIdle: z.boolean().optional().describe('No request for 500 ms (browser).'),
    ms: z.int().min(1).max(MAX_TIMEOUT_MS).optional(),
    index: indexField.optional().describe('At least this many matches.'),
    timeoutMs: z.int().min(100).max(MAX_TIMEOUT_MS).default(10_000),
  },
  output: waitOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async handle(ctx, args, res) {
    const started = performance.now();
    const conditions = [args.text !== undefined, args.query !== undefined, args.node !== undefined, args.networkIdle === true, args.ms !== undefined].filter(Boolean).length;
    if (conditions !== 1) throw new SightlineError('INVALID_ARGUMENT', 'Give exactly one of text, query, node (with gone), networkIdle or ms.', 'Call wait_for once per condition.');
    if (args.node !== undefined && !args.gone) throw new SightlineError('INVALID_ARGUMENT', 'A node can only be waited on to go (gone: true).', 'To wait for something to appear, give text or query.');
    const elapsed = (): number => Math.round(performance.now() - started);

    if (args.ms !== undefined) {
      await sleep(args.ms, undefined, { signal: ctx.signal });
      return answer(res, { met: true, waitedMs: elapsed(), what: `${args.ms} ms` });
    }
    if (args.networkIdle) {
      const network = await ctx.sources.port(args.target, 'network');
      await network.networkIdle(args.target, { idleMs: 500, timeoutMs: args.timeoutMs, signal: ctx.signal });
      return answer(res, { met: true, waitedMs: elapsed(), what: 'network idle' });
    }
    const probe = makeProbe(ctx, args);
    let last = '';
    const deadline = started + args.timeoutMs;
    for (;;) {
      const r = await probe.check();
      last = r.seen;
      if (r.met) {
        return answer(res, { met: true, waitedMs: elapsed(), what: probe.what, ...(r.matches ? { matches: r.matches } : {}), ...(r.via ? { via: r.via } : {}) });
      }
      if (performance.now() + probe.intervalMs > deadline) break;
      await sleep(probe.intervalMs, undefined, { signal: ctx.signal });
    }
    throw new SightlineError('TIMEOUT', `Waited ${elapsed()} ms for ${probe.what} on ${args.target}; last seen: ${last}.`, 'Capture the target to look, or wait longer with a larger timeoutMs.');
  },
});

function makeProbe(ctx: ToolContext, a: { target: string; text?: string; query?: string; node?: string; gone?: boolean; index?: number }): Probe {
  const gone = a.gone === true;
  if (a.text !== undefined) {
    const text = a.text;
    const need = a.index ?? 1;
    let interval = 250;
    return {
      what: `text "${text}" to ${gone ? 'disappear' : 'appear'}`,
      get intervalMs() {
        return interval;
      },
      async check() {
        const read = await ctx.text.read(a.target, { signal: ctx.signal, session: ctx.session });
        // OCR needs a capture per look: look less often.
        if (read.via === 'ocr') interval = 1000;
        const hits = findText(read.items.map(matchItem), text, { fuzzy: read.via === 'ocr' });
        const sample = read.items
          .slice(0, 5)
          .map((i) => JSON.stringify(i.text.slice(0, 40)))
          .join(', ');
        const seen = hits.length ? `${hits.length} match(es) of "${text}"` : `no "${text}" among ${read.items.length} text items${sample ? ` (${sample}${read.items.length > 5 ? ', …' : ''})` : ''}`;
        const met = gone ? hits.length === 0 : hits.length >= need;
        return { met, seen, via: read.via, ...(!gone && met ? { matches: hits.slice(0, 20).map((h) => ({ text: h.text, ...(h.id !== undefined ? { node: h.id } : {}) })) } : {}) };
      },
    };
  }
  const query = a.query;
  const node = a.node;
  return {
    what: query !== undefined ? `UI-tree nodes matching "${query}" to ${gone ? 'go' : 'appear'}` : `node ${node} to go`,
    intervalMs: 300,
    async check() {
      const tree = await ctx.frames.uiTree({ target: a.target, maxNodes: query !== undefined ? 20 : 2000, ...(query !== undefined ? { query } : {}), signal: ctx.signal, session: ctx.session });
      const nodes = node !== undefined ? tree.nodes.filter((n) => n.id === node) : tree.nodes;
      const met = gone ? nodes.length === 0 : nodes.length > 0;
      const seen = nodes.length ? `${nodes.length} matching node(s), e.g. ${nodes[0]?.role} ${JSON.stringify(nodes[0]?.name ?? '')}` : 'no matching node';
      return { met, seen, ...(!gone && met ? { matches: nodes.slice(0, 20).map((n) => ({ text: n.name, node: n.id })) } : {}) };
    },
  };
}

function answer(res: { text(t: string): unknown; structured(v: Record<string, unknown>): unknown }, r: z.output<typeof waitOutput>): void {
  res.text(`Waited ${r.waitedMs} ms: ${r.what}${r.met ? ' — done' : ''}.${r.matches?.length ? ` Matches: ${r.matches.map((m) => `${JSON.stringify(m.text)}${m.node ? ` (node ${m.node})` : ''}`).join(', ')}.` : ''}`);
  res.structured(r);
}

export default [waitFor];
