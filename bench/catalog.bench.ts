/**
 * Catalog: insert rate of the atomic file+row path, and the hot query of `list_screenshots`
 * (a one-day window, newest first, max 20) over 100,000 frames and then over 1,000,000 more
 * archive rows; the floor is the same SQL through bare better-sqlite3 on the same file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CATALOG_FILE, Catalog } from '../src/main/core/catalog/catalog.ts';
import type { ArchiveFrame, FrameListQuery, NewFrame } from '../src/main/core/catalog/types.ts';
import type { SourceName } from '../src/shared/frame.ts';
import type { BenchRow, BenchSection } from './types.ts';

const FRAMES = 100_000;
const SEQUENTIAL = 2_000;
const CONCURRENCY = 32;
const DAYS = 30;
const ARCHIVE_ROWS = Number(process.env.SIGHTLINE_BENCH_ARCHIVE_ROWS ?? 1_000_000);
const QUERY_RUNS = 400;
const DAY_MS = 86_400_000;
const START = Date.parse('2025-01-01T00:00:00Z');
const TARGETS: [SourceName, string][] = [
  ['desktop', 'desktop:display:0'],
  ['desktop', 'desktop:window:0x1e00003'],
  ['browser', 'browser:A1B2C3'],
  ['browser', 'browser:D4E5F6'],
  ['android', 'android:emulator-5554'],
  ['android', 'android:R58M123'],
];

const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

function newFrame(i: number): NewFrame {
  const [source, target] = TARGETS[i % TARGETS.length]!;
  return {
    source,
    target,
    // Spread evenly over DAYS days.
    capturedAt: new Date(START + Math.floor((i * DAYS * DAY_MS) / FRAMES)).toISOString(),
    image: { width: 1000, height: 563 },
    sourceSize: { width: 1920, height: 1080 },
    origin: { x: 0, y: 0 },
    scale: 1.92,
    format: 'jpeg',
    data: Buffer.from(`tiny-${i}`),
    state: { i },
  };
}

function archiveRow(i: number, total: number): ArchiveFrame {
  const t = START + Math.floor((i * DAYS * DAY_MS) / total);
  const day = new Date(t).toISOString().slice(0, 10);
  return {
    ref: `m_${i.toString(36)}`,
    source: 'manictime',
    target: 'manictime:monitor:1',
    capturedAt: new Date(t).toISOString(),
    image: { width: 1920, height: 1080 },
    format: 'jpeg',
    imagePath: `/archive/Screenshots/${day}/${i}.jpg`,
    monitor: 1,
    group: day,
  };
}

/** p50 of `f` over QUERY_RUNS random one-day windows, after a warm-up. */
function timeQuery(f: (from: Date, to: Date) => unknown, seed = 1): number {
  let s = seed;
  const day = (): number => (s = (s * 48271) % 2147483647) % DAYS;
  for (let i = 0; i < 50; i++) f(new Date(START + day() * DAY_MS), new Date(START + (day() + 1) * DAY_MS));
  const times: number[] = [];
  for (let i = 0; i < QUERY_RUNS; i++) {
    const d = day();
    const from = new Date(START + d * DAY_MS);
    const to = new Date(from.getTime() + DAY_MS);
    const t = performance.now();
    f(from, to);
    times.push(performance.now() - t);
  }
  return p50(times);
}

function queryRows(c: Catalog, db: Database.Database, label: string): BenchRow[] {
  const window = (extra: Partial<FrameListQuery>) => (from: Date, to: Date) => c.frames.list({ from, to, limit: 20, ...extra });
  const floorStmt = db.prepare('SELECT * FROM frames WHERE captured_at >= ? AND captured_at < ? ORDER BY captured_at DESC, rowid DESC LIMIT 20');
  const floor = timeQuery((from, to) => floorStmt.all(from.getTime(), to.getTime()));
  const all = timeQuery(window({}));
  const rows: BenchRow[] = [
    {
      metric: `list one day, max 20, newest first (${label}) p50`,
      value: round(all, 3),
      unit: 'ms',
      ratio: round(all / floor),
      against: `bare better-sqlite3, same SQL (${round(floor, 3)} ms)`,
      target: '≤ 10 ms',
      pass: all <= 10,
    },
    { metric: `… by source, oldest first (${label}) p50`, value: round(timeQuery(window({ source: 'browser', order: 'asc' })), 3), unit: 'ms', target: '≤ 10 ms' },
    { metric: `… by target (${label}) p50`, value: round(timeQuery(window({ target: 'android:emulator-5554' })), 3), unit: 'ms', target: '≤ 10 ms' },
    { metric: `count of one day's frames (${label}) p50`, value: round(timeQuery((from, to) => c.frames.count({ from, to })), 3), unit: 'ms' },
    { metric: `latest frame of a target (${label}) p50`, value: round(timeQuery(() => c.frames.latest('desktop', 'desktop:display:0')), 3), unit: 'ms' },
  ];
  for (const r of rows) if (r.target && r.pass === undefined) r.pass = r.value <= 10;
  return rows;
}

