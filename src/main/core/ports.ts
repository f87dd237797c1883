/**
 * The narrow interfaces the core's services offer to the MCP tools and the dashboard API.
 * A tool or a route is handed these, never the composition root: it can reach only what its
 * port says (see docs/architecture.md). The services implement them (frames/, actions/, …).
 */
import type { FrameSummary, ScreenshotSearch, StatusInfo, TargetsResult, TextIndexStatus } from '../../shared/api.ts';
import type { ActivityEntry, ActivityQuery, RunSummary, RunView } from '../../shared/activity.ts';
import type { ImageFormat, Point, Rect, ScreenshotList, SourceName, UiNode } from '../../shared/frame.ts';
import type { SettingsPatch, SettingsValues } from '../../shared/settings.ts';
import type { SourceInfo } from '../../shared/sources.ts';
import type { FrameListQuery, FrameQuery, FrameRecord, FrameVariant } from './catalog/types.ts';
import type { CropUnits } from './image/mapping.ts';
import type { z } from 'zod';
import type { ActionDetails, ActionOutcome, Capabilities, CapabilityName, PendingAction, ProgressReport, ScreenshotQuery, Source, StoredFrame, TextItem } from './sources/source.ts';

// ── frames ─────────────────────────────────────────────────────────────────────────────────

export interface CaptureParams {
  target: string;
  /** The MCP session capturing (its latest capture of the target becomes this frame). */
  session?: Session;
  maxDimension?: number;
  format?: ImageFormat;
  quality?: number;
  raw?: boolean;
  fullPage?: boolean;
  scrollOffset?: Point;
  signal?: AbortSignal;
}

export interface CaptureOutcome {
  frame: FrameRecord;
  /** The model image as stored (already in memory: no re-read). */
  image: { data: Buffer; format: ImageFormat };
  warnings: string[];
}

export interface CropParams {
  ref: string;
  x: number;
  y: number;
  width: number;
  height: number;
  coordinateUnits?: CropUnits;
  maxDimension?: number;
  format?: ImageFormat;
  quality?: number;
  signal?: AbortSignal;
}

export interface UiTreeParams {
  target: string;
  session?: Session;
  maxNodes: number;
  query?: string;
  signal: AbortSignal;
}

export interface FramesPort {
  capture(p: CaptureParams): Promise<CaptureOutcome>;
  crop(p: CropParams): Promise<CaptureOutcome>;
  /** The frame, or FRAME_NOT_FOUND with a hint. */
  get(ref: string): FrameRecord;
  find(ref: string): FrameRecord | undefined;
  read(ref: string, variant: FrameVariant): Promise<{ data: Buffer; format: ImageFormat }>;
  list(q: FrameListQuery): FrameRecord[];
  count(q?: FrameQuery): number;
  /** The target's UI tree, boxes in image pixels of its latest frame (captured now if it has none). */
  uiTree(p: UiTreeParams): Promise<{ frameRef: string; nodes: UiNode[] }>;
  /** Pin or unpin a frame for agents (listed by list_screenshots pinned:true and as resources). */
  setPinned(ref: string, pinned: boolean, annotation?: string | null): FrameRecord;
}

// ── actions ────────────────────────────────────────────────────────────────────────────────

/**
 * An MCP session's own view: "the latest capture of a target" is per session (two agents on one
 * server never act through each other's frames); a ref named explicitly works in any session.
 */
export interface Session {
  readonly id: string;
  /** The ref of this session's latest (root) capture of `target`. */
  latest(target: string): string | undefined;
  remember(target: string, ref: string): void;
}

/**
 * An action kind: its input, how it aims, how it builds its typed action and which port performs
 * it (defined with actionDefs.ts: the built-in kinds are in actions/, a source's own in its module).
 */
/** Whether a kind needs a point (x, y, a node or a text), may take one, or takes none. */
export type AimRule = 'required' | 'optional' | 'none';

/** An action's aim and geometry in source space, handed to `build` once the source judged the frame. */
export interface Mapped {
  target: string;
  frame?: StoredFrame;
  point?: Point;
  node?: string;
  /** Another image point of the same frame (a drag's end) in source space; POINT_OUTSIDE_FRAME when outside the image. */
  toSource(p: Point): Point;
  /** Source units per image pixel of the frame (1 without one). */
  scale: number;
  /** The node each of the kind's `labels` names (a form's fields by their labels). */
  labelled: ReadonlyMap<string, string>;
}

export type ArgsOf<S extends z.ZodRawShape> = z.output<z.ZodObject<S>>;

export type Performer<A> = (action: PendingAction<A>, signal: AbortSignal) => Promise<ActionDetails>;

