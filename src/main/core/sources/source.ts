/**
 * What a source is to the core: a name, its health, and the capabilities it has, each an
 * optional port. A live source has `screen` (targets, capture, staleness) and usually `input`
 * and `tree`; an archive has `history`. The core owns frames (fit, encode, store), the
 * coordinate mapping, the action gate and the activity log; a port supplies only the
 * device-specific step. Nothing here names a particular source.
 */
import type { z } from 'zod';
import type {
  ImageFormat,
  Point,
  Rect,
  Sampling,
  ScreenActivity,
  ScreenshotList,
  Size,
  SourceHealth,
  SourceName,
  TargetInfo,
  UiNode,
} from '../../../shared/frame.ts';
import type { ArchiveFrame, FrameLabel, FrameListQuery, FrameQuery, FrameRecord, FrameVariant, StoredFrame } from '../catalog/types.ts';
import type { ImageInput } from '../image/pipeline.ts';

export type { StoredFrame } from '../catalog/types.ts';

export interface Source {
  readonly name: SourceName;
  /** Never throws: an unavailable source says why and what to do. */
  health(): Promise<SourceHealth>;
  /** Live targets: list, capture, judge a frame's staleness. */
  readonly screen?: ScreenPort;
  /** Input actions on live targets (a module's own kinds besides the built-in ones). */
  readonly input?: InputPort<unknown, unknown>;
  /** A UI tree (DOM, uiautomator) of live targets. */
  readonly tree?: TreePort;
  /** Text on screen a source knows without OCR (DOM, UI tree): click and wait by text use it first. */
  readonly text?: TextPort;
  /** Network activity of a target (the browser): wait_for networkIdle. */
  readonly network?: NetworkPort;
  /** Installed apps of a device: list, launch, stop, open a link, install. */
  readonly apps?: AppsPort;
  /** A device's screen orientation. */
  readonly orientation?: OrientationPort;
  /** A read-only history of screenshots (an archive). */
  readonly history?: HistoryPort;
  dispose?(): Promise<void>;
}

// ── screen ─────────────────────────────────────────────────────────────────────────────────

export interface CaptureOptions {
  /** Long-edge limit for the image the model sees. */
  maxDimension: number;
  /** Optional pixel-count limit (model profiles such as `claude`: 1.15 MP). */
  maxPixels?: number;
  format: ImageFormat;
  quality: number;
  /** Native resolution, no scaling (the response carries a warning). */
  raw: boolean;
  fullPage?: boolean;
  scrollOffset?: Point;
  /** Mask secrets in the image (privacy.masking); absent when masking is off. */
  mask?: MaskSpec;
  signal: AbortSignal;
}

/**
 * What to mask: password and payment fields (a source knows them: input types, autocomplete,
 * password nodes) and text matching `patterns` (util/secrets.ts), each box filled with one
 * colour before the image is encoded.
 */
export interface MaskSpec {
  patterns: readonly string[];
}

export interface CapturedImage<State = unknown> {
  /** Canonical target id (a source may resolve aliases). */
  target: string;
  /** Native-resolution pixels; the core fits, encodes and stores them. */
  pixels?: ImageInput;
  /**
   * Or an image the source already fitted and encoded at the requested size
   * (the browser's in-browser `clip.scale` path). Exactly one of pixels/encoded.
   */
  encoded?: { data: Buffer; format: ImageFormat; width: number; height: number };
  /** Size of the captured region in source units (device px, CSS px, screen points). */
  sourceSize: Size;
  /** Source-space position of the image's top-left corner. */
  origin: Point;
  dpi?: number;
  monitor?: number;
  /** What the source needs later to judge staleness (window size, rotation, document id); stored as JSON. */
  state: State;
  /** What the image shows, where the source knows it cheaply (window title and app, page title and URL): indexed for search. */
  label?: FrameLabel;
  /**
   * Boxes (source space) holding a secret. With `pixels` the core fills them before it fits and
   * encodes; an `encoded` image comes with them already filled (the browser masks in the page).
   */
  masks?: Rect[];
  warnings?: string[];
}

/** Result of a staleness check: fresh, or moved (re-mapped by `shift` in source units). */
export interface FrameCheck {
  shift?: Point;
}

