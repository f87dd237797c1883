/**
 * ManicTime archive: a generated archive of 1,000,000 empty screenshot files over three
 * years (reused from the temp dir when present). In a child process, so its peak RSS is
 * the index's own: a cold index through the real source (empty index, fresh catalog)
 * against a bare recursive readdir of the same tree (readdir with file types, recursing
 * into folders: the least any scanner must do), alternated, p50 of 5 each after a
 * page-cache warm-up; then warm `list_screenshots` for one day with max 20 (activity
 * sampling against a ManicTimeReports.db), and the file-name parser against the
 * equivalent regular expression.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Catalog } from '../src/main/core/catalog/catalog.ts';
import { newNameFields, parseNameInto } from '../src/main/core/sources/manictime/filename.ts';
import { createManicTimeSource, type ManicTimeSource } from '../src/main/core/sources/manictime/manictimeSource.ts';
import { berlinOffset, createReportsDb, utcOf, writeBenchArchive, type FixtureActivity } from '../tests/support/manictimeFixture.ts';
import type { BenchRow, BenchSection } from './types.ts';

const FILES = Number(process.env.SIGHTLINE_BENCH_MT_FILES ?? 1_000_000);
const DAYS = 1096;
const START = '2022-01-01';
const ROUNDS = 5;
const LIST_RUNS = 60;
const ROOT = join(tmpdir(), `sightline-bench-manictime-${FILES}`);
const CHILD_ENV = 'SIGHTLINE_MT_BENCH_CHILD';

const p50 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (n: number, d = 1): number => Math.round(n * 10 ** d) / 10 ** d;

function bareWalk(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) n += bareWalk(join(dir, e.name));
    else n++;
  }
  return n;
}

/** App and document changes every few minutes over one day (Berlin time), for activity sampling. */
function dayActivities(day: string): FixtureActivity[] {
  const out: FixtureActivity[] = [];
  const apps = ['Google Chrome', 'Visual Studio Code', 'Outlook', 'Slack', 'Excel', 'Explorer'];
  const start = utcOf(day, '07:00:00', 60);
  for (let t = start, i = 0; t < start + 14 * 3_600_000; i++) {
    const len = (4 + (i % 5) * 2) * 60_000;
    const off = berlinOffset(t);
    out.push({ timeline: 'applications', group: apps[i % apps.length]!, name: `window ${i}`, startUtcMs: t, endUtcMs: t + len, offsetMinutes: off });
    out.push({ timeline: 'documents', group: 'docs', name: `doc-${i}-a`, startUtcMs: t, endUtcMs: t + len / 2, offsetMinutes: off });
    out.push({ timeline: 'documents', group: 'docs', name: `doc-${i}-b`, startUtcMs: t + len / 2, endUtcMs: t + len, offsetMinutes: off });
    t += len;
  }
  return out;
}

interface ChildResult {
  files: number;
  reused: boolean;
  generateMs: number;
  bareMs: number[];
  indexMs: number[];
  baselineRssMb: number;
  peakRssMb: number;
  listDayMs: number;
  listRandomDayMs: number;
  refreshAndListMs: number;
  listedEntries: number;
  matchedDay: number;
  manualNsPerName: number;
  regexNsPerName: number;
}

