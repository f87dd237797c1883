/**
 * Tools several source modules offer (each lists the same object in its `tools`): listed while
 * any of those sources is, once. The core's own tools (every source's) are in tools/.
 */
import { z } from 'zod';
import { actionHints, runAction } from './action.ts';
import { actionOutput, nodeField } from './schemas.ts';
import { defineTool } from './tool.ts';

/** Sources whose UI trees scroll (browser pages, Android lists). */
export const scrollIntoViewTool = defineTool({
  name: 'scroll_into_view',
  title: 'Scroll an element into view',
  description: 'Scroll a node from get_ui_tree into view (a browser page, an Android list), aligned as asked; capture again afterwards to see it. Acting on a node already scrolls it into view: use this to look, not before a click.',
  input: {
    target: z.string().min(1).max(512).describe('A browser tab or Android device id from list_targets.'),
    node: nodeField.describe('A node id from get_ui_tree.'),
    block: z.enum(['start', 'center', 'end', 'nearest']).optional().describe('Vertical alignment (default center; browser).'),
    inline: z.enum(['start', 'center', 'end', 'nearest']).optional().describe('Horizontal alignment (default nearest; browser).'),
  },
  output: actionOutput,
  annotations: { ...actionHints, destructiveHint: false },
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'scroll_into_view', ...args }, res);
  },
});

