/** Action tools every live source may offer: each goes through the core's action gate. */
import { z } from 'zod';
import { actionHints, runAction } from '../action.ts';
import { actionOutput, afterField, indexField, nodeField, refField, targetField, textAimField, xField, yField } from '../schemas.ts';
import { defineTool } from '../tool.ts';

const aim = {
  x: xField.optional(),
  y: yField.optional(),
  node: nodeField.optional(),
  text: textAimField.optional(),
  index: indexField.optional(),
  target: targetField.optional(),
  ref: refField.optional(),
  after: afterField.optional(),
};

const click = defineTool({
  name: 'click',
  title: 'Click',
  description:
    "Click (tap on Android) at x, y in image pixels of the target's latest capture (or of the frame named by ref, a crop included), or on a UI-tree node, or on visible text. The result says what was hit, whether the page navigated or a dialog opened, and where the screen changed.",
  input: {
    ...aim,
    button: z.enum(['left', 'right', 'middle']).optional().describe('Mouse button (default left).'),
    clicks: z.int().min(1).max(3).optional().describe('2 for a double click.'),
    modifiers: z.array(z.enum(['Shift', 'Control', 'Alt', 'Meta'])).max(4).optional().describe('Keys held during the click.'),
    holdMs: z.int().min(0).max(10_000).optional().describe('Hold before release, in ms (a long press on Android).'),
  },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, { text, ...args }, res) {
    await runAction(ctx, { tool: 'click', ...args, ...(text !== undefined ? { find: text } : {}) }, res);
  },
});

const typeText = defineTool({
  name: 'type_text',
  title: 'Type text',
  description:
    'Type text exactly as given (up to 10,000 characters) into the focused field of the target, or into the field at x, y (image pixels), the node, or the field labelled `field` (clicked first). Refuses with NO_FOCUSED_INPUT when nothing editable has focus. The result names the field and its value read back.',
  input: {
    text: z.string().min(1).max(10_000).describe('The text to type, exactly.'),
    x: xField.optional().describe('Optional: click the field here first (image pixels).'),
    y: yField.optional().describe('Optional: click the field here first (image pixels).'),
    node: nodeField.optional().describe('Optional: a node id from get_ui_tree to type into.'),
    field: textAimField.optional().describe('Optional: the visible label or placeholder of the field to type into, e.g. "Email".'),
    index: indexField.optional(),
    submit: z.boolean().optional().describe('Press Enter after typing (submits a form).'),
    clear: z.boolean().optional().describe("Replace the field's value instead of adding to it."),
    target: targetField.optional(),
    ref: refField.optional(),
    after: afterField.optional(),
  },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, args, res) {
    const { field, ...rest } = args;
    await runAction(ctx, { tool: 'type_text', ...rest, ...(field !== undefined ? { find: field } : {}) }, res);
  },
});

const pressKey = defineTool({
  name: 'press_key',
  title: 'Press a key',
  description: 'Press a key or combination on the target: DOM names such as Enter, Escape, ArrowDown, Control+A; Android names such as BACK, HOME, ENTER.',
  input: {
    key: z.string().min(1).max(64).describe('Key name, or a combination joined by "+" (modifiers first: Control+Shift+T).'),
    target: targetField.optional(),
    ref: z.string().min(1).max(128).optional().describe('A frame ref, to name the target by a frame of it (instead of "target").'),
    after: afterField.optional(),
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
  description:
    'Scroll by deltaX, deltaY in image pixels of the frame (like x and y; positive = right/down), with the pointer at x, y (default: the middle), on a node, or on visible text. A scroll of 300 moves the content by about 300 pixels of the image you saw.',
  input: {
    deltaX: z.number().finite().min(-100_000).max(100_000).default(0).describe('Horizontal distance in image pixels (positive scrolls right).'),
    deltaY: z.number().finite().min(-100_000).max(100_000).default(0).describe('Vertical distance in image pixels (positive scrolls down).'),
    ...aim,
  },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, { text, ...args }, res) {
    await runAction(ctx, { tool: 'scroll', ...args, ...(text !== undefined ? { find: text } : {}) }, res);
  },
});

const hover = defineTool({
  name: 'hover',
  title: 'Hover',
  description: 'Move the pointer over x, y (image pixels of the frame), a node or visible text, without clicking: shows tooltips and hover menus.',
  input: aim,
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, { text, ...args }, res) {
    await runAction(ctx, { tool: 'hover', ...args, ...(text !== undefined ? { find: text } : {}) }, res);
  },
});

const drag = defineTool({
  name: 'drag',
  title: 'Drag',
  description:
    'Press at x, y (image pixels of the frame), a node or visible text, move to toX, toY (image pixels of the same frame) or to toNode, and release. Reorders lists, moves sliders and windows; on Android a long-press drag.',
  input: {
    ...aim,
    toX: xField.optional().describe('Where to drop: X in image pixels of the frame.'),
    toY: yField.optional().describe('Where to drop: Y in image pixels of the frame.'),
    toNode: nodeField.optional().describe('Where to drop: a node id from get_ui_tree.'),
    durationMs: z.int().min(1).max(10_000).optional().describe('How long the move takes, in ms (default 300).'),
    holdMs: z.int().min(0).max(10_000).optional().describe('Hold before moving, in ms (Android starts a drag after a long press, ~600).'),
  },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, { text, ...args }, res) {
    await runAction(ctx, { tool: 'drag', ...args, ...(text !== undefined ? { find: text } : {}) }, res);
  },
});

export default [click, typeText, pressKey, scroll, hover, drag];
