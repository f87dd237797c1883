/**
 * The dashboard's API: the routes of the typed contract (src/shared/api.ts) on hono, each
 * request validated by the schemas of src/shared/apiSchemas.ts. Every handler calls the same
 * ports the MCP tools use (crop included), so the dashboard and agents can never disagree; the
 * mapped type below makes a missing or mistyped handler a compile error.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { TrieRouter } from 'hono/router/trie-router';
import { streamSSE } from 'hono/streaming';
import type { z } from 'zod';
import { API_PREFIX, API_ROUTES, API_STREAMS, type ApiContract, type ConnectInfo, type ApiError, type ApiRouteName, type FrameSummary, type ProgressInfo } from '../../../shared/api.ts';
import type { ActivityEntry } from '../../../shared/activity.ts';
import * as S from '../../../shared/apiSchemas.ts';
import { SightlineError, isSightlineError, type ErrorCode } from '../../../shared/errors.ts';
import { firstRowFrames } from '../../../shared/timeline.ts';
import type { FrameRecord } from '../catalog/types.ts';
import type { CoreBus } from '../events.ts';
import { frameSummary } from '../frames/descriptors.ts';
import { MIME } from '../mcp/response.ts';
import type { ActivityPort, FramesPort, HistoryService, RunsPort, SettingsPort, SourcesPort, StatusPort, TargetsPort, TextSearchPort } from '../ports.ts';
import { parseTimeInput } from '../util/time.ts';
import { deleteRoutine, getRoutine, listRoutines, runRoutine, saveRoutine, type RoutineServices } from './routinesApi.ts';
import { timelineApps } from './timelineApps.ts';

const MAX_BODY = 1024 * 1024;
const MAX_RUNS_LISTED = 200;
/** Frames sampled per hour of the time strip to colour it by app. */
const APPS_SAMPLED = 4;

/** What the dashboard API may use. */
export interface ApiServices extends StatusPort, RoutineServices {
  frames: FramesPort;
  targets: TargetsPort;
  sources: SourcesPort;
  history: HistoryService;
  settings: SettingsPort;
  activity: ActivityPort;
  runs: RunsPort;
  search: TextSearchPort;
  events: CoreBus;
  setPaused(paused: boolean): void;
  /** How an agent reaches this server (known once it listens). */
  connect(): ConnectInfo;
}

type Input<K extends ApiRouteName> = { params: ApiContract[K]['params']; query: ApiContract[K]['query']; body: ApiContract[K]['body']; signal: AbortSignal };
type Handlers = { [K in ApiRouteName]: (input: Input<K>) => Promise<ApiContract[K]['response']> };
type Schemas = { [K in ApiRouteName]?: { params?: z.ZodType; query?: z.ZodType; body?: z.ZodType } };

const SCHEMAS: Schemas = {
  status: { query: S.statusQuery },
  frames: { query: S.framesQuery },
  timelinePositions: { query: S.timelinePositionsQuery },
  timelineApps: { query: S.timelinePositionsQuery },
  frame: { params: S.frameParams },
  crop: { params: S.frameParams, body: S.cropBody },
  pin: { params: S.frameParams, body: S.pinBody },
  targets: { query: S.targetsQuery },
  capture: { body: S.captureBody },
  activity: { query: S.activityQuery },
  run: { params: S.runParams },
  saveSettings: { body: S.settingsBody },
  pause: { body: S.pauseBody },
  sourceAction: { params: S.sourceActionParams, body: S.emptyBody },
  search: { query: S.searchQuery },
  routine: { params: S.routineParams },
  saveRoutine: { body: S.saveRoutineBody },
  deleteRoutine: { params: S.routineParams, body: S.emptyBody },
  runRoutine: { params: S.routineParams, body: S.runRoutineBody },
};

