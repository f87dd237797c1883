/** Output schemas shared by tool families (the frame descriptor is the contract of DESIGN.md). */
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
  received: elementRef.extend({ value: z.string().optional(), valueMatches: z.boolean().optional() }).optional().describe('The element that received the text, and its value read back.'),
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

/** Input fields shared by the action tools. */
export const targetField = z.string().min(1).max(512).describe('Target id from list_targets (e.g. "browser:…", "desktop:window:…", "android:<serial>"). Optional when "ref" is given.');
export const refField = z
  .string()
  .min(1)
  .max(128)
  .describe("A frame ref (a crop included) whose image pixels x, y are in. Default: the target's latest capture (never a crop unless named).");
export const xField = z.number().finite().describe('X in image pixels of the frame (0 = left edge).');
export const yField = z.number().finite().describe('Y in image pixels of the frame (0 = top edge).');
export const nodeField = z.string().min(1).max(128).describe('A node id from get_ui_tree, instead of x, y: the element is found again where it is now (scrolled into view if needed).');
export const textAimField = z.string().min(1).max(500).describe('Visible text to aim at instead of x, y (case- and accent-insensitive), e.g. "Submit".');
export const indexField = z.int().min(1).max(1000).describe('Which match of the text, 1 = the first in reading order (when several match).');
export const afterField = z
  .enum(['none', 'summary', 'image'])
  .describe('What to report after acting: summary (default: what was hit, navigation, dialogs, the changed region), image (also a small picture of the change), none (fastest).');

/** A source filter listing the registered sources (tool inputs are built per core). */
export function sourceField(names: readonly string[]): z.ZodType<string> {
  return names.length ? z.enum(names as [string, ...string[]]) : z.string().min(1).max(32);
}
