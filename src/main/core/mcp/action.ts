/** How an action tool answers: one line of what was done and where, and the result as structured content. */
import type { ActionRequest } from '../ports.ts';
import type { ToolResponse } from './response.ts';
import type { ToolContext } from './tool.ts';

export async function runAction(ctx: ToolContext, req: ActionRequest, res: ToolResponse): Promise<void> {
  const r = await ctx.actions.act(req, { client: ctx.client, signal: ctx.signal });
  const where = r.imagePoint && r.sourcePoint ? ` at image (${r.imagePoint.x}, ${r.imagePoint.y}) → source (${round(r.sourcePoint.x)}, ${round(r.sourcePoint.y)})` : '';
  res.text(`${req.tool} on ${r.target}${where}: ok${r.note ? ` (${r.note})` : ''}.`);
  const { details: _details, ...shown } = r;
  res.structured({ ...shown, ...(r.sourcePoint ? { sourcePoint: { x: round(r.sourcePoint.x), y: round(r.sourcePoint.y) } } : {}) });
}

const round = (n: number): number => Math.round(n * 100) / 100;

export const actionHints = { destructiveHint: true, openWorldHint: true } as const;
