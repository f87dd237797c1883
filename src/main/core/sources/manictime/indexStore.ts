/**
 * Where the day records live between runs: a table of our own in the catalog's
 * SQLite database (one row per day folder: fingerprint, summary, packed shots),
 * or memory when no database handle is available. The catalog itself only gets
 * rows for the screenshots a client was actually given (see source.ts).
 */
import type Database from 'better-sqlite3';
import type { DayRecord, DaySummary } from './dayRecord.ts';

export interface IndexStore {
  /** Every indexed day, without the packed shots. */
  summaries(): DaySummary[];
  load(day: string): Buffer | undefined;
  /** Replace these days and delete `removed`, in one transaction. */
  write(records: readonly DayRecord[], removed: readonly string[]): void;
  clear(): void;
}

export function createMemoryStore(): IndexStore {
  const rows = new Map<string, DayRecord>();
  return {
    summaries: () => [...rows.values()].map(summaryOf),
    load: (day) => rows.get(day)?.data,
    write(records, removed) {
      for (const d of removed) rows.delete(d);
      for (const r of records) rows.set(r.day, r);
    },
    clear: () => rows.clear(),
  };
}

function summaryOf(r: DaySummary): DaySummary {
  return {
    day: r.day,
    fingerprint: r.fingerprint,
    subdirs: r.subdirs,
    count: r.count,
    files: r.files,
    unknown: r.unknown,
    firstMs: r.firstMs,
    lastMs: r.lastMs,
    hot: r.hot,
  };
}

/** Bumped when the record layout changes: old rows are dropped and rebuilt. */
const SCHEMA_VERSION = 1;
const TABLE = 'manictime_days';

interface Row {
  day: string;
  fingerprint: string;
  subdirs: string;
  count: number;
  files: number;
  unknown: number;
  first_ms: number;
  last_ms: number;
  hot: number;
}

export function createSqliteStore(db: Database.Database): IndexStore {
  db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE}_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  const version = db.prepare(`SELECT value FROM ${TABLE}_meta WHERE key = 'schema'`).pluck().get() as string | undefined;
  if (version !== String(SCHEMA_VERSION)) {
    db.exec(`DROP TABLE IF EXISTS ${TABLE}`);
    db.prepare(`INSERT OR REPLACE INTO ${TABLE}_meta (key, value) VALUES ('schema', ?)`).run(String(SCHEMA_VERSION));
  }
  db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
    day TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    subdirs TEXT NOT NULL,
    count INTEGER NOT NULL,
    files INTEGER NOT NULL,
    unknown INTEGER NOT NULL,
    first_ms INTEGER NOT NULL,
    last_ms INTEGER NOT NULL,
    hot INTEGER NOT NULL,
    data BLOB NOT NULL
  )`);
  const selectAll = db.prepare(`SELECT day, fingerprint, subdirs, count, files, unknown, first_ms, last_ms, hot FROM ${TABLE}`);
  const selectData = db.prepare(`SELECT data FROM ${TABLE} WHERE day = ?`).pluck();
  const upsert = db.prepare(
    `INSERT OR REPLACE INTO ${TABLE} (day, fingerprint, subdirs, count, files, unknown, first_ms, last_ms, hot, data)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const del = db.prepare(`DELETE FROM ${TABLE} WHERE day = ?`);
  const write = db.transaction((records: readonly DayRecord[], removed: readonly string[]) => {
    for (const d of removed) del.run(d);
    for (const r of records) {
      upsert.run(r.day, r.fingerprint, JSON.stringify(r.subdirs), r.count, r.files, r.unknown, r.firstMs, r.lastMs, r.hot ? 1 : 0, r.data);
    }
  });
  return {
    summaries: () =>
      (selectAll.all() as Row[]).map((r) => ({
        day: r.day,
        fingerprint: r.fingerprint,
        subdirs: JSON.parse(r.subdirs) as string[],
        count: r.count,
        files: r.files,
        unknown: r.unknown,
        firstMs: r.first_ms,
        lastMs: r.last_ms,
        hot: r.hot === 1,
      })),
    load: (day) => (selectData.get(day) as Buffer | undefined) ?? undefined,
    write: (records, removed) => write(records, removed),
    clear: () => db.exec(`DELETE FROM ${TABLE}`),
  };
}
