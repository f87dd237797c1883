/**
 * Archive rows: files of an external archive (ManicTime) indexed in place, never copied. The
 * archive source writes them through this narrow store (it implements `ArchiveStore` of
 * src/main/core/sources/source.ts), so the source never holds the database itself.
 */
import type { CatalogContext } from './context.ts';
import { removeFiles } from './files.ts';
import type { FrameStore } from './frames.ts';
import { archiveParams } from './rows.ts';
import type { SourceName } from '../../../shared/frame.ts';
import type { ArchiveFrame, FrameListQuery, FrameQuery, FrameRecord } from './types.ts';

export class ArchiveRows {
  readonly #c: CatalogContext;
  readonly #frames: FrameStore;

  constructor(context: CatalogContext, frames: FrameStore) {
    this.#c = context;
    this.#frames = frames;
  }

  /** Index archive files in place, in one transaction. Idempotent; returns rows inserted or changed. */
  upsertArchiveFrames(rows: readonly ArchiveFrame[]): number {
    const params = rows.map((r) => archiveParams(r, r.group ?? null));
    return this.#c.db.transaction(() => {
      let changed = 0;
      for (const p of params) changed += this.#c.stmt.upsertArchive.run(p).changes;
      return changed;
    })();
  }

  /**
   * Make the rows of group `group` of archive `source` exactly `rows`: upsert them and remove the
   * group's rows whose files are gone (pinned or not: there is nothing left to show). One transaction.
   */
  replaceArchiveGroup(source: SourceName, group: string, rows: readonly ArchiveFrame[]): { changed: number; deleted: number } {
    const c = this.#c;
    const params = rows.map((r) => archiveParams(r, group));
    const keep = JSON.stringify(params.map((p) => p.ref));
    const { changed, gone } = c.db.transaction(() => {
      let n = 0;
      for (const p of params) n += c.stmt.upsertArchive.run(p).changes;
      const doomed = c.stmt.archiveGroupGone.all(source, group, keep);
      for (const d of doomed) c.stmt.deleteFrame.run(d.ref);
      return { changed: n, gone: doomed };
    })();
    removeFiles(gone.flatMap((g) => (g.thumb ? [c.files.abs(g.thumb)] : [])));
    if (gone.length) c.events.emit('frames-deleted', gone.map((g) => g.ref));
    return { changed, deleted: gone.length };
  }

  getFrame(ref: string): FrameRecord | undefined {
    return this.#frames.get(ref);
  }
  listFrames(q: FrameListQuery): FrameRecord[] {
    return this.#frames.list(q);
  }
  countFrames(q?: FrameQuery): number {
    return this.#frames.count(q);
  }
}
