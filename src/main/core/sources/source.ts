/**
 * The Source interface the four sources implement, and the shapes they exchange
 * with the core. A source supplies only device-specific steps: the core owns
 * frames (fit, encode, store), the coordinate mapping, the action gate and the
 * activity log.
 */
import type {
  FrameDescriptor,
  ImageFormat,
  Point,
  Rect,
  Size,
  SourceHealth,
  SourceName,
  TargetInfo,
  UiNode,
  Sampling,
  ScreenshotList,
} from '../../../shared/frame.ts';

/** Native pixels handed to the shared image pipeline. */
export type ImageInput =
  | { kind: 'raw'; data: Buffer; width: number; height: number; channels: 3 | 4 }
  | { kind: 'encoded'; data: Buffer };

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
  signal: AbortSignal;
}

export interface CapturedImage {
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
  /**
   * Source-private facts the source needs later to judge staleness
   * (window size, rotation, document id, viewport). Stored with the frame, JSON only.
   */
  state: Record<string, unknown>;
  warnings?: string[];
}

/** A frame as the core stores it; what `checkFrame` and `perform` receive. */
export interface StoredFrame extends FrameDescriptor {
  state: Record<string, unknown>;
}

/** Result of a staleness check: fresh, or moved (re-mapped by `shift` in source units). */
export interface FrameCheck {
  shift?: Point;
}

export const ACTION_KINDS = ['click', 'type_text', 'press_key', 'scroll', 'swipe', 'focus_window', 'scroll_into_view'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

export type MouseButton = 'left' | 'right' | 'middle';
export type Modifier = 'Shift' | 'Control' | 'Alt' | 'Meta';

/** What the gate hands a source after validation, mapping and the policy checks. */
export type SourceAction =
  | { kind: 'click'; target: string; frame?: StoredFrame; point: Point; button: MouseButton; clicks: number; modifiers: Modifier[]; holdMs?: number }
  | { kind: 'type_text'; target: string; frame?: StoredFrame; point?: Point; text: string }
  | { kind: 'press_key'; target: string; frame?: StoredFrame; key: string }
  | { kind: 'scroll'; target: string; frame?: StoredFrame; point?: Point; deltaX: number; deltaY: number }
  | { kind: 'swipe'; target: string; frame?: StoredFrame; point: Point; to: Point; durationMs: number }
  | { kind: 'focus_window'; target: string }
  | { kind: 'scroll_into_view'; target: string; node: string; block: ScrollAlign; inline: ScrollAlign };

export type ScrollAlign = 'start' | 'center' | 'end' | 'nearest';

/** What a source reports back about an action it performed. */
export interface ActionDetails {
  /** Short human-readable note (e.g. "focused by raising" / "fell back to clicking"). */
  note?: string;
  /** Anything else worth logging. */
  [key: string]: unknown;
}

/** A UI node as a source reports it: bounds in SOURCE space; the core maps them to image space. */
export interface SourceUiNode extends Omit<UiNode, 'bounds'> {
  bounds: Rect;
}

export interface UiTreeOptions {
  maxNodes: number;
  query?: string;
  signal: AbortSignal;
}

export interface SourceCapabilities {
  capture: boolean;
  actions: readonly ActionKind[];
  uiTree: boolean;
}

export interface Source {
  readonly name: SourceName;
  readonly capabilities: SourceCapabilities;
  /** Never throws: an unavailable source says why and what to do. */
  health(): Promise<SourceHealth>;
  listTargets(signal: AbortSignal): Promise<TargetInfo[]>;
  capture?(target: string, options: CaptureOptions): Promise<CapturedImage>;
  /**
   * Throws TARGET_NOT_FOUND when the frame's target is gone and FRAME_STALE when
   * its size, rotation or document changed; returns a shift when it only moved.
   */
  checkFrame?(frame: StoredFrame, signal: AbortSignal): Promise<FrameCheck>;
  perform?(action: SourceAction, signal: AbortSignal): Promise<ActionDetails>;
  /**
   * The source's UI tree. `frame` is the target's latest frame (bounds are returned
   * in source space; the core maps them into that frame's image space).
   */
  uiTree?(target: string, frame: StoredFrame, options: UiTreeOptions): Promise<SourceUiNode[]>;
  dispose?(): Promise<void>;
}

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

/**
 * A read-only history source (the ManicTime archive). It indexes its files into the
 * shared catalog (deterministic refs, external paths) and answers `list_screenshots`
 * for its own source; `get_screenshot` / `crop_screenshot` then work on its refs
 * through the shared code.
 */
export interface ArchiveProvider {
  readonly name: SourceName;
  health(): Promise<SourceHealth>;
  /** Incremental scan into the catalog; reports progress on long scans. */
  refresh(options: { signal: AbortSignal; onProgress?: (p: ProgressReport) => void }): Promise<void>;
  listScreenshots(query: ScreenshotQuery, signal: AbortSignal): Promise<ScreenshotList>;
  /**
   * Every screenshot before `before`, newest first, a page at a time (the dashboard's
   * timeline). The page's screenshots get catalog rows; `total` counts all before `before`.
   */
  page?(query: ArchivePageQuery): { refs: string[]; total: number };
  dispose?(): Promise<void>;
}

export interface ArchivePageQuery {
  before?: Date;
  target?: string;
  offset: number;
  limit: number;
}
