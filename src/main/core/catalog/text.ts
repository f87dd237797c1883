/**
 * The text index: what each frame showed (OCR text, window title, app, document) in an FTS5
 * table, the word boxes beside it, and the indexer's saved progress. A frame's text is deleted
 * with the frame by a trigger (migration 5), whoever deletes it.
 *
 * The FTS rowid is a time key, capture ms × 1024 + n: results come newest first and a time
 * window is a rowid range, both walked by FTS5 itself, with no sort and no join until the page
 * of results is known (docs/benchmarks.md, "Text index").
 */
import type { CatalogContext } from './context.ts';
import { dateMs, FRAME_COLUMNS, toRecord, type FrameRow } from './rows.ts';
import type { FrameLabel, FrameRecord } from './types.ts';

/** Frames that share a capture millisecond get consecutive keys; 1024 of them fit. */
export const KEY_SLOTS = 1024;

export type TextStatus = 'read' | 'unreadable';

export interface FrameTextEntry {
  ref: string;
  /** OCR lines joined by "\n", their words by " " (the i-th word owns the i-th box). */
  text: string;
  /** x, y, width, height per word of `text`, in image px of the frame (empty: no boxes). */
  boxes: readonly number[];
  label: FrameLabel;
  status: TextStatus;
  engine?: string;
  /** The frame whose screen this one shows up to noise (its own ref when read whole or in part). */
  screen?: string;
  /** How the text was had (text/frameReader.ts): read whole, the same as the frame before, or changed bands read. */
  reuse?: 'read' | 'same' | 'bands';
  /** The version of the reader that wrote it (0: unknown, an old one). */
  reader?: number;
}

/** A frame whose text an older reader wrote, with what it is labelled (for the exclusions). */
export interface StaleText {
  ref: string;
  key: number;
  label: FrameLabel;
}

const REUSE_CODE = { read: 0, same: 1, bands: 2 } as const;

export interface TextSearchQuery {
  /** An FTS5 expression (built by src/main/core/text/query.ts, never raw user input). */
  match: string;
  from?: Date;
  /** Exclusive. */
  to?: Date;
  limit: number;
  /** Matches to skip, newest first. */
  offset?: number;
  /** How many matches to count at most (the answer says "at least" beyond). */
  countUpTo?: number;
}

export interface TextHit {
  frame: FrameRecord;
  /** The best matching passage, matches between « and ». */
  snippet: string;
  text: string;
  boxes: number[];
  label: FrameLabel;
}

interface HitRow extends FrameRow {
  t_key: number;
  t_snippet: string;
  t_text: string;
  t_title: string;
  t_app: string;
  t_document: string;
  t_boxes: Buffer | null;
}

/**
 * Frames (in the order shown, e.g. newest first) folded into runs of near-identical ones: a run
 * goes on while the next frame has the same target and the same screen key (`screens`, from
 * FrameTextStore.screens). A frame without a key (no text yet) is a run of its own.
 */
export function screenRuns<F extends { ref: string; target: string }>(frames: readonly F[], screens: ReadonlyMap<string, string>): F[][] {
  const runs: F[][] = [];
  let key: string | undefined;
  for (const f of frames) {
    const screen = screens.get(f.ref);
    const k = screen === undefined ? undefined : `${f.target}\u0000${screen}`;
    const last = runs[runs.length - 1];
    if (last && k !== undefined && k === key) last.push(f);
    else runs.push([f]);
    key = k;
  }
  return runs;
}

export function timeKey(ms: number): number {
  return Math.floor(ms) * KEY_SLOTS;
}

/** Boxes as stored: uint16 little-endian quadruples (image sizes fit; 8 bytes a word). */
export function packBoxes(boxes: readonly number[]): Buffer | null {
  if (boxes.length === 0) return null;
  const b = Buffer.alloc(boxes.length * 2);
  boxes.forEach((v, i) => b.writeUInt16LE(Math.max(0, Math.min(65535, Math.round(v))), i * 2));
  return b;
}

