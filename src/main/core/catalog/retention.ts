/**
 * Retention and repair: Sightline's own frames older than the age limit or beyond the byte
 * budget go (pinned ones stay, and a deleted frame's unpinned crops go with it); files an
 * interrupted write left behind are swept. Archive rows and files are never touched here.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogContext } from './context.ts';
import { ARCHIVE_THUMBS_DIR, FRAMES_DIR, TMP_SUFFIX, listDirs, removeFiles } from './files.ts';
import type { FrameStore } from './frames.ts';
import { bad, type FileSet } from './rows.ts';
import type { RetentionRow } from './statements.ts';
import type { RetentionPolicy, RetentionResult } from './types.ts';

/** Files younger than this are left alone by sweep(): another process may be mid-insert. */
const SWEEP_GRACE_MS = 10 * 60_000;

export class Retention {
  readonly #c: CatalogContext;
  readonly #frames: FrameStore;

  constructor(context: CatalogContext, frames: FrameStore) {
    this.#c = context;
    this.#frames = frames;
  }

  apply(p: RetentionPolicy): RetentionResult {
    if (!(p.maxAgeDays > 0) || !(p.maxBytes >= 0)) {
      throw bad(`Retention needs maxAgeDays > 0 and maxBytes ≥ 0 (got ${p.maxAgeDays} days, ${p.maxBytes} bytes).`);
    }
    const { db, stmt } = this.#c;
    const now = (p.now ?? new Date()).getTime();
    const cutoff = now - p.maxAgeDays * 86_400_000;
    const doomed = new Map<string, { thumb: string | null; files: string; disk_bytes: number }>();
    const take = (rows: RetentionRow[]): number => {
      let freed = 0;
      for (const r of rows) {
        if (doomed.has(r.ref)) continue;
        doomed.set(r.ref, r);
        freed += r.disk_bytes;
      }
      return freed;
    };
    const deleted = db.transaction(() => {
      take(stmt.expiredWithCrops.all(cutoff));
      const total = (stmt.totalBytes.get() as { n: number | null }).n ?? 0;
      let excess = total - [...doomed.values()].reduce((s, r) => s + r.disk_bytes, 0) - p.maxBytes;
      if (excess > 0) {
        for (const oldest of stmt.oldestOwn.iterate()) {
          if (excess <= 0) break;
          if (doomed.has(oldest.ref)) continue;
          excess -= take(stmt.withCrops.all(oldest.ref));
        }
      }
      for (const ref of doomed.keys()) stmt.deleteFrame.run(ref);
      return doomed;
    })();
    const paths: string[] = [];
    let freedBytes = 0;
    for (const r of deleted.values()) {
      freedBytes += r.disk_bytes;
      const files = JSON.parse(r.files) as FileSet;
      paths.push(this.#c.files.abs(files.image));
      if (files.full) paths.push(this.#c.files.abs(files.full));
      if (r.thumb) paths.push(this.#c.files.abs(r.thumb));
    }
    removeFiles(paths, true);
    if (deleted.size) this.#c.events.emit('frames-deleted', [...deleted.keys()]);
    return { deletedFrames: deleted.size, freedBytes };
  }

  /**
   * Remove what an interrupted write left behind: temp files, and files no row names (a crash
   * between rename and insert). Files younger than `olderThanMs` are spared, since another
   * process sharing the data dir may be mid-insert.
   */
  async sweep(opts: { olderThanMs?: number } = {}): Promise<{ removed: number }> {
    const grace = opts.olderThanMs ?? SWEEP_GRACE_MS;
    const before = Date.now() - grace;
    let removed = 0;
    const dirs = await listDirs(this.#c.files.abs(FRAMES_DIR));
    const archive = this.#c.files.abs(ARCHIVE_THUMBS_DIR);
    dirs.push(...(await listDirs(archive)));
    for (const dir of dirs) {
      if (dir === archive) continue;
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        if (this.#c.closed()) return { removed };
        const path = join(dir, name);
        const ref = name.split('.')[0] ?? '';
        try {
          if (!name.endsWith(TMP_SUFFIX) && (this.#c.pending.has(ref) || this.#frames.isReferenced(ref, path))) continue;
          const st = await stat(path);
          if (!st.isFile() || st.mtimeMs > before) continue;
          await rm(path, { force: true });
          removed++;
        } catch {
          // Gone already, or the catalog closed under us.
        }
      }
    }
    return { removed };
  }
}
