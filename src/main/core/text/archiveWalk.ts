/**
 * The walk of each archive newest first, in batches. What is done is saved as one covered
 * interval [low, high] of capture times per archive, so a restart resumes where it stopped;
 * screenshots newer than `high` are walked first (down to it), then the walk goes on below `low`.
 */
import type { FrameLabel } from '../catalog/types.ts';
import type { ArchiveExtent } from '../sources/source.ts';
import type { Cursor, IndexerArchive, TextIndexStore } from './indexerPorts.ts';

export interface WalkDeps {
  store: Pick<TextIndexStore, 'getState' | 'setState'>;
  /** Bring an archive's own index up to date before walking it. */
  refresh(name: string, signal: AbortSignal): Promise<void>;
  /** Read a batch (the indexer's readAll). */
  read(items: readonly { ref: string; label?: FrameLabel }[], signal: AbortSignal): Promise<void>;
  /** Progress was saved. */
  changed(): void;
  /** Look for new screenshots this often (ms), and walk this many a batch. */
  pollMs: number;
  batch: number;
}

export class ArchiveWalks {
  readonly #d: WalkDeps;
  readonly #upper = new Map<string, { before?: number; top: number }>();
  /** Each archive's extent, as last seen. */
  readonly extents = new Map<string, ArchiveExtent>();
  readonly #refreshed = new Map<string, number>();

  constructor(deps: WalkDeps) {
    this.#d = deps;
  }

  cursor(name: string): Cursor | undefined {
    return this.#d.store.getState<Cursor>(`archive:${name}`);
  }

  /** Forget the archives no longer offered. */
  keepOnly(archives: readonly IndexerArchive[]): void {
    for (const name of this.extents.keys()) if (!archives.some((a) => a.name === name)) this.extents.delete(name);
  }

  /** One batch of an archive; false when there was nothing left to do. */
  async step(a: IndexerArchive, signal: AbortSignal): Promise<boolean> {
    const key = `archive:${a.name}`;
    // New screenshots are looked for now and then, not before every batch.
    const last = this.#refreshed.get(a.name) ?? 0;
    if (Date.now() - last >= this.#d.pollMs || !this.extents.has(a.name)) {
      await this.#d.refresh(a.name, signal);
      this.#refreshed.set(a.name, Date.now());
    }
    const ext = a.history.extent();
    this.extents.set(a.name, ext);
    if (!ext.count || ext.newestMs === undefined) return false;
    const cur: Cursor = this.cursor(a.name) ?? {};
    const limit = this.#d.batch;
    if (cur.low !== undefined && cur.high !== undefined && ext.newestMs > cur.high) {
      // Newer screenshots than the covered interval: walk down to it first.
      const up = this.#upper.get(a.name) ?? { top: ext.newestMs };
      const batch = await a.history.textBatch({ after: cur.high, ...(up.before !== undefined ? { before: up.before } : {}), limit }, signal);
      if (batch.length === 0) {
        this.#upper.delete(a.name);
        this.#save(key, { ...cur, high: Math.max(cur.high, up.top) });
        return true;
      }
      await this.#d.read(batch, signal);
      this.#upper.set(a.name, { ...up, before: (batch[batch.length - 1] as { capturedMs: number }).capturedMs });
      return true;
    }
    const batch = await a.history.textBatch({ ...(cur.low !== undefined ? { before: cur.low } : {}), limit }, signal);
    if (batch.length === 0) {
      if (cur.high === undefined) this.#save(key, { high: ext.newestMs, low: ext.oldestMs ?? ext.newestMs });
      return false;
    }
    await this.#d.read(batch, signal);
    const newest = (batch[0] as { capturedMs: number }).capturedMs;
    const oldest = (batch[batch.length - 1] as { capturedMs: number }).capturedMs;
    // A batch never splits a second, so everything from `oldest` up is done.
    this.#save(key, { high: Math.max(cur.high ?? newest, newest), low: oldest });
    return true;
  }

  #save(key: string, cur: Cursor): void {
    this.#d.store.setState(key, cur);
    this.#d.changed();
  }
}
