/**
 * The catalog: one better-sqlite3 database of every frame (Sightline's own and the ManicTime
 * archive's), the files of Sightline's own frames under `<dataDir>/frames/`, retention, and the
 * activity log. Each part is its own class over the shared database:
 *
 *   frames     the frame index, files and thumbnails (frames.ts)
 *   archive    archive rows indexed in place (archive.ts)
 *   retention  age and byte limits, and the sweep of orphaned files (retention.ts)
 *   activity   the activity log (activity.ts)
 *   text       the text index of frames for search_screenshots (text.ts)
 */
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ActivityLog } from './activity.ts';
import { ReadsLog } from './reads.ts';
import { ArchiveRows } from './archive.ts';
import type { CatalogContext } from './context.ts';
import { FRAMES_DIR, FileStore } from './files.ts';
import { FrameStore } from './frames.ts';
import { migrate } from './migrations.ts';
import { Retention } from './retention.ts';
import type { Params } from './rows.ts';
import { prepareStatements } from './statements.ts';
import { FrameTextStore } from './text.ts';
import type { CatalogEvents } from './types.ts';
import { privateFile } from '../util/privateFile.ts';

export const CATALOG_FILE = 'catalog.sqlite';
export { FRAMES_DIR } from './files.ts';

export class Catalog extends EventEmitter<CatalogEvents> {
  readonly dataDir: string;
  readonly framesDir: string;
  readonly frames: FrameStore;
  readonly archive: ArchiveRows;
  readonly retention: Retention;
  readonly activity: ActivityLog;
  /** What agents read between actions, for routines (reads.ts). */
  readonly reads: ReadsLog;
  readonly text: FrameTextStore;
  readonly #db: Database.Database;
  #closed = false;

  /** Open (creating if needed) `dataDir/catalog.sqlite` and `dataDir/frames/`, migrating the schema. */
  static open(dataDir: string): Catalog {
    mkdirSync(join(dataDir, FRAMES_DIR), { recursive: true, mode: 0o700 });
    const db = new Database(privateFile(join(dataDir, CATALOG_FILE)));
    try {
      db.pragma('journal_mode = WAL');
      // WAL + NORMAL survives a process crash; a power cut may lose the last frames, never the index.
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      // Deleted rows (a frame's OCR text removed by retention) are overwritten, not left on free pages.
      db.pragma('secure_delete = ON');
      migrate(db);
      return new Catalog(dataDir, db);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  private constructor(dataDir: string, db: Database.Database) {
    super();
    this.dataDir = dataDir;
    this.framesDir = join(dataDir, FRAMES_DIR);
    this.#db = db;
    const queries = new Map<string, Database.Statement<Params[]>>();
    const context: CatalogContext = {
      dataDir,
      db,
      stmt: prepareStatements(db),
      files: new FileStore(dataDir),
      events: this,
      pending: new Set(),
      query(sql) {
        let s = queries.get(sql);
        if (!s) {
          s = db.prepare<Params[]>(sql);
          queries.set(sql, s);
        }
        return s;
      },
      closed: () => this.#closed,
    };
    this.frames = new FrameStore(context);
    this.archive = new ArchiveRows(context, this.frames);
    this.retention = new Retention(context, this.frames);
    this.activity = new ActivityLog(context);
    this.reads = new ReadsLog(context);
    this.text = new FrameTextStore(context);
    // Deleted frames took their text with them (a trigger): count again when next asked.
    this.on('frames-deleted', () => this.text.invalidateCount());
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#db.pragma('optimize');
    } finally {
      this.#db.close();
    }
  }
}
