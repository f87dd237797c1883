/**
 * The MCP server: the only module that imports the SDK's server APIs, so an SDK upgrade touches
 * one file. Tools come as data (the core's, tools/index.ts, and each source module's own);
 * validation, listing, error results and resources are derived here. A session is handed the
 * core's ports (McpServices), never the core itself.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode as RpcErrorCode,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { RUN_ID } from '../../../shared/api.ts';
import { SightlineError } from '../../../shared/errors.ts';
import type { CoreBus } from '../events.ts';
import { SessionFrames } from '../frames/session.ts';
import type { Routines } from '../routines/routines.ts';
import type { ActionsPort, FramesPort, HistoryService, ScreenTextPort, SourcesPort, StatusPort, TargetsPort, TextSearchPort } from '../ports.ts';
import { VERSION } from '../version.ts';
import { MIME, ToolResponse, errorResult } from './response.ts';
import { inputShape, type AnyTool, type ToolContext, type ToolSchemaContext } from './tool.ts';
import { coreTools } from './tools/index.ts';

export const SERVER_NAME = 'sightline';

const INSTRUCTIONS = `Sightline gives you eyes and hands on desktop windows, browser tabs, Android devices and the ManicTime screenshot archive.
Workflow: list_targets → capture (a small image) → crop_screenshot for detail → click / type_text / press_key / scroll in the pixels of the image you saw. Sightline maps them to the device.
Aims: x, y (and toX, toY, deltaX, deltaY) are image pixels of the target's latest capture in this session, or of the frame named by ref (a crop included). Instead of x, y an action takes node (an id from get_ui_tree: the element is found where it is now, scrolled into view if needed) or text (visible text, case- and accent-insensitive; type_text names its field with field), with index to pick among several matches.
after: summary (default: what was hit, navigation, dialogs, the changed region), image (also a small picture of the change), none (fastest).
Errors start with a code and end with a hint: FRAME_STALE means capture again; INPUT_PAUSED means the user paused input — wait, do not retry in a loop.`;

/** What an MCP session may use. */
export interface McpServices extends StatusPort {
  frames: FramesPort;
  actions: ActionsPort;
  targets: TargetsPort;
  sources: SourcesPort & ToolSources & { isOffered(name: string): boolean; isUsable(name: string): boolean };
  history: HistoryService;
  text: ScreenTextPort;
  search: TextSearchPort;
  routines: Routines;
  events: CoreBus;
  clientConnected(delta: 1 | -1): void;
}

/** A tool and the source it belongs to (undefined: the core's own). */
export interface Offered {
  tool: AnyTool;
  /** The source modules offering it (none: a core tool, offered always). */
  sources?: string[];
  described: Tool;
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  return lean(rest, io === 'output') as Record<string, unknown>;
}

/**
 * A schema as a model reads it: string and list lengths are limits of abuse, not of meaning, and
 * cost every agent tokens on every tools/list; the server still enforces them (a call past one is
 * INVALID_ARGUMENT naming the field).
 */
function lean(node: unknown, output = false, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((n) => lean(n, output, depth));
  if (typeof node !== 'object' || node === null) return node;
  const o = node as Record<string, unknown>;
  // An output schema is for programs checking a result's shape, and its text is what a model
  // reads: it names the fields of the result and of its parts, and leaves the parts' insides to
  // the result itself.
  if (output && depth >= 2 && (o.type === 'object' || o.type === 'array')) return { type: o.type };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'minLength' || k === 'maxLength' || k === 'maxItems' || k === 'minItems') continue;
    if ((k === 'minimum' || k === 'maximum') && typeof v === 'number' && Math.abs(v) >= 1000) continue;
    if (output && ((k === 'description' && typeof v === 'string') || (k === 'additionalProperties' && v === false))) continue;
    out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([p, s]) => [p, lean(s, output, depth + 1)])) : lean(v, output, k === 'items' ? depth + 1 : depth);
  }
  return out;
}

