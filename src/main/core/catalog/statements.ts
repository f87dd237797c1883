/** The catalog's prepared statements, made once per database. */
import type Database from 'better-sqlite3';
import { FRAME_COLUMNS, type FrameRow, type Params } from './rows.ts';

export interface RetentionRow {
  ref: string;
  files: string;
  thumb: string | null;
  disk_bytes: number;
}

export function prepareStatements(db: Database.Database) {
  const subtree = (seed: string) => `
    WITH RECURSIVE doomed(ref) AS (
      ${seed}
      UNION
      SELECT f.ref FROM frames f JOIN doomed d ON f.parent_ref = d.ref WHERE f.pinned = 0 AND f.external = 0
    )
    SELECT f.ref, f.files, f.thumb, f.disk_bytes FROM frames f JOIN doomed USING (ref)`;
  return {
    exists: db.prepare<[string], { 1: number }>('SELECT 1 FROM frames WHERE ref = ?'),
    get: db.prepare<[string], FrameRow>(`SELECT ${FRAME_COLUMNS} FROM frames WHERE ref = ?`),
    latestRoot: db.prepare<[string, string], FrameRow>(
      `SELECT ${FRAME_COLUMNS} FROM frames WHERE target = ? AND source = ? AND parent_ref IS NULL ORDER BY captured_at DESC, rowid DESC LIMIT 1`,
    ),
    latestAny: db.prepare<[string, string], FrameRow>(`SELECT ${FRAME_COLUMNS} FROM frames WHERE target = ? AND source = ? ORDER BY captured_at DESC, rowid DESC LIMIT 1`),
    insert: db.prepare<[Params]>(`
      INSERT INTO frames (ref, source, target, captured_at, captured_at_iso, image_w, image_h, source_w, source_h, origin_x, origin_y, scale, dpi, monitor,
                          parent_ref, format, bytes, files, state, external, archive_group, disk_bytes, label)
      VALUES (@ref, @source, @target, @captured_at, @captured_at_iso, @image_w, @image_h, @source_w, @source_h, @origin_x, @origin_y, @scale, @dpi, @monitor,
              @parent_ref, @format, @bytes, @files, @state, @external, @archive_group, @disk_bytes, @label)`),
    // An unchanged row is not rewritten (changes() stays 0), so a rescan reports only what moved.
    // A ref already used by one of Sightline's own frames is left alone.
    upsertArchive: db.prepare<[Params]>(`
      INSERT INTO frames (ref, source, target, captured_at, captured_at_iso, image_w, image_h, source_w, source_h, origin_x, origin_y, scale, dpi, monitor,
                          parent_ref, format, bytes, files, state, external, archive_group, disk_bytes)
      VALUES (@ref, @source, @target, @captured_at, @captured_at_iso, @image_w, @image_h, @source_w, @source_h, @origin_x, @origin_y, @scale, @dpi, @monitor,
              NULL, @format, @bytes, @files, @state, 1, @archive_group, 0)
      ON CONFLICT (ref) DO UPDATE SET
        source = excluded.source, target = excluded.target, captured_at = excluded.captured_at, captured_at_iso = excluded.captured_at_iso,
        image_w = excluded.image_w, image_h = excluded.image_h, source_w = excluded.source_w, source_h = excluded.source_h,
        origin_x = excluded.origin_x, origin_y = excluded.origin_y, scale = excluded.scale, dpi = excluded.dpi, monitor = excluded.monitor,
        format = excluded.format, bytes = excluded.bytes, files = excluded.files, state = excluded.state, archive_group = excluded.archive_group,
        -- a cached thumbnail of another file is stale; sweep() removes its orphaned file
        thumb = CASE WHEN frames.files = excluded.files THEN frames.thumb ELSE NULL END,
        disk_bytes = CASE WHEN frames.files = excluded.files THEN frames.disk_bytes ELSE 0 END
      WHERE frames.external = 1 AND (
        frames.source, frames.target, frames.captured_at, frames.captured_at_iso, frames.image_w, frames.image_h, frames.source_w, frames.source_h,
        frames.origin_x, frames.origin_y, frames.scale, frames.dpi, frames.monitor, frames.format, frames.bytes, frames.files, frames.state, frames.archive_group
      ) IS NOT (
        excluded.source, excluded.target, excluded.captured_at, excluded.captured_at_iso, excluded.image_w, excluded.image_h, excluded.source_w, excluded.source_h,
        excluded.origin_x, excluded.origin_y, excluded.scale, excluded.dpi, excluded.monitor, excluded.format, excluded.bytes, excluded.files, excluded.state, excluded.archive_group
      )`),
    archiveGroupGone: db.prepare<[string, string, string], { ref: string; thumb: string | null }>(
      'SELECT ref, thumb FROM frames WHERE source = ? AND archive_group = ? AND external = 1 AND ref NOT IN (SELECT value FROM json_each(?))',
    ),
    deleteFrame: db.prepare<[string]>('DELETE FROM frames WHERE ref = ?'),
    setPinned: db.prepare<[number, string]>('UPDATE frames SET pinned = ? WHERE ref = ?'),
    setAnnotation: db.prepare<[string | null, string]>('UPDATE frames SET annotation = ? WHERE ref = ?'),
    setFull: db.prepare<[string, number, string, string]>('UPDATE frames SET files = ?, disk_bytes = disk_bytes + ? WHERE ref = ? AND files = ?'),
    setThumb: db.prepare<[string, number, string]>('UPDATE frames SET thumb = ?, disk_bytes = disk_bytes + ? WHERE ref = ? AND thumb IS NULL'),
    expiredWithCrops: db.prepare<[number], RetentionRow>(subtree('SELECT ref FROM frames WHERE external = 0 AND pinned = 0 AND captured_at < ?')),
    withCrops: db.prepare<[string], RetentionRow>(subtree('SELECT ?')),
    // Own frames only: archive rows cannot be deleted to make room.
    totalBytes: db.prepare('SELECT sum(disk_bytes) AS n FROM frames WHERE external = 0'),
    oldestOwn: db.prepare<[], { ref: string }>('SELECT ref FROM frames WHERE external = 0 AND pinned = 0 ORDER BY captured_at ASC, rowid ASC'),
    insertActivity: db.prepare<[Params]>(`
      INSERT INTO activity (at, tool, source, target, result, message, image_x, image_y, source_x, source_y, frame_ref, after_ref, duration_ms, params, client, run_id, run_dir, target_label, outcome, session)
      VALUES (@at, @tool, @source, @target, @result, @message, @image_x, @image_y, @source_x, @source_y, @frame_ref, @after_ref, @duration_ms, @params, @client, @run_id, @run_dir, @target_label, @outcome, @session)`),
    rememberTargetName: db.prepare<[string, string, string]>(
      'INSERT INTO target_names (target, name, seen_at) VALUES (?, ?, ?) ON CONFLICT (target) DO UPDATE SET name = excluded.name, seen_at = excluded.seen_at WHERE name <> excluded.name',
    ),
    listedTargetNames: db.prepare<[], { target: string; name: string }>('SELECT target, name FROM target_names'),
    frameLabel: db.prepare<[string], { label: string | null; image_w: number; image_h: number }>('SELECT label, image_w, image_h FROM frames WHERE ref = ?'),
    // The newest labelled frame of a target (frames_target_time walks it newest first).
    targetLabel: db.prepare<[string], { label: string }>('SELECT label FROM frames WHERE target = ? AND label IS NOT NULL ORDER BY captured_at DESC LIMIT 1'),
    // Every target's newest name: its frames' labels, and what the activity log kept for it.
    // Targets are walked one distinct value at a time and each newest label is one seek (both on
    // frames_own_target_label): a GROUP BY would read every labelled row, 150 ms at 100,000 frames.
    frameTargetNames: db.prepare<[], { target: string; label: string }>(
      `WITH RECURSIVE t(target) AS (
         SELECT min(target) FROM frames WHERE label IS NOT NULL AND external = 0
         UNION ALL
         SELECT (SELECT min(target) FROM frames WHERE label IS NOT NULL AND external = 0 AND target > t.target) FROM t WHERE t.target IS NOT NULL
       )
       SELECT t.target, (SELECT label FROM frames WHERE target = t.target AND label IS NOT NULL AND external = 0 ORDER BY captured_at DESC LIMIT 1) AS label
       FROM t WHERE t.target IS NOT NULL`,
    ),
    activityTargetNames: db.prepare<[], { target: string; label: string }>(
      'SELECT target, target_label AS label, max(id) FROM activity WHERE target_label IS NOT NULL AND target IS NOT NULL GROUP BY target',
    ),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