export default async function run(): Promise<BenchSection> {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-bench-catalog-'));
  const c = Catalog.open(dir);
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  try {
    // Insert rate: one frame at a time, as a capture loop does, then the rest CONCURRENCY at a time.
    let t = performance.now();
    for (let i = 0; i < SEQUENTIAL; i++) await c.frames.insert(newFrame(i));
    const seqRate = SEQUENTIAL / ((performance.now() - t) / 1000);
    t = performance.now();
    for (let i = SEQUENTIAL; i < FRAMES; i += CONCURRENCY) {
      const batch: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(FRAMES, i + CONCURRENCY); j++) batch.push(c.frames.insert(newFrame(j)));
      await Promise.all(batch);
    }
    const concRate = (FRAMES - SEQUENTIAL) / ((performance.now() - t) / 1000);
    rows.push(
      { metric: 'insertFrame, one at a time (temp file + rename + row)', value: Math.round(seqRate), unit: 'frames/s' },
      { metric: `insertFrame, ${CONCURRENCY} in flight`, value: Math.round(concRate), unit: 'frames/s' },
    );
    if (c.frames.count() !== FRAMES) throw new Error(`expected ${FRAMES} frames, found ${c.frames.count()}`);

    const db = new Database(join(dir, CATALOG_FILE), { readonly: true });
    try {
      rows.push(...queryRows(c, db, `${FRAMES / 1000}k frames`));

      if (ARCHIVE_ROWS > 0) {
        const BATCH = 10_000;
        t = performance.now();
        for (let i = 0; i < ARCHIVE_ROWS; i += BATCH) {
          const batch: ArchiveFrame[] = [];
          for (let j = i; j < Math.min(ARCHIVE_ROWS, i + BATCH); j++) batch.push(archiveRow(j, ARCHIVE_ROWS));
          c.archive.upsertArchiveFrames(batch);
        }
        const upsertRate = ARCHIVE_ROWS / ((performance.now() - t) / 1000);
        const rescan: ArchiveFrame[] = [];
        for (let j = 0; j < 100_000; j++) rescan.push(archiveRow(j, ARCHIVE_ROWS));
        t = performance.now();
        const changed = c.archive.upsertArchiveFrames(rescan);
        const rescanRate = rescan.length / ((performance.now() - t) / 1000);
        if (changed !== 0) throw new Error(`a rescan changed ${changed} rows`);
        rows.push(
          { metric: `upsertArchiveFrames, ${ARCHIVE_ROWS.toLocaleString('en')} new rows in batches of ${BATCH}`, value: Math.round(upsertRate), unit: 'rows/s' },
          { metric: 'upsertArchiveFrames, unchanged rescan', value: Math.round(rescanRate), unit: 'rows/s' },
        );
        rows.push(...queryRows(c, db, `${(FRAMES + ARCHIVE_ROWS) / 1000}k rows`));
      }
    } finally {
      db.close();
    }
    notes.push(
      `${FRAMES.toLocaleString('en')} frames with tiny image buffers over ${DAYS} days and ${TARGETS.length} targets (~${Math.round(FRAMES / DAYS)} a day), in a temp dir on the machine's disk; p50 over ${QUERY_RUNS} random days after 50 warm-up queries.`,
      'Inserting one at a time is bound by libuv thread-pool round trips for the temp write and the rename (≈0.5 ms a frame on this 2-core box), not by SQLite; captures arrive a few per second at most.',
    );
  } finally {
    c.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { title: 'Catalog (better-sqlite3, WAL)', rows, notes };
}
