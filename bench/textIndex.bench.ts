/**
 * The text index: how fast the background indexer reads an archive (frames per second per core,
 * against the bare OCR engine on the same images), how soon the newest day is searchable,
 * search_screenshots over 1,000,000 synthetic text rows (against bare FTS5 on the same file),
 * and capture latency with live indexing on against off.
 *
 * Sizes (environment): SIGHTLINE_BENCH_TEXT_ARCHIVE (screenshots in the archive, default 10,000),
 * SIGHTLINE_BENCH_TEXT_SAMPLE (how many of them are OCR'd, default 24: OCR of the whole archive
 * takes hours on this 2-core machine, so its time is extrapolated from the sample and says so),
 * SIGHTLINE_BENCH_TEXT_ROWS (rows of the search index, default 1,000,000; 0 skips).
 */
import { spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { CATALOG_FILE, Catalog } from '../src/main/core/catalog/catalog.ts';
import { KEY_SLOTS, packBoxes } from '../src/main/core/catalog/text.ts';
import { createCore, type Core } from '../src/main/core/index.ts';
import { createManicTimeSource } from '../src/main/core/sources/manictime/manictimeSource.ts';
import { manictimeModule } from '../src/main/core/sources/manictime/module.ts';
import { parseQuery, toFtsMatch } from '../src/main/core/text/query.ts';
import { TextSearch } from '../src/main/core/text/search.ts';
import { coreSettingsShape } from '../src/shared/settings.ts';
import { FakeSource } from '../tests/support/fakeSource.ts';
import { createReportsDb, screenshotName, wallClock, type FixtureActivity } from '../tests/support/manictimeFixture.ts';
import { moduleFor } from '../tests/support/modules.ts';
import type { BenchRow, BenchSection } from './types.ts';

const ARCHIVE = Number(process.env.SIGHTLINE_BENCH_TEXT_ARCHIVE ?? 10_000);
const SAMPLE = Number(process.env.SIGHTLINE_BENCH_TEXT_SAMPLE ?? 24);
const ROWS = Number(process.env.SIGHTLINE_BENCH_TEXT_ROWS ?? 1_000_000);
const SHOT = { width: 1280, height: 720 };
const DISTINCT = 12;
const PER_DAY = 500;
const OFFSET = 60;
const OCR_DEFAULTS = coreSettingsShape.ocr.parse({});

const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))] ?? Number.NaN;
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
async function until(ok: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

// ── words ──────────────────────────────────────────────────────────────────────────────────

const SYL = ['ka', 'lo', 'mi', 'ren', 'tu', 'sa', 'vel', 'dor', 'pi', 'na', 'gre', 'on', 'bi', 'lux', 'me', 'tar', 'qui', 'zo', 'fen', 'ar'];
/** A vocabulary of made-up words, the first ones the most frequent (Zipf-like draws below). */
const VOCAB = Array.from({ length: 4000 }, (_, i) => SYL[i % 20]! + SYL[Math.floor(i / 20) % 20]! + (i >= 400 ? SYL[Math.floor(i / 400) % 20]! : ''));
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => ((s = (s * 48271) % 2147483647) / 2147483647);
}
const zipf = (r: () => number): string => VOCAB[Math.min(VOCAB.length - 1, Math.floor(Math.exp(r() * Math.log(VOCAB.length + 1)) - 1))]!;

function lineOf(r: () => number, words: number): string {
  return Array.from({ length: words }, () => (r() < 0.04 ? String(1000 + Math.floor(r() * 9000)) : zipf(r))).join(' ');
}

// ── the archive ────────────────────────────────────────────────────────────────────────────

async function textPage(seed: number): Promise<Buffer> {
  const r = rng(seed + 7);
  const lines = Array.from({ length: 16 }, () => lineOf(r, 9));
  const parts = [`<rect width="${SHOT.width}" height="${SHOT.height}" fill="#fafafa"/>`, `<rect width="${SHOT.width}" height="32" fill="#dedede"/>`];
  lines.forEach((l, i) => parts.push(`<text x="40" y="${80 + i * 38}" font-family="DejaVu Sans" font-size="${15 + (i % 3)}" fill="#202020">${l}</text>`));
  return sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${SHOT.width}" height="${SHOT.height}">${parts.join('')}</svg>`))
    .jpeg({ quality: 80 })
    .toBuffer();
}

interface Archive {
  dataDir: string;
  images: string[];
  newestDayCount: number;
}

/** ARCHIVE screenshots (hard links to DISTINCT rendered pages), PER_DAY a day, 90 s apart; one app per 10 minutes. */
async function writeArchive(base: string): Promise<Archive> {
  const dataDir = join(base, 'ManicTime');
  const shots = join(dataDir, 'Screenshots');
  mkdirSync(join(base, 'pages'), { recursive: true });
  const images: string[] = [];
  for (let i = 0; i < DISTINCT; i++) {
    const p = join(base, 'pages', `${i}.jpg`);
    writeFileSync(p, await textPage(i));
    images.push(p);
  }
  const days = Math.ceil(ARCHIVE / PER_DAY);
  const start = Date.UTC(2024, 0, 1, 7, 0, 0);
  const activities: FixtureActivity[] = [];
  const apps = ['Outlook', 'Visual Studio Code', 'Google Chrome', 'Slack', 'Excel'];
  let id = 1;
  for (let n = 0; n < ARCHIVE; n++) {
    const day = Math.floor(n / PER_DAY);
    const utcMs = start + day * 86_400_000 + (n % PER_DAY) * 90_000;
    const w = wallClock(utcMs, OFFSET);
    const dir = join(shots, w.date);
    if (n % PER_DAY === 0 || !existsSync(dir)) mkdirSync(dir, { recursive: true });
    linkSync(images[n % DISTINCT]!, join(dir, screenshotName({ date: w.date, time: w.time, offsetMinutes: OFFSET, ...SHOT, id: id++, monitor: 0 })));
    if (n % 5 === 0) {
      const app = apps[(n / 5) % apps.length]!;
      activities.push({ timeline: 'applications', group: app, name: `Window ${n} - ${app}`, startUtcMs: utcMs, endUtcMs: utcMs + 600_000, offsetMinutes: OFFSET });
    }
  }
  createReportsDb(join(dataDir, 'ManicTimeReports.db'), activities);
  return { dataDir, images, newestDayCount: ARCHIVE - (days - 1) * PER_DAY };
}

