/**
 * The dashboard's local API: the same contract over HTTP (headless `sightline serve`,
 * token-protected) and over Electron IPC (the app window). Pure types.
 *
 * HTTP: every route is under the server's origin, needs the bearer token (header
 * `Authorization: Bearer …`, or the `sightline_session` cookie set by `GET /auth?token=…`),
 * and refuses a foreign Host or Origin. Errors are `{error: ApiError}` with a 4xx/5xx status.
 */
import type { ErrorCode } from './errors.ts';
import type { FrameDescriptor, ImageFormat, Point, SourceHealth, SourceName, TargetInfo } from './frame.ts';

export interface ApiError {
  code: ErrorCode;
  message: string;
  hint?: string;
  /** The settings key at fault, for SETTINGS_INVALID. */
  key?: string;
}

/** A frame as the timeline lists it. */
export interface FrameSummary extends FrameDescriptor {
  format: ImageFormat;
  bytes: number;
  pinned: boolean;
  annotation?: string;
  hasFull: boolean;
}

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
}
export interface FramesPage {
  frames: FrameSummary[];
  /** Frames matching the filter in all. */
  total: number;
}

export interface CropRequest {
  x: number;
  y: number;
  width: number;
  height: number;
  coordinateUnits?: 'percent' | 'normalized' | 'pixels';
  maxDimension?: number;
}

export interface ActivityEntry {
  id: number;
  at: string;
  tool: string;
  source?: SourceName;
  target?: string;
  /** 'ok' or an error code. */
  result: 'ok' | ErrorCode;
  message?: string;
  imagePoint?: Point;
  sourcePoint?: Point;
  frameRef?: string;
  /** Frame captured after the action, when one was taken. */
  afterRef?: string;
  durationMs: number;
  /** Tool arguments, with long text shortened. */
  params?: Record<string, unknown>;
  /** Who asked: an MCP client name, or "dashboard". */
  client?: string;
}
export interface ActivityQuery {
  tool?: string;
  target?: string;
  result?: 'ok' | 'error';
  before?: number;
  limit?: number;
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

/** Server-sent events on `GET /api/events`. */
export type ServerEvent =
  | { type: 'frame'; frame: FrameSummary }
  | { type: 'frame-updated'; frame: FrameSummary }
  | { type: 'activity'; entry: ActivityEntry }
  | { type: 'status'; status: StatusInfo }
  | { type: 'progress'; progress: ProgressInfo };

/**
 * Routes (method path → body → response):
 *   GET  /api/status                     → StatusInfo
 *   GET  /api/frames?FramesQuery         → FramesPage
 *   GET  /api/frames/:ref                → FrameSummary
 *   GET  /api/frames/:ref/image          → the model image bytes
 *   GET  /api/frames/:ref/full           → the native-resolution image (falls back to image)
 *   GET  /api/frames/:ref/thumbnail      → a small thumbnail (≤ 320 px)
 *   POST /api/frames/:ref/crop           CropRequest → { frame: FrameSummary }
 *   POST /api/frames/:ref/pin            { pinned: boolean } → { frame: FrameSummary }
 *   GET  /api/targets?source=            → TargetsResult
 *   POST /api/capture                    { target: string } → { frame: FrameSummary }
 *   GET  /api/activity?ActivityQuery     → { entries: ActivityEntry[] }
 *   GET  /api/settings                   → { settings: object; file: object }
 *   PUT  /api/settings                   partial settings → { settings } | 400 ApiError with key
 *   POST /api/input/pause                { paused: boolean } → StatusInfo
 *   POST /api/browser/launch             {} → { target?: string }
 *   GET  /api/events                     → text/event-stream of ServerEvent
 */
export const API_PREFIX = '/api';
