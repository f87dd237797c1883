/**
 * The catalog's text index: a deleted frame's words leave FTS5's segments (secure-delete), the
 * table keeps prefix indexes, text is deleted by app, and the in-memory count follows commits.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CATALOG_FILE } from '../../../src/main/core/catalog/catalog.ts';
import { sqliteAtLeast } from '../../../src/main/core/catalog/migrations.ts';
import { closeCatalog, frame, openCatalog, tempDir } from './helpers.ts';

const WORD = 'zanzibarquokka';

describe('the text index', () => {
  it('the bundled SQLite has FTS5 secure-delete (3.44 or newer)', () => {
    const db = new Database(':memory:');
    expect(sqliteAtLeast(db, [3, 44, 0])).toBe(true);
    expect(sqliteAtLeast(db, [99, 0, 0])).toBe(false);
    db.close();
  });

  it("retention takes a frame's words out of the index's segments, not only out of its results", async () => {
    const dir = tempDir();
    const c = openCatalog(dir);
    const keep = await c.frames.insert(frame({ minutesAgo: 0 }));
    const gone = await c.frames.insert(frame({ minutesAgo: 3 * 24 * 60 }));
    expect(c.text.put({ ref: keep.ref, text: 'ordinary words here', boxes: [], label: { app: 'Notes' }, status: 'read' })).toBe(true);
    expect(c.text.put({ ref: gone.ref, text: `the secret ${WORD} shown`, boxes: [], label: { app: 'Notes' }, status: 'read' })).toBe(true);
    expect(c.text.count()).toBe(2);
    expect(c.text.search({ match: `"${WORD}"`, limit: 5 }).hits).toHaveLength(1);
    expect(c.retention.apply({ maxAgeDays: 1, maxBytes: 1e12 }).deletedFrames).toBe(1);
    c.text.invalidateCount();
    expect(c.text.count()).toBe(1);
    closeCatalog(c);

    const db = new Database(join(dir, CATALOG_FILE), { readonly: true });
    expect(db.prepare("SELECT v FROM frame_text_config WHERE k = 'secure-delete'").pluck().get()).toBe(1);
    expect(String(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'frame_text'").pluck().get())).toContain("prefix = '2 3'");
    const blobs = db.prepare('SELECT block FROM frame_text_data').pluck().all() as (Buffer | null)[];
    expect(blobs.some((b) => b?.includes(Buffer.from('ordinary')))).toBe(true);
    expect(blobs.some((b) => b?.includes(Buffer.from(WORD)))).toBe(false);
    db.close();
    // Nor anywhere in the file: deleted rows are overwritten (secure_delete), not left on free pages.
    const files = [CATALOG_FILE, `${CATALOG_FILE}-wal`].map((f) => join(dir, f)).filter((f) => existsSync(f));
    for (const f of files) expect(readFileSync(f).includes(Buffer.from(WORD)), f).toBe(false);
  });

  it("deletes the text of the frames an app or title filter matches, and of frames with neither; the frames stay", async () => {
    const c = openCatalog();
    const a = await c.frames.insert(frame({ minutesAgo: 3 }));
    const b = await c.frames.insert(frame({ minutesAgo: 2 }));
    const d = await c.frames.insert(frame({ minutesAgo: 1 }));
    c.text.put({ ref: a.ref, text: 'one', boxes: [], label: { app: 'KeePassXC', title: 'Vault' }, status: 'read' });
    c.text.put({ ref: b.ref, text: 'two', boxes: [], label: { app: 'Notes', title: 'keepassxc tips' }, status: 'read' });
    c.text.put({ ref: d.ref, text: 'three', boxes: [], label: {}, status: 'read' });
    expect(c.text.count()).toBe(3);
    expect(c.text.deleteMatching('{app title} : "keepassxc"')).toBe(2);
    expect(c.text.count()).toBe(1);
    expect(c.text.deleteUnlabeled()).toBe(1);
    expect(c.text.count()).toBe(0);
    expect([a, b, d].every((f) => c.frames.get(f.ref))).toBe(true);
    // Text again for the same frame is one more, replacing it no more.
    c.text.put({ ref: a.ref, text: 'again', boxes: [], label: { app: 'Notes' }, status: 'read' });
    c.text.put({ ref: a.ref, text: 'again twice', boxes: [], label: { app: 'Notes' }, status: 'read' });
    expect(c.text.count()).toBe(1);
  });
});