function handlers(s: ApiServices): Handlers {
  return {
    status: ({ query }) => (query.fresh ? s.statusChecked() : s.status()),
    sources: async () => ({ sources: s.sources.info() }),
    connect: async () => s.connect(),
    frames: async ({ query, signal }) => {
      const from = query.from ? parseTimeInput(query.from, 'from') : undefined;
      const to = query.before ? parseTimeInput(query.before, 'before') : query.to ? parseTimeInput(query.to, 'to') : undefined;
      const limit = query.limit ?? 100;
      const offset = query.offset ?? 0;
      const page = async (): Promise<{ frames: FrameRecord[]; total: number }> => {
        // The timeline: own frames and every archive (indexed by its source, not the catalog) merged by time.
        if (query.pinned === undefined && from === undefined) return s.history.timelinePage({ source: query.source, target: query.target, before: to, offset, limit }, signal);
        const filter = { source: query.source, target: query.target, pinned: query.pinned, from, to };
        return { frames: s.frames.list({ ...filter, limit, offset, order: 'desc' }), total: s.frames.count(filter) };
      };
      const { frames, total } = await page();
      const summaries = await s.history.summarize(frames, signal);
      // The rows the timeline draws first: a folded run shows one frame.
      return query.thumbs ? { frames: summaries, total, thumbs: await inlineThumbnails(s, firstRowFrames(summaries, query.thumbs)) } : { frames: summaries, total };
    },
    timelinePositions: async ({ query, signal }) => {
      const before = query.before ? parseTimeInput(query.before, 'before') : undefined;
      const at = query.at ? query.at.split(',').map(Number) : [];
      const p = await s.history.timelinePositions({ source: query.source, target: query.target, pinned: query.pinned, before, at }, signal);
      return {
        total: p.total,
        ...(p.newestMs !== undefined ? { newest: new Date(p.newestMs).toISOString() } : {}),
        ...(p.oldestMs !== undefined ? { oldest: new Date(p.oldestMs).toISOString() } : {}),
        since: p.since,
      };
    },
    timelineApps: async ({ query, signal }) => {
      const before = query.before ? parseTimeInput(query.before, 'before') : undefined;
      const at = query.at ? query.at.split(',').map(Number) : [];
      // Pinned frames are few and not paged by the timeline's merge: their strip stays plain.
      if (query.pinned) return { spans: at.slice(1).map(() => []) };
      return timelineApps(s.history, { source: query.source, target: query.target, before, at, per: APPS_SAMPLED }, signal);
    },
    frame: async ({ params, signal }) => one(s, s.frames.get(params.ref), signal),
    crop: async ({ params, body, signal }) => ({ frame: await one(s, (await s.frames.crop({ ref: s.frames.get(params.ref).ref, ...body })).frame, signal) }),
    pin: async ({ params, body, signal }) => {
      const annotation = body.annotation === undefined ? undefined : body.annotation || null;
      return { frame: await one(s, s.frames.setPinned(s.frames.get(params.ref).ref, body.pinned, annotation), signal) };
    },
    targets: ({ query, signal }) => s.targets.list(query.source, signal),
    capture: async ({ body, signal }) => ({ frame: await one(s, (await s.frames.capture({ target: body.target, signal })).frame, signal) }),
    activity: async ({ query }) => ({ entries: s.activity.list(query) }),
    targetNames: async () => ({ names: s.activity.targetNames() }),
    run: ({ params }) => s.runs.get(params.id),
    runs: async () => {
      const runs = await s.runs.list(MAX_RUNS_LISTED);
      // A run's actions are in the log; its folder does not know them.
      return { runs: runs.map((r) => ({ ...r, actions: s.activity.count({ run: r.id }) })) };
    },
    settings: async () => ({ settings: s.settings.values(), file: s.settings.file(), environment: s.settings.environment() }),
    saveSettings: async ({ body }) => {
      await s.settings.vet(body);
      return { settings: s.settings.update(body) };
    },
    pause: async ({ body }) => {
      s.setPaused(body.paused);
      // What the switch shows is this answer: it never waits on a source's probe.
      return s.statusNow();
    },
    sourceAction: ({ params }) => s.sources.runAction(params.name, params.action),
    search: async ({ query, signal }) => {
      const from = query.from ? parseTimeInput(query.from, 'from') : undefined;
      const to = query.to ? parseTimeInput(query.to, 'to') : undefined;
      const offset = query.offset ?? 0;
      const r = await s.search.search({ query: query.q, source: query.source, app: query.app, from, to, max: query.limit ?? 50, offset, signal });
      // The dashboard pages: "more" also when matches lie beyond this page.
      return { ...r, more: r.more || offset + r.results.length < r.total, screens: Object.fromEntries(s.search.screens(r.results.map((h) => h.ref))) };
    },
    textIndex: async () => ({ index: s.search.status() ?? null }),
    routines: () => listRoutines(s),
    routine: ({ params }) => getRoutine(s, params.name),
    saveRoutine: async ({ body }) => saveRoutine(s, body),
    deleteRoutine: async ({ params }) => deleteRoutine(s, params.name),
    runRoutine: ({ params, body, signal }) => runRoutine(s, params.name, body, signal),
  };
}

