/**
 * The text index reads only what changed, and loses no word: a generated ManicTime archive with
 * realistic repetition (idle repeats, other JPEG noise, a caret, a word changed, a line typed or
 * deleted, a new page) is indexed by the real indexer with the real tesseract; every word bare
 * tesseract reads on a screenshot is found on that screenshot by search_screenshots, with fewer
 * pages read than screenshots. A word that appears mid-run is found from that screenshot on and
 * never before; a word that vanished is not found after it left.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScreenshotSearch } from '../../../src/shared/api.ts';
import { createCore, type Core } from '../../../src/main/core/index.ts';
import { createMcpServer } from '../../../src/main/core/mcp/server.ts';
import { createManicTimeSource } from '../../../src/main/core/sources/manictime/manictimeSource.ts';
import { manictimeModule } from '../../../src/main/core/sources/manictime/module.ts';
import { OcrService, type OcrPort } from '../../../src/main/core/text/ocr.ts';
import { tokens } from '../../../src/main/core/text/query.ts';
import sharp from 'sharp';
import { FakeSource } from '../../support/fakeSource.ts';
import { moduleFor } from '../../support/modules.ts';
import { createTextArchive, TEXT_SHOT_SIZE, textScreenshot, type TextArchive, type TextShotSpec } from '../../support/textArchive.ts';

const OCR = { enabled: true, engine: 'auto' as const, index: true, cpuBudget: 1, excludeApps: [] };

interface Running {
  core: Core;
  client: Client;
  reads: () => number;
  close(): Promise<void>;
}

async function start(dataDir: string, archive: TextArchive): Promise<Running> {
  const module = {
    ...manictimeModule,
    create: (ctx: Parameters<typeof manictimeModule.create>[0]) =>
      createManicTimeSource({ settings: ctx.settings(), archive: ctx.archive, indexDir: ctx.dataDir, env: {}, now: () => new Date('2024-06-04T16:00:00Z') }),
  };
  const real = new OcrService({ settings: () => OCR });
  let reads = 0;
  // Counts the OCR calls the indexer makes (each reads several pages, one process for them all).
  const ocr: OcrPort = {
    enabled: true,
    recognize: (image, o) => real.recognize(image, o),
    recognizePages: (pages, o) => {
      reads++;
      return real.recognizePages(pages, o);
    },
  };
  const core = await createCore({ dataDir, env: {}, modules: [module], settings: { manictime: { dataDir: archive.dataDir } }, ocr, textIndex: { startDelayMs: 0, quietMs: 0, pollMs: 300, retryMs: 300, batch: 8 } });
  const stop = core.startMaintenance(() => undefined);
  const server = createMcpServer(core, { log: () => undefined });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'regions-test', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  return {
    core,
    client,
    reads: () => reads,
    async close() {
      stop();
      await client.close();
      await core.close();
      await real.dispose();
    },
  };
}

async function indexed(r: Running, n: number): Promise<void> {
  const end = Date.now() + 170_000;
  while (!(r.core.indexer.status().state === 'idle' && r.core.catalog.text.count() >= n)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${n} screenshots indexed (${r.core.catalog.text.count()})`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function search(r: Running, args: Record<string, unknown>): Promise<ScreenshotSearch> {
  const res = (await r.client.callTool({ name: 'search_screenshots', arguments: { max: 50, ...args } })) as CallToolResult;
  expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
  return res.structuredContent as unknown as ScreenshotSearch;
}

const time = (minute: number): string => `09:${String(minute).padStart(2, '0')}:00`;

describe('a word that appears mid-run, and one that vanishes', { timeout: 240_000 }, () => {
  const page = ['Quarterly budget review with the finance team', 'Invoice 4411 was paid by Contoso yesterday', 'Run the tests before tagging'];
  const typed = [...page, 'zebrafish appeared in the pond'];
  const lines = [page, page, typed, typed, [page[0], 'Invoice 4412 was paid by Contoso yesterday', page[2], typed[3]], [page[0], 'Invoice 4412 was paid by Contoso yesterday', page[2]], [page[0], 'Invoice 4412 was paid by Contoso yesterday', page[2]]] as string[][];
  let base: string;
  let archive: TextArchive;
  let r: Running;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'sightline-regions-'));
    archive = await createTextArchive(
      join(base, 'fixture'),
      lines.map((l, i): TextShotSpec => ({ date: '2024-06-03', time: time(i * 2), app: 'Editor', title: 'Notes - Editor', lines: l })),
    );
    r = await start(join(base, 'core'), archive);
    await indexed(r, lines.length);
  });
  afterAll(async () => {
    await r?.close();
    rmSync(base, { recursive: true, force: true });
  });

  const minutes = async (query: string): Promise<number[]> =>
    (await search(r, { query })).results.map((h) => new Date(h.capturedAt).getUTCMinutes()).sort((a, b) => a - b);

  it('finds a typed word from the screenshot where it appeared until it left, never before nor after', async () => {
    expect(await minutes('zebrafish')).toEqual([4, 6, 8]);
    expect(await minutes('4411')).toEqual([0, 2, 4, 6]);
    expect(await minutes('4412')).toEqual([8, 10, 12]);
    expect(await minutes('quarterly')).toEqual([0, 2, 4, 6, 8, 10, 12]);
  });

  it('reads fewer pages than screenshots: repeats take the text before, changes only their bands', async () => {
    const counts = r.core.catalog.text.reuseCounts();
    expect(counts).toEqual({ read: 1, same: 3, bands: 3 });
    // Two OCR calls for the batch: the first page alone (the newest screenshot searchable at once), the three changed bands as pages of one.
    expect(r.reads()).toBe(2);
    // The word's box on a reused screenshot is on its line, in that screenshot's pixels.
    const hit = (await search(r, { query: 'zebrafish' })).results.find((h) => new Date(h.capturedAt).getUTCMinutes() === 6);
    const band = (archive.shots[3] as { bands: { top: number; bottom: number }[] }).bands[3] as { top: number; bottom: number };
    expect(hit?.boxes[0]?.y).toBeGreaterThanOrEqual(band.top - 3);
    expect((hit?.boxes[0]?.y ?? 0) + (hit?.boxes[0]?.height ?? 0)).toBeLessThanOrEqual(band.bottom + 3);
    // Near-identical screenshots share a screen key; a changed one starts its own.
    const refs = (await search(r, { query: 'quarterly' })).results.map((h) => h.ref).reverse();
    const screens = r.core.catalog.text.screens(refs);
    const keys = refs.map((ref) => screens.get(ref));
    expect(keys[1]).toBe(keys[0]);
    expect(keys[3]).toBe(keys[2]);
    expect(keys[2]).not.toBe(keys[1]);
    expect(keys[6]).toBe(keys[5]);
  });
});

// ── recall on an archive with realistic repetition ───────────────────────────────────────────

const SYL = ['ka', 'lo', 'mi', 'ren', 'tu', 'sa', 'vel', 'dor', 'pi', 'na', 'gre', 'on', 'bi', 'lux', 'me', 'tar', 'qui', 'zo', 'fen', 'ar'];
function rng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 48271) % 2147483647) / 2147483647);
}

/** Screenshots of an editor over an hour: mostly repeats, some edits, a few new pages. */
function repetitiveSpecs(n: number, seed = 11): TextShotSpec[] {
  const r = rng(seed);
  const word = (): string => (r() < 0.08 ? String(1000 + Math.floor(r() * 9000)) : SYL[Math.floor(r() * 20)]! + SYL[Math.floor(r() * 20)]! + SYL[Math.floor(r() * 20)]!);
  const line = (): string => Array.from({ length: 4 + Math.floor(r() * 3) }, word).join(' ');
  let lines = Array.from({ length: 4 }, line);
  const out: TextShotSpec[] = [];
  for (let i = 0; i < n; i++) {
    const x = r();
    const spec: TextShotSpec = { date: '2024-06-04', time: `${String(9 + Math.floor(i / 30)).padStart(2, '0')}:${String((i * 2) % 60).padStart(2, '0')}:00`, app: 'Editor', title: 'Notes - Editor', lines };
    if (i > 0 && x < 0.35) {
      // idle: the same screen
    } else if (x < 0.5) spec.quality = 60 + Math.floor(r() * 20);
    else if (x < 0.6) spec.caret = { line: Math.floor(r() * lines.length), x: 60 + Math.floor(r() * 400) };
    else if (x < 0.75) {
      const k = Math.floor(r() * lines.length);
      const words = (lines[k] as string).split(' ');
      words[Math.floor(r() * words.length)] = word();
      lines = lines.map((l, j) => (j === k ? words.join(' ') : l));
    } else if (x < 0.83 && lines.length < 6) lines = [...lines, line()];
    else if (x < 0.9 && lines.length > 2) lines = lines.filter((_, j) => j !== Math.floor(r() * lines.length));
    else lines = Array.from({ length: 3 + Math.floor(r() * 3) }, line);
    spec.lines = lines;
    out.push(spec);
  }
  return out;
}