/**
 * `State` is the source's own frame state; `state` is its codec. The core validates a stored
 * frame's state with it before handing the frame back (a frame written by an older Sightline, or
 * by another source, is refused as stale instead of being misread).
 */
export interface ScreenPort<State = unknown> {
  readonly state: z.ZodType<State>;
  listTargets(signal: AbortSignal): Promise<TargetInfo[]>;
  capture(target: string, options: CaptureOptions): Promise<CapturedImage<State>>;
  /**
   * Throws TARGET_NOT_FOUND when the frame's target is gone and FRAME_STALE when
   * its size, rotation or document changed; returns a shift when it only moved.
   */
  checkFrame(frame: StoredFrame<State>, signal: AbortSignal): Promise<FrameCheck>;
  /**
   * Optional: capture `rect` (source space of `frame`) again at the device's native resolution,
   * for a crop with real detail (the browser: CDP clip at the page's device scale). Undefined when
   * the frame no longer shows what is there (then the crop is cut from the stored image).
   */
  captureRegion?(frame: StoredFrame<State>, rect: Rect, options: RegionOptions): Promise<EncodedRegion | undefined>;
}

export interface RegionOptions {
  format: ImageFormat;
  quality: number;
  /** Long-edge limit for the region's image. */
  maxDimension: number;
  mask?: MaskSpec;
  signal: AbortSignal;
}

/** A region captured again: its image and the source-space rect it shows (may be clamped). */
export interface EncodedRegion {
  data: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
  rect: Rect;
  /** Boxes (source space) already filled in the image (see CapturedImage.masks). */
  masks?: Rect[];
}

// ── input ──────────────────────────────────────────────────────────────────────────────────

/** The pointer and keyboard actions an input port may perform (a module's own kinds are its own). */
export const ACTION_KINDS = ['click', 'type_text', 'press_key', 'scroll', 'swipe', 'focus_window', 'scroll_into_view', 'hover', 'drag'] as const;
export type BuiltinActionKind = (typeof ACTION_KINDS)[number];

export type MouseButton = 'left' | 'right' | 'middle';
export type Modifier = 'Shift' | 'Control' | 'Alt' | 'Meta';
export type ScrollAlign = 'start' | 'center' | 'end' | 'nearest';

/**
 * Where an action lands, in source space: a `point` (mapped from the image point the agent gave,
 * and re-mapped when the target only moved), or a `node`, a UI-tree node id the source finds
 * again itself and acts on at its current place (scrolled into view first when off screen).
 */
export interface Aim<State = unknown> {
  frame?: StoredFrame<State>;
  point?: Point;
  node?: string;
}

/** A pointer or keyboard action as its source performs it (points and deltas in source space). */
export type SourceAction<State = unknown> =
  | ({ kind: 'click'; target: string; button: MouseButton; clicks: number; modifiers: Modifier[]; holdMs?: number } & Aim<State>)
  | ({ kind: 'type_text'; target: string; text: string; /** Press Enter after typing. */ submit?: boolean; /** Replace the field's value. */ clear?: boolean } & Aim<State>)
  | { kind: 'press_key'; target: string; frame?: StoredFrame<State>; key: string }
  /** Deltas in source units (mapped from the agent's image pixels). */
  | ({ kind: 'scroll'; target: string; deltaX: number; deltaY: number } & Aim<State>)
  | ({ kind: 'swipe'; target: string; to: Point; durationMs: number } & Aim<State>)
  | ({ kind: 'hover'; target: string } & Aim<State>)
  /** From the aim to `to` (a point in source space) or `toNode`; `holdMs` before moving (Android long-press drag). */
  | ({ kind: 'drag'; target: string; to?: Point; toNode?: string; durationMs: number; holdMs?: number } & Aim<State>)
  | { kind: 'focus_window'; target: string }
  | { kind: 'scroll_into_view'; target: string; node: string; block: ScrollAlign; inline: ScrollAlign };

/** An action a source module defines itself (navigate, select_option, …), with its typed parameters. */
export interface ModuleAction<K extends string = string, P = unknown, State = unknown> extends Aim<State> {
  kind: K;
  target: string;
  params: P;
}