/** What the tool list is derived from: the registered sources and their modules' tools. */
export interface ToolSources {
  names(kind?: 'live' | 'archive'): string[];
  modules(): readonly { name: string; tools?: readonly AnyTool[] }[];
}

function schemaContext(services: { sources: ToolSources }): ToolSchemaContext {
  return { sources: services.sources.names(), liveSources: services.sources.names('live'), archives: services.sources.names('archive') };
}

/** Every tool these sources offer, with its JSON Schema derived once. */
export function describeTools(services: { sources: ToolSources }): Offered[] {
  const ctx = schemaContext(services);
  // A tool several modules share (the same object) is offered once, by all of them.
  const owners = new Map<AnyTool, string[] | undefined>(coreTools.map((tool) => [tool, undefined]));
  for (const m of services.sources.modules()) {
    for (const tool of m.tools ?? []) {
      if (owners.has(tool) && owners.get(tool) === undefined) throw new Error(`Module ${m.name} lists the core's tool "${tool.name}".`);
      owners.set(tool, [...(owners.get(tool) ?? []), m.name]);
    }
  }
  const seen = new Set<string>();
  const out: Offered[] = [];
  for (const [tool, sources] of [...owners].sort(([a], [b]) => a.name.localeCompare(b.name))) {
    if (seen.has(tool.name)) throw new Error(`Two tools are named "${tool.name}".`);
    seen.add(tool.name);
    const described: Tool = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchema(z.object(inputShape(tool, ctx)), 'input') as Tool['inputSchema'],
      ...(tool.output ? { outputSchema: jsonSchema(tool.output, 'output') as Tool['outputSchema'] } : {}),
      annotations: tool.annotations,
    };
    out.push({ tool, ...(sources ? { sources } : {}), described });
  }
  return out;
}

/** `_meta["sightline/run"]` of a call: the agent run it belongs to (`sightline agent` sends it). */
function runOf(meta: Record<string, unknown> | undefined): { run?: { id: string; artifacts?: string } } {
  const r = meta?.['sightline/run'];
  if (typeof r !== 'object' || r === null) return {};
  const { id, artifacts } = r as { id?: unknown; artifacts?: unknown };
  if (typeof id !== 'string' || !RUN_ID.test(id)) return {};
  return { run: { id, ...(typeof artifacts === 'string' && artifacts.length < 1024 ? { artifacts } : {}) } };
}

/** Validation errors name the field. */
function validationError(error: z.ZodError): SightlineError {
  const issue = error.issues[0];
  const field = issue?.path.join('.') || (issue && 'keys' in issue && Array.isArray(issue.keys) ? String(issue.keys[0]) : '(arguments)');
  return new SightlineError('INVALID_ARGUMENT', `"${field}": ${issue?.message ?? 'invalid'}.`, "Check the tool's input schema.", { field });
}

/** The facts of one call a tool context is made of; the rest are the core's ports. */
export type CallFacts = Pick<ToolContext, 'session' | 'signal' | 'client' | 'run' | 'progress'>;

/**
 * Tools called by name as an MCP client's call is (validated strictly, refused while their
 * source is unusable), with the core's ports: the server's sessions, and a routine's replay in
 * or out of one (`sightline replay`), use this.
 */
export class ToolCaller {
  readonly #services: Omit<McpServices, 'events' | 'clientConnected' | 'status'>;
  readonly #byName: Map<string, Offered>;
  readonly #validators: Map<string, z.ZodType>;
  readonly #usable: (o: Offered) => boolean;

  constructor(services: Omit<McpServices, 'events' | 'clientConnected' | 'status'>, offered: readonly Offered[] = describeTools(services), usable?: (o: Offered) => boolean) {
    this.#services = services;
    this.#byName = new Map(offered.map((o) => [o.tool.name, o]));
    this.#validators = new Map(offered.map((o) => [o.tool.name, z.object(inputShape(o.tool, schemaContext(services))).strict()]));
    this.#usable = usable ?? ((o) => !o.sources || o.sources.some((name) => services.sources.isUsable(name)));
  }