describe('recall on an archive with realistic repetition', { timeout: 300_000 }, () => {
  const N = 30;
  let base: string;
  let archive: TextArchive;
  let r: Running;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'sightline-recall-'));
    archive = await createTextArchive(join(base, 'fixture'), repetitiveSpecs(N));
    r = await start(join(base, 'core'), archive);
    await indexed(r, N);
  });
  afterAll(async () => {
    await r?.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('finds on each screenshot ≥ 99 % of the words bare tesseract reads on it, reading fewer pages', async () => {
    const bare = new OcrService({ settings: () => OCR });
    let want = 0;
    const missed: string[] = [];
    try {
      for (const shot of archive.shots) {
        const ocr = await bare.recognize(readFileSync(shot.full));
        const words = new Set(ocr.lines.flatMap((l) => l.words.flatMap((w) => tokens(w.text))));
        const from = new Date(shot.utcMs).toISOString();
        const to = new Date(shot.utcMs + 1000).toISOString();
        for (const w of words) {
          want++;
          const got = await search(r, { query: w, from, to });
          if (got.results.length !== 1) missed.push(`${shot.time} ${w}`);
        }
      }
    } finally {
      await bare.dispose();
    }
    expect(want).toBeGreaterThan(N * 10);
    expect(missed.length / want, missed.join(', ')).toBeLessThanOrEqual(0.01);
    const counts = r.core.catalog.text.reuseCounts();
    expect(counts.same + counts.bands).toBeGreaterThan(N / 2);
    expect(r.reads()).toBeLessThan(N * 0.6);
  });
});

