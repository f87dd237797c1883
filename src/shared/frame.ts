/**
 * The frame contract every source shares (see docs/architecture.md).
 * Pure types and constants: no node:*, no electron.
 */

/**
 * A source's name (`desktop`, `browser`, `android`, `manictime`, …): the prefix of its target
 * ids. The list is open: sources are modules registered with the core (src/main/core/sources),
 * and the dashboard learns them from `GET /api/sources`.
 */
export type SourceName = string;

export interface Size {
  width: number;
  height: number;
}
export interface Point {
  x: number;
  y: number;
}
export interface Rect extends Point, Size {}

export const IMAGE_FORMATS = ['jpeg', 'webp', 'png'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

/**
 * A stored screenshot. `scale` and `origin` map image pixels to the source's own
 * input space: `source = origin + image × scale` (scale = source units per image pixel).
 */
export interface FrameDescriptor {
  ref: string;
  source: SourceName;
  target: string;
  /** ISO-8601 with its UTC offset. */
  capturedAt: string;
  image: Size;
  sourceSize: Size;
  origin: Point;
  scale: number;
  dpi?: number;
  monitor?: number;
  parentRef?: string;
}

export interface TargetInfo {
  id: string;
  source: SourceName;
  kind: string;
  title: string;
  app?: string;
  bounds?: Rect;
  scale?: number;
  focused?: boolean;
  state?: string;
  /** Extra per-source facts (url, viewport, serial, density, pid, …). */
  details?: Record<string, unknown>;
  /** What to do when the target is listed but not usable (e.g. accept the RSA prompt). */
  hint?: string;
}

export interface UiNode {
  id: string;
  parentId?: string;
  role: string;
  name: string;
  value?: string;
  /** A password field (privacy.masking): its value is never given, and its box is masked in images. */
  password?: boolean;
  /** In image pixels of the tree's frameRef. */
  bounds: Rect;
  /** Where to click it: the centre of its box in image pixels of frameRef (or click by `node`). */
  center?: Point;
  inViewport?: boolean;
  clickable?: boolean;
  enabled?: boolean;
  /** Extra per-source attributes (resource-id, content-desc, …). */
  attributes?: Record<string, string>;
}

export interface SourceHealth {
  source: SourceName;
  enabled: boolean;
  available: boolean;
  degraded: boolean;
  /** Why the source is unavailable or degraded. */
  reason?: string;
  /** What the user can do about it. */
  remediation?: string;
  /** Onboarding checklist items for the dashboard. */
  checks?: HealthCheck[];
  /** Available, but with nothing to act on now (no device attached): its own tools are not offered until there is. */
  idle?: boolean;
  /** Not checked yet (Sightline just started, or the source was just turned on): the other fields say nothing yet. */
  checking?: boolean;
}

export interface HealthCheck {
  id: string;
  label: string;
  status: 'ok' | 'warning' | 'error' | 'unknown';
  detail?: string;
  fix?: string;
  /** A boolean setting the check offers as a switch in Setup, with what turning it on changes. */
  setting?: { key: string; on: boolean; label: string; effect: string };
}

export const SAMPLINGS = ['activity', 'interval', 'all'] as const;
export type Sampling = (typeof SAMPLINGS)[number];

/** What the user was doing when an archive screenshot was taken (ManicTime's activity timelines). */
export interface ScreenActivity {
  /** The application, e.g. "Google Chrome" ("unknown" when only the document is known). */
  app: string;
  /** The document, page or file in front, e.g. "Invoice 4411.pdf". */
  document?: string;
}

/** One entry of `list_screenshots` (metadata only; the ref is the only handle). */
export interface ScreenshotEntry {
  ref: string;
  source: SourceName;
  target?: string;
  /** ISO-8601 with its UTC offset. */
  capturedAt: string;
  /** Wall-clock time where it was taken, `YYYY-MM-DD HH:mm:ss`. */
  displayLocalTime: string;
  width: number;
  height: number;
  monitor?: number;
  hasThumbnail: boolean;
  pinned?: boolean;
  activity?: ScreenActivity;
  /** Window or page title (else the app) the frame showed when captured. */
  title?: string;
  /** A crop: the region of `of` it shows, in the screen's units (as frames' origin and sourceSize). */
  region?: { of: string; x: number; y: number; width: number; height: number };
  /** The user's note for the agent (pinned frames). */
  note?: string;
}

export const EMPTY_REASONS = ['RETENTION_OR_PURGED', 'CAPTURE_DISABLED', 'SOURCE_UNAVAILABLE', 'NO_MATCH', 'UNKNOWN'] as const;
export type EmptyReason = (typeof EMPTY_REASONS)[number];

export interface ScreenshotList {
  screenshots: ScreenshotEntry[];
  reason?: EmptyReason;
  remediation?: string;
  /** Set when the list is degraded (e.g. no activity database: interval sampling was used). */
  warnings?: string[];
  /** How many frames matched before sampling and `max`. */
  matched?: number;
}
