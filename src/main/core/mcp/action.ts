/**
 * Action tools are made from action kinds: the kind's input is the tool's, the gate runs it, and
 * the answer is one line of what was done, where and with what outcome (plus the tool's own
 * facts), with the result as structured content.
 */
import { describeOutcome } from '../actions/describe.ts';
import type { ActionKind, ActionResult, ArgsOf } from '../ports.ts';
import type { ToolResponse } from './response.ts';
import { actionOutput } from './schemas.ts';
import { defineTool, type AnyTool, type ToolAnnotations, type ToolContext } from './tool.ts';
import type { z } from 'zod';

export const actionHints = { destructiveHint: true, openWorldHint: true } as const;

export interface ActionToolMeta<S extends z.ZodRawShape> {
  title: string;
  description: string;
  annotations?: ToolAnnotations;
  /** One more line of the tool's own facts, from the source's details (e.g. the page navigated to). */
  answer?(details: Record<string, unknown>, args: ArgsOf<S>): string | undefined;
  /** Outcomes the tool's own line already says (a navigation tool names the page it reached). */
  says?: readonly ('navigated' | 'received')[];
}

/** The MCP tool of an action kind. */
export function actionTool<S extends z.ZodRawShape, A>(kind: ActionKind<S, A>, meta: ActionToolMeta<S>): AnyTool {
  return defineTool({
    name: kind.name,
    title: meta.title,
    description: meta.description,
    input: kind.input,
    output: actionOutput,
    annotations: meta.annotations ?? actionHints,
    async handle(ctx, args, res) {
      const r = await runAction(ctx, kind, args, res, meta);
      const line = meta.answer?.(r.details ?? {}, args);
      if (line) res.text(line);
    },
  }) as unknown as AnyTool;
}

/**
 * Run a kind and answer in one line: what was done, where (only what the call did not say
 * itself: the target when it named none, the image point when it gave x, y) and what came of it.
 * The structured result keeps every field for programs.
 */
export async function runAction<S extends z.ZodRawShape, A>(ctx: ToolContext, kind: ActionKind<S, A>, args: ArgsOf<S>, res: ToolResponse, meta: Pick<ActionToolMeta<S>, 'says'> = {}): Promise<ActionResult> {
  const r = await ctx.actions.act(kind, args, { client: ctx.client, signal: ctx.signal, session: ctx.session, ...(ctx.run ? { run: ctx.run } : {}) });
  const { afterImage, ...result } = r;
  const given = args as { target?: unknown; x?: unknown };
  const on = given.target === undefined && !kind.defaultTarget ? ` on ${r.target}` : '';
  const at = given.x !== undefined && r.imagePoint ? ` at (${r.imagePoint.x}, ${r.imagePoint.y}) of ${r.frameRef ?? 'the frame'}` : '';
  const shown: Partial<ActionResult> = { ...r };
  for (const k of meta.says ?? []) delete shown[k];
  const said = describeOutcome(shown);
  res.text(`${kind.name}${on}${at}: ok${r.note ? ` (${r.note})` : ''}.${said ? ` ${said}.` : ''}${(r.warnings ?? []).map((w) => `\nWarning: ${w}`).join('')}`);
  if (afterImage) {
    res.image(afterImage.data, afterImage.format, ['user', 'assistant'], 0.8);
    res.text(`The image is frame ${afterImage.ref} (${afterImage.width}×${afterImage.height}), after the action; act in its pixels with ref "${afterImage.ref}".`);
  }
  res.structured({ ...result, ...(r.sourcePoint ? { sourcePoint: { x: round(r.sourcePoint.x), y: round(r.sourcePoint.y) } } : {}) });
  return result;
}

const round = (n: number): number => Math.round(n * 100) / 100;
