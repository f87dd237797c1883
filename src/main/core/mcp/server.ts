/**
 * The MCP server: the only module that imports the SDK's server APIs, so an SDK
 * upgrade touches one file. Tools come from the registry (tools/index.ts) as data;
 * validation, listing, error results and resources are derived here.
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
import { SightlineError } from '../../../shared/errors.ts';
import type { FrameRecord } from '../catalog/types.ts';
import type { Core } from '../index.ts';
import { VERSION } from '../index.ts';
import { MIME, ToolResponse, errorResult } from './response.ts';
import type { AnyTool } from './tool.ts';
import { allTools } from './tools/index.ts';

export const SERVER_NAME = 'sightline';

const INSTRUCTIONS = `Sightline gives you eyes and hands on desktop windows, browser tabs, Android devices and the ManicTime screenshot archive.
Workflow: list_targets → capture (a small image) → crop_screenshot for detail → click / type_text / press_key / scroll in the pixels of the image you saw (pass "ref" for a crop). Sightline maps them to the device.
Errors start with a code and end with a hint: FRAME_STALE means capture again; INPUT_PAUSED means the user paused input — wait, do not retry in a loop.`;

/** JSON Schema for a tool's input, derived once from its zod shape. */
function inputJsonSchema(tool: AnyTool): Tool['inputSchema'] {
  const { $schema: _s, ...schema } = z.toJSONSchema(z.object(tool.input), { io: 'input' }) as Record<string, unknown>;
  return schema as Tool['inputSchema'];
}
function outputJsonSchema(tool: AnyTool): Tool['outputSchema'] | undefined {
  if (!tool.output) return undefined;
  const { $schema: _s, ...schema } = z.toJSONSchema(tool.output, { io: 'output' }) as Record<string, unknown>;
  return schema as Tool['outputSchema'];
}

const described = new Map<string, Tool>(
  allTools.map((t) => [
    t.name,
    {
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: inputJsonSchema(t),
      ...(t.output ? { outputSchema: outputJsonSchema(t) } : {}),
      annotations: { title: t.title, ...t.annotations },
    },
  ]),
);

/** A source's own tools are listed only while the source is enabled and not known to be unavailable. */
export function isToolListed(core: Core, tool: AnyTool): boolean {
  if (!tool.sources) return true;
  return tool.sources.some((s) => core.registry.isEnabled(s) && core.registry.lastHealth(s)?.available !== false);
}

/** Validation errors name the field. */
function validationError(error: z.ZodError): SightlineError {
  const issue = error.issues[0];
  const field = issue?.path.join('.') || (issue && 'keys' in issue && Array.isArray(issue.keys) ? String(issue.keys[0]) : '(arguments)');
  return new SightlineError('INVALID_ARGUMENT', `"${field}": ${issue?.message ?? 'invalid'}.`, 'Check the tool\'s input schema.', { field });
}

export function createMcpServer(core: Core, options: { log?: (line: string) => void } = {}): Server {
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
  const byName = new Map(allTools.map((t) => [t.name, t]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: allTools.filter((t) => isToolListed(core, t)).map((t) => described.get(t.name)!),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(RpcErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const started = performance.now();
    try {
      if (!isToolListed(core, tool)) {
        const src = tool.sources!.join('/');
        throw new SightlineError('SOURCE_UNAVAILABLE', `${tool.name} belongs to the ${src} source, which is disabled or unavailable.`, 'Check sightline://health.');
      }
      const parsed = z.object(tool.input).strict().safeParse(request.params.arguments ?? {});
      if (!parsed.success) throw validationError(parsed.error);
      const res = new ToolResponse();
      const progressToken = request.params._meta?.progressToken;
      await tool.handle(
        {
          core,
          signal: extra.signal,
          client: server.getClientVersion()?.name ?? 'mcp',
          progress: (p) => {
            if (progressToken === undefined) return;
            void extra
              .sendNotification({ method: 'notifications/progress', params: { progressToken, progress: p.done, ...(p.total !== undefined ? { total: p.total } : {}), message: p.label } })
              .catch(() => undefined);
          },
        },
        parsed.data,
        res,
      );
      return res.toResult();
    } catch (e) {
      const result = errorResult(e);
      if (!(e instanceof SightlineError)) log(`[sightline] ${tool.name} failed: ${(e as Error)?.stack ?? String(e)}`);
      return result;
    } finally {
      const ms = Math.round(performance.now() - started);
      if (ms > 5000) log(`[sightline] ${tool.name} took ${ms} ms`, 'warning');
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const pinned = core.catalog.listFrames({ pinned: true, limit: 200, order: 'desc' });
    return {
      resources: [
        { uri: 'sightline://health', name: 'Sightline health', description: 'Per source: available, degraded, why, what to do.', mimeType: 'application/json' },
        ...pinned.map((f) => ({
          uri: `sightline://screenshot/${f.ref}`,
          name: `Pinned ${f.target} ${f.capturedAt}`,
          description: f.annotation ?? `Frame pinned by the user (${f.image.width}×${f.image.height}).`,
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
      const status = await core.status();
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ paused: status.paused, readOnly: status.readOnly, sources: status.sources }, null, 2) }] };
    }
    const m = /^sightline:\/\/screenshot\/([A-Za-z0-9_-]{1,128})(\/thumbnail)?$/.exec(uri);
    if (!m) throw new McpError(RpcErrorCode.InvalidParams, `Unknown resource: ${uri}`);
    const frame: FrameRecord | undefined = core.catalog.getFrame(m[1]!);
    if (!frame) throw new McpError(RpcErrorCode.InvalidParams, `FRAME_NOT_FOUND: no frame "${m[1]}".`);
    const img = await core.catalog.readImage(frame.ref, m[2] ? 'thumbnail' : 'full');
    return { contents: [{ uri, mimeType: MIME[img.format], blob: img.data.toString('base64') }] };
  });

  // Keep clients' lists fresh: tools follow source toggles, resources follow pins.
  const onTools = (): void => void server.sendToolListChanged().catch(() => undefined);
  const onResources = (): void => void server.sendResourceListChanged().catch(() => undefined);
  core.on('tools-changed', onTools);
  core.on('resources-changed', onResources);
  let counted = false;
  server.oninitialized = () => {
    counted = true;
    core.clientConnected(1);
  };
  server.onclose = () => {
    core.off('tools-changed', onTools);
    core.off('resources-changed', onResources);
    if (counted) core.clientConnected(-1);
    counted = false;
  };
  return server;
}

/** Tools as data, for generated docs (README table). */
export function toolCatalog(): Tool[] {
  return [...described.values()];
}