async function child(): Promise<ChildResult> {
  const baselineRssMb = process.memoryUsage().rss / 2 ** 20;
  const g0 = performance.now();
  const archive = writeBenchArchive(ROOT, { files: FILES, startDate: START, days: DAYS });
  const generateMs = performance.now() - g0;
  const measuredDay = archive.dayNames[Math.floor(DAYS * 0.6)]!;
  createReportsDb(join(ROOT, 'ManicTimeReports.db'), dayActivities(measuredDay));
  const now = new Date(utcOf(archive.dayNames.at(-1)!, '23:59:00', 60));
  const signal = new AbortController().signal;

  bareWalk(archive.screenshotsDir); // page cache warm-up, not counted
  const bareMs: number[] = [];
  const indexMs: number[] = [];
  let kept: { source: ManicTimeSource; catalog: Catalog; dir: string } | undefined;
  for (let r = 0; r < ROUNDS; r++) {
    let t = performance.now();
    const n = bareWalk(archive.screenshotsDir);
    bareMs.push(performance.now() - t);
    if (n !== archive.files) throw new Error(`walk saw ${n} files, expected ${archive.files}`);

    const dir = mkdtempSync(join(tmpdir(), 'sightline-mt-bench-catalog-'));
    const catalog = Catalog.open(dir);
    const source = createManicTimeSource({ settings: { dataDir: ROOT }, archive: catalog.archive, indexDir: catalog.dataDir, env: {}, now: () => now });
    t = performance.now();
    await source.history.refresh({ signal });
    indexMs.push(performance.now() - t);
    const scan = source.lastScan();
    if (scan?.files !== archive.files) throw new Error(`index saw ${scan?.files} files, expected ${archive.files}`);
    if (kept) {
      await kept.source.dispose?.();
      kept.catalog.close();
      rmSync(kept.dir, { recursive: true, force: true });
    }
    kept = { source, catalog, dir };
  }
  const peakRssMb = process.resourceUsage().maxRSS / 1024;

  // Warm list_screenshots: one day, max 20, activity sampling (the default for the archive).
  const { source } = kept!;
  const dayStart = new Date(utcOf(measuredDay, '00:00:00', berlinOffset(utcOf(measuredDay, '12:00:00', 60))));
  const oneDay = { from: dayStart, to: new Date(dayStart.getTime() + 86_400_000), sampling: 'activity' as const, intervalSeconds: 300, max: 20 };
  let listed = await source.history.listScreenshots(oneDay, signal);
  for (let i = 0; i < 10; i++) listed = await source.history.listScreenshots(oneDay, signal);
  const times: number[] = [];
  for (let i = 0; i < LIST_RUNS; i++) {
    const t = performance.now();
    listed = await source.history.listScreenshots(oneDay, signal);
    times.push(performance.now() - t);
  }
  if (listed.warnings?.length) throw new Error(`activity sampling degraded: ${listed.warnings.join('; ')}`);
  // Random days: the day's record comes from SQLite and is decoded (no day cache hit).
  const random: number[] = [];
  let seed = 7;
  for (let i = 0; i < LIST_RUNS; i++) {
    seed = (seed * 48271) % 2147483647;
    const d = archive.dayNames[seed % DAYS]!;
    const from = new Date(utcOf(d, '00:00:00', 60));
    const t = performance.now();
    await source.history.listScreenshots({ ...oneDay, from, to: new Date(from.getTime() + 86_400_000), sampling: 'interval' }, signal);
    random.push(performance.now() - t);
  }
  // What the MCP tool does per call: refresh (light, throttled), then list.
  const both: number[] = [];
  for (let i = 0; i < LIST_RUNS; i++) {
    const t = performance.now();
    await source.history.refresh({ signal });
    await source.history.listScreenshots(oneDay, signal);
    both.push(performance.now() - t);
  }
  await source.dispose?.();
  kept!.catalog.close();
  rmSync(kept!.dir, { recursive: true, force: true });

  // Parser: the hand-written one against the same grammar as one regex, on real names.
  const names = readdirSync(join(archive.screenshotsDir, measuredDay));
  while (names.length < 200_000) names.push(...names.slice(0, 200_000 - names.length));
  const re = /^(\d{4})-(\d{2})-(\d{2})_(\d{2})-(\d{2})-(\d{2})_([+-]?)(\d{2})-(\d{2})_(\d+)_(\d+)_(\d+)_(\d+)(\.thumbnail)?\.jpg$/i;
  const f = newNameFields();
  const viaRegex = (n: string): boolean => {
    const m = re.exec(n);
    if (!m) return false;
    f.offsetMinutes = (m[7] === '-' ? -1 : 1) * (Number(m[8]) * 60 + Number(m[9]));
    f.utcMs = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) - f.offsetMinutes * 60_000;
    f.width = Number(m[10]);
    f.height = Number(m[11]);
    f.id = Number(m[12]);
    f.monitor = Number(m[13]);
    f.thumbnail = m[14] !== undefined;
    return true;
  };
  const manual: number[] = [];
  const regex: number[] = [];
  for (let r = 0; r < 7; r++) {
    let t = performance.now();
    for (const n of names) parseNameInto(n, f);
    manual.push(((performance.now() - t) * 1e6) / names.length);
    t = performance.now();
    for (const n of names) viaRegex(n);
    regex.push(((performance.now() - t) * 1e6) / names.length);
  }

  return {
    files: archive.files,
    reused: archive.reused,
    generateMs,
    bareMs,
    indexMs,
    baselineRssMb,
    peakRssMb,
    listDayMs: p50(times),
    listRandomDayMs: p50(random),
    refreshAndListMs: p50(both),
    listedEntries: listed.screenshots.length,
    matchedDay: listed.matched ?? 0,
    manualNsPerName: p50(manual.slice(2)),
    regexNsPerName: p50(regex.slice(2)),
  };
}

