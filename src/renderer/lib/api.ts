/**
 * The dashboard's one way to reach the core: the local HTTP API typed in
 * `src/shared/api.ts`, over same-origin `fetch` with the HttpOnly session cookie.
 *
 * Why HTTP and not IPC in the Electron window too: the app runs the very server that
 * `sightline serve` runs and loads the dashboard from it (through `/auth?token=…`, which
 * sets the cookie), so one client, one contract and one set of tests cover both. IPC
 * is kept for what only the app can do (OS permissions, see `src/shared/ipc.ts`).
 */
import { API_PREFIX, API_ROUTES, API_STREAMS, fillPath, type ApiContract, type ApiError, type ApiRouteName, type ConnectInfo, type CropRequest, type DashboardSearch, type FrameSummary, type FramesPage, type FramesQuery, type ImageVariant, type SearchQuery, type ServerEvent, type SettingsView, type StatusInfo, type TargetsResult, type TextIndexStatus, type TimelinePositions, type TimelinePositionsQuery, type TimelineApps } from '../../shared/api.ts';
import type { ActivityEntry, ActivityQuery, RunSummary, RunView } from '../../shared/activity.ts';
import type { ErrorCode } from '../../shared/errors.ts';
import type { SourceName } from '../../shared/frame.ts';
import type { RoutineDetail, RoutineRunResult, RoutineView, SaveRoutineRequest } from '../../shared/routines.ts';
import type { SettingsPatch, SettingsValues } from '../../shared/settings.ts';
import type { SourceInfo } from '../../shared/sources.ts';

export class ApiRequestError extends Error {
  readonly status: number;
  readonly code: ErrorCode | 'NETWORK' | 'UNAUTHORIZED';
  readonly hint: string | undefined;
  readonly key: string | undefined;
  /** SETTINGS_INVALID: every key at fault (the first is `key`). */
  readonly problems: NonNullable<ApiError['problems']>;

  constructor(status: number, error: Partial<Omit<ApiError, 'code'>> & { code: ApiRequestError['code']; message: string }) {
    super(error.message);
    this.name = 'ApiRequestError';
    this.status = status;
    this.code = error.code;
    this.hint = error.hint;
    this.key = error.key;
    this.problems = error.problems ?? [];
  }
}

