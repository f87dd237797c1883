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

const elementRef = z.object({ role: z.string().optional(), name: z.string().optional(), node: z.string().optional() });

export const actionOutput = z.object({
  ok: z.boolean(),
  target: z.string(),
  imagePoint: point.optional().describe('Where it landed, in image pixels of frameRef.'),
  sourcePoint: point.optional().describe("Where it landed in the source's own units (screen points, CSS px, device px)."),
  frameRef: z.string().optional(),
  note: z.string().optional(),
  hit: elementRef.extend({ app: z.string().optional() }).optional().describe('What was under the point.'),
  received: elementRef.extend({ value: z.string().optional(), valueMatches: z.boolean().optional(), password: z.boolean().optional() }).optional().describe('The element that received the text, and its value read back.'),
  navigated: z.object({ url: z.string(), title: z.string().optional() }).optional(),
  dialog: z.object({ type: z.enum(['alert', 'confirm', 'prompt', 'beforeunload']), message: z.string(), defaultPrompt: z.string().optional() }).optional(),
  title: z.object({ from: z.string(), to: z.string() }).optional(),
  keyboardShown: z.boolean().optional(),
  changed: rect.optional().describe('The region that changed, in image pixels of changedRef.'),
  changedRef: z.string().optional(),
  afterRef: z.string().optional().describe('A frame captured after the action.'),
  remapped: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

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

export { afterField, indexField, nodeField, refField, targetField, textAimField, xField, yField } from '../actions/fields.ts';

/** A source filter listing the registered sources (tool inputs are built per core). */
export function sourceField(names: readonly string[]): z.ZodType<string> {
  return names.length ? z.enum(names as [string, ...string[]]) : z.string().min(1).max(32);
}