export default async function run(): Promise<BenchSection> {
  const { stdout } = await promisify(execFile)(process.execPath, [import.meta.filename], {
    env: { ...process.env, [CHILD_ENV]: '1' },
    maxBuffer: 1 << 20,
    timeout: 20 * 60_000,
  });
  const r = JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildResult;
  const bare = p50(r.bareMs);
  const index = p50(r.indexMs);
  const ratio = index / bare;
  const rows: BenchRow[] = [
    { metric: `bare recursive readdir, ${r.files.toLocaleString('en')} files / ${DAYS} day folders (p50 of ${ROUNDS})`, value: round(bare, 0), unit: 'ms' },
    {
      metric: `cold index into an empty index (p50 of ${ROUNDS})`,
      value: round(index, 0),
      unit: 'ms',
      ratio: round(ratio, 2),
      against: 'bare readdir',
      target: '≤ 2×',
      pass: ratio <= 2,
    },
    { metric: 'peak RSS of the indexing process', value: round(r.peakRssMb, 0), unit: 'MB', against: `${round(r.baselineRssMb, 0)} MB at start` },
    {
      metric: `warm list_screenshots, one day (${r.matchedDay} screenshots), activity sampling, max 20 (p50 of ${LIST_RUNS})`,
      value: round(r.listDayMs, 2),
      unit: 'ms',
      target: '≤ 10 ms',
      pass: r.listDayMs <= 10,
    },
    { metric: 'list_screenshots, a random day each call, interval sampling (p50)', value: round(r.listRandomDayMs, 2), unit: 'ms' },
    { metric: 'refresh + list_screenshots, as the MCP tool calls them (p50)', value: round(r.refreshAndListMs, 2), unit: 'ms' },
    {
      metric: 'file-name parser, per name',
      value: round(r.manualNsPerName, 0),
      unit: 'ns',
      ratio: round(r.manualNsPerName / r.regexNsPerName, 2),
      against: 'one regular expression',
      target: '≤ 1× (no slower than a regex)',
      pass: r.manualNsPerName <= r.regexNsPerName,
    },
  ];
  return {
    title: 'ManicTime archive',
    rows,
    notes: [
      `Archive: ${r.files.toLocaleString('en')} empty files (two monitors × full + thumbnail per capture, 2.5 min apart, Europe/Berlin offsets) over ${DAYS} day folders in ${ROOT}${r.reused ? ' (reused)' : `, generated in ${round(r.generateMs / 1000, 1)} s`}.`,
      `Runs: readdir ${r.bareMs.map((x) => round(x, 0)).join(' / ')} ms; index ${r.indexMs.map((x) => round(x, 0)).join(' / ')} ms. The index reads names only (no per-file stat) and stores one packed row per day folder; the catalog gets rows only for screenshots a listing returns.`,
      `The list returned ${r.listedEntries} entries: one per change of application or document (both monitors of each moment), from a ManicTimeReports.db with ~${dayActivities('2024-01-01').length / 3} app switches that day.`,
    ],
  };
}

if (process.env[CHILD_ENV] === '1') {
  child().then(
    (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
    (e: unknown) => {
      process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
      process.exit(1);
    },
  );
}
