/**
 * The dashboard's local API as a typed contract: every route's method, path, input and
 * response, in one place. The server registers exactly these routes (src/main/core/http/api.ts
 * must give a handler for each), and the dashboard's client builds its requests from the same
 * table (src/renderer/lib/api.ts), so a path can never differ between the two. Pure types and
 * constants; request validation lives in apiSchemas.ts (checked against these types).
 *
 * Every route is under the server's origin at `/api`, needs the bearer token (header
 * `Authorization: Bearer …`, or the `sightline_session` cookie set by `GET /auth?token=…`), and
 * refuses a foreign Host or Origin. Errors are `{error: ApiError}` with a 4xx/5xx status.
 */
import type { ErrorCode } from './errors.ts';
import type { FrameDescriptor, ImageFormat, ScreenActivity, SourceHealth, SourceName, TargetInfo } from './frame.ts';
import type { SettingsPatch, SettingsValues } from './settings.ts';
import type { SourceInfo } from './sources.ts';
import type { ActivityEntry, ActivityQuery, RunSummary, RunView, TargetLabel } from './activity.ts';
import type { RoutineDetail, RoutineRunResult, RoutineView, RunRoutineRequest, SaveRoutineRequest } from './routines.ts';

export interface ApiError {
  code: ErrorCode;
  message: string;
  hint?: string;
  /** The settings key at fault, for SETTINGS_INVALID. */
  key?: string;
  /** SETTINGS_INVALID: every key at fault, each with what is wrong (the first is `key`). */
  problems?: { key: string; message: string; hint?: string }[];
}

/** A frame as the timeline lists it. */
export interface FrameSummary extends FrameDescriptor {
  format: ImageFormat;
  bytes: number;
  pinned: boolean;
  annotation?: string;
  hasFull: boolean;
  /** The target's title, app and document when the frame was captured (live frames). */
  label?: TargetLabel;
  /**
   * For an archive frame (ManicTime) or a crop of one: what the user was doing when it was
   * taken, as `list_screenshots` reports it. The dashboard titles the frame with it; `target`
   * stays the monitor.
   */
  activity?: ScreenActivity;
  /**
   * The text index's key of the screen this frame shows, once its text is read: consecutive
   * frames of one target with the same key show the same screen up to noise (a caret, a clock),
   * and the timeline folds them into one row.
   */
  screen?: string;
}

/** Thumbnails one frames page carries inline at most (a tall window's first screen). */
export const MAX_INLINE_THUMBS = 16;
/** Frames in a page of the dashboard's timeline. */
export const TIMELINE_PAGE_SIZE = 100;

export interface FramesQuery {
  source?: SourceName;
  target?: string;
  pinned?: boolean;
  /** ISO-8601; frames captured strictly before this (paging newest-first). */
  before?: string;
  from?: string;
  to?: string;
  limit?: number;
  offset?: number;
  /**
   * The thumbnails of the page's first frames, up to this many (at most 16), sent inline with
   * the page: the timeline's first screen then needs no request per image.
   */
  thumbs?: number;
}

/** Where moments fall in the timeline (the time strip): for each `at`, how many frames are at or after it. */
export interface TimelinePositionsQuery {
  source?: SourceName;
  target?: string;
  /** Pinned frames only (the timeline's Pinned filter). */
  pinned?: boolean;
  /** ISO-8601: the anchor the timeline pages from (frames captured strictly before it). */
  before?: string;
  /** Moments, epoch ms, comma-separated (at most 400). */
  at?: string;
}

export interface TimelinePositions {
  /** Frames before the anchor in all. */
  total: number;
  /** The newest and oldest of them (absent when there are none). */
  newest?: string;
  oldest?: string;
  /**
   * For each moment of `at`, in order: how many of those frames were captured at or after it,
   * which is also the row (0 = newest) of the newest frame captured before it.
   */
  since: number[];
}

/** The apps in each stretch of `at` (the time strip's hours), from a few frames sampled in it. */
export interface TimelineApps {
  /** One per stretch between consecutive moments of `at`, newest first: apps by how many samples showed them. */
  spans: { name: string; count: number }[][];
}

export interface FramesPage {
  frames: FrameSummary[];
  /** Frames matching the filter in all. */
  total: number;
  /** When asked for (`thumbs`): ref → its thumbnail as a `data:` URL; a thumbnail that could not be made is left out. */
  thumbs?: Record<string, string>;
}