/** Query string from an object, skipping undefined and empty values. */
export function queryString(q: object): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null || v === '') continue;
    params.set(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

type Input<K extends ApiRouteName> = {
  params?: ApiContract[K]['params'];
  query?: ApiContract[K]['query'];
  body?: ApiContract[K]['body'];
  signal?: AbortSignal;
};

/** Call a route of the contract: its method and path come from the one route table. */
export function call<K extends ApiRouteName>(name: K, input: Input<K> = {}): Promise<ApiContract[K]['response']> {
  const { method, path } = API_ROUTES[name];
  const url = `${API_PREFIX}${fillPath(path, (input.params ?? {}) as Record<string, string>)}${queryString(input.query ?? {})}`;
  return request<ApiContract[K]['response']>(method, url, input);
}

async function request<T>(method: string, url: string, input: { body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  let res: Response;
  try {
    const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
    if (method !== 'GET') {
      init.headers = { accept: 'application/json', 'content-type': 'application/json' };
      init.body = JSON.stringify(input.body ?? {});
    }
    if (input.signal) init.signal = input.signal;
    res = await fetch(url, init);
  } catch (e) {
    if (input.signal?.aborted) throw e;
    throw new ApiRequestError(0, { code: 'NETWORK', message: 'Sightline is not reachable. Is the app or `sightline serve` still running?' });
  }
  if (!res.ok) {
    let error: Partial<ApiError> | undefined;
    try {
      error = ((await res.json()) as { error?: ApiError }).error;
    } catch {
      // A body that is not our JSON error (a proxy, a crash page): fall through.
    }
    if (res.status === 401) {
      throw new ApiRequestError(401, {
        code: 'UNAUTHORIZED',
        message: error?.message ?? 'This dashboard session is not authorised.',
        hint: 'Open the “Dashboard:” link that `sightline serve` printed, or open the dashboard from the tray.',
      });
    }
    throw new ApiRequestError(res.status, {
      code: error?.code ?? 'INTERNAL',
      message: error?.message ?? `${method} ${url.split('?')[0]} failed (${res.status} ${res.statusText}).`,
      ...(error?.hint ? { hint: error.hint } : {}),
      ...(error?.key ? { key: error.key } : {}),
      ...(error?.problems ? { problems: error.problems } : {}),
    });
  }
  return (await res.json()) as T;
}

export const api = {
  status: (fresh = false): Promise<StatusInfo> => call('status', { query: fresh ? { fresh: true } : {} }),
  connect: (): Promise<ConnectInfo> => call('connect'),
  sources: (): Promise<{ sources: SourceInfo[] }> => call('sources'),
  frames: (q: FramesQuery, signal?: AbortSignal): Promise<FramesPage> => keepThumbs(call('frames', { query: q, signal })),
  /** The page a preload link named (`preloadedFirstPage`), asked for the same way so that the browser hands over its answer. */
  framesAt: (url: string): Promise<FramesPage> => keepThumbs(request<FramesPage>('GET', url)),
  timelinePositions: (q: TimelinePositionsQuery, signal?: AbortSignal): Promise<TimelinePositions> => call('timelinePositions', { query: q, signal }),
  frame: (ref: string): Promise<FrameSummary> => call('frame', { params: { ref } }),
  crop: (ref: string, crop: CropRequest): Promise<{ frame: FrameSummary }> => call('crop', { params: { ref }, body: crop }),
  pin: (ref: string, pinned: boolean, annotation?: string): Promise<{ frame: FrameSummary }> => call('pin', { params: { ref }, body: annotation ? { pinned, annotation } : { pinned } }),
  targets: (source?: SourceName): Promise<TargetsResult> => call('targets', { query: source ? { source } : {} }),
  capture: (target: string): Promise<{ frame: FrameSummary }> => call('capture', { body: { target } }),
  activity: (q: ActivityQuery, signal?: AbortSignal): Promise<{ entries: ActivityEntry[] }> => call('activity', { query: q, signal }),
  targetNames: (): Promise<{ names: Record<string, string> }> => call('targetNames'),
  run: (id: string, signal?: AbortSignal): Promise<RunView> => call('run', { params: { id }, signal }),
  runs: (): Promise<{ runs: RunSummary[] }> => call('runs'),
  settings: (): Promise<SettingsView> => call('settings'),
  saveSettings: (patch: SettingsPatch): Promise<{ settings: SettingsValues }> => call('saveSettings', { body: patch }),
  pause: (paused: boolean): Promise<StatusInfo> => call('pause', { body: { paused } }),
  sourceAction: (name: SourceName, action: string): Promise<{ target?: string; message?: string }> => call('sourceAction', { params: { name, action }, body: {} }),
  search: (q: SearchQuery, signal?: AbortSignal): Promise<DashboardSearch> => call('search', { query: q, signal }),
  timelineApps: (q: TimelinePositionsQuery, signal?: AbortSignal): Promise<TimelineApps> => call('timelineApps', { query: q, signal }),
  textIndex: (): Promise<{ index: TextIndexStatus | null }> => call('textIndex'),
  routines: (): Promise<{ routines: RoutineView[]; stepKinds: string[] }> => call('routines'),
  routine: (name: string): Promise<RoutineDetail> => call('routine', { params: { name } }),
  saveRoutine: (body: SaveRoutineRequest): Promise<RoutineDetail> => call('saveRoutine', { body }),
  deleteRoutine: (name: string): Promise<{ deleted: string }> => call('deleteRoutine', { params: { name }, body: {} }),
  runRoutine: (name: string, inputs: Record<string, string>): Promise<RoutineRunResult> => call('runRoutine', { params: { name }, body: { inputs } }),
};

/**
 * Thumbnails that came inline with a frames page (the first screen's, asked for once at start):
 * shown from memory, they need no request each on the browser's few connections to the server.
 */
const inlineThumbs = new Map<string, string>();

async function keepThumbs(p: Promise<FramesPage>): Promise<FramesPage> {
  const page = await p;
  for (const [ref, url] of Object.entries(page.thumbs ?? {})) inlineThumbs.set(ref, url);
  return page;
}

/**
 * The timeline's first page as the server named it in the page's preload link (anchored when it
 * served the page; the browser is already fetching it), or undefined without one.
 */
export function preloadedFirstPage(): { url: string; anchorMs: number; pageSize: number } | undefined {
  const link = document.querySelector<HTMLLinkElement>('link[rel="preload"][data-first-page]');
  if (!link) return undefined;
  const url = new URL(link.href);
  const anchorMs = Date.parse(url.searchParams.get('before') ?? '');
  const pageSize = Number(url.searchParams.get('limit'));
  if (!Number.isFinite(anchorMs) || !(pageSize > 0)) return undefined;
  return { url: link.href, anchorMs, pageSize };
}

const frameImage = (ref: string, variant: ImageVariant): string => `${API_PREFIX}/frames/${encodeURIComponent(ref)}/${variant}`;
export const frameUrls = {
  thumbnail: (ref: string): string => inlineThumbs.get(ref) ?? frameImage(ref, 'thumbnail'),
  image: (ref: string): string => frameImage(ref, 'image'),
  full: (ref: string): string => frameImage(ref, 'full'),
};

const EVENT_TYPES = ['frame', 'frame-updated', 'activity', 'status', 'progress'] as const;

/** Waits before opening a stream the browser gave up on: 1 s, doubling to at most 10 s. */
const RETRY_MS = [1000, 2000, 4000, 8000, 10_000];

/**
 * Subscribe to `/api/events`. Accepts both plain `data:` messages carrying a
 * ServerEvent and named events (`event: frame`) whose data is the event or its payload.
 * `onOpen` fires on every (re)connection so callers can refetch what they may have missed.
 * EventSource retries a dropped connection by itself, but gives up for good on an answer that is
 * not a stream (a server still starting, a proxy's error page): then a new one is opened after a
 * wait, for as long as the page is open, so a restarted server is found again.
 */
export function subscribe(handlers: {
  onEvent: (e: ServerEvent) => void;
  onOpen?: () => void;
  onError?: () => void;
}): () => void {
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let stopped = false;
  const handle = (name: string) => (msg: MessageEvent<string>) => {
    let data: unknown;
    try {
      data = JSON.parse(msg.data);
    } catch {
      return;
    }
    const event = parseServerEvent(name, data);
    if (event) handlers.onEvent(event);
  };
  const open = (): void => {
    const es = new EventSource(`${API_PREFIX}/events`, { withCredentials: true });
    source = es;
    es.addEventListener('message', handle('message'));
    for (const t of EVENT_TYPES) es.addEventListener(t, handle(t));
    es.addEventListener('open', () => {
      failures = 0;
      handlers.onOpen?.();
    });
    es.addEventListener('error', () => {
      handlers.onError?.();
      if (es.readyState !== EventSource.CLOSED || stopped) return;
      es.close();
      timer = setTimeout(open, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]);
    });
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    source?.close();
  };
}

/** Normalise one SSE message into a ServerEvent (pure; exported for tests). */
export function parseServerEvent(name: string, data: unknown): ServerEvent | null {
  if (typeof data !== 'object' || data === null) return null;
  const d = data as Record<string, unknown>;
  if (typeof d.type === 'string' && (EVENT_TYPES as readonly string[]).includes(d.type)) return d as unknown as ServerEvent;
  switch (name) {
    case 'frame':
      return { type: 'frame', frame: (d.frame ?? d) as FrameSummary };
    case 'frame-updated':
      return { type: 'frame-updated', frame: (d.frame ?? d) as FrameSummary };
    case 'activity':
      return { type: 'activity', entry: (d.entry ?? d) as ActivityEntry };
    case 'status':
      return { type: 'status', status: (d.status ?? d) as StatusInfo };
    case 'progress':
      return { type: 'progress', progress: (d.progress ?? d) as ProgressInfoLike };
    default:
      return null;
  }
}
type ProgressInfoLike = Extract<ServerEvent, { type: 'progress' }>['progress'];

/** A message fit for a toast from anything thrown. */
export function errorMessage(e: unknown): string {
  if (e instanceof ApiRequestError) return e.hint ? `${e.message} ${e.hint}` : e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

/** A file of an agent run's folder (`step-01/screenshot.jpg`), served by the API with the session cookie. */
export function runFileUrl(id: string, path: string): string {
  return `${API_PREFIX}${fillPath(API_STREAMS.runFile.path, { id, path })}`;
}