/**
 * Thumbnails as `data:` URLs, made now where not made yet. One that cannot be made is left
 * out: the page shows it by its URL, whose request says what is wrong.
 */
async function inlineThumbnails(s: ApiServices, frames: readonly FrameSummary[]): Promise<Record<string, string>> {
  const made = await Promise.all(frames.map((f) => s.frames.read(f.ref, 'thumbnail').then((img) => [f.ref, `data:${MIME[img.format]};base64,${img.data.toString('base64')}`] as const, () => undefined)));
  return Object.fromEntries(made.filter((m) => m !== undefined));
}

/** One frame as the dashboard shows it (an archive frame titled with its activity). */
async function one(s: ApiServices, f: FrameRecord, signal?: AbortSignal): Promise<FrameSummary> {
  const [summary] = await s.history.summarize([f], signal);
  return summary ?? frameSummary(f);
}

/** The API under `/api`, ready for `app.fetch`. */
export function createApi(s: ApiServices): Hono {
  // A trie is built as routes are added; Hono's default (a RegExpRouter) compiles all routes on
  // the first request instead (~60 ms here), which is the dashboard's first page waiting.
  const app = new Hono({ router: new TrieRouter() }).basePath(API_PREFIX);
  const h = handlers(s);
  app.use(bodyLimit({ maxSize: MAX_BODY, onError: () => fail(new SightlineError('INVALID_ARGUMENT', 'Request body too large.', `Send at most ${MAX_BODY} bytes.`)) }));
  for (const name of Object.keys(API_ROUTES) as ApiRouteName[]) {
    const { method, path } = API_ROUTES[name];
    const schema = SCHEMAS[name] ?? {};
    app.on(method, path, async (c) => {
      const input = {
        params: parse(schema.params, c.req.param(), 'path'),
        query: parse(schema.query, c.req.query(), 'query'),
        body: method === 'GET' ? undefined : parse(schema.body, await readJson(c), 'body'),
        signal: c.req.raw.signal,
      };
      const handler = h[name] as (i: typeof input) => Promise<unknown>;
      return c.json(await handler(input), 200, { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    });
  }
  app.get(API_STREAMS.frameImage.path, async (c) => {
    const { ref, variant } = parse(S.imageParams, c.req.param(), 'path');
    const img = await s.frames.read(s.frames.get(ref).ref, variant);
    return c.body(new Uint8Array(img.data), 200, {
      'Content-Type': MIME[img.format],
      'Content-Length': String(img.data.length),
      'Cache-Control': 'private, max-age=86400, immutable',
      'X-Content-Type-Options': 'nosniff',
    });
  });
  app.get(API_STREAMS.runFile.path, async (c) => {
    const { id, path } = parse(S.runFileParams, c.req.param(), 'path');
    const file = await s.runs.file(id, path);
    return c.body(new Uint8Array(file.data), 200, {
      'Content-Type': file.contentType,
      'Content-Length': String(file.data.length),
      // A run still going rewrites run.json; artifacts are never a page that runs anything.
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
      'Content-Disposition': `${file.download ? 'attachment' : 'inline'}; filename="${file.name}"`,
    });
  });
  app.get(API_STREAMS.events.path, (c) => events(c, s));
  app.notFound((c) => c.json({ error: { code: 'INVALID_ARGUMENT', message: `No route ${c.req.method} ${new URL(c.req.url).pathname}.`, hint: 'See src/shared/api.ts for the routes.' } satisfies ApiError }, 404));
  app.onError((e, c) => {
    const err: SightlineError = isSightlineError(e) ? e : new SightlineError('INTERNAL', (e as Error)?.message ?? String(e), 'This is a Sightline bug; the log has details.');
    const problems = Array.isArray(err.details?.problems) ? (err.details.problems as NonNullable<ApiError['problems']>) : undefined;
    const body: ApiError = { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}), ...(typeof err.details?.key === 'string' ? { key: err.details.key } : {}), ...(problems ? { problems } : {}) };
    return c.json({ error: body }, statusFor(err.code) as 400);
  });
  return app;
}

