/** ManicTimeReports.db through the ActivityProvider, on real SQLite files. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReportsDbProvider, parseSqlTime } from '../../../src/main/core/sources/manictime/activities.ts';
import { createReportsDb, utcOf, type FixtureActivity } from '../../support/manictimeFixture.ts';

let dir: string;
let dbPath: string;
const at = (time: string): number => utcOf('2024-04-01', time, 120);
const activities: FixtureActivity[] = [
  { timeline: 'applications', group: 'Google Chrome', name: 'Example A - Chrome', startUtcMs: at('09:00:00'), endUtcMs: at('09:25:00'), offsetMinutes: 120 },
  { timeline: 'applications', group: 'Visual Studio Code', name: 'report.ts - Code', startUtcMs: at('09:25:00'), endUtcMs: at('10:10:00'), offsetMinutes: 120 },
  { timeline: 'documents', group: 'example.com', name: 'https://example.com/a', startUtcMs: at('09:00:00'), endUtcMs: at('09:25:00'), offsetMinutes: 120 },
  { timeline: 'documents', group: 'C:\\work', name: 'report.ts', startUtcMs: at('09:25:00'), endUtcMs: at('10:10:00'), offsetMinutes: 120 },
];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sightline-mtdb-'));
  dbPath = join(dir, 'ManicTimeReports.db');
  createReportsDb(dbPath, activities);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createReportsDbProvider', () => {
  it('reads applications and documents by SchemaName, joining groups on ReportId and GroupId', async () => {
    const p = createReportsDbProvider(dbPath);
    try {
      // Group ids 1 and 2 exist in both timelines (and 1 in ComputerUsage): a GroupId-only join would mix them up.
      const tl = await p.segments(at('08:00:00'), at('11:00:00'));
      expect(tl?.complete).toBe(true);
      expect(tl?.segments.map((s) => [new Date(s.startMs).toISOString().slice(11, 16), s.app, s.document])).toEqual([
        ['07:00', 'Google Chrome', 'https://example.com/a'],
        ['07:25', 'Visual Studio Code', 'report.ts'],
      ]);
      expect(p.status().state).toBe('ok');
      // Only activities overlapping the window.
      expect((await p.segments(at('10:30:00'), at('11:00:00')))?.segments).toEqual([]);
      // A window with more activities than one read takes is flagged incomplete.
      const capped = createReportsDbProvider(dbPath, { maxRows: 2 });
      expect((await capped.segments(at('08:00:00'), at('11:00:00')))?.complete).toBe(false);
      capped.close();
    } finally {
      p.close();
    }
  });

  it('opens the database read-only', async () => {
    const p = createReportsDbProvider(dbPath);
    try {
      await p.segments(at('08:00:00'), at('11:00:00'));
      // A write through a second, writable connection still works (we hold no write lock) …
      const w = new Database(dbPath);
      w.prepare("UPDATE Ar_Timeline SET BaseSchemaName = BaseSchemaName WHERE ReportId = 1").run();
      w.close();
    } finally {
      p.close();
    }
    // … and our connection itself refuses writes.
    const ro = new Database(dbPath, { readonly: true, fileMustExist: true });
    expect(() => ro.prepare('DELETE FROM Ar_Activity').run()).toThrow(/readonly/);
    ro.close();
  });

  it('tolerates SQLITE_BUSY: retries, degrades to null, recovers when ManicTime is done', async () => {
    const p = createReportsDbProvider(dbPath, { busyTimeoutMs: 20, retries: 2, retryDelayMs: 5 });
    const writer = new Database(dbPath);
    try {
      writer.exec('BEGIN EXCLUSIVE');
      const started = performance.now();
      expect(await p.segments(at('08:00:00'), at('11:00:00'))).toBeNull();
      expect(p.status()).toMatchObject({ state: 'busy' });
      expect(performance.now() - started).toBeLessThan(2_000);
      writer.exec('COMMIT');
      expect((await p.segments(at('08:00:00'), at('11:00:00')))?.segments).toHaveLength(2);
      expect(p.status().state).toBe('ok');
    } finally {
      if (writer.inTransaction) writer.exec('ROLLBACK');
      writer.close();
      p.close();
    }
  });

  it('says why when the file is missing, not a database, or has another schema', async () => {
    const missing = createReportsDbProvider(join(dir, 'nope.db'));
    expect(await missing.segments(0, 1)).toBeNull();
    expect(missing.status().state).toBe('missing');

    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'x'.repeat(4096));
    const bad = createReportsDbProvider(junk);
    expect(await bad.segments(0, 1)).toBeNull();
    expect(bad.status()).toMatchObject({ state: 'unreadable' });
    expect(bad.status().detail).toMatch(/not a database/);

    const other = join(dir, 'other.db');
    const o = new Database(other);
    o.exec('CREATE TABLE Something (x)');
    o.close();
    const schema = createReportsDbProvider(other);
    expect(await schema.segments(0, 1)).toBeNull();
    expect(schema.status().state).toBe('schema');
    for (const p of [missing, bad, schema]) p.close();
  });

  it('parses ManicTime TEXT times as UTC', () => {
    expect(parseSqlTime('2024-04-01 07:25:00')).toBe(Date.UTC(2024, 3, 1, 7, 25));
    expect(parseSqlTime('2024-04-01 07:25:00.5')).toBe(Date.UTC(2024, 3, 1, 7, 25, 0, 500));
    expect(parseSqlTime(null)).toBeNaN();
  });
});
