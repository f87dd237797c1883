/**
 * The dashboard's API (contract in src/shared/api.ts). Thin: every route calls the
 * same core methods the MCP tools use (crop included), so the dashboard and agents
 * can never disagree.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ActivityEntry, ActivityQuery, ApiError, FramesQuery, ProgressInfo, ServerEvent } from '../../../shared/api.ts';
import { SightlineError, isSightlineError } from '../../../shared/errors.ts';
import { SOURCE_NAMES, type SourceName } from '../../../shared/frame.ts';
import type { FrameRecord } from '../catalog/types.ts';
import { frameSummary, type Core } from '../index.ts';
import { MIME } from '../mcp/response.ts';
import { parseTimeInput } from '../time.ts';
import { sendJson } from './respond.ts';

const MAX_BODY = 1024 * 1024;

export async function handleApi(core: Core, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  try {
    await route(core, req, res, url);
  } catch (e) {
    const err: SightlineError = isSightlineError(e) ? e : new SightlineError('INTERNAL', (e as Error)?.message ?? String(e));
    const body: ApiError = { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}), ...(typeof err.details?.key === 'string' ? { key: err.details.key } : {}) };
    sendJson(res, statusFor(err.code), { error: body });
  }
}

function statusFor(code: string): number {
  switch (code) {
    case 'INVALID_ARGUMENT':
    case 'SETTINGS_INVALID':
    case 'POINT_OUTSIDE_FRAME':
      return 400;
    case 'FRAME_NOT_FOUND':
    case 'TARGET_NOT_FOUND':
    case 'TAB_NOT_FOUND':
      return 404;
    case 'PERMISSION_DENIED':
    case 'PATH_REFUSED':
      return 403;
    case 'INTERNAL':
      return 500;
    default:
      return 409;
  }
}

async function route(core: Core, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const path = url.pathname.slice('/api'.length);
  const method = req.method ?? 'GET';
  const q = url.searchParams;

  if (method === 'GET' && path === '/status') return sendJson(res, 200, await core.status());
  if (method === 'GET' && path === '/events') return events(core, req, res);

  if (method === 'GET' && path === '/frames') {
    const query: FramesQuery = {
      source: optSource(q.get('source')),
      target: q.get('target') ?? undefined,
      pinned: q.has('pinned') ? q.get('pinned') === 'true' : undefined,
      before: q.get('before') ?? undefined,
      from: q.get('from') ?? undefined,
      to: q.get('to') ?? undefined,
      limit: clampInt(q.get('limit'), 1, 500, 100),
      offset: clampInt(q.get('offset'), 0, 10_000_000, 0),
    };
    const filter = {
      source: query.source,
      target: query.target,
      pinned: query.pinned,
      from: query.from ? parseTimeInput(query.from, 'from') : undefined,
      to: query.before ? parseTimeInput(query.before, 'before') : query.to ? parseTimeInput(query.to, 'to') : undefined,
    };
    // The archive is browsed through its own index (it is in the catalog only as far as it was listed).
    const archive = query.source ? core.registry.archive(query.source) : undefined;
    if (archive?.page && query.pinned === undefined && filter.from === undefined) {
      await core.refreshArchive(archive.name, AbortSignal.timeout(30_000));
      const { refs, total } = archive.page({ before: filter.to, target: query.target, offset: query.offset ?? 0, limit: query.limit! });
      const frames = refs.map((r) => core.catalog.getFrame(r)).filter((f): f is FrameRecord => f !== undefined);
      return sendJson(res, 200, { frames: frames.map(frameSummary), total });
    }
    const frames = core.catalog.listFrames({ ...filter, limit: query.limit!, offset: query.offset, order: 'desc' });
    return sendJson(res, 200, { frames: frames.map(frameSummary), total: core.catalog.countFrames(filter) });
  }

  const frameRoute = /^\/frames\/([A-Za-z0-9_-]{1,128})(?:\/(image|full|thumbnail|crop|pin))?$/.exec(path);
  if (frameRoute) {
    const frame = core.getFrame(frameRoute[1]!);
    const sub = frameRoute[2];
    if (method === 'GET' && !sub) return sendJson(res, 200, frameSummary(frame));
    if (method === 'GET' && (sub === 'image' || sub === 'full' || sub === 'thumbnail')) return sendImage(core, res, frame, sub);
    if (method === 'POST' && sub === 'crop') {
      const body = await readJson(req);
      const out = await core.crop({ ref: frame.ref, x: num(body, 'x'), y: num(body, 'y'), width: num(body, 'width'), height: num(body, 'height'), coordinateUnits: units(body.coordinateUnits), maxDimension: optNum(body, 'maxDimension') });
      return sendJson(res, 200, { frame: frameSummary(out.frame) });
    }
    if (method === 'POST' && sub === 'pin') {
      const body = await readJson(req);
      if (typeof body.pinned !== 'boolean') throw new SightlineError('INVALID_ARGUMENT', '"pinned" must be true or false.');
      const annotation = typeof body.annotation === 'string' ? body.annotation.slice(0, 500) || null : undefined;
      return sendJson(res, 200, { frame: frameSummary(core.setPinned(frame.ref, body.pinned, annotation)) });
    }
  }

  if (method === 'GET' && path === '/targets') return sendJson(res, 200, await core.listTargets(optSource(q.get('source')) as never));
  if (method === 'POST' && path === '/capture') {
    const body = await readJson(req);
    if (typeof body.target !== 'string' || !body.target) throw new SightlineError('INVALID_ARGUMENT', '"target" is required.');
    const out = await core.capture({ target: body.target });
    return sendJson(res, 200, { frame: frameSummary(out.frame) });
  }
  if (method === 'GET' && path === '/activity') {
    const query: ActivityQuery = {
      tool: q.get('tool') ?? undefined,
      target: q.get('target') ?? undefined,
      result: q.get('result') === 'ok' ? 'ok' : q.get('result') === 'error' ? 'error' : undefined,
      before: q.has('before') ? clampInt(q.get('before'), 0, Number.MAX_SAFE_INTEGER, 0) : undefined,
      limit: clampInt(q.get('limit'), 1, 500, 100),
    };
    return sendJson(res, 200, { entries: core.catalog.listActivity(query) });
  }
  if (method === 'GET' && path === '/settings') return sendJson(res, 200, { settings: core.settings, file: core.settingsFile });
  if (method === 'PUT' && path === '/settings') {
    const body = await readJson(req);
    return sendJson(res, 200, { settings: core.updateSettings(body) });
  }
  if (method === 'POST' && path === '/input/pause') {
    const body = await readJson(req);
    if (typeof body.paused !== 'boolean') throw new SightlineError('INVALID_ARGUMENT', '"paused" must be true or false.');
    core.setPaused(body.paused);
    return sendJson(res, 200, await core.status());
  }
  if (method === 'POST' && path === '/browser/launch') {
    const browser = core.registry.liveSources().find((s) => s.name === 'browser') as { launch?: () => Promise<string> } | undefined;
    if (!browser?.launch) throw new SightlineError('SOURCE_UNAVAILABLE', 'The browser source is disabled or not available.', 'Enable sources.browser.enabled.');
    return sendJson(res, 200, { target: await browser.launch() });
  }
  throw new SightlineError('INVALID_ARGUMENT', `No route ${method} /api${path}.`);
}

async function sendImage(core: Core, res: ServerResponse, frame: FrameRecord, variant: 'image' | 'full' | 'thumbnail'): Promise<void> {
  const img = await core.catalog.readImage(frame.ref, variant);
  res.writeHead(200, { 'Content-Type': MIME[img.format], 'Content-Length': img.data.length, 'Cache-Control': 'private, max-age=86400, immutable', 'X-Content-Type-Options': 'nosniff' });
  res.end(img.data);
}

function events(core: Core, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
  const send = (e: ServerEvent): void => void res.write(`data: ${JSON.stringify(e)}\n\n`);
  const onFrame = (f: FrameRecord): void => send({ type: 'frame', frame: frameSummary(f) });
  const onUpdated = (f: FrameRecord): void => send({ type: 'frame-updated', frame: frameSummary(f) });
  const onActivity = (entry: ActivityEntry): void => send({ type: 'activity', entry });
  const onStatus = (): void => void core.status().then((status) => send({ type: 'status', status }));
  const onProgress = (progress: ProgressInfo): void => send({ type: 'progress', progress });
  core.on('frame', onFrame);
  core.on('frame-updated', onUpdated);
  core.on('activity', onActivity);
  core.on('status', onStatus);
  core.on('progress', onProgress);
  const ping = setInterval(() => res.write(': ping\n\n'), 25_000);
  res.write(': connected\n\n');
  req.on('close', () => {
    clearInterval(ping);
    core.off('frame', onFrame);
    core.off('frame-updated', onUpdated);
    core.off('activity', onActivity);
    core.off('status', onStatus);
    core.off('progress', onProgress);
  });
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new SightlineError('INVALID_ARGUMENT', 'Request body too large.');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  let v: unknown;
  try {
    v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new SightlineError('INVALID_ARGUMENT', 'Body is not valid JSON.');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SightlineError('INVALID_ARGUMENT', 'Body must be a JSON object.');
  return v as Record<string, unknown>;
}

function optSource(v: string | null): SourceName | undefined {
  if (v === null || v === '') return undefined;
  if (!(SOURCE_NAMES as readonly string[]).includes(v)) throw new SightlineError('INVALID_ARGUMENT', `Unknown source "${v}".`);
  return v as SourceName;
}
function clampInt(v: string | null, min: number, max: number, dflt: number): number {
  if (v === null) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new SightlineError('INVALID_ARGUMENT', `Bad number "${v}" (expected an integer ${min}–${max}).`);
  return n;
}
function num(body: Record<string, unknown>, key: string): number {
  const v = body[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new SightlineError('INVALID_ARGUMENT', `"${key}" must be a number.`, undefined, { key });
  return v;
}
function optNum(body: Record<string, unknown>, key: string): number | undefined {
  return body[key] === undefined ? undefined : num(body, key);
}
function units(v: unknown): 'percent' | 'normalized' | 'pixels' | undefined {
  if (v === undefined) return undefined;
  if (v === 'percent' || v === 'normalized' || v === 'pixels') return v;
  throw new SightlineError('INVALID_ARGUMENT', '"coordinateUnits" must be percent, normalized or pixels.');
}
