/** How an action tool answers: one line of what was done, where and with what outcome; the result as structured content. */
import { describeOutcome } from '../actions/describe.ts';
import type { ActionRequest, ActionResult } from '../ports.ts';
import type { ToolResponse } from './response.ts';
import type { ToolContext } from './tool.ts';

export async function runAction(ctx: ToolContext, req: ActionRequest, res: ToolResponse): Promise<ActionResult> {
  const r = await ctx.actions.act(req, { client: ctx.client, signal: ctx.signal, session: ctx.session, ...(ctx.run ? { run: ctx.run } : {}) });
  const { afterImage, ...result } = r;
  const where = r.imagePoint && r.sourcePoint ? ` at image (${r.imagePoint.x}, ${r.imagePoint.y}) of frame ${r.frameRef ?? '?'} → source (${round(r.sourcePoint.x)}, ${round(r.sourcePoint.y)})` : r.sourcePoint ? ` at source (${round(r.sourcePoint.x)}, ${round(r.sourcePoint.y)})` : '';
  const said = describeOutcome(r);
  res.text(`${req.tool} on ${r.target}${where}: ok${r.note ? ` (${r.note})` : ''}.${said ? ` ${said}.` : ''}${(r.warnings ?? []).map((w) => `\nWarning: ${w}`).join('')}`);
  if (afterImage) {
    res.image(afterImage.data, afterImage.format, ['user', 'assistant'], 0.8);
    res.text(`The image shows frame ${afterImage.ref} (${afterImage.width}×${afterImage.height}), captured after the action; act in its pixels with ref "${afterImage.ref}".`);
  }
  res.structured({ ...result, ...(r.sourcePoint ? { sourcePoint: { x: round(r.sourcePoint.x), y: round(r.sourcePoint.y) } } : {}) });
  return result;
}

const round = (n: number): number => Math.round(n * 100) / 100;

export const actionHints = { destructiveHint: true, openWorldHint: true } as const;
