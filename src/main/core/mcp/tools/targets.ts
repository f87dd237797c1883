/** Live targets: list, capture, UI tree. */
import { z } from 'zod';
import { IMAGE_FORMATS } from '../../../../shared/frame.ts';
import { frameOutput, sourceField, targetsOutput, uiTreeOutput } from '../schemas.ts';
import { defineTool } from '../tool.ts';
import { respondWithFrame } from './frameResponse.ts';

const listTargets = defineTool({
  name: 'list_targets',
  title: 'List targets',
  description: 'List what can be captured and operated: desktop displays and windows, browser tabs, Android devices. Each has an id to pass as "target".',
  input: (c) => ({ source: sourceField(c.liveSources).optional().describe(`Only this source (${c.liveSources.join(' | ') || 'none registered'}).`) }),
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
    'Capture a target as a small image (long edge ≤ 1000 px by default) and store it as a frame. Act later in the pixels of this image: Sightline maps them to the real device. Use crop_screenshot for detail.',
  input: {
    target: z.string().min(1).max(512).describe('Target id from list_targets.'),
    maxDimension: z.int().min(64).max(8192).optional().describe('Long-edge limit in pixels (default 1000, or the settings profile).'),
    format: z.enum(IMAGE_FORMATS).optional().describe('Image format (default jpeg).'),
    quality: z.int().min(1).max(100).optional().describe('JPEG/WebP quality 1–100 (default 70).'),
    raw: z.boolean().optional().describe('Native resolution, no scaling (costly in tokens; carries a warning).'),
    fullPage: z.boolean().optional().describe('Browser: the whole page instead of the viewport.'),
    scrollOffset: z.strictObject({ x: z.number().finite(), y: z.number().finite() }).optional().describe('Browser: scroll the page by this many CSS px (x right, y down) before capturing.'),
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
    "A compact list of the target's interactive and text elements: each has a box and a centre in image pixels of its latest frame (frameRef). A node id is a handle to its element: click, type_text, scroll, hover and drag take it as \"node\" and act on the element where it is now, across captures and scrolls.",
  input: {
    target: z.string().min(1).max(512).describe('Target id from list_targets.'),
    maxNodes: z.int().min(1).max(2000).default(200).describe('At most this many nodes (default 200).'),
    query: z.string().max(200).optional().describe('Only nodes whose name, value or role contains this text (case-insensitive).'),
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