export function unpackBoxes(b: Buffer | null | undefined): number[] {
  if (!b) return [];
  const out = new Array<number>(b.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = b.readUInt16LE(i * 2);
  return out;
}

export class FrameTextStore {
  readonly #c: CatalogContext;
  #count: number | undefined;

  constructor(context: CatalogContext) {
    this.#c = context;
  }

  /**
   * Store a frame's text (replacing any). Returns false when the frame is gone by now (deleted
   * while it was read): nothing is written then. Crops are never indexed.
   */
  put(e: FrameTextEntry): boolean {
    const c = this.#c;
    if (c.closed()) return false;
    const added = c.db.transaction((): 'added' | 'replaced' | undefined => {
      const f = c.query('SELECT captured_at, source FROM frames WHERE ref = @ref').get({ ref: e.ref }) as { captured_at: number; source: string } | undefined;
      if (!f) return undefined;
      const old = c.query('SELECT key FROM frame_text_meta WHERE ref = @ref').get({ ref: e.ref }) as { key: number } | undefined;
      if (old) c.query('DELETE FROM frame_text WHERE rowid = @key').run({ key: old.key });
      const key = old?.key ?? this.#freeKey(f.captured_at);
      c.query('INSERT INTO frame_text (rowid, text, title, app, document, source) VALUES (@key, @text, @title, @app, @document, @source)').run({
        key,
        text: e.text,
        title: e.label.title ?? '',
        app: e.label.app ?? '',
        document: e.label.document ?? '',
        source: f.source,
      });
      c.query(
        `INSERT INTO frame_text_meta (ref, key, status, engine, boxes, indexed_at, screen, reuse, reader) VALUES (@ref, @key, @status, @engine, @boxes, @at, @screen, @reuse, @reader)
         ON CONFLICT (ref) DO UPDATE SET status = excluded.status, engine = excluded.engine, boxes = excluded.boxes, indexed_at = excluded.indexed_at, screen = excluded.screen, reuse = excluded.reuse, reader = excluded.reader`,
      ).run({ ref: e.ref, key, status: e.status === 'read' ? 1 : 2, engine: e.engine ?? null, boxes: packBoxes(e.boxes), at: Date.now(), screen: e.screen ?? e.ref, reuse: REUSE_CODE[e.reuse ?? 'read'], reader: e.reader ?? 0 });
      return old ? 'replaced' : 'added';
    })();
    // Counted once committed (a transaction that throws leaves the count as it was).
    if (added === 'added' && this.#count !== undefined) this.#count++;
    return added !== undefined;
  }

  /**
   * Delete the text of every frame an FTS5 expression matches (e.g. `{app title} : "keepass"`:
   * an app newly excluded); returns how many frames lost their text. Their frames stay.
   */
  deleteMatching(match: string): number {
    if (this.#c.closed()) return 0;
    return this.#deleteKeys(`SELECT rowid AS key FROM frame_text WHERE frame_text MATCH @match`, { match });
  }

  /** Delete the text of every frame indexed with neither an app nor a title (its app unknown). */
  deleteUnlabeled(): number {
    if (this.#c.closed()) return 0;
    return this.#deleteKeys(`SELECT rowid AS key FROM frame_text WHERE app = '' AND title = ''`, {});
  }

  #deleteKeys(select: string, params: Record<string, unknown>): number {
    const c = this.#c;
    const n = c.db.transaction(() => {
      const keys = (c.query(select).all(params) as { key: number }[]).map((r) => r.key);
      if (keys.length === 0) return 0;
      const json = JSON.stringify(keys);
      c.query('DELETE FROM frame_text WHERE rowid IN (SELECT value FROM json_each(@keys))').run({ keys: json });
      c.query('DELETE FROM frame_text_meta WHERE key IN (SELECT value FROM json_each(@keys))').run({ keys: json });
      return keys.length;
    })();
    if (n > 0) this.#count = undefined;
    return n;
  }

  /** The first free key of a capture millisecond (frames of one instant: monitors, collisions). */
  #freeKey(ms: number): number {
    const lo = timeKey(ms);
    const top = this.#c.query('SELECT max(rowid) AS k FROM frame_text WHERE rowid >= @lo AND rowid < @hi').get({ lo, hi: lo + KEY_SLOTS }) as { k: number | null };
    if (top.k === null) return lo;
    if (top.k + 1 < lo + KEY_SLOTS) return top.k + 1;
    // 1024 frames in one millisecond: take any free key below (order within the ms is cosmetic).
    for (let k = lo; k < lo + KEY_SLOTS; k++) if (!this.#c.query('SELECT 1 FROM frame_text WHERE rowid = @k').get({ k })) return k;
    throw new Error(`More than ${KEY_SLOTS} frames were indexed for one millisecond (${new Date(ms).toISOString()}).`);
  }

  has(ref: string): boolean {
    if (this.#c.closed()) return false;
    return this.#c.query('SELECT 1 FROM frame_text_meta WHERE ref = @ref').get({ ref }) !== undefined;
  }

  /**
   * The screen key of each of `refs` that has text: consecutive frames of one target with the same
   * key show the same screen up to noise (a caret, a clock, JPEG), so a timeline can fold them.
   * Frames indexed before the key existed answer their own ref; frames without text are absent.
   */
  screens(refs: readonly string[]): Map<string, string> {
    if (refs.length === 0 || this.#c.closed()) return new Map();
    const rows = this.#c.query('SELECT ref, coalesce(screen, ref) AS screen FROM frame_text_meta WHERE ref IN (SELECT value FROM json_each(@refs))').all({ refs: JSON.stringify(refs) }) as { ref: string; screen: string }[];
    return new Map(rows.map((r) => [r.ref, r.screen]));
  }

  /** How many frames' text was read whole, taken from the frame before, or read in bands. */
  reuseCounts(): Record<'read' | 'same' | 'bands', number> {
    const out = { read: 0, same: 0, bands: 0 };
    if (this.#c.closed()) return out;
    const rows = this.#c.query('SELECT reuse, count(*) AS n FROM frame_text_meta WHERE status = 1 GROUP BY reuse').all({}) as { reuse: number; n: number }[];
    for (const r of rows) out[r.reuse === 1 ? 'same' : r.reuse === 2 ? 'bands' : 'read'] += r.n;
    return out;
  }

  /**
   * Frames whose text a reader older than `reader` wrote, newest first, below the time key
   * `beforeKey`: what is read again after an upgrade. Each older version is walked by the index
   * on (reader, key); there are only a few.
   */
  stale(reader: number, beforeKey: number, limit: number): StaleText[] {
    if (this.#c.closed() || reader <= 0) return [];
    const rows: (StaleText & { title: string; app: string; document: string })[] = [];
    for (let r = 0; r < reader; r++) {
      rows.push(
        ...(this.#c
          .query(
            `SELECT m.ref, m.key, t.title, t.app, t.document FROM frame_text_meta m JOIN frame_text t ON t.rowid = m.key
             WHERE m.reader = @r AND m.key < @before ORDER BY m.key DESC LIMIT @limit`,
          )
          .all({ r, before: beforeKey, limit }) as (StaleText & { title: string; app: string; document: string })[]),
      );
    }
    rows.sort((a, b) => b.key - a.key);
    return rows.slice(0, limit).map((row) => {
      const label: FrameLabel = {};
      if (row.title) label.title = row.title;
      if (row.app) label.app = row.app;
      if (row.document) label.document = row.document;
      return { ref: row.ref, key: row.key, label };
    });
  }

  /** How many frames' text a reader older than `reader` wrote. */
  countStale(reader: number): number {
    if (this.#c.closed() || reader <= 0) return 0;
    return (this.#c.query('SELECT count(*) AS n FROM frame_text_meta WHERE reader < @reader').get({ reader }) as { n: number }).n;
  }

  /** Record that `reader` has been over these frames (their text stays as it is): one that could not be read again is not tried forever. */
  markReader(refs: readonly string[], reader: number): void {
    if (refs.length === 0 || this.#c.closed()) return;
    this.#c.query('UPDATE frame_text_meta SET reader = @reader WHERE reader < @reader AND ref IN (SELECT value FROM json_each(@refs))').run({ reader, refs: JSON.stringify(refs) });
  }

  /** Which of `refs` have text already. */
  indexed(refs: readonly string[]): Set<string> {
    if (refs.length === 0 || this.#c.closed()) return new Set();
    const rows = this.#c.query('SELECT ref FROM frame_text_meta WHERE ref IN (SELECT value FROM json_each(@refs))').all({ refs: JSON.stringify(refs) }) as { ref: string }[];
    return new Set(rows.map((r) => r.ref));
  }

  /** Frames indexed in all (kept in memory after the first count). */
  count(): number {
    if (this.#c.closed()) return this.#count ?? 0;
    this.#count ??= (this.#c.query('SELECT count(*) AS n FROM frame_text_meta').get({}) as { n: number }).n;
    return this.#count;
  }

  /** Forget the cached count (frames were deleted: the trigger removed their text). */
  invalidateCount(): void {
    this.#count = undefined;
  }

  /**
   * Sightline's own frames (not crops, not the archive) with no text yet, newest first, captured
   * before `beforeMs`: what the indexer catches up on after a restart.
   */
  unindexedOwn(beforeMs: number, limit: number): FrameRecord[] {
    if (this.#c.closed()) return [];
    const rows = this.#c
      .query(
        `SELECT ${FRAME_COLUMNS} FROM frames f WHERE external = 0 AND parent_ref IS NULL AND captured_at < @before
           AND NOT EXISTS (SELECT 1 FROM frame_text_meta m WHERE m.ref = f.ref)
         ORDER BY captured_at DESC, rowid DESC LIMIT @limit`,
      )
      .all({ before: beforeMs, limit }) as FrameRow[];
    return rows.map(toRecord);
  }

  /** Indexed frames captured in [from, to), of one source when `source` is an FTS filter (for explaining an empty answer). */
  countIndexed(from?: Date, to?: Date, sourceMatch?: string): number {
    const lo = from ? timeKey(dateMs(from, 'from')) : Number.MIN_SAFE_INTEGER;
    const hi = to ? timeKey(dateMs(to, 'to')) : Number.MAX_SAFE_INTEGER;
    const sql = sourceMatch
      ? 'SELECT count(*) AS n FROM frame_text WHERE frame_text MATCH @m AND rowid >= @lo AND rowid < @hi'
      : 'SELECT count(*) AS n FROM frame_text WHERE rowid >= @lo AND rowid < @hi';
    return (this.#c.query(sql).get({ lo, hi, ...(sourceMatch ? { m: sourceMatch } : {}) }) as { n: number }).n;
  }

  /** Matching frames, newest first, with a snippet and their stored text and boxes. */
  search(q: TextSearchQuery): { hits: TextHit[]; total: number; more: boolean } {
    const lo = q.from ? timeKey(dateMs(q.from, 'from')) : Number.MIN_SAFE_INTEGER;
    const hi = q.to ? timeKey(dateMs(q.to, 'to')) : Number.MAX_SAFE_INTEGER;
    const offset = q.offset ?? 0;
    const params = { match: q.match, lo, hi, limit: q.limit, offset };
    // The page first (FTS5 walks its rowids downwards and stops), then its frames by ref.
    const rows = this.#c
      .query(
        `SELECT ${FRAME_COLUMNS.split(', ')
          .map((c) => `f.${c}`)
          .join(', ')}, t.key AS t_key, t.snippet AS t_snippet, t.text AS t_text, t.title AS t_title, t.app AS t_app, t.document AS t_document, m.boxes AS t_boxes
         FROM (SELECT rowid AS key, snippet(frame_text, -1, '«', '»', '…', 12) AS snippet, text, title, app, document
               FROM frame_text WHERE frame_text MATCH @match AND rowid >= @lo AND rowid < @hi ORDER BY rowid DESC LIMIT @limit OFFSET @offset) t
         JOIN frame_text_meta m ON m.key = t.key
         JOIN frames f ON f.ref = m.ref
         ORDER BY t.key DESC`,
      )
      .all(params) as HitRow[];
    const cap = Math.max(offset + q.limit, q.countUpTo ?? q.limit);
    // A short page is the last one: its end is the count (unless it is past the end).
    const counted =
      rows.length < q.limit && (rows.length > 0 || offset === 0)
        ? offset + rows.length
        : (this.#c.query('SELECT count(*) AS n FROM (SELECT 1 FROM frame_text WHERE frame_text MATCH @match AND rowid >= @lo AND rowid < @hi LIMIT @cap)').get({ match: q.match, lo, hi, cap: cap + 1 }) as { n: number }).n;
    const hits = rows.map((r): TextHit => {
      const label: FrameLabel = {};
      if (r.t_title) label.title = r.t_title;
      if (r.t_app) label.app = r.t_app;
      if (r.t_document) label.document = r.t_document;
      return { frame: toRecord(r), snippet: r.t_snippet, text: r.t_text, boxes: unpackBoxes(r.t_boxes), label };
    });
    return { hits, total: Math.min(counted, cap), more: counted > cap };
  }

  /** A saved progress value of the indexer (JSON), or undefined. */
  getState<T>(name: string): T | undefined {
    if (this.#c.closed()) return undefined;
    const row = this.#c.query('SELECT value FROM text_index_state WHERE name = @name').get({ name }) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  setState(name: string, value: unknown): void {
    if (this.#c.closed()) return;
    this.#c.query('INSERT INTO text_index_state (name, value) VALUES (@name, @value) ON CONFLICT (name) DO UPDATE SET value = excluded.value').run({ name, value: JSON.stringify(value) });
  }
}
