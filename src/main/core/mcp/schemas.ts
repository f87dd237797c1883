/** Output schemas shared by tool families (the frame descriptor is the contract every image answer keeps). */
import { z } from 'zod';
import { EMPTY_REASONS } from '../../../shared/frame.ts';

const size = z.object({ width: z.number(), height: z.number() });
const point = z.object({ x: z.number(), y: z.number() });
const rect = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

export const frameSchema = z.object({
  ref: z.string(),
  source: z.string(),
  target: z.string(),
  capturedAt: z.string(),
  image: size,
  sourceSize: size,
  origin: point,
  scale: z.number(),
  dpi: z.number().optional(),
  monitor: z.number().optional(),
  parentRef: z.string().optional(),
});

export const frameOutput = z.object({ frame: frameSchema, estimatedTokens: z.number(), warnings: z.array(z.string()).optional() });

export const targetSchema = z.object({
  id: z.string(),
  source: z.string(),
  kind: z.string(),
  title: z.string(),
  app: z.string().optional(),
  bounds: rect.optional(),
  scale: z.number().optional(),
  focused: z.boolean().optional(),
  state: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
  hint: z.string().optional(),
});

export const targetsOutput = z.object({
  targets: z.array(targetSchema),
  errors: z.array(z.object({ source: z.string(), code: z.string(), message: z.string(), hint: z.string().optional() })).optional(),
});

export const uiTreeOutput = z.object({
  frameRef: z.string(),
  nodes: z.array(
    z.object({
      id: z.string(),
      parentId: z.string().optional(),
      role: z.string(),
      name: z.string(),
      value: z.string().optional(),
      password: z.boolean().optional().describe('A password field: its value is never given.'),
      bounds: rect,
      center: point.optional(),
      inViewport: z.boolean().optional(),
      clickable: z.boolean().optional(),
      enabled: z.boolean().optional(),
      attributes: z.record(z.string(), z.string()).optional(),
    }),
  ),
  truncated: z.boolean().optional(),
});

/**
 * What every action answers, for programs. The result carries more than these two fields (where it
 * landed, what was hit, what changed: see ActionResult); the schema names only the two every
 * answer has, so twenty action tools do not each spend a page of tokens on the same schema.
 */
export const actionOutput = z.looseObject({ ok: z.boolean(), target: z.string() });

export const screenshotsOutput = z.object({
  screenshots: z.array(
    z.object({
      ref: z.string(),
      source: z.string(),
      target: z.string().optional(),
      capturedAt: z.string(),
      displayLocalTime: z.string(),
      width: z.number(),
      height: z.number(),
      monitor: z.number().optional(),
      hasThumbnail: z.boolean(),
      pinned: z.boolean().optional(),
      activity: z.object({ app: z.string(), document: z.string().optional() }).optional(),
      title: z.string().optional().describe('Window or page title (else the app) when captured.'),
      region: z
        .object({ of: z.string(), x: z.number(), y: z.number(), width: z.number(), height: z.number() })
        .optional()
        .describe('A crop: the region of frame `of` it shows, in screen units.'),
      note: z.string().optional().describe("The user's note for the agent."),
    }),
  ),
  reason: z.enum(EMPTY_REASONS).optional(),
  remediation: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  matched: z.number().optional(),
});

export { afterField, indexField, nodeField, refField, targetField, textAimField, xField, yField } from '../actionDefs.ts';

/** A source filter listing the registered sources (tool inputs are built per core). */
export function sourceField(names: readonly string[]): z.ZodType<string> {
  return names.length ? z.enum(names as [string, ...string[]]) : z.string().min(1).max(32);
}
