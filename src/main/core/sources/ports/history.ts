/** A read-only history of screenshots (an archive such as ManicTime) and the catalog rows it writes. */
import type { ImageFormat, Sampling, ScreenActivity, ScreenshotList, SourceName } from '../../../../shared/frame.ts';
import type { ArchiveFrame, FrameLabel, FrameListQuery, FrameQuery, FrameRecord, FrameVariant } from '../../catalog/types.ts';


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