describe('live frames reuse the text of the last frame read of their window', { timeout: 180_000 }, () => {
  it('a repeated capture costs no OCR, a typed line only its band; the text of each stays its own', async () => {
    const base = mkdtempSync(join(tmpdir(), 'sightline-live-regions-'));
    const { width, height } = TEXT_SHOT_SIZE;
    const fake = new FakeSource({ id: 'desktop:notes', app: 'Editor', x: 0, y: 0, width, height, pixelRatio: 1 });
    const page = ['Quarterly budget review with the finance team', 'Invoice 4411 was paid by Contoso yesterday'];
    let shown: string[] = page;
    fake.screen.capture = async (target) => {
      const { jpeg } = await textScreenshot(shown);
      const data = await sharp(jpeg).ensureAlpha().raw().toBuffer();
      return { target, pixels: { kind: 'raw', data, width, height, channels: 4 }, sourceSize: { width, height }, origin: { x: 0, y: 0 }, state: { width, height, x: 0, y: 0 }, label: { title: 'notes - Editor', app: 'Editor' } };
    };
    const real = new OcrService({ settings: () => OCR });
    let reads = 0;
    const ocr: OcrPort = { enabled: true, recognize: (image, o) => real.recognize(image, o), recognizePages: (pages, o) => (reads++, real.recognizePages(pages, o)) };
    const core = await createCore({ dataDir: join(base, 'core'), env: {}, modules: [moduleFor(fake)], ocr, textIndex: { startDelayMs: 0, quietMs: 0, liveMaxWaitMs: 0 } });
    const stop = core.startMaintenance(() => undefined);
    try {
      const refs: string[] = [];
      const capture = async (): Promise<void> => {
        const ref = (await core.frames.capture({ target: 'desktop:notes', signal: new AbortController().signal })).frame.ref;
        refs.push(ref);
        const end = Date.now() + 60_000;
        while (!core.catalog.text.has(ref)) {
          if (Date.now() > end) throw new Error('the live frame was not indexed');
          await new Promise((res) => setTimeout(res, 50));
        }
      };
      await capture();
      await capture();
      shown = [...page, 'zebrafish appeared in the pond'];
      await capture();
      expect(core.catalog.text.reuseCounts()).toEqual({ read: 1, same: 1, bands: 1 });
      expect(reads).toBe(2);
      const hits = (q: string): string[] => core.catalog.text.search({ match: `"${q}"`, limit: 10 }).hits.map((h) => h.frame.ref).reverse();
      expect(hits('zebrafish')).toEqual([refs[2]]);
      expect(hits('contoso')).toEqual(refs);
      // Each frame keeps its own row: the frame whose text was reused can go (retention) and the others still answer.
      for (const ref of refs.slice(1)) core.catalog.frames.setPinned(ref, true);
      expect(core.catalog.retention.apply({ maxAgeDays: 1, maxBytes: 1e12, now: new Date(Date.now() + 3 * 86_400_000) }).deletedFrames).toBe(1);
      expect(hits('contoso')).toEqual(refs.slice(1));
    } finally {
      stop();
      await core.close();
      await real.dispose();
      rmSync(base, { recursive: true, force: true });
    }
  });
});