export interface ActionKind<S extends z.ZodRawShape = z.ZodRawShape, A = unknown> {
  /** The tool's name, and what the activity log calls the action. */
  readonly name: string;
  readonly aim: AimRule;
  /** The argument naming visible text to aim at: `text`, or `field` where `text` is what to type. */
  readonly textAim?: 'text' | 'field';
  readonly input: S;
  /** Rules the schema cannot say, checked before anything is touched. */
  check?(args: ArgsOf<S>): void;
  /** Whether the frame is read beyond the aim (a drag's end, scroll deltas in image pixels). */
  usesFrame?(args: ArgsOf<S>): boolean;
  /** Whom the input allowlist judges the action by, when not (only) the target's app in front. */
  allow?(args: ArgsOf<S>): AllowBy | undefined;
  /** The target to act on when the call names none (a new tab opens in the default browser). */
  defaultTarget?(args: ArgsOf<S>): string | undefined;
  /** The typed action, in source space. */
  build(args: ArgsOf<S>, at: Mapped): A;
  /** The port of `source` that performs it; UNSUPPORTED (before anything is touched) when it has none. */
  performer(source: Source): Performer<A>;
  /** What the log may keep of the arguments (default: all, long strings shortened). */
  logged?(args: ArgsOf<S>): Record<string, unknown>;
  /**
   * Controls the action names by their labels (a form's fields): the gate finds each among the
   * target's visible text, as a control that takes a value, before anything is touched, and
   * gives `build` their nodes in `at.labelled`.
   */
  labels?(args: ArgsOf<S>): string[];
}

// Methods are bivariant, so a kind of any shape and action fits here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyActionKind = ActionKind<any, any>;

/**
 * Whom the input allowlist judges an action by, when not (only) the target's app in front: `as`
 * instead of it (launch_app's package, a new tab's host), `also` besides it (where navigate
 * goes), `none` when it reaches no app (a blank new tab).
 */
export type AllowBy = { as: string } | { also: string } | { none: true };

/** What the source said an action did (hit, received, navigated, dialog, title, keyboard, re-mapped), passed on as is. */
export interface ActionResult extends Pick<ActionOutcome, 'hit' | 'received' | 'navigated' | 'dialog' | 'title' | 'keyboardShown' | 'remapped'> {
  ok: true;
  target: string;
  imagePoint?: Point;
  sourcePoint?: Point;
  frameRef?: string;
  note?: string;
  /** The region that changed, in image pixels of `changedRef` (the action's frame, or a frame captured after). */
  changed?: Rect;
  changedRef?: string;
  /** A frame captured after the action (after: image, or to find what changed). */
  afterRef?: string;
  /** What the source reported beyond the note (a source's own action returns its answer here). */
  details?: Record<string, unknown>;
  /** Things the agent should know that did not stop the action (e.g. its log entry could not be written). */
  warnings?: string[];
  /** With after: "image", a small picture of what changed (for the tool's image content, not its structured content). */
  afterImage?: { ref: string; data: Buffer; format: ImageFormat; width: number; height: number };
}

export interface ActOptions {
  client?: string;
  signal: AbortSignal;
  session?: Session;
  /** An agent run this action belongs to (`sightline agent`), for the activity log. */
  run?: { id: string; artifacts?: string };
}

export interface ActionsPort {
  /** Run one action of `kind` with the tool's arguments (validated by its schema) through the gate. */
  act<S extends z.ZodRawShape, A>(kind: ActionKind<S, A>, args: ArgsOf<S>, opts: ActOptions): Promise<ActionResult>;
}

// ── targets, sources, history ───────────────────────────────────────────────────────────────

export interface TargetsPort {
  list(source?: SourceName, signal?: AbortSignal): Promise<TargetsResult>;
}

export interface SourcesPort {
  /** Registered sources, for tool schemas and the dashboard. */
  info(): SourceInfo[];
  names(kind?: 'live' | 'archive'): string[];
  isEnabled(name: SourceName): boolean;
  /** The source behind a target id, or an error that says why it is unreachable. */
  forTarget(target: string): Promise<Source>;
  /** A source by name (created on first use). */
  get(name: SourceName): Promise<Source>;
  /** A port of the source behind a target (its apps, its network), or why it has none. */
  port<K extends CapabilityName>(target: string, name: K): Promise<Capabilities[K]>;
  /** Run an action a source offers the human in Setup (e.g. launch a browser). */
  runAction(name: SourceName, action: string): Promise<{ target?: string; message?: string }>;
}

export interface HistoryService {
  listScreenshots(source: SourceName | undefined, q: ScreenshotQuery, signal: AbortSignal, onProgress?: (p: ProgressReport) => void): Promise<ScreenshotList>;
  /** Bring an archive's index up to date, reporting progress to the caller and the dashboard. */
  refreshArchive(name: SourceName, signal: AbortSignal, onProgress?: (p: ProgressReport) => void): Promise<void>;
  /**
   * A newest-first page of the dashboard's timeline: Sightline's own frames and every enabled
   * archive's screenshots (as far as `source`/`target` include them), merged by time.
   */
  timelinePage(q: { source?: SourceName; target?: string; before?: Date; offset: number; limit: number }, signal: AbortSignal): Promise<{ frames: FrameRecord[]; total: number }>;
  /** Where moments fall in that timeline: for each, how many of its frames are at or after it. */
  timelinePositions(
    q: { source?: SourceName; target?: string; pinned?: boolean; before?: Date; at: readonly number[] },
    signal: AbortSignal,
  ): Promise<{ total: number; newestMs?: number; oldestMs?: number; since: number[] }>;
  /** Frames as the dashboard lists them: an archive frame carries the activity at its moment. */
  summarize(frames: readonly FrameRecord[], signal?: AbortSignal): Promise<FrameSummary[]>;
}