/** How a source judged an action's frame under its lock: fresh (maybe moved by `shift`), or stale. */
export interface FrameJudgement extends FrameCheck {
  /** The frame no longer shows the target; only allowed when it is not needed to aim. */
  stale?: true;
}

/**
 * An action as the gate hands it to a source: typed by its kind, but still in the agent's image
 * space. The source, holding the target's lock, judges the frame (`ScreenPort.checkFrame`'s
 * rules) and calls `resolve` with its judgement, which maps every point into source space
 * (POINT_OUTSIDE_FRAME when one falls outside the image); then it acts, still under the lock, so
 * nothing can move the target between the check and the act.
 */
export interface PendingAction<A = SourceAction> {
  readonly kind: string;
  readonly target: string;
  /** The frame the agent's coordinates are read in (also where what changed is placed). */
  readonly frame?: StoredFrame;
  readonly after: AfterMode;
  /** False when the frame only places what changed (a node or text aim): a stale one is no refusal then. */
  readonly needsFreshFrame: boolean;
  resolve(judged: FrameJudgement): A;
}

/** How much to report after an action: nothing, a summary (default), or a small image of what changed. */
export type AfterMode = 'none' | 'summary' | 'image';

/** An element as a source names it in an outcome. */
export interface ElementRef {
  role?: string;
  name?: string;
  /** Its UI-tree node id, when it has one. */
  node?: string;
}

/**
 * What an action did, as far as the source can tell cheaply (no image). Every field is optional:
 * a source reports what it knows.
 */
export interface ActionOutcome {
  /** What was under the point (browser: the element; Android: the node; desktop: the window). */
  hit?: ElementRef & { app?: string };
  /** type_text: the element that received the text, and its value read back where it can be. */
  received?: ElementRef & { value?: string; valueMatches?: boolean; /** A password field: its value is never read back, and the text typed is never logged. */ password?: boolean };
  navigated?: { url: string; title?: string };
  dialog?: PendingDialog;
  title?: { from: string; to: string };
  keyboardShown?: boolean;
  /** The region that changed, in source units of the action's frame (viewport CSS px, device px, …). */
  changed?: Rect;
  /** The region changed but the source cannot say where (the core may capture to find out). */
  changedUnknown?: boolean;
  /** What was re-mapped on the way (the page scrolled since the frame; the node was scrolled into view). */
  remapped?: string;
}

export interface PendingDialog {
  type: 'alert' | 'confirm' | 'prompt' | 'beforeunload';
  message: string;
  defaultPrompt?: string;
}

/** What a source reports back about an action it performed. */
export interface ActionDetails {
  /** Short human-readable note (e.g. "focused by raising" / "fell back to clicking"). */
  note?: string;
  outcome?: ActionOutcome;
  /** Where the action landed in source space, when the source resolved it (a node, a text). */
  point?: Point;
  /** Anything else worth logging. */
  [key: string]: unknown;
}

export interface InputPort<State = unknown, Own = never> {
  /** The built-in action kinds this source performs (a module's own kinds are in its tools). */
  readonly actions: readonly BuiltinActionKind[];
  /** Why a built-in kind it does not perform makes no sense here, and what to do instead (the error's message and hint). */
  readonly unsupported?: Partial<Record<BuiltinActionKind, { message: string; hint: string }>>;
  /** One entry per action: take the target's lock, judge the frame, resolve, act. */
  perform(action: PendingAction<SourceAction<State> | Own>, signal: AbortSignal): Promise<ActionDetails>;
}

// ── tree ───────────────────────────────────────────────────────────────────────────────────

/** A UI node as a source reports it: bounds in SOURCE space; the core maps them to image space. */
export interface SourceUiNode extends Omit<UiNode, 'bounds'> {
  bounds: Rect;
}

export interface UiTreeOptions {
  maxNodes: number;
  query?: string;
  signal: AbortSignal;
}

export interface TreePort<State = unknown> {
  /**
   * The UI tree; `frame` is the target's latest frame (bounds come back in source space). Node ids
   * are handles: valid across captures for as long as their element exists (the input port acts
   * on them by finding the element again).
   */
  uiTree(target: string, frame: StoredFrame<State>, options: UiTreeOptions): Promise<SourceUiNode[]>;
}

// ── text ───────────────────────────────────────────────────────────────────────────────────