/** The bare engine: `tesseract` on each image, one at a time, one thread (the indexer's engine and budget). */
async function bareOcr(images: readonly string[], n: number): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < n; i++) {
    await new Promise<void>((ok, fail) => {
      const p = spawn('tesseract', [images[i % images.length]!, 'stdout', '-l', 'eng', '--psm', '3', 'tsv'], { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['ignore', 'ignore', 'ignore'] });
      p.once('error', fail);
      p.once('exit', (code) => (code === 0 ? ok() : fail(new Error(`tesseract exit ${code}`))));
    });
  }
  return n / ((performance.now() - t) / 1000);
}

async function indexing(rows: BenchRow[], notes: string[]): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'sightline-bench-textindex-'));
  try {
    const archive = await writeArchive(base);
    const bare = await bareOcr(archive.images, Math.min(SAMPLE, DISTINCT));
    const module = {
      ...manictimeModule,
      create: (ctx: Parameters<typeof manictimeModule.create>[0]) => createManicTimeSource({ settings: ctx.settings(), archive: ctx.archive, indexDir: ctx.dataDir, env: {} }),
    };
    const core = await createCore({ dataDir: join(base, 'sightline'), env: {}, modules: [module], settings: { manictime: { dataDir: archive.dataDir }, ocr: { cpuBudget: 1 } }, textIndex: { startDelayMs: 0, batch: 8 } });
    try {
      const t0 = performance.now();
      const stop = core.startMaintenance(() => undefined);
      await until(() => core.catalog.text.count() >= 1, 600_000, 'the first screenshot indexed');
      const tFirst = performance.now();
      await until(() => core.catalog.text.count() >= SAMPLE + 1, 3_600_000, `${SAMPLE} screenshots indexed`);
      const tSample = performance.now();
      stop();
      const rate = SAMPLE / ((tSample - tFirst) / 1000);
      const firstS = (tFirst - t0) / 1000;
      const newestDayS = firstS + archive.newestDayCount / rate;
      const wholeH = ARCHIVE / rate / 3600;
      rows.push(
        {
          metric: `indexing throughput, ${SHOT.width}×${SHOT.height} text screenshots (${SAMPLE} of ${ARCHIVE.toLocaleString('en')} read)`,
          value: round(rate, 3),
          unit: 'frames/s per core',
          ratio: round(rate / bare),
          against: `bare tesseract CLI, one thread, same images (${round(bare, 3)} frames/s)`,
          target: '≥ 0.9× the bare engine',
          pass: rate / bare >= 0.9,
        },
        { metric: `newest screenshot searchable after (archive of ${ARCHIVE.toLocaleString('en')}: scan + first OCR)`, value: round(firstS, 1), unit: 's' },
        { metric: `newest day (${archive.newestDayCount} screenshots) searchable after, extrapolated`, value: round(newestDayS / 60, 1), unit: 'min', ratio: round(newestDayS / (firstS + archive.newestDayCount / bare)), against: 'the bare engine reading the same day' },
        { metric: `whole archive (${ARCHIVE.toLocaleString('en')}) indexed after, extrapolated`, value: round(wholeH, 2), unit: 'h at one core' },
      );
      notes.push(
        `Indexing: a generated ManicTime archive of ${ARCHIVE.toLocaleString('en')} screenshots (${PER_DAY} a day, ${SHOT.width}×${SHOT.height} JPEG, 16 lines of 15–17 px text each; hard links to ${DISTINCT} rendered pages), walked newest first by the real indexer with ocr.cpuBudget 1 (tesseract at nice 15, OMP_THREAD_LIMIT 1). Only the first ${SAMPLE} screenshots were OCR'd: the newest-day and whole-archive times are extrapolated from that rate (the machine has 2 shared cores; the whole archive would take hours).`,
      );
    } finally {
      await core.close();
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

// ── search over 1,000,000 rows ─────────────────────────────────────────────────────────────

async function searching(rows: BenchRow[], notes: string[]): Promise<void> {
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
      const frame = db.prepare(`INSERT INTO frames (ref, source, target, captured_at, captured_at_iso, image_w, image_h, source_w, source_h, origin_x, origin_y, scale, format, bytes, files, external, archive_day, disk_bytes)
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

async function captureLatency(rows: BenchRow[], notes: string[]): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'sightline-bench-textlive-'));
  const page = await sharp(await textPage(99)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
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

export default async function run(): Promise<BenchSection> {
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  const only = process.env.SIGHTLINE_BENCH_TEXT_PARTS?.split(',') ?? ['indexing', 'search', 'capture'];
  if (only.includes('indexing')) await indexing(rows, notes);
  if (only.includes('search')) await searching(rows, notes);
  if (only.includes('capture')) await captureLatency(rows, notes);
  return { title: 'Text index: indexing, search_screenshots, capture with live indexing', rows, notes };
}