// ── text on screen ─────────────────────────────────────────────────────────────────────────

/** A target's visible text: its tree's (DOM, UI tree) when the source has one, else OCR of a capture. */
export interface FindTextParams {
  /** A live target (its text now) or … */
  target?: string;
  /** … a stored frame (the text it shows). */
  ref?: string;
  query: string;
  regex?: boolean;
  max: number;
  signal: AbortSignal;
  session?: Session;
}

export interface FoundText {
  text: string;
  /** Image pixels of the frame. */
  box: Rect;
  center: { x: number; y: number };
  confidence: number;
  kind: 'word' | 'phrase' | 'substring' | 'item';
  /** Letters OCR read differently (a near match), when not exact. */
  edits?: number;
  node?: string;
}

export interface FindTextResult {
  frameRef: string;
  image: { width: number; height: number };
  via: 'tree' | 'ocr';
  matches: FoundText[];
  /** Matches before `max` cut the list. */
  total: number;
}

export interface ScreenTextResult {
  items: TextItem[];
  via: 'tree' | 'ocr';
  /** The frame OCR read (boxes are in its source space, like a tree's). */
  frameRef?: string;
}

export interface ScreenTextPort {
  /** A target's visible text now: its tree's when it has one, else OCR of a fresh capture. */
  read(target: string, options: { signal: AbortSignal; session?: Session }): Promise<ScreenTextResult>;
  /** The text a stored frame shows, by OCR of its best image (the native original where there is one). */
  readFrame(ref: string, options: { signal: AbortSignal; priority?: 'interactive' | 'background' }): Promise<ScreenTextResult & { frameRef: string }>;
  /** Where a text is on a target now or in a stored frame, in image pixels of a frame (find_text). */
  find(params: FindTextParams): Promise<FindTextResult>;
}

// ── screenshot search ─────────────────────────────────────────────────────────────────────

export interface SearchParams {
  /** Words, "quoted phrases", prefix*, OR (see src/main/core/text/query.ts). */
  query: string;
  from?: Date;
  /** Exclusive. */
  to?: Date;
  source?: SourceName;
  /** Only frames of this app (words of its name, case- and accent-insensitive). */
  app?: string;
  max: number;
  /** Matches to skip, newest first (paging). */
  offset?: number;
  signal: AbortSignal;
}

export interface TextSearchPort {
  /** Frames whose text, title, app or document match, newest first; an empty answer says why. */
  search(p: SearchParams): Promise<ScreenshotSearch>;
  /** The indexer's progress (undefined when none runs in this process). */
  status(): TextIndexStatus | undefined;
  /** The screen key of each of `refs` that has text (equal keys in a row: the same screen up to noise). */
  screens(refs: readonly string[]): Map<string, string>;
}

// ── the human's side ───────────────────────────────────────────────────────────────────────

export interface SettingsPort {
  values(): SettingsValues;
  file(): SettingsPatch;
  /** Validate a partial settings object, write settings.json atomically, apply. Bad input changes nothing. */
  update(patch: SettingsPatch): SettingsValues;
  /** SETTINGS_INVALID when a changed value cannot take effect here (a missing folder, a display that does not open). */
  vet(patch: SettingsPatch): Promise<void>;
  /** Settings an environment variable overrides now: key → the variable and its value. */
  environment(): Record<string, { variable: string; value: string }>;
}

export interface StatusPort {
  /** The status once every enabled source has been checked at least once (waits only for that first check). */
  status(): Promise<StatusInfo>;
  /** The status now, from the sources' last checks: never waits on a probe. */
  statusNow(): StatusInfo;
  /** Every source checked again now, then the status. */
  statusChecked(): Promise<StatusInfo>;
}

export interface ActivityPort {
  list(q: ActivityQuery): ActivityEntry[];
  /** Entries matching `q` (its limit and paging ignored). */
  count(q: ActivityQuery): number;
  /** id → the newest title (else app) a target went by, from its frames and the log. */
  targetNames(): Record<string, string>;
}

// ── agent runs ─────────────────────────────────────────────────────────────────────────────

/** One artifact of an agent run, ready to send. */
export interface RunFile {
  data: Buffer;
  contentType: string;
  /** Not a type the dashboard shows: send it as a download. */
  download: boolean;
  name: string;
}

/** The artifacts `sightline agent` leaves under `<data dir>/runs/<id>/`, read-only (runs/runs.ts). */
export interface RunsPort {
  get(id: string): Promise<RunView>;
  /** The newest runs' folders (at most `limit`), newest first, as their run.json sums them up. */
  list(limit: number): Promise<Omit<RunSummary, 'actions'>[]>;
  /** `path` is relative to the run's folder, '/'-separated. */
  file(id: string, path: string): Promise<RunFile>;
}
