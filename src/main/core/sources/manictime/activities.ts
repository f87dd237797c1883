/**
 * What the user was doing, from ManicTime's `ManicTimeReports.db`, behind an
 * interface so the screenshot pipeline works without it.
 *
 * The database is opened read-only (`fileMustExist`); ManicTime writes to it while
 * it runs, so SQLITE_BUSY is expected: a short busy timeout, a few retries with
 * backoff, then the caller degrades (interval sampling, no activity labels) until
 * the next call. Timelines are found by SchemaName (or BaseSchemaName), never by
 * id; Ar_Activity joins Ar_Group on both ReportId and GroupId (group ids repeat
 * across timelines). Times are TEXT `YYYY-MM-DD HH:MM:SS`; the UTC columns are used.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { buildSegments, type ActivitySegment, type ActivitySpan } from './sampling.ts';

export type { ActivitySegment };

export const SCHEMA_APPLICATIONS = 'ManicTime/Applications';
export const SCHEMA_DOCUMENTS = 'ManicTime/Documents';

export type ActivityState = 'ok' | 'missing' | 'unreadable' | 'schema' | 'busy' | 'none';

export interface ActivityStatus {
  state: ActivityState;
  /** Human-readable detail for health and warnings. */
  detail?: string;
}

export interface ActivityTimeline {
  segments: ActivitySegment[];
  /** Window titles (the Applications timeline's activities), for the text index. */
  titles?: ActivitySpan[];
  /** False when the window held more activities than one read takes: the segments stop early. */
  complete: boolean;
}

export interface ActivityProvider {
  /**
   * Segments of constant (application, document) overlapping [fromMs, toMs], or
   * null when the data cannot be read now (see `status()`).
   */
  segments(fromMs: number, toMs: number): Promise<ActivityTimeline | null>;
  status(): ActivityStatus;
  close(): void;
}

/** A provider for when there is no database at all. */
export function noActivities(detail = 'no activity database configured'): ActivityProvider {
  return {
    segments: () => Promise.resolve(null),
    status: () => ({ state: 'none', detail }),
    close: () => undefined,
  };
}

/** `YYYY-MM-DD HH:MM:SS[.fff]` (UTC) → ms; NaN when malformed. */
export function parseSqlTime(text: unknown): number {
  if (typeof text !== 'string' || text.length < 19) return Number.NaN;
  const ms = Date.parse(`${text.slice(0, 10)}T${text.slice(11)}Z`);
  return ms;
}

/** ms → `YYYY-MM-DD HH:MM:SS` (UTC). */
export function formatSqlTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

export interface ReportsDbOptions {
  /** SQLite busy timeout per statement (blocks the thread: keep it short). */
  busyTimeoutMs?: number;
  /** Extra attempts after SQLITE_BUSY, with doubling async delays. */
  retries?: number;
  retryDelayMs?: number;
  /** Cap on activities read for one window. */
  maxRows?: number;
}

interface Row {
  schema: string;
  name: string | null;
  groupName: string | null;
  s: string | null;
  e: string | null;
}

function isBusy(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

export function createReportsDbProvider(dbPath: string, options: ReportsDbOptions = {}): ActivityProvider {
  const busyTimeoutMs = options.busyTimeoutMs ?? 100;
  const retries = options.retries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 25;
  const maxRows = options.maxRows ?? 50_000;
  let db: Database.Database | undefined;
  let status: ActivityStatus = { state: 'ok' };

  const open = (): Database.Database => {
    if (!db) db = new Database(dbPath, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
    return db;
  };

  const queryOnce = (fromMs: number, toMs: number): Row[] => {
    const conn = open();
    return conn
      .prepare(
        `SELECT t.SchemaName AS schema, a.Name AS name, g.Name AS groupName, a.StartUtcTime AS s, a.EndUtcTime AS e
         FROM Ar_Activity a
         JOIN Ar_Timeline t ON t.ReportId = a.ReportId
         LEFT JOIN Ar_Group g ON g.ReportId = a.ReportId AND g.GroupId = a.GroupId
         WHERE (t.SchemaName IN (@apps, @docs) OR t.BaseSchemaName IN (@apps, @docs))
           AND a.StartUtcTime < @to AND a.EndUtcTime > @from
         ORDER BY a.StartUtcTime
         LIMIT @limit`,
      )
      .all({ apps: SCHEMA_APPLICATIONS, docs: SCHEMA_DOCUMENTS, from: formatSqlTime(fromMs), to: formatSqlTime(toMs + 1000), limit: maxRows }) as Row[];
  };

  const classify = (e: unknown): ActivityStatus => {
    const err = e as { code?: string; message?: string };
    const msg = err.message ?? String(e);
    if (isBusy(e)) return { state: 'busy', detail: `ManicTime is writing to ${dbPath} (SQLITE_BUSY)` };
    if (err.code === 'SQLITE_CANTOPEN' || /does not exist|unable to open/i.test(msg)) return { state: 'missing', detail: `${dbPath} not found or not readable` };
    if (/no such (table|column)/i.test(msg)) return { state: 'schema', detail: `unexpected ManicTimeReports.db schema (${msg})` };
    return { state: 'unreadable', detail: `cannot read ${dbPath} (${err.code ?? 'error'}: ${msg})` };
  };

  return {
    async segments(fromMs, toMs) {
      for (let attempt = 0; ; attempt++) {
        try {
          const rows = queryOnce(fromMs, toMs);
          status = { state: 'ok' };
          const apps: ActivitySpan[] = [];
          const docs: ActivitySpan[] = [];
          const titles: ActivitySpan[] = [];
          for (const r of rows) {
            const startMs = parseSqlTime(r.s);
            const endMs = parseSqlTime(r.e);
            if (!(endMs > startMs)) continue;
            // Applications: the group is the application, the activity its window title.
            // Documents: the activity is the document (file, URL), the group its folder or site.
            if (r.schema === SCHEMA_DOCUMENTS || r.schema.endsWith('/Documents')) {
              const value = r.name ?? r.groupName;
              if (value) docs.push({ startMs, endMs, value });
            } else {
              const value = r.groupName ?? r.name;
              if (value) apps.push({ startMs, endMs, value });
              if (r.groupName && r.name) titles.push({ startMs, endMs, value: r.name });
            }
          }
          return { segments: buildSegments(apps, docs), titles: titles.sort((a, b) => a.startMs - b.startMs), complete: rows.length < maxRows };
        } catch (e) {
          status = classify(e);
          if (status.state === 'busy' && attempt < retries) {
            await sleep(retryDelayMs * 2 ** attempt);
            continue;
          }
          // A connection that failed for another reason is reopened next time (ManicTime may have been installed since).
          if (status.state !== 'busy') {
            db?.close();
            db = undefined;
          }
          return null;
        }
      }
    },
    status: () => status,
    close() {
      db?.close();
      db = undefined;
    },
  };
}
