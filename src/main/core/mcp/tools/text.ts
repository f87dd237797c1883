/** find_text: where a text is on a screen, or in a stored frame, in image pixels. */
import { z } from 'zod';
import { SightlineError } from '../../../../shared/errors.ts';
import { defineTool } from '../tool.ts';

const box = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

const findTextOutput = z.object({
  frameRef: z.string().describe('The frame whose image pixels the boxes are in: pass it as "ref" to click there.'),
  image: z.object({ width: z.number(), height: z.number() }).describe("That frame's image size in pixels."),
  via: z.enum(['tree', 'ocr']).describe("Where the text was read: the page's or app's own text (tree), or OCR of the screenshot."),
  matches: z.array(
    z.object({
      text: z.string().describe('The text as it appears on screen.'),
      box: box.describe('Image pixels of frameRef.'),
      center: z.object({ x: z.number(), y: z.number() }).describe('Centre of the box in image pixels: click here.'),
      confidence: z.number().describe('0–1; 1 for text the tree knows, the OCR engine’s otherwise.'),
      kind: z.enum(['word', 'phrase', 'substring', 'item']).describe('word/phrase: whole words; substring: part of a longer word; item: a tree node’s text (its whole box).'),
      edits: z.number().optional().describe('A near match: letters OCR read differently.'),
      node: z.string().optional().describe('The UI-tree node the text belongs to (a handle for click, type_text …).'),
    }),
  ),
  total: z.number().describe('All matches, before max cut the list.'),
});

const findTextTool = defineTool({
  name: 'find_text',
  title: 'Find text on screen',
  description:
    'Where a text is on a target now or in a frame (ref): boxes in image px, from the page or UI tree, else OCR.',
  input: {
    target: z.string().min(1).max(512).optional(),
    ref: z.string().min(1).max(128).optional(),
    text: z.string().min(1).max(500),
    regex: z.boolean().optional().describe('text is a JS regex.'),
    max: z.int().min(1).max(200).default(20),
  },
  output: findTextOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
  async handle(ctx, args, res) {
    if ((args.target === undefined) === (args.ref === undefined)) {
      throw new SightlineError('INVALID_ARGUMENT', 'Give "target" (its text now) or "ref" (the text a stored frame shows), not both.', 'Use target for a live screen, ref for a capture, crop or archive frame.');
    }
    const r = await ctx.text.find({ target: args.target, ref: args.ref, query: args.text, regex: args.regex, max: args.max, signal: ctx.signal, session: ctx.session });
    const source = r.via === 'tree' ? "the page's own text" : 'OCR';
    if (r.matches.length === 0) {
      res.text(`No "${args.text}" on ${args.ref ?? 'screen'} (read from ${source}; frame ${r.frameRef}, ${r.image.width}×${r.image.height} px).`);
    } else {
      const lines = r.matches.map(
        (m, i) =>
          `${i + 1}. ${JSON.stringify(m.text)} centre ${m.center.x},${m.center.y} box ${m.box.x},${m.box.y} ${m.box.width}×${m.box.height}${m.node ? ` node ${m.node}` : ''}${m.edits ? ` (near match: ${m.edits} letter${m.edits > 1 ? 's' : ''} read differently)` : ''} confidence ${m.confidence}`,
      );
      const more = r.total > r.matches.length ? `\n(${r.total - r.matches.length} more: raise max)` : '';
      res.text(`${r.total} match${r.total > 1 ? 'es' : ''} of "${args.text}", read from ${source}; image px of frame ${r.frameRef} (${r.image.width}×${r.image.height}):\n${lines.join('\n')}${more}`);
    }
    res.structured({ ...r });
  },
});

export default [findTextTool];