/** Text a source reads without OCR (a DOM, a UI tree), with its boxes in source space. */
export interface TextItem {
  text: string;
  bounds: Rect;
  /** The UI-tree node it belongs to, when there is one (actions can then aim at the node). */
  node?: string;
  /** 1 for text a tree knows; OCR reports its own confidence. */
  confidence?: number;
  /** Its words with their own boxes, when known (OCR): a hit inside a line gets its word's box. */
  words?: { text: string; bounds: Rect; confidence?: number }[];
  /** The node's role, when a tree knows it, in ARIA's words (button, link, textbox, heading, text…). */
  role?: string;
  /** The node takes typed text (a text field, a text area, an editable element). */
  editable?: boolean;
  /** Acting on the node does something (a button, link, menu item, tab, checkbox, option), unlike static text or a heading. */
  actionable?: boolean;
  /** The node holds a value a form sets: a text field, a drop-down, a checkbox, radio or switch, a file input. */
  takesValue?: boolean;
  /** A control's accessible name where no text on screen says it (aria-label, a hint): a text aim may name it; find_text does not show it. */
  label?: string;
}

export interface TextPort {
  /**
   * The visible text of a target now, as items with source-space boxes (viewport only);
   * undefined when this target has no text of its own (a desktop app exposing no accessibility
   * tree): the core then reads it by OCR. `words`: give each item's words with their own boxes
   * where the source can (a DOM's text ranges), so a word found inside a line has its own box.
   */
  readText(target: string, signal: AbortSignal, options?: { words?: boolean }): Promise<TextItem[] | undefined>;
}

// ── network ────────────────────────────────────────────────────────────────────────────────

export interface NetworkPort {
  /**
   * Resolve once no request of the target has been in flight for `idleMs`; reject with TIMEOUT
   * (saying how many requests were still in flight) after `timeoutMs`.
   */
  networkIdle(target: string, options: { idleMs: number; timeoutMs: number; signal: AbortSignal }): Promise<{ waitedMs: number }>;
}

// ── devices ────────────────────────────────────────────────────────────────────────────────

export interface InstalledApp {
  package: string;
  system: boolean;
}

export interface LaunchParams {
  package: string;
  /** An activity of that package (".Main" or "package/full.Class"); default its launcher activity. */
  activity?: string;
  /** Wait until it has drawn its first frame. */
  wait: boolean;
}

export interface OpenUrlParams {
  url: string;
  /** Open it in this app only. */
  package?: string;
  wait: boolean;
}

export interface InstallParams {
  /** An absolute path on this computer (inside files.uploadRoots). */
  path: string;
  grantPermissions: boolean;
  allowDowngrade: boolean;
  allowTest: boolean;
}

/**
 * Apps on a device. Anything that changes the device arrives through the action gate (pause,
 * read-only, the allowlist, the log) as an action of the shared app tools; listing is read-only.
 */
export interface AppsPort {
  list(target: string, options: { system?: boolean; filter?: string }, signal: AbortSignal): Promise<InstalledApp[]>;
  launch(action: PendingAction<ModuleAction<'launch_app', LaunchParams>>, signal: AbortSignal): Promise<ActionDetails>;
  stop(action: PendingAction<ModuleAction<'stop_app', { package: string }>>, signal: AbortSignal): Promise<ActionDetails>;
  openUrl(action: PendingAction<ModuleAction<'open_url', OpenUrlParams>>, signal: AbortSignal): Promise<ActionDetails>;
  install(action: PendingAction<ModuleAction<'install_apk', InstallParams>>, signal: AbortSignal): Promise<ActionDetails>;
}

export const ORIENTATION_VALUES = ['portrait', 'landscape', 'reverse-portrait', 'reverse-landscape', 'auto'] as const;
export type OrientationValue = (typeof ORIENTATION_VALUES)[number];

export interface OrientationPort {
  setOrientation(action: PendingAction<ModuleAction<'set_orientation', { orientation: OrientationValue }>>, signal: AbortSignal): Promise<ActionDetails>;
}

// ── capabilities ───────────────────────────────────────────────────────────────────────────

