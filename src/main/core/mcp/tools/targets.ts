/** Live targets: list, capture, UI tree. */
import { z } from 'zod';
import { IMAGE_FORMATS } from '../../../../shared/frame.ts';
import { frameOutput, sourceField, targetsOutput, uiTreeOutput } from '../schemas.ts';
import { defineTool } from '../tool.ts';
import { respondWithFrame } from './frameResponse.ts';

const listTargets = defineTool({
  name: 'list_targets',
  title: 'List targets',
  description: 'Windows, displays, browser tabs and devices to capture and operate, with their ids.',
  input: (c) => ({ source: sourceField(c.liveSources).optional() }),
  output: targetsOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async handle(ctx, args, res) {
    const { targets, errors } = await ctx.targets.list(args.source, ctx.signal);
    const lines = targets.map((t) => `${t.id}  ${t.kind}  ${JSON.stringify(t.title)}${t.state && t.state !== 'ok' ? `  [${t.state}${t.hint ? `: ${t.hint}` : ''}]` : ''}`);
    // Why a source is down is the person's to fix: one line here, the details in sightline://health.
    for (const e of errors) lines.push(`(${e.source} unavailable: ${e.code}; see sightline://health)`);
    res.text(lines.length ? lines.join('\n') : 'No targets. Check sightline://health for what each source needs.');
    res.structured({ targets, ...(errors.length ? { errors } : {}) });
  },
});

const capture = defineTool({
  name: 'capture',
  title: 'Capture a screenshot',
  description:
    'Capture a target as a small image (long edge 1000 px by default); act in its pixels.',
  input: {
    target: z.string().min(1).max(512),
    maxDimension: z.int().min(64).max(8192).optional().describe('Long edge, px.'),
    format: z.enum(IMAGE_FORMATS).optional(),
    quality: z.int().min(1).max(100).optional(),
    raw: z.boolean().optional().describe('Native size (costly).'),
    fullPage: z.boolean().optional().describe('Whole page (browser).'),
    scrollOffset: z.strictObject({ x: z.number().finite(), y: z.number().finite() }).optional().describe('Scroll by CSS px first (browser).'),
  },
  output: frameOutput,
  // Not read-only: scrollOffset scrolls the page, and a background tab is brought to the front.
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  async handle(ctx, args, res) {
    const outcome = await ctx.frames.capture({ ...args, signal: ctx.signal, session: ctx.session });
    respondWithFrame(res, outcome, 'Captured');
  },
});

const getUiTree = defineTool({
  name: 'get_ui_tree',
  title: 'Get the UI tree',
  description:
    "The target's controls and text, each with a node id (a handle actions take as node) and its box in image px of the latest frame.",
  input: {
    target: z.string().min(1).max(512),
    maxNodes: z.int().min(1).max(2000).default(200),
    query: z.string().max(200).optional().describe('Name, value or role contains.'),
  },
  output: uiTreeOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async handle(ctx, args, res) {
    const tree = await ctx.frames.uiTree({ target: args.target, maxNodes: args.maxNodes, query: args.query, signal: ctx.signal, session: ctx.session });
    const truncated = tree.nodes.length >= args.maxNodes;
    const lines = tree.nodes.map((n) => {
      const b = n.bounds;
      const c = n.center ? ` centre ${n.center.x},${n.center.y}` : '';
      return `${n.id} ${n.role} ${JSON.stringify(n.name)}${n.password ? ' (password, hidden)' : n.value ? ` =${JSON.stringify(n.value)}` : ''} box ${b.x},${b.y} ${b.width}×${b.height}${c}${n.inViewport === false ? ' (off screen)' : ''}${n.enabled === false ? ' (disabled)' : ''}`;
    });
    // What applies to many nodes is said once.
    const off = tree.nodes.some((n) => n.inViewport === false) ? ' Acting on an off-screen node by id scrolls it into view.' : '';
    res.text(`${tree.nodes.length} node${tree.nodes.length === 1 ? '' : 's'}, box and centre in image px of frame ${tree.frameRef}.${off}\n${lines.join('\n')}${truncated ? '\n(truncated: raise maxNodes or use query)' : ''}`);
    res.structured({ frameRef: tree.frameRef, nodes: tree.nodes, ...(truncated ? { truncated } : {}) });
  },
});

export default [listTargets, capture, getUiTree];
