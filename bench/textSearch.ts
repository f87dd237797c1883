/**
 * The text index's search and capture figures: search_screenshots over 1,000,000 synthetic text
 * rows (against bare FTS5 on the same file), and capture latency with live indexing on against
 * off. Part of the "Text index" section (textIndex.bench.ts).
 *
 * Sizes (environment): SIGHTLINE_BENCH_TEXT_ROWS (rows of the search index, default 1,000,000; 0 skips).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { CATALOG_FILE, Catalog } from '../src/main/core/catalog/catalog.ts';
import { KEY_SLOTS, packBoxes } from '../src/main/core/catalog/text.ts';
import { createCore, type Core } from '../src/main/core/index.ts';
import { parseQuery, toFtsMatch } from '../src/main/core/text/query.ts';
import { TextSearch } from '../src/main/core/text/search.ts';
import { coreSettingsShape } from '../src/shared/settings.ts';
import { FakeSource } from '../tests/support/fakeSource.ts';
import { moduleFor } from '../tests/support/modules.ts';
import { drawScreen, newScreen, rng as screenRng } from '../tests/support/appScreens.ts';
import type { BenchRow } from './types.ts';

const ROWS = Number(process.env.SIGHTLINE_BENCH_TEXT_ROWS ?? 1_000_000);
const OCR_DEFAULTS = coreSettingsShape.ocr.parse({});

const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))] ?? Number.NaN;
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const SYL = ['ka', 'lo', 'mi', 'ren', 'tu', 'sa', 'vel', 'dor', 'pi', 'na', 'gre', 'on', 'bi', 'lux', 'me', 'tar', 'qui', 'zo', 'fen', 'ar'];
/** A vocabulary of made-up words, the first ones the most frequent (Zipf-like draws below). */
const VOCAB = Array.from({ length: 4000 }, (_, i) => SYL[i % 20]! + SYL[Math.floor(i / 20) % 20]! + (i >= 400 ? SYL[Math.floor(i / 400) % 20]! : ''));
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => ((s = (s * 48271) % 2147483647) / 2147483647);
}
const zipf = (r: () => number): string => VOCAB[Math.min(VOCAB.length - 1, Math.floor(Math.exp(r() * Math.log(VOCAB.length + 1)) - 1))]!;
const lineOf = (r: () => number, words: number): string => Array.from({ length: words }, () => (r() < 0.04 ? String(1000 + Math.floor(r() * 9000)) : zipf(r))).join(' ');

// ── search over 1,000,000 rows ─────────────────────────────────────────────────────────────