  validated(o: Offered, args: Record<string, unknown>): Record<string, unknown> {
    const parsed = (this.#validators.get(o.tool.name) as z.ZodType).safeParse(args);
    if (!parsed.success) throw validationError(parsed.error);
    return parsed.data as Record<string, unknown>;
  }

  /** Run `o` with `args` checked; a read a routine saved from this run can replay (a wait, a text found, a tree query) is kept. */
  async handle(o: Offered, ctx: ToolContext, args: Record<string, unknown>, res: ToolResponse): Promise<void> {
    const valid = this.validated(o, args);
    await o.tool.handle(ctx, valid, res);
    if (o.tool.annotations?.readOnlyHint) this.#services.routines.noteRead(o.tool.name, valid, { client: ctx.client, session: ctx.session.id, ...(ctx.run ? { run: ctx.run.id } : {}) });
  }

  /** A tool's context for one call; its `call` runs other tools with the same facts. */
  context(facts: CallFacts): ToolContext {
    const s = this.#services;
    const ctx: ToolContext = {
      frames: s.frames,
      actions: s.actions,
      targets: s.targets,
      sources: s.sources,
      history: s.history,
      text: s.text,
      search: s.search,
      routines: s.routines,
      ...facts,
      call: async (name, args, run) => {
        const inner = this.#byName.get(name);
        if (!inner || !this.#usable(inner)) throw new SightlineError('UNSUPPORTED', `${name} is not offered now.`, 'Check sightline://health: its source may be disabled or unavailable.');
        const res = new ToolResponse();
        await this.handle(inner, this.context({ ...facts, ...(run ? { run } : {}), progress: () => undefined }), args, res);
        return res.toResult().structuredContent ?? {};
      },
    };
    return ctx;
  }
}

export function createMcpServer(services: McpServices, options: { log?: (line: string) => void } = {}): Server {
  const server = new Server(
    { name: SERVER_NAME, title: 'Sightline', version: VERSION },
    {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, logging: {} },
      instructions: INSTRUCTIONS,
    },
  );
  const toStderr = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Logs go to stderr (stdout is JSON-RPC only) and to the client as MCP logging.
  const log = (line: string, level: 'error' | 'warning' = 'error'): void => {
    toStderr(line);
    if (server.transport) void server.sendLoggingMessage({ level, logger: 'sightline', data: line }).catch(() => undefined);
  };
  const offered = describeTools(services);
  const byName = new Map(offered.map((o) => [o.tool.name, o]));
  const isListed = (o: Offered): boolean => !o.sources || o.sources.some((name) => services.sources.isOffered(name));
  const isUsable = (o: Offered): boolean => !o.sources || o.sources.some((name) => services.sources.isUsable(name));
  // This session's own latest capture of each target (two agents never act through each other's frames).
  const session = new SessionFrames();
  const listed = (): Offered[] => offered.filter(isListed);
  const tools = new ToolCaller(services, offered, isUsable);
  /** What the client last saw, so a change is announced once and only when real. */
  let lastListed = '';

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = listed();
    lastListed = tools.map((o) => o.tool.name).join(',');
    return { tools: tools.map((o) => o.described) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const o = byName.get(request.params.name);
    if (!o) throw new McpError(RpcErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. Hint: Call tools/list; a source's tools are listed while it is enabled and available.`);
    const started = performance.now();
    try {
      if (!isUsable(o)) {
        throw new SightlineError('SOURCE_UNAVAILABLE', `${o.tool.name} belongs to the ${o.sources?.join(' and ')} source${(o.sources?.length ?? 0) > 1 ? 's, which are' : ', which is'} disabled or unavailable.`, 'Check sightline://health.');
      }
      const progressToken = request.params._meta?.progressToken;
      const ctx = tools.context({
        session,
        signal: extra.signal,
        client: server.getClientVersion()?.name ?? 'mcp',
        ...runOf(request.params._meta),
        progress: (p) => {
          if (progressToken === undefined) return;
          void extra
            .sendNotification({ method: 'notifications/progress', params: { progressToken, progress: p.done, ...(p.total !== undefined ? { total: p.total } : {}), message: p.label } })
            .catch(() => undefined);
        },
      });
      const res = new ToolResponse();
      await tools.handle(o, ctx, request.params.arguments ?? {}, res);
      return res.toResult();
    } catch (e) {
      const result = errorResult(e);
      if (!(e instanceof SightlineError)) log(`[sightline] ${o.tool.name} failed: ${(e as Error)?.stack ?? String(e)}`);
      return result;
    } finally {
      const ms = Math.round(performance.now() - started);
      if (ms > 5000) log(`[sightline] ${o.tool.name} took ${ms} ms`, 'warning');
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const pinned = services.frames.list({ pinned: true, limit: 200, order: 'desc' });
    return {
      resources: [
        { uri: 'sightline://health', name: 'Sightline health', description: 'Per source: available, degraded, why, what to do.', mimeType: 'application/json' },
        ...pinned.map((f) => ({
          uri: `sightline://screenshot/${f.ref}`,
          name: `Pinned: ${f.label?.title ?? f.label?.app ?? f.target} ${f.capturedAt}`,
          description: [
            f.annotation ? `Note: ${f.annotation}` : 'Frame pinned by the user',
            f.parentRef ? `region ${Math.round(f.origin.x)},${Math.round(f.origin.y)} ${Math.round(f.sourceSize.width)}×${Math.round(f.sourceSize.height)} of ${f.parentRef}` : undefined,
            `${f.image.width}×${f.image.height} px`,
          ]
            .filter(Boolean)
            .join('; '),
          mimeType: MIME[f.format],
          annotations: { audience: ['user', 'assistant'] as ('user' | 'assistant')[], priority: 0.8 },
        })),
      ],
    };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      { uriTemplate: 'sightline://screenshot/{ref}', name: 'Screenshot (full resolution)', mimeType: 'image/*' },
      { uriTemplate: 'sightline://screenshot/{ref}/thumbnail', name: 'Screenshot thumbnail', mimeType: 'image/jpeg' },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    if (uri === 'sightline://health') {
      const status = await services.status();
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ paused: status.paused, readOnly: status.readOnly, sources: status.sources, ...(status.textIndex ? { textIndex: status.textIndex } : {}) }, null, 2) }] };
    }
    const m = /^sightline:\/\/screenshot\/([A-Za-z0-9_-]{1,128})(\/thumbnail)?$/.exec(uri);
    if (!m) throw new McpError(RpcErrorCode.InvalidParams, `Unknown resource: ${uri}. Hint: Read sightline://health or sightline://screenshot/<ref> (a ref from capture or list_screenshots).`);
    const frame = services.frames.find(m[1] as string);
    if (!frame) throw new McpError(RpcErrorCode.InvalidParams, `FRAME_NOT_FOUND: no frame "${m[1]}". Hint: list_screenshots shows the frames that exist; retention may have removed older ones.`);
    const img = await services.frames.read(frame.ref, m[2] ? 'thumbnail' : 'full');
    return { contents: [{ uri, mimeType: MIME[img.format], blob: img.data.toString('base64') }] };
  });

  // Keep clients' lists fresh: tools follow sources that come, go or are switched; resources follow pins.
  const onTools = (): void => {
    if (!server.transport) return;
    const now = listed()
      .map((o) => o.tool.name)
      .join(',');
    if (now === lastListed) return;
    lastListed = now;
    void server.sendToolListChanged().catch(() => undefined);
  };
  const onResources = (): void => void server.sendResourceListChanged().catch(() => undefined);
  services.events.on('tools-changed', onTools);
  services.events.on('resources-changed', onResources);
  let counted = false;
  server.oninitialized = () => {
    counted = true;
    services.clientConnected(1);
    // What the client will list first: a change before it lists is not news to it.
    lastListed = listed()
      .map((o) => o.tool.name)
      .join(',');
  };
  server.onclose = () => {
    services.events.off('tools-changed', onTools);
    services.events.off('resources-changed', onResources);
    if (counted) services.clientConnected(-1);
    counted = false;
  };
  return server;
}
