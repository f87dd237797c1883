/** Action tools: every one goes through the core's action gate. */
import { z } from 'zod';
import type { ActionRequest } from '../../actions/gate.ts';
import { actionOutput, refField, targetField, xField, yField } from '../schemas.ts';
import type { ToolContext } from '../tool.ts';
import { defineTool } from '../tool.ts';
import type { ToolResponse } from '../response.ts';

async function runAction(ctx: ToolContext, req: ActionRequest, res: ToolResponse): Promise<void> {
  const r = await ctx.core.act(req, { client: ctx.client, signal: ctx.signal });
  const where = r.imagePoint && r.sourcePoint ? ` at image (${r.imagePoint.x}, ${r.imagePoint.y}) → source (${round(r.sourcePoint.x)}, ${round(r.sourcePoint.y)})` : '';
  res.text(`${req.tool} on ${r.target}${where}: ok${r.note ? ` (${r.note})` : ''}.`);
  res.structured({ ...r, ...(r.sourcePoint ? { sourcePoint: { x: round(r.sourcePoint.x), y: round(r.sourcePoint.y) } } : {}) });
}

const round = (n: number): number => Math.round(n * 100) / 100;
const hints = { destructiveHint: true, openWorldHint: true } as const;

const click = defineTool({
  name: 'click',
  title: 'Click',
  description:
    "Click (tap on Android) at x, y in image pixels of the target's latest capture, or of the frame named by ref (a crop included), or at the centre of a UI-tree node.",
  input: {
    x: xField.optional(),
    y: yField.optional(),
    target: targetField.optional(),
    ref: refField.optional(),
    node: z.string().min(1).max(128).optional().describe('A node id from get_ui_tree, instead of x, y.'),
    button: z.enum(['left', 'right', 'middle']).optional().describe('Mouse button (default left).'),
    clicks: z.int().min(1).max(3).optional().describe('2 for a double click.'),
    modifiers: z.array(z.enum(['Shift', 'Control', 'Alt', 'Meta'])).max(4).optional().describe('Keys held during the click.'),
    holdMs: z.int().min(0).max(10_000).optional().describe('Hold before release (a long press on Android).'),
  },
  output: actionOutput,
  annotations: hints,
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'click', ...args }, res);
  },
});

const typeText = defineTool({
  name: 'type_text',
  title: 'Type text',
  description: 'Type text exactly as given into the focused element of the target (optionally click x, y first). Up to 10,000 characters.',
  input: {
    text: z.string().min(1).max(10_000).describe('The text to type, exactly.'),
    target: targetField.optional(),
    ref: refField.optional(),
    x: xField.optional().describe('Optional: click here first (image pixels).'),
    y: yField.optional().describe('Optional: click here first (image pixels).'),
  },
  output: actionOutput,
  annotations: hints,
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'type_text', ...args }, res);
  },
});

const pressKey = defineTool({
  name: 'press_key',
  title: 'Press a key',
  description: 'Press a key or combination: DOM names such as Enter, Escape, ArrowDown, Control+A; Android names such as BACK, HOME, ENTER.',
  input: {
    key: z.string().min(1).max(64).describe('Key name or combination joined by "+".'),
    target: targetField.optional(),
    ref: refField.optional(),
  },
  output: actionOutput,
  annotations: hints,
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'press_key', ...args }, res);
  },
});

const scroll = defineTool({
  name: 'scroll',
  title: 'Scroll',
  description: 'Scroll by deltaX, deltaY (source units, positive = right/down) at x, y in image pixels (default: the centre).',
  input: {
    deltaX: z.number().finite().min(-100_000).max(100_000).default(0).describe('Horizontal amount (positive scrolls right).'),
    deltaY: z.number().finite().min(-100_000).max(100_000).default(0).describe('Vertical amount (positive scrolls down).'),
    x: xField.optional(),
    y: yField.optional(),
    target: targetField.optional(),
    ref: refField.optional(),
  },
  output: actionOutput,
  annotations: hints,
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'scroll', ...args }, res);
  },
});

const swipe = defineTool({
  name: 'swipe',
  title: 'Swipe (Android)',
  description: 'Swipe from x, y to toX, toY (image pixels of the latest capture or of ref) over durationMs.',
  input: {
    x: xField,
    y: yField,
    toX: xField.describe('End X in image pixels.'),
    toY: yField.describe('End Y in image pixels.'),
    durationMs: z.int().min(1).max(10_000).default(300).describe('Swipe duration in ms (default 300).'),
    target: targetField.optional(),
    ref: refField.optional(),
  },
  output: actionOutput,
  annotations: hints,
  sources: ['android'],
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'swipe', ...args }, res);
  },
});

const focusWindow = defineTool({
  name: 'focus_window',
  title: 'Focus a window (desktop)',
  description: 'Raise and focus a desktop window; falls back to clicking a safe point inside it and says which was done.',
  input: { target: z.string().min(1).max(512).describe('A desktop:window:… id from list_targets.') },
  output: actionOutput,
  annotations: { destructiveHint: false, openWorldHint: true },
  sources: ['desktop'],
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'focus_window', ...args }, res);
  },
});

const scrollIntoView = defineTool({
  name: 'scroll_into_view',
  title: 'Scroll an element into view (browser)',
  description: 'Scroll a node from get_ui_tree into view; capture again afterwards.',
  input: {
    target: z.string().min(1).max(512).describe('A browser tab id from list_targets.'),
    node: z.string().min(1).max(128).describe('A node id from get_ui_tree.'),
    block: z.enum(['start', 'center', 'end', 'nearest']).optional().describe('Vertical alignment (default center).'),
    inline: z.enum(['start', 'center', 'end', 'nearest']).optional().describe('Horizontal alignment (default nearest).'),
  },
  output: actionOutput,
  annotations: { destructiveHint: false, openWorldHint: true },
  sources: ['browser'],
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'scroll_into_view', ...args }, res);
  },
});

export default [click, typeText, pressKey, scroll, swipe, focusWindow, scrollIntoView];
