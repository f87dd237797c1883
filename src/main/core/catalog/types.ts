/**
 * Shapes the catalog stores and hands out. A FrameRecord is a StoredFrame plus what the
 * dashboard's FrameSummary shows, so it can go to both without copying.
 */
import type { ActivityEntry } from '../../../shared/activity.ts';
import type { FrameDescriptor, ImageFormat, Point, Size, SourceName } from '../../../shared/frame.ts';

/**
 * A frame as stored: its descriptor and its source's private state (what the source needs to
 * judge staleness later). The catalog keeps `state` as JSON it does not read; a source reads
 * it back through its own codec (ScreenPort.state), so `State` is known only there.
 */
export interface StoredFrame<State = unknown> extends FrameDescriptor {
  state: State;
}

/** What a frame showed, as its source named it when capturing (or the archive's activity). */
export interface FrameLabel {
  /** Window or page title. */
  title?: string;
  /** Application (desktop app, Android package, ManicTime application). */
  app?: string;
  /** Document: a file, a URL. */
  document?: string;
}

export interface FrameRecord extends StoredFrame {
  format: ImageFormat;
  /** Bytes of the model image (for archive frames: the archive file's size when known, else 0). */
  bytes: number;
  pinned: boolean;
  annotation?: string;
  /** A native-resolution original is stored beside the image. */
  hasFull: boolean;
  /** The files belong to an archive (ManicTime) and are read through its reader, never deleted. */
  external: boolean;
  /** What the source said the frame showed (live frames; archive activity lives in the text index). */
  label?: FrameLabel;
}

export type FrameVariant = 'image' | 'full' | 'thumbnail';

export type NewFrame = Omit<FrameDescriptor, 'ref'> & {
  format: ImageFormat;
  /** The encoded image the model sees. */
  data: Buffer;
  /** The native-resolution original, stored beside the image (for crops and the human's view). */
  full?: { data: Buffer; format: ImageFormat };
  state?: unknown;
  /** A ref chosen by the caller (letters, digits, `_`, `-`); default a fresh random one. */
  ref?: string;
  label?: FrameLabel;
};

/** A file of an external archive, indexed in place (never copied). */
export interface ArchiveFrame {
  /** Deterministic for the file (see deterministicRef), so rescans find the same row. */
  ref: string;
  /** The archive it belongs to (the source's name). */
  source: SourceName;
  target: string;
  /** ISO-8601 with its UTC offset. */
  capturedAt: string;
  image: Size;
  /** Default: the image size (an archive screenshot is 1:1 with its screen). */
  sourceSize?: Size;
  origin?: Point;
  scale?: number;
  dpi?: number;
  monitor?: number;
  format: ImageFormat;
  /** Absolute path of the image file. */
  imagePath: string;
  /** Absolute path of the archive's own thumbnail, if it has one. */
  thumbnailPath?: string;
  /** Size of the image file, if known. */
  bytes?: number;
  state?: unknown;
  /** Group key for replaceArchiveGroup (e.g. a folder of the archive), within its source. */
  group?: string;
}

export interface FrameQuery {
  source?: SourceName;
  target?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive (a day window is [midnight, next midnight)). */
  to?: Date;
  pinned?: boolean;
  parentRef?: string;
  /** Only frames that are not crops. */
  rootOnly?: boolean;
  /** Only archive frames (true) or only Sightline's own (false). */
  external?: boolean;
}

export interface FrameListQuery extends FrameQuery {
  limit: number;
  offset?: number;
  /** By capture time; default newest first. */
  order?: 'asc' | 'desc';
}

/** Reads an archive frame's files; registered by the archive source. */
export type ExternalReader = (rec: FrameRecord, variant: FrameVariant) => Promise<{ data: Buffer; format: ImageFormat }>;

export interface RetentionPolicy {
  maxAgeDays: number;
  maxBytes: number;
  now?: Date;
}

export interface RetentionResult {
  deletedFrames: number;
  freedBytes: number;
}

export interface CatalogEvents {
  frame: [FrameRecord];
  'frame-updated': [FrameRecord];
  /** Refs removed by retention or an archive rescan. */
  'frames-deleted': [string[]];
  activity: [ActivityEntry];
}