/** The optional ports by name, so a tool can ask a target's source for one without knowing which source it is. */
export interface Capabilities {
  screen: ScreenPort;
  input: InputPort<unknown, unknown>;
  tree: TreePort;
  text: TextPort;
  network: NetworkPort;
  history: HistoryPort;
  apps: AppsPort;
  orientation: OrientationPort;
}
export type CapabilityName = keyof Capabilities;

// ── history ────────────────────────────────────────────────────────────────────────────────

export interface ScreenshotQuery {
  from?: Date;
  to?: Date;
  target?: string;
  sampling: Sampling;
  intervalSeconds: number;
  max: number;
  pinned?: boolean;
}

export interface ProgressReport {
  label: string;
  done: number;
  total?: number;
}

export interface ArchivePageQuery {
  before?: Date;
  target?: string;
  offset: number;
  limit: number;
}

/**
 * An archive's screenshots before an anchor, newest first, as a list the dashboard's timeline
 * merges with Sightline's own frames (src/main/core/util/mergedPages.ts): probing a time makes
 * no catalog row; a page makes rows for exactly the screenshots it returns.
 */
export interface ArchiveList {
  readonly total: number;
  /** Capture time (epoch ms) of screenshot `index` (0 = newest). */
  timeAt(index: number): number;
  /** Refs of screenshots [offset, offset + limit), newest first (their catalog rows now exist). */
  page(offset: number, limit: number): string[];
}

/**
 * A read-only history (the ManicTime archive). It indexes its files into the shared catalog
 * (deterministic refs, external paths) and answers `list_screenshots` for its own source;
 * `get_screenshot` and `crop_screenshot` then read its frames through `read`.
 */
export interface HistoryPort {
  /** Incremental scan; reports progress on long scans. */
  refresh(options: { signal: AbortSignal; onProgress?: (p: ProgressReport) => void }): Promise<void>;
  listScreenshots(query: ScreenshotQuery, signal: AbortSignal): Promise<ScreenshotList>;
  /**
   * Every screenshot before `before`, newest first, a page at a time (the dashboard's
   * timeline). The page's screenshots get catalog rows; `total` counts all before `before`.
   */
  page(query: ArchivePageQuery): { refs: string[]; total: number };
  /** The same screenshots as a list, for merging with other lists by time. */
  timeline(query: { before?: Date; target?: string }): ArchiveList;
  /**
   * What the user was doing at each instant (epoch ms), as far as the archive knows (undefined
   * where it does not): the dashboard titles archive frames with it. One read for the lot.
   */
  activityAt?(times: readonly number[], signal?: AbortSignal): Promise<(ScreenActivity | undefined)[]>;
  /** The bytes of one of this archive's frames (its files are read in place, never copied). */
  read(frame: FrameRecord, variant: FrameVariant, signal?: AbortSignal): Promise<{ data: Buffer; format: ImageFormat }>;
  /**
   * For the text index: screenshots captured strictly between `after` and `before` (epoch ms),
   * newest first, about `limit` of them (the screenshots of one second stay together). Each gets
   * a catalog row, and carries what was active then (app, window title, document).
   */
  textBatch?(query: TextBatchQuery, signal: AbortSignal): Promise<ArchiveTextFrame[]>;
  /** How many screenshots the archive holds in [from, to) (epoch ms; all without), and its newest and oldest. */
  extent?(query?: { from?: number; to?: number }): ArchiveExtent;
}

export interface TextBatchQuery {
  after?: number;
  before?: number;
  limit: number;
}

/** An archive screenshot for the text index: its catalog ref, when it was taken, what was active. */
export interface ArchiveTextFrame {
  ref: string;
  capturedMs: number;
  label: FrameLabel;
}

export interface ArchiveExtent {
  count: number;
  newestMs?: number;
  oldestMs?: number;
}

/** The part of the catalog an archive writes its rows to (the catalog implements it). */
export interface ArchiveStore {
  upsertArchiveFrames(rows: readonly ArchiveFrame[]): number;
  /** Make one group of an archive's rows exactly `rows` (the rest of the group is gone from the archive). */
  replaceArchiveGroup(source: SourceName, group: string, rows: readonly ArchiveFrame[]): { changed: number; deleted: number };
  getFrame(ref: string): FrameRecord | undefined;
  listFrames(q: FrameListQuery): FrameRecord[];
  countFrames(q?: FrameQuery): number;
}
