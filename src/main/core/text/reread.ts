/**
 * Text written by an older reader, read again once in the background: newest first, in batches,
 * after the live frames, the backlog and the archives are done. Until a frame is read again its
 * old text stays searchable; a frame that cannot be read again (its file gone) keeps it and is
 * marked, so it is not tried forever. How far it got is part of the indexer's status.
 */
import type { FrameLabel } from '../catalog/types.ts';
import type { TextIndexStore } from './indexerPorts.ts';

/** The version of the reader that writes the index now: text written by a lower one is read again. */
export const TEXT_READER = 1;

export class Reread {
  readonly #store: TextIndexStore;
  /** The time key the walk has reached (newest first). */
  #before = Number.MAX_SAFE_INTEGER;
  /** Frames to read again when the walk started, and how many it has been over since. */
  #total: number | undefined;
  #done = 0;

  constructor(store: TextIndexStore) {
    this.#store = store;
  }

  /**
   * Read the next batch again with `read` (which writes what it reads); false when nothing is
   * left. Frames `read` did not write (gone, or unreadable again) keep their text, marked.
   */
  async step(limit: number, read: (items: { ref: string; label: FrameLabel }[]) => Promise<void>): Promise<boolean> {
    this.#total ??= this.#store.countStale(TEXT_READER);
    if (this.#total === 0) return false;
    const batch = this.#store.stale(TEXT_READER, this.#before, limit);
    if (batch.length === 0) {
      this.#total = 0;
      this.#done = 0;
      return false;
    }
    await read(batch.map((b) => ({ ref: b.ref, label: b.label })));
    this.#store.markReader(
      batch.map((b) => b.ref),
      TEXT_READER,
    );
    this.#before = (batch[batch.length - 1] as { key: number }).key;
    this.#done += batch.length;
    return true;
  }

  /** Progress while frames are being read again: how many of how many. */
  progress(): { done: number; total: number } | undefined {
    if (!this.#total) return undefined;
    return { done: Math.min(this.#done, this.#total), total: this.#total };
  }

  /** The text was deleted or rewritten behind the walk (exclusions changed): count again. */
  recount(): void {
    this.#total = undefined;
    this.#done = 0;
    this.#before = Number.MAX_SAFE_INTEGER;
  }
}
