/** Action tools every live source may offer: each goes through the core's action gate. */
import { z } from 'zod';
import { actionHints, runAction } from '../action.ts';
import { actionOutput, refField, targetField, xField, yField } from '../schemas.ts';
import { defineTool } from '../tool.ts';

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
  annotations: actionHints,
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
  annotations: actionHints,
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
  annotations: actionHints,
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
  annotations: actionHints,
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'scroll', ...args }, res);
  },
});

export default [click, typeText, pressKey, scroll];
