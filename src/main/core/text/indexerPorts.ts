/**
 * What the text indexer is handed (the catalog's text store, the frames, OCR, the archives,
 * settings, the busy signal) and its timing; and the covered interval it saves per archive.
 */
import type { TextIndexStatus } from '../../../shared/api.ts';
import type { CoreSettings } from '../../../shared/settings.ts';
import type { FrameTextEntry, StaleText } from '../catalog/text.ts';
import type { FrameRecord } from '../catalog/types.ts';
import type { HistoryPort, TextItem } from '../sources/source.ts';
import type { FrameLook } from './frameReader.ts';
import type { BusySignal } from '../util/busy.ts';

export type OcrSettings = CoreSettings['ocr'];

/** The part of the catalog's text store the indexer writes. */
export interface TextIndexStore {
  put(e: FrameTextEntry): boolean;
  indexed(refs: readonly string[]): Set<string>;
  /** Delete the text of the frames an FTS5 expression matches; how many. */
  deleteMatching(match: string): number;
  /** Delete the text of the frames indexed with neither app nor title; how many. */
  deleteUnlabeled(): number;
  count(): number;
  unindexedOwn(beforeMs: number, limit: number): FrameRecord[];
  getState<T>(name: string): T | undefined;
  setState(name: string, value: unknown): void;
  /** Frames whose text a reader older than `reader` wrote, newest first, below a time key. */
  stale(reader: number, beforeKey: number, limit: number): StaleText[];
  countStale(reader: number): number;
  /** These frames were read again (or could not be): `reader` has been over them. */
  markReader(refs: readonly string[], reader: number): void;
}

export interface IndexerArchive {
  name: string;
  history: Required<Pick<HistoryPort, 'textBatch' | 'extent'>>;
}

export interface TextIndexerDeps {
  store: TextIndexStore;
  frames: { find(ref: string): FrameRecord | undefined; countOwn(): number };
  /** OCR of a stored frame, boxes in its source space (ScreenText.readFrame at background priority). */
  read(ref: string, signal: AbortSignal): Promise<{ items: TextItem[] }>;
  /** A frame's image and the background OCR: when given, only what changed on a screen is read (frameReader.ts), not `read`. */
  look?: FrameLook;
  /** The enabled archives that can be walked for text. */
  archives(): Promise<IndexerArchive[]>;
  /** Bring an archive's own index up to date before walking it. */
  refresh(name: string, signal: AbortSignal): Promise<void>;
  settings(): OcrSettings;
  busy: BusySignal;
  onProgress(status: TextIndexStatus): void;
  log(line: string): void;
  timing?: Partial<IndexerTiming>;
}

export interface IndexerTiming {
  /** Agents must have been idle this long before a page starts. */
  quietMs: number;
  /** A live frame waits for quiet at most this long (an agent that never pauses still gets its frames indexed). */
  liveMaxWaitMs: number;
  /** After a failure (the engine missing, the archive unreadable), try again after this long. */
  retryMs: number;
  /** With everything indexed, look for new archive screenshots this often. */
  pollMs: number;
  /** Archive screenshots per batch. */
  batch: number;
}

export const DEFAULT_TIMING: IndexerTiming = { quietMs: 1500, liveMaxWaitMs: 30_000, retryMs: 60_000, pollMs: 60_000, batch: 24 };
/** The covered interval of an archive's capture times (epoch ms), saved in the catalog. */
export interface Cursor {
  high?: number;
  low?: number;
}