export interface CropRequest {
  x: number;
  y: number;
  width: number;
  height: number;
  coordinateUnits?: 'percent' | 'normalized' | 'pixels';
  maxDimension?: number;
}

export interface StatusQuery {
  /** Check every source again before answering; otherwise the last checks are shown. */
  fresh?: boolean;
}

/** How an agent reaches this Sightline: what Setup and the empty activity log show. */
export interface ConnectInfo {
  /** The MCP endpoint (Streamable HTTP); it needs `Authorization: Bearer <token>`. */
  mcpUrl: string;
  /** The file that holds the token (readable by this user only). */
  tokenFile: string;
  /** How an MCP client that starts its server over stdio runs Sightline's relay (`sightline mcp`). */
  stdio: { command: string; args: string[]; env?: Record<string, string> };
}

export interface StatusInfo {
  version: string;
  paused: boolean;
  readOnly: boolean;
  /** MCP sessions connected now. */
  clients: number;
  platform: string;
  dataDir: string;
  sources: SourceHealth[];
  /** The text index behind search_screenshots (absent when the core runs no indexer). */
  textIndex?: TextIndexStatus;
}

/** A word's box in image pixels of a frame. */
export interface TextBox {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One frame search_screenshots found. */
export interface ScreenshotHit {
  ref: string;
  source: SourceName;
  target: string;
  capturedAt: string;
  displayLocalTime: string;
  /** The frame's image size: the boxes are in its pixels. */
  image: { width: number; height: number };
  title?: string;
  app?: string;
  document?: string;
  /** The best matching passage, the matches between « and ». */
  snippet: string;
  /** The matching words on the frame (none when only the title, app or document matched). */
  boxes: TextBox[];
}

export const SEARCH_EMPTY_REASONS = ['NO_FRAMES_IN_RANGE', 'NOT_INDEXED_YET', 'INDEX_OFF', 'EXCLUDED_APP', 'NO_MATCH'] as const;
export type SearchEmptyReason = (typeof SEARCH_EMPTY_REASONS)[number];

export interface ScreenshotSearch {
  results: ScreenshotHit[];
  /** Matching frames in all (at least this many when `more` and the page reaches the end of the count). */
  total: number;
  /**
   * More matches than this answer holds. search_screenshots: more than `total` (counting stopped
   * there); `GET /api/search` also says so when matches lie beyond this page (ask again with a larger offset).
   */
  more: boolean;
  /** Why nothing was found. */
  reason?: SearchEmptyReason;
  remediation?: string;
  /** The indexer's progress, while it is not done (results may be missing what it has not read yet). */
  index?: TextIndexStatus;
}

/**
 * search_screenshots as the dashboard gets it: with each hit's screen key (`FrameSummary.screen`),
 * so hits in a row of one target and one key fold into one row, as the timeline folds them.
 */
export interface DashboardSearch extends ScreenshotSearch {
  /** ref → screen key, for the hits that have one. */
  screens: Record<string, string>;
}

export interface SearchQuery {
  /** Words, "quoted phrases", prefix*, OR (as search_screenshots takes them). */
  q: string;
  source?: SourceName;
  app?: string;
  from?: string;
  to?: string;
  limit?: number;
  /** Matches to skip, newest first (the next page starts at offset + limit). */
  offset?: number;
}

/** The background text indexer: how far it got, and whether it runs. */
export interface TextIndexStatus {
  /** off: ocr.index or ocr.enabled is off; paused: agents are working (or it waits to retry); idle: all done. */
  state: 'off' | 'idle' | 'indexing' | 'paused';
  /** Why it is off or paused. */
  reason?: string;
  /** Frames whose text is indexed. */
  done: number;
  /** Frames known: Sightline's own (not crops) and every archive screenshot. */
  total: number;
  /** Frames of excluded apps skipped since start (never read, never indexed). */
  excluded: number;
  /** Frames skipped since start because their app cannot be known (no app, no title) while ocr.excludeApps is set. */
  unlabeled?: number;
  /** Live frames waiting for OCR. */
  queued: number;
  /** Everything captured since this moment is searchable (ISO-8601), per the archives' walk. */
  searchableSince?: string;
  /** The newest day of the archives (local date) is searchable whole. */
  newestDaySearchable?: boolean;
  /**
   * Screenshots indexed by an older, less accurate reader, being read again (newest first) after
   * an upgrade: how many of how many. Search answers with their old text until each is read.
   */
  reread?: { done: number; total: number };
}

export interface TargetsResult {
  targets: TargetInfo[];
  /** Per-source errors, so one broken source does not hide the others. */
  errors: { source: SourceName; code: ErrorCode; message: string; hint?: string }[];
}

export interface ProgressInfo {
  id: string;
  label: string;
  done: number;
  total?: number;
  finished: boolean;
}

export interface SettingsView {
  /** The effective settings (file < environment < flags). */
  settings: SettingsValues;
  /** What settings.json alone holds (what the dashboard edits). */
  file: SettingsPatch;
  /** Settings an environment variable overrides now (key → the variable and its value): the file's value waits. */
  environment?: Record<string, { variable: string; value: string }>;
}

/** Server-sent events on `GET /api/events`. */
export type ServerEvent =
  | { type: 'frame'; frame: FrameSummary }
  | { type: 'frame-updated'; frame: FrameSummary }
  | { type: 'activity'; entry: ActivityEntry }
  | { type: 'status'; status: StatusInfo }
  | { type: 'progress'; progress: ProgressInfo };

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A JSON route: what it takes (path params, query, body) and what it answers. */
interface Route<M extends Method, P extends string, Params, Query, Body, Response> {
  method: M;
  path: P;
  params: Params;
  query: Query;
  body: Body;
  response: Response;
}
type NoInput = Record<string, never>;
type FrameParams = { ref: string };

/** The JSON routes. */
export interface ApiContract {
  status: Route<'GET', '/status', NoInput, StatusQuery, undefined, StatusInfo>;
  /** How an agent connects: the MCP URL, where the token is, the stdio command. */
  connect: Route<'GET', '/connect', NoInput, NoInput, undefined, ConnectInfo>;
  sources: Route<'GET', '/sources', NoInput, NoInput, undefined, { sources: SourceInfo[] }>;
  frames: Route<'GET', '/frames', NoInput, FramesQuery, undefined, FramesPage>;
  /** The time strip: how the timeline's frames spread over days and hours, and where each starts. */
  timelinePositions: Route<'GET', '/timeline/positions', NoInput, TimelinePositionsQuery, undefined, TimelinePositions>;
  /** The time strip's colours: which apps a few frames of each stretch show. */
  timelineApps: Route<'GET', '/timeline/apps', NoInput, TimelinePositionsQuery, undefined, TimelineApps>;
  frame: Route<'GET', '/frames/:ref', FrameParams, NoInput, undefined, FrameSummary>;
  crop: Route<'POST', '/frames/:ref/crop', FrameParams, NoInput, CropRequest, { frame: FrameSummary }>;
  pin: Route<'POST', '/frames/:ref/pin', FrameParams, NoInput, { pinned: boolean; annotation?: string | null }, { frame: FrameSummary }>;
  targets: Route<'GET', '/targets', NoInput, { source?: SourceName }, undefined, TargetsResult>;
  capture: Route<'POST', '/capture', NoInput, NoInput, { target: string }, { frame: FrameSummary }>;
  activity: Route<'GET', '/activity', NoInput, ActivityQuery, undefined, { entries: ActivityEntry[] }>;
  /** The newest name each target went by (id → title, else app), kept for targets that are gone. */
  targetNames: Route<'GET', '/target-names', NoInput, NoInput, undefined, { names: Record<string, string> }>;
  run: Route<'GET', '/runs/:id', { id: string }, NoInput, undefined, RunView>;
  /** The newest agent runs' folders (200 at most), those that never acted included. */
  runs: Route<'GET', '/runs', NoInput, NoInput, undefined, { runs: RunSummary[] }>;
  settings: Route<'GET', '/settings', NoInput, NoInput, undefined, SettingsView>;
  saveSettings: Route<'PUT', '/settings', NoInput, NoInput, SettingsPatch, { settings: SettingsValues }>;
  pause: Route<'POST', '/input/pause', NoInput, NoInput, { paused: boolean }, StatusInfo>;
  sourceAction: Route<'POST', '/sources/:name/actions/:action', { name: SourceName; action: string }, NoInput, Record<string, never>, { target?: string; message?: string }>;
  /** search_screenshots, for the timeline's search box. */
  search: Route<'GET', '/search', NoInput, SearchQuery, undefined, DashboardSearch>;
  /** The background text indexer's progress (null when this process runs none). */
  textIndex: Route<'GET', '/text-index', NoInput, NoInput, undefined, { index: TextIndexStatus | null }>;
  /** Saved routines with their last replay; `stepKinds`: the actions a routine can replay (what "Save as routine" offers). */
  routines: Route<'GET', '/routines', NoInput, NoInput, undefined, { routines: RoutineView[]; stepKinds: string[] }>;
  routine: Route<'GET', '/routines/:name', { name: string }, NoInput, undefined, RoutineDetail>;
  /** Save a run's actions, or chosen activity-log entries, as a routine (save_routine's rules). */
  saveRoutine: Route<'POST', '/routines', NoInput, NoInput, SaveRoutineRequest, RoutineDetail>;
  deleteRoutine: Route<'DELETE', '/routines/:name', { name: string }, NoInput, Record<string, never>, { deleted: string }>;
  /** Replay a routine through the same gate as an agent; answers when it is done or stopped. */
  runRoutine: Route<'POST', '/routines/:name/run', { name: string }, NoInput, RunRoutineRequest, RoutineRunResult>;
}
export type ApiRouteName = keyof ApiContract;

/** The method and path of every JSON route: the one place a path is written. */
export const API_ROUTES: { [K in ApiRouteName]: { method: ApiContract[K]['method']; path: ApiContract[K]['path'] } } = {
  status: { method: 'GET', path: '/status' },
  connect: { method: 'GET', path: '/connect' },
  sources: { method: 'GET', path: '/sources' },
  frames: { method: 'GET', path: '/frames' },
  timelinePositions: { method: 'GET', path: '/timeline/positions' },
  timelineApps: { method: 'GET', path: '/timeline/apps' },
  frame: { method: 'GET', path: '/frames/:ref' },
  crop: { method: 'POST', path: '/frames/:ref/crop' },
  pin: { method: 'POST', path: '/frames/:ref/pin' },
  targets: { method: 'GET', path: '/targets' },
  capture: { method: 'POST', path: '/capture' },
  activity: { method: 'GET', path: '/activity' },
  targetNames: { method: 'GET', path: '/target-names' },
  run: { method: 'GET', path: '/runs/:id' },
  runs: { method: 'GET', path: '/runs' },
  settings: { method: 'GET', path: '/settings' },
  saveSettings: { method: 'PUT', path: '/settings' },
  pause: { method: 'POST', path: '/input/pause' },
  sourceAction: { method: 'POST', path: '/sources/:name/actions/:action' },
  search: { method: 'GET', path: '/search' },
  textIndex: { method: 'GET', path: '/text-index' },
  routines: { method: 'GET', path: '/routines' },
  routine: { method: 'GET', path: '/routines/:name' },
  saveRoutine: { method: 'POST', path: '/routines' },
  deleteRoutine: { method: 'DELETE', path: '/routines/:name' },
  runRoutine: { method: 'POST', path: '/routines/:name/run' },
};

/** Routes that answer with something other than JSON. */
export const API_STREAMS = {
  /** The image bytes of a frame: the model image, the native-resolution one, or a ≤ 320 px thumbnail. */
  frameImage: { method: 'GET', path: '/frames/:ref/:variant' },
  /**
   * One artifact of an agent run: `path` is relative to the run's folder, URL-encoded as one
   * segment (`step-01%2Fscreenshot.jpg`). Only files inside `<data dir>/runs/<id>/` after every
   * symlink is resolved; text as text/plain, JSON as JSON, images as images, anything else as a
   * download.
   */
  runFile: { method: 'GET', path: '/runs/:id/files/:path' },
  /** text/event-stream of ServerEvent. */
  events: { method: 'GET', path: '/events' },
} as const;

export type ImageVariant = 'image' | 'full' | 'thumbnail';

export const API_PREFIX = '/api';

/**
 * An agent run's id (`_meta["sightline/run"].id` of its MCP calls): the name of its folder
 * under `<data dir>/runs`, so no separator and no leading dot.
 */
export const RUN_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

/** `/frames/:ref/crop` with `{ref: 'f_1'}` → `/frames/f_1/crop` (each value URL-encoded). */
export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/:([a-zA-Z]+)/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`missing path parameter "${name}" for ${path}`);
    return encodeURIComponent(v);
  });
}