export async function searching(rows: BenchRow[], notes: string[]): Promise<void> {
  if (ROWS <= 0) return;
  const dir = mkdtempSync(join(tmpdir(), 'sightline-bench-textsearch-'));
  try {
    Catalog.open(dir).close(); // the schema
    const start = Date.UTC(2024, 0, 1);
    const span = 365 * 86_400_000;
    const msOf = (i: number): number => start + Math.floor((i * span) / ROWS);
    const apps = ['Outlook', 'Visual Studio Code', 'Google Chrome', 'Slack', 'Excel', 'Teams', 'Word', 'Terminal'];
    const t = performance.now();
    {
      const db = new Database(join(dir, CATALOG_FILE));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = OFF');
      const frame = db.prepare(`INSERT INTO frames (ref, source, target, captured_at, captured_at_iso, image_w, image_h, source_w, source_h, origin_x, origin_y, scale, format, bytes, files, external, archive_group, disk_bytes)
        VALUES (?, 'manictime', 'manictime:monitor:0', ?, ?, 1920, 1080, 1920, 1080, 0, 0, 1, 'jpeg', 0, ?, 1, ?, 0)`);
      const text = db.prepare('INSERT INTO frame_text (rowid, text, title, app, document, source) VALUES (?, ?, ?, ?, ?, ?)');
      const meta = db.prepare('INSERT INTO frame_text_meta (ref, key, status, engine, boxes, indexed_at) VALUES (?, ?, 1, ?, ?, 0)');
      const r = rng(42);
      const BATCH = 20_000;
      for (let b = 0; b < ROWS; b += BATCH) {
        db.transaction(() => {
          for (let i = b; i < Math.min(ROWS, b + BATCH); i++) {
            const ms = msOf(i);
            const ref = `m_${i.toString(36)}`;
            const iso = new Date(ms).toISOString();
            frame.run(ref, ms, iso, JSON.stringify({ image: `/archive/${iso.slice(0, 10)}/${i}.jpg` }), iso.slice(0, 10));
            const lines = Array.from({ length: 4 }, () => lineOf(r, 8));
            const words = lines.join(' ').split(' ').length;
            const app = apps[Math.floor(r() * apps.length)]!;
            text.run(ms * KEY_SLOTS, lines.join('\n'), `${zipf(r)} ${zipf(r)} - ${app}`, app, '', 'manictime');
            meta.run(ref, ms * KEY_SLOTS, 'tesseract-cli', packBoxes(Array.from({ length: words * 4 }, (_, k) => (k * 37) % 1000)));
          }
        })();
      }
      db.close();
    }
    const buildS = (performance.now() - t) / 1000;
    const c = Catalog.open(dir);
    const floorDb = new Database(join(dir, CATALOG_FILE), { readonly: true });
    try {
      const search = new TextSearch({
        store: c.text,
        countFrames: (q) => c.frames.count(q),
        archives: async () => [],
        sourceNames: () => ['manictime', 'desktop', 'browser', 'android'],
        settings: () => OCR_DEFAULTS,
        status: () => undefined,
      });
      const floorStmt = floorDb.prepare('SELECT rowid FROM frame_text WHERE frame_text MATCH ? AND rowid >= ? AND rowid < ? ORDER BY rowid DESC LIMIT 20');
      const r = rng(7);
      const common = (): string => VOCAB[Math.floor(r() * 20)]!;
      const middling = (): string => VOCAB[200 + Math.floor(r() * 200)]!;
      const rare = (): string => VOCAB[2000 + Math.floor(r() * 2000)]!;
      const dayWindow = (): { from: Date; to: Date } => {
        const d = Math.floor(r() * 364);
        return { from: new Date(start + d * 86_400_000), to: new Date(start + (d + 1) * 86_400_000) };
      };
      const mixes: { name: string; make: () => { query: string; app?: string; from?: Date; to?: Date } }[] = [
        { name: 'a common word', make: () => ({ query: common() }) },
        { name: 'a rare word', make: () => ({ query: rare() }) },
        { name: 'two words', make: () => ({ query: `${middling()} ${middling()}` }) },
        { name: 'a phrase', make: () => ({ query: `"${common()} ${common()}"` }) },
        { name: 'a word in one day', make: () => ({ query: middling(), ...dayWindow() }) },
        { name: 'a word in one app', make: () => ({ query: middling(), app: apps[Math.floor(r() * apps.length)]! }) },
      ];
      const signal = new AbortController().signal;
      const all: number[] = [];
      const floors: number[] = [];
      for (const mix of mixes) {
        const times: number[] = [];
        for (let i = 0; i < 60; i++) {
          const q = mix.make();
          const match = toFtsMatch(parseQuery(q.query), { app: q.app });
          const lo = q.from ? q.from.getTime() * KEY_SLOTS : Number.MIN_SAFE_INTEGER;
          const hi = q.to ? q.to.getTime() * KEY_SLOTS : Number.MAX_SAFE_INTEGER;
          let s = performance.now();
          floorStmt.all(match, lo, hi);
          const floor = performance.now() - s;
          s = performance.now();
          await search.search({ ...q, max: 20, signal });
          const ms = performance.now() - s;
          if (i >= 10) {
            times.push(ms);
            all.push(ms);
            floors.push(floor);
          }
        }
        rows.push({ metric: `search_screenshots p50, ${mix.name}`, value: round(pct(times, 0.5), 2), unit: 'ms', target: '≤ 50 ms', pass: pct(times, 0.5) <= 50 });
      }
      const p50 = pct(all, 0.5);
      const floor50 = pct(floors, 0.5);
      rows.unshift({
        metric: `search_screenshots p50 over ${ROWS.toLocaleString('en')} text rows (all mixes; max 20, snippets, boxes, count)`,
        value: round(p50, 2),
        unit: 'ms',
        ratio: round(p50 / floor50),
        against: `bare FTS5, same MATCH, rowids only (${round(floor50, 2)} ms)`,
        target: '≤ 50 ms',
        pass: p50 <= 50,
      });
      rows.push({ metric: 'search_screenshots p95, all mixes', value: round(pct(all, 0.95), 2), unit: 'ms' });
      notes.push(
        `Search: ${ROWS.toLocaleString('en')} archive frames over a year, each with 32 words of text drawn Zipf-like from 4,000 made-up words (4 % numbers), a window title and one of 8 apps, and word boxes; built in ${round(buildS, 0)} s by bulk SQL into the real schema, then searched through TextSearch (query parsing, FTS5 newest first, the join to frames, snippet, boxes, a count of up to 10,000 matches). 50 queries per mix after 10 warm-up ones.`,
      );
    } finally {
      floorDb.close();
      c.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ── capture latency with live indexing on and off ──────────────────────────────────────────

export async function captureLatency(rows: BenchRow[], notes: string[]): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'sightline-bench-textlive-'));
  const page = await sharp((await drawScreen(newScreen(screenRng(99), 'light'))).jpeg).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const make = async (name: string, index: boolean): Promise<{ core: Core; stop: () => void }> => {
    const fake = new FakeSource({ id: 'desktop:w1', app: 'Editor', x: 0, y: 0, width: page.info.width, height: page.info.height, pixelRatio: 1 });
    fake.screen.capture = async (target) => ({
      target,
      pixels: { kind: 'raw', data: page.data, width: page.info.width, height: page.info.height, channels: 4 },
      sourceSize: { width: page.info.width, height: page.info.height },
      origin: { x: 0, y: 0 },
      state: { width: page.info.width, height: page.info.height, x: 0, y: 0 },
      label: { title: 'notes.md - Editor', app: 'Editor' },
    });
    const core = await createCore({ dataDir: join(base, name), env: {}, modules: [moduleFor(fake)], settings: { ocr: { index } }, textIndex: { startDelayMs: 0, liveMaxWaitMs: 1000 } });
    return { core, stop: core.startMaintenance(() => undefined) };
  };
  const on = await make('on', true);
  const off = await make('off', false);
  try {
    const times = { on: [] as number[], off: [] as number[] };
    const ROUNDS = 6;
    const PER = 15;
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      for (const [name, c] of (round_ % 2 ? [['off', off], ['on', on]] : [['on', on], ['off', off]]) as [keyof typeof times, typeof on][]) {
        for (let i = 0; i < PER; i++) {
          const s = performance.now();
          await c.core.frames.capture({ target: 'desktop:w1', signal: new AbortController().signal });
          times[name].push(performance.now() - s);
          await sleep(150);
        }
      }
    }
    const pOn = pct(times.on, 0.5);
    const pOff = pct(times.off, 0.5);
    const read = on.core.catalog.text.count();
    rows.push(
      {
        metric: 'capture p50 with live indexing on (1280×720 text page → 1000 px JPEG)',
        value: round(pOn, 1),
        unit: 'ms',
        ratio: round(pOn / pOff),
        against: `indexing off (${round(pOff, 1)} ms)`,
        target: '≤ 1.1×',
        pass: pOn / pOff <= 1.1,
      },
      { metric: 'capture p95, indexing on vs off', value: round(pct(times.on, 0.95), 1), unit: 'ms', ratio: round(pct(times.on, 0.95) / pct(times.off, 0.95)), against: `off (${round(pct(times.off, 0.95), 1)} ms)` },
      { metric: 'live frames OCR’d while those captures ran', value: read, unit: `of ${times.on.length}` },
    );
    notes.push(
      `Capture latency: an in-process core capturing a 1280×720 text page ${ROUNDS * PER} times with indexing on and ${ROUNDS * PER} with it off, interleaved in rounds of ${PER}, 150 ms apart (an agent looking between captures). The indexer was made to stop waiting for a quiet moment after 1 s (liveMaxWaitMs; default 30 s) so that its OCR overlaps the captures: the worst case.`,
    );
  } finally {
    on.stop();
    off.stop();
    await on.core.close();
    await off.core.close();
    rmSync(base, { recursive: true, force: true });
  }
}

