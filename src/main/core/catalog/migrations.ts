/**
 * Schema migrations, applied in order and recorded in `PRAGMA user_version`. Append only:
 * a released migration never changes, a new one goes at the end.
 */
import type Database from 'better-sqlite3';
import { SightlineError } from '../../../shared/errors.ts';

export interface Migration {
  version: number;
  name: string;
  up: string | ((db: Database.Database) => void);
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'frames',
    up: `
      CREATE TABLE frames (
        ref TEXT PRIMARY KEY NOT NULL,
        source TEXT NOT NULL,
        target TEXT NOT NULL,
        captured_at INTEGER NOT NULL,          -- epoch ms, for range queries
        captured_at_iso TEXT NOT NULL,         -- as given, with its UTC offset
        image_w INTEGER NOT NULL,
        image_h INTEGER NOT NULL,
        source_w REAL NOT NULL,
        source_h REAL NOT NULL,
        origin_x REAL NOT NULL,
        origin_y REAL NOT NULL,
        scale REAL NOT NULL,
        dpi REAL,
        monitor INTEGER,
        parent_ref TEXT,                       -- no foreign key: a pinned crop outlives its parent
        format TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        files TEXT NOT NULL,                   -- JSON: own files relative to the data dir, archive files absolute
        pinned INTEGER NOT NULL DEFAULT 0,
        annotation TEXT,
        state TEXT NOT NULL DEFAULT '{}',
        external INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX frames_time ON frames (captured_at);
      CREATE INDEX frames_source_time ON frames (source, captured_at);
      CREATE INDEX frames_target_time ON frames (target, captured_at);
      CREATE INDEX frames_pinned_time ON frames (captured_at) WHERE pinned = 1;
      CREATE INDEX frames_parent ON frames (parent_ref) WHERE parent_ref IS NOT NULL;
    `,
  },
  {
    version: 2,
    name: 'activity log',
    up: `
      CREATE TABLE activity (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        tool TEXT NOT NULL,
        source TEXT,
        target TEXT,
        result TEXT NOT NULL,
        message TEXT,
        image_x REAL,
        image_y REAL,
        source_x REAL,
        source_y REAL,
        frame_ref TEXT,
        after_ref TEXT,
        duration_ms REAL NOT NULL,
        params TEXT,
        client TEXT
      );
      CREATE INDEX activity_tool ON activity (tool, id);
      CREATE INDEX activity_target ON activity (target, id);
    `,
  },
  {
    version: 3,
    name: 'archive days, cached thumbnails, bytes on disk',
    up: `
      ALTER TABLE frames ADD COLUMN archive_day TEXT;
      ALTER TABLE frames ADD COLUMN thumb TEXT;            -- generated thumbnail, relative to the data dir
      ALTER TABLE frames ADD COLUMN disk_bytes INTEGER NOT NULL DEFAULT 0;
      UPDATE frames SET disk_bytes = bytes WHERE external = 0;
      CREATE INDEX frames_archive_day ON frames (archive_day) WHERE archive_day IS NOT NULL;
    `,
  },
  {
    version: 4,
    name: 'agent runs in the activity log',
    up: `
      ALTER TABLE activity ADD COLUMN run_id TEXT;
      ALTER TABLE activity ADD COLUMN run_dir TEXT;
      CREATE INDEX activity_run ON activity (run_id, id) WHERE run_id IS NOT NULL;
    `,
  },
  {
    version: 5,
    name: 'text index',
    up: (db) => {
      db.exec(`
      -- What the source said a frame showed when it was captured (JSON {title, app, document}).
      ALTER TABLE frames ADD COLUMN label TEXT;
      -- The searchable text of a frame: OCR lines (words split by spaces, lines by newlines), and
      -- its window title, app, document and source. The rowid is a time key (capture ms × 1024 + n),
      -- so newest-first results and time windows are rowid ranges FTS5 walks without sorting.
      -- prefix '2 3': prefix queries (budg*) read a prefix index, not every term of the vocabulary.
      CREATE VIRTUAL TABLE frame_text USING fts5 (text, title, app, document, source, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
      -- One row per indexed frame (by ref: rowids of a table without INTEGER PRIMARY KEY may change
      -- on VACUUM). boxes: uint16 LE x, y, width, height in image px per space-separated word of text.
      CREATE TABLE frame_text_meta (
        ref TEXT PRIMARY KEY NOT NULL,
        key INTEGER NOT NULL UNIQUE,
        status INTEGER NOT NULL,               -- 1 read, 2 unreadable (only the title, app, document are indexed)
        engine TEXT,
        boxes BLOB,
        indexed_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      -- The indexer's progress (e.g. how far back an archive is indexed), so a restart resumes.
      CREATE TABLE text_index_state (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
      -- A frame's text goes with it, whoever deletes it (retention, an archive rescan, a test).
      CREATE TRIGGER frames_text_gone AFTER DELETE ON frames BEGIN
        DELETE FROM frame_text WHERE rowid = (SELECT key FROM frame_text_meta WHERE ref = old.ref);
        DELETE FROM frame_text_meta WHERE ref = old.ref;
      END;
    `);
      // A deleted frame's words leave the index's segments too (not just a delete marker beside
      // them): retention and excluded apps really forget what a screen showed. SQLite ≥ 3.44.
      if (sqliteAtLeast(db, [3, 44, 0])) db.exec("INSERT INTO frame_text (frame_text, rank) VALUES ('secure-delete', 1)");
    },
  },
  {
    version: 6,
    name: 'what an action aimed at, by name',
    up: `
      -- The target's title and app when the action was made (JSON {title, app}): a closed tab or an
      -- unplugged device still reads by name in the log.
      ALTER TABLE activity ADD COLUMN target_label TEXT;
    `,
  },
  {
    version: 7,
    name: 'near-identical screens in the text index',
    up: `
      -- screen: the ref of the frame whose screen this one shows, up to noise (its own ref when its
      -- text was read); consecutive frames of one target that share it are near-identical, so a
      -- timeline can fold them. A key only, never joined: the frame it names may be gone.
      ALTER TABLE frame_text_meta ADD COLUMN screen TEXT;
      -- How the text was had: 0 read whole by OCR, 1 the same screen as the frame before (no OCR),
      -- 2 only the changed bands read, the rest kept.
      ALTER TABLE frame_text_meta ADD COLUMN reuse INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 8,
    name: 'archive rows grouped by their source',
    up: `
      -- An archive groups its rows (a folder of screenshots) by a key of its own choosing; the key
      -- means nothing to the catalog and is scoped by the archive's source.
      ALTER TABLE frames RENAME COLUMN archive_day TO archive_group;
      DROP INDEX IF EXISTS frames_archive_day;
      CREATE INDEX frames_archive_group ON frames (source, archive_group) WHERE archive_group IS NOT NULL;
    `,
  },
  {
    version: 9,
    name: 'own frames and their names, indexed apart from the archive',
    up: `
      -- The timeline counts and pages Sightline's own frames (external = 0) before an anchor: without
      -- this the count reads every row to test external (80 ms at 100,000 frames), with it the count
      -- is a walk of this index alone. The WHERE must match the query's literal exactly.
      CREATE INDEX IF NOT EXISTS frames_own_time ON frames (captured_at) WHERE external = 0;
      -- Each target's newest labelled frame, found per target by a seek instead of a scan of all rows.
      CREATE INDEX IF NOT EXISTS frames_own_target_label ON frames (target, captured_at) WHERE label IS NOT NULL AND external = 0;
    `,
  },
  {
    version: 10,
    name: 'which reader wrote a frame\'s text',
    up: `
      -- The version of the reader that wrote a frame's text (0: written before versions were kept).
      -- Text written by an older reader is read again in the background, newest first (per reader
      -- version, by this index), while search goes on answering with it.
      ALTER TABLE frame_text_meta ADD COLUMN reader INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX frame_text_meta_reader ON frame_text_meta (reader, key);
    `,
  },
  {
    version: 11,
    name: 'actions by session and by frame; the names targets were listed under',
    up: `
      -- The MCP session that asked: the log groups one client connection's actions as it groups a run's.
      ALTER TABLE activity ADD COLUMN session TEXT;
      CREATE INDEX activity_session ON activity (session) WHERE session IS NOT NULL;
      -- The viewer says which action a frame belongs to: the one acted in it, or the one it was taken after.
      CREATE INDEX activity_frame_ref ON activity (frame_ref) WHERE frame_ref IS NOT NULL;
      CREATE INDEX activity_after_ref ON activity (after_ref) WHERE after_ref IS NOT NULL;
      -- What each target was called when it was last listed (a device's name): kept after it is
      -- gone, as a closed tab keeps its title in its frames' labels.
      CREATE TABLE target_names (
        target TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        seen_at TEXT NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 12,
    name: 'what an action aimed at and what came of it',
    up: `
      -- JSON: the element hit or typed into (role, name), the page navigated to. A routine saved
      -- from the log aims its steps by these and checks them on replay.
      ALTER TABLE activity ADD COLUMN outcome TEXT;
    `,
  },
  {
    version: 13,
    name: 'what an agent read between its actions',
    up: `
      -- A text found, a tree query, a wait: not actions, so not in the activity log, but what a
      -- routine saved from the run waits for and reads back. after_action is the newest activity
      -- entry when the read was made: the action it followed.
      CREATE TABLE reads (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        tool TEXT NOT NULL,
        target TEXT NOT NULL,
        params TEXT NOT NULL,
        client TEXT,
        session TEXT,
        run_id TEXT,
        after_action INTEGER NOT NULL
      );
      CREATE INDEX reads_after_action ON reads (after_action);
    `,
  },
];

/** The linked SQLite is at least version `want` ([major, minor, patch]). */
export function sqliteAtLeast(db: Database.Database, want: readonly [number, number, number]): boolean {
  const have = String((db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v)
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < 3; i++) {
    const a = have[i] ?? 0;
    const b = want[i] as number;
    if (a !== b) return a > b;
  }
  return true;
}

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** Bring `db` up to the newest version; each step is one transaction. Returns the versions applied. */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > latest) {
    throw new SightlineError(
      'UNSUPPORTED',
      `The catalog in ${db.name} has schema version ${current}; this Sightline knows versions up to ${latest}.`,
      'Run a newer Sightline, or point --data-dir at another directory.',
    );
  }
  const applied: number[] = [];
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      if (typeof m.up === 'string') db.exec(m.up);
      else m.up(db);
      db.pragma(`user_version = ${m.version}`);
    })();
    applied.push(m.version);
  }
  return applied;
}
