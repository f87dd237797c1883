/**
 * Tools are declared once, as data: name, description, a flat zod input shape with every field
 * described, an output schema and hints. The server derives JSON Schema, validation and listing
 * from these objects, and so does `scripts/toolDocs.ts` for the README's tool table. The core's
 * own tools live in tools/; a source's own tools live in its module (sources/<name>/), which
 * imports this kit and never the server.
 */
import type { z } from 'zod';
import type { ActionsPort, FramesPort, HistoryService, ScreenTextPort, Session, SourcesPort, TargetsPort, TextSearchPort } from '../ports.ts';
import type { Routines } from '../routines/routines.ts';
import type { ProgressReport } from '../sources/source.ts';
import type { ToolResponse } from './response.ts';

/** What a tool is handed: the core's ports and the call's own facts, nothing else. */
export interface ToolContext {
  frames: FramesPort;
  actions: ActionsPort;
  targets: TargetsPort;
  sources: SourcesPort;
  history: HistoryService;
  /** A target's visible text (its tree's, else OCR). */
  text: ScreenTextPort;
  /** Search stored frames by the text they showed. */
  search: TextSearchPort;
  /** This MCP session: "the target's latest capture" is its own. */
  session: Session;
  signal: AbortSignal;
  /** The MCP client's name, for the activity log. */
  client: string;
  /** The agent run this call belongs to (`_meta["sightline/run"]` of the request), for the activity log. */
  run?: { id: string; artifacts?: string };
  /** Sends MCP progress notifications when the client asked for them. */
  progress: (p: ProgressReport) => void;
  /** Saved routines. */
  routines: Routines;
  /**
   * Call another tool as this session would (its validation, its gate, the activity log), on
   * behalf of `run` when given; resolves to its structured content, throws its error.
   */
  call(tool: string, args: Record<string, unknown>, run?: { id: string; artifacts?: string }): Promise<Record<string, unknown>>;
}

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What an input shape may depend on: the sources registered with this core. */
export interface ToolSchemaContext {
  /** Every registered source, and the live ones (with targets to capture and operate). */
  sources: readonly string[];
  liveSources: readonly string[];
  archives: readonly string[];
}

export interface ToolDef<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** A flat zod shape; a function when a field lists the registered sources. */
  input: S | ((ctx: ToolSchemaContext) => S);
  /** The shape of `structuredContent` (advertised as `outputSchema`). */
  output?: z.ZodType;
  annotations: ToolAnnotations;
  handle(ctx: ToolContext, args: z.output<z.ZodObject<S>>, res: ToolResponse): Promise<void>;
}

export function defineTool<S extends z.ZodRawShape>(def: ToolDef<S>): ToolDef<S> {
  return def;
}

// Methods are bivariant, so a ToolDef<S> of any shape fits here.
export type AnyTool = ToolDef<z.ZodRawShape>;

export function inputShape(tool: AnyTool, ctx: ToolSchemaContext): z.ZodRawShape {
  return typeof tool.input === 'function' ? tool.input(ctx) : tool.input;
}
