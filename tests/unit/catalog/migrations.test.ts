import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CATALOG_FILE, Catalog } from '../../../src/main/core/catalog/catalog.ts';
import { MIGRATIONS, SCHEMA_VERSION, migrate } from '../../../src/main/core/catalog/migrations.ts';
import { openCatalog, tempDir } from './helpers.ts';

describe('migrations', () => {
  it('are numbered from 1 upwards, in order, the newest being the schema version', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions[0]).toBe(1);
    expect(versions.every((v, i) => i === 0 || v > (versions[i - 1] as number))).toBe(true);
    expect(SCHEMA_VERSION).toBe(versions[versions.length - 1]);
  });

  it('bring a version-1 catalog up to date and keep its frames', async () => {
    const dir = tempDir();
    const db = new Database(join(dir, CATALOG_FILE));
    expect(migrate(db, MIGRATIONS.slice(0, 1))).toEqual([1]);
    db.prepare(
      `INSERT INTO frames (ref, source, target, captured_at, captured_at_iso, image_w, image_h, source_w, source_h, origin_x, origin_y, scale, format, bytes, files, pinned)
       VALUES ('f_old', 'desktop', 'desktop:display:0', ?, '2024-12-01T09:00:00.000Z', 100, 50, 200, 100, 0, 0, 2, 'jpeg', 1234, ?, 1)`,
    ).run(Date.parse('2024-12-01T09:00:00.000Z'), JSON.stringify({ image: 'frames/2024-12-01/f_old.jpg' }));
    db.close();

    const c = openCatalog(dir);
    expect(c.frames.get('f_old')).toMatchObject({ ref: 'f_old', pinned: true, bytes: 1234, image: { width: 100, height: 50 }, state: {} });
    const check = new Database(join(dir, CATALOG_FILE), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    // Version 3 backfilled the bytes on disk, which retention by size relies on.
    expect(check.prepare('SELECT disk_bytes FROM frames WHERE ref = ?').pluck().get('f_old')).toBe(1234);
    check.close();
    // Version 2 added the activity log.
    expect(c.activity.append({ at: '2025-01-01T00:00:00Z', tool: 'click', result: 'ok', durationMs: 1 }).id).toBe(1);
  });

  it('roll a failing step back whole, leaving the version where it was', () => {
    const db = new Database(join(tempDir(), CATALOG_FILE));
    const broken = [...MIGRATIONS.slice(0, 1), { version: 2, name: 'broken', up: 'CREATE TABLE half (x); SELECT * FROM no_such_table;' }];
    expect(() => migrate(db, broken)).toThrow(/no_such_table/);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'half'").pluck().get()).toBe(0);
    db.close();
  });

  it('refuse a catalog written by a newer Sightline', () => {
    const dir = tempDir();
    const db = new Database(join(dir, CATALOG_FILE));
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => Catalog.open(dir)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED' }));
  });
});