function fail(err: SightlineError): never {
  throw err;
}

function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, where: 'path' | 'query' | 'body'): T {
  if (!schema) return (where === 'body' ? value : {}) as T;
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue?.path.join('.') || (issue && 'keys' in issue && Array.isArray(issue.keys) ? String(issue.keys[0]) : where);
  throw new SightlineError('INVALID_ARGUMENT', `${where} "${field}": ${issue?.message ?? 'invalid'}.`, 'See src/shared/api.ts for what this route takes.', { key: field });
}

async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.length === 0) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SightlineError('INVALID_ARGUMENT', 'Body is not valid JSON.', 'Send a JSON object.');
  }
}

export function statusFor(code: ErrorCode): number {
  switch (code) {
    case 'INVALID_ARGUMENT':
    case 'SETTINGS_INVALID':
    case 'POINT_OUTSIDE_FRAME':
      return 400;
    case 'FRAME_NOT_FOUND':
    case 'RUN_NOT_FOUND':
    case 'ROUTINE_NOT_FOUND':
    case 'TARGET_NOT_FOUND':
    case 'TAB_NOT_FOUND':
      return 404;
    case 'PERMISSION_DENIED':
    case 'PATH_REFUSED':
      return 403;
    case 'INPUT_REQUIRED':
      return 422;
    case 'INTERNAL':
      return 500;
    case 'STORAGE_FULL':
      return 507;
    default:
      return 409;
  }
}

/** `GET /api/events`: the core's announcements as server-sent events. */
function events(c: Context, s: ApiServices): Response {
  return streamSSE(c, async (stream) => {
    const bus = s.events;
    const send = (data: unknown): void => void stream.writeSSE({ data: JSON.stringify(data) }).catch(() => undefined);
    // Frames are titled (an archive's activity) before they go out; a queue keeps them and the
    // activity entries that name them in order.
    let queue = Promise.resolve();
    const later = (make: () => Promise<unknown>): void => {
      queue = queue.then(make).then(send, () => undefined);
    };
    const onFrame = (f: FrameRecord): void => later(async () => ({ type: 'frame', frame: await one(s, f) }));
    const onUpdated = (f: FrameRecord): void => later(async () => ({ type: 'frame-updated', frame: await one(s, f) }));
    const onActivity = (entry: ActivityEntry): void => later(async () => ({ type: 'activity', entry }));
    const onStatus = (): void => send({ type: 'status', status: s.statusNow() });
    const onProgress = (progress: ProgressInfo): void => send({ type: 'progress', progress });
    bus.on('frame', onFrame);
    bus.on('frame-updated', onUpdated);
    bus.on('activity', onActivity);
    bus.on('status', onStatus);
    bus.on('progress', onProgress);
    await stream.write(': connected\n\n');
    // The page learns the status (the pause switch's state, the sources) as the stream opens,
    // with no request of its own on the browser's few connections to the server.
    onStatus();
    const ping = setInterval(() => void stream.write(': ping\n\n').catch(() => undefined), 25_000);
    await new Promise<void>((resolve) => stream.onAbort(resolve));
    clearInterval(ping);
    bus.off('frame', onFrame);
    bus.off('frame-updated', onUpdated);
    bus.off('activity', onActivity);
    bus.off('status', onStatus);
    bus.off('progress', onProgress);
  });
}
