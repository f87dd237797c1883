/**
 * Tools are declared once, as data: name, description, a flat zod input shape with
 * every field described, an output schema, hints, and the sources whose tools they
 * are. The server derives JSON Schema, validation and listing from these objects,
 * and so does `npm run docs:tools` for the README's tool table.
 */
import type { z } from 'zod';
import type { SourceName } from '../../../shared/frame.ts';
import type { Core } from '../index.ts';
import type { ProgressReport } from '../sources/source.ts';
import type { ToolResponse } from './response.ts';

export interface ToolContext {
  core: Core;
  signal: AbortSignal;
  /** The MCP client's name, for the activity log. */
  client: string;
  /** Sends MCP progress notifications when the client asked for them. */
  progress: (p: ProgressReport) => void;
}

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDef<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: S;
  /** The shape of `structuredContent` (advertised as `outputSchema`). */
  output?: z.ZodType;
  annotations: ToolAnnotations;
  /** Listed only while one of these sources is enabled and available (a source's own tools). */
  sources?: readonly SourceName[];
  handle(ctx: ToolContext, args: z.output<z.ZodObject<S>>, res: ToolResponse): Promise<void>;
}

export function defineTool<S extends z.ZodRawShape>(def: ToolDef<S>): ToolDef<S> {
  return def;
}

// Methods are bivariant, so a ToolDef<S> of any shape fits here.
export type AnyTool = ToolDef<z.ZodRawShape>;
