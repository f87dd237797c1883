/**
 * search_screenshots over a generated ManicTime archive whose screenshots carry rendered text,
 * read by the real OCR engine (the system's tesseract) into the real catalog (SQLite FTS5), through
 * a real MCP client: a word from the middle of a line, an app, a time window; a word that is not
 * there finds nothing with a reason; an excluded app's screenshots are never read; retention takes
 * a frame's text with it; a restarted core resumes where the last one stopped.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScreenshotSearch } from '../../../src/shared/api.ts';
import { createCore, type Core, type CoreOptions } from '../../../src/main/core/index.ts';
import { createMcpServer } from '../../../src/main/core/mcp/server.ts';
import { createManicTimeSource } from '../../../src/main/core/sources/manictime/manictimeSource.ts';
import { manictimeModule } from '../../../src/main/core/sources/manictime/module.ts';
import { OcrService } from '../../../src/main/core/text/ocr.ts';
import type { OcrPort } from '../../../src/main/core/text/ocr.ts';
import { FakeSource } from '../../support/fakeSource.ts';
import { moduleFor } from '../../support/modules.ts';
import { createTextArchive, type TextArchive, type TextShotSpec } from '../../support/textArchive.ts';

const SHOTS: TextShotSpec[] = [
  { date: '2024-05-06', time: '09:00:00', app: 'Outlook', title: 'Inbox - Outlook', lines: ['Quarterly budget review with the finance team', 'Invoice 4411 was paid by Contoso yesterday'] },
  { date: '2024-05-06', time: '10:00:00', app: 'Visual Studio Code', title: 'release.md - Code', document: 'C:\\work\\release.md', lines: ['Release checklist for the tundra project', 'Run the tests before tagging'] },
  { date: '2024-05-07', time: '09:00:00', app: 'Google Chrome', title: 'Billing - Chrome', lines: ['Invoice 5120 is waiting for approval', 'Ask finance about the purchase order'] },
  { date: '2024-05-07', time: '11:00:00', app: 'KeePass', title: 'Database.kdbx - KeePass', lines: ['Secret vault entry marmalade', 'Password for the router'] },
  { date: '2024-05-07', time: '12:00:00', app: 'Google Chrome', title: 'Menu - Chrome', lines: ['Lunch menu of the canteen today', 'Pumpkin soup and bread'] },
];
/** The screenshots the indexer reads (KeePass is excluded by default). */
const READABLE = SHOTS.length - 1;
/** A word of each readable screenshot that no other shows. */
const READ_KEYS = ['quarterly', 'tundra', 'approval', 'canteen'];

let base: string;
let archive: TextArchive;

/** The real OCR engine, counting its calls (one may read several screenshots' regions, stacked) and keeping what it read. */
function countingOcr(): OcrPort & { reads: number; read: string[]; dispose(): Promise<void> } {
  const real = new OcrService({ settings: () => ({ enabled: true, engine: 'auto', index: true, cpuBudget: 1, excludeApps: [] }) });
  const port = {
    reads: 0,
    read: [] as string[],
    enabled: true,
    recognize: async (image: Buffer, o?: Parameters<OcrPort['recognize']>[1]) => {
      port.reads++;
      const got = await real.recognize(image, o);
      port.read.push(...got.lines.map((l) => l.text));
      return got;
    },
    dispose: () => real.dispose(),
  };
  return port;
}

interface Running {
  core: Core;
  client: Client;
  ocr: ReturnType<typeof countingOcr>;
  stop: () => void;
  close(): Promise<void>;
}

async function start(dataDir: string, opts: Partial<CoreOptions> & { fake?: FakeSource; batch?: number; manictimeDir?: string } = {}): Promise<Running> {
  const module = {
    ...manictimeModule,
    create: (ctx: Parameters<typeof manictimeModule.create>[0]) =>
      createManicTimeSource({ settings: ctx.settings(), archive: ctx.archive, indexDir: ctx.dataDir, env: {}, now: () => new Date('2024-05-07T16:00:00Z'), retry: { attempts: 2, baseDelayMs: 5 } }),
  };
  const ocr = countingOcr();
  const core = await createCore({
    dataDir,
    env: {},
    modules: [module, ...(opts.fake ? [moduleFor(opts.fake)] : [])],
    settings: { manictime: { dataDir: opts.manictimeDir ?? archive.dataDir } },
    ocr,
    textIndex: { startDelayMs: 0, quietMs: 0, pollMs: 300, retryMs: 300, batch: opts.batch ?? 2 },
  });
  const stop = core.startMaintenance(() => undefined);
  const server = createMcpServer(core, { log: () => undefined });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'search-test', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  await client.listTools();
  return {
    core,
    client,
    ocr,
    stop,
    async close() {
      stop();
      await client.close();
      await core.close();
      await ocr.dispose();
    },
  };
}

async function until(what: string, ok: () => boolean, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const search = async (r: Running, args: Record<string, unknown>): Promise<{ res: CallToolResult; s: ScreenshotSearch; text: string }> => {
  const res = (await r.client.callTool({ name: 'search_screenshots', arguments: args })) as CallToolResult;
  const text = res.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text).join('\n');
  return { res, s: res.structuredContent as unknown as ScreenshotSearch, text };
};

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sightline-search-'));
  archive = await createTextArchive(join(base, 'fixture'), SHOTS);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('search_screenshots over an OCR-indexed ManicTime archive', { timeout: 180_000 }, () => {
  let r: Running;
  const shot = (time: string, date = '2024-05-06') => archive.shots.find((s) => s.time === time && s.date === date)!;

  beforeAll(async () => {
    r = await start(join(base, 'main'));
    await until('the archive indexed', () => r.core.indexer.status().state === 'idle' && r.core.catalog.text.count() >= READABLE);
  });
  afterAll(async () => r?.close());

  it('finds a screenshot by a word from the middle of a line, with its box on that line', async () => {
    const { res, s, text } = await search(r, { query: 'contoso' });
    expect(res.isError).toBeFalsy();
    expect(s.results).toHaveLength(1);
    const hit = s.results[0]!;
    const want = shot('09:00:00');
    expect(hit).toMatchObject({ source: 'manictime', capturedAt: '2024-05-06T09:00:00+02:00', app: 'Outlook', title: 'Inbox - Outlook', image: { width: 900, height: 300 } });
    expect(hit.snippet).toContain('«Contoso»');
    expect(hit.boxes).toHaveLength(1);
    const box = hit.boxes[0]!;
    expect(box.text).toMatch(/Contoso/);
    const band = want.bands[1]!;
    expect(box.y).toBeGreaterThanOrEqual(band.top - 3);
    expect(box.y + box.height).toBeLessThanOrEqual(band.bottom + 3);
    expect(box.x).toBeGreaterThan(200); // the middle of the line, not its start
    expect(text).toContain(hit.ref);
    // The ref is a frame: get_screenshot and crop_screenshot take it, the box in pixels.
    const got = (await r.client.callTool({ name: 'get_screenshot', arguments: { ref: hit.ref } })) as CallToolResult;
    expect(got.isError).toBeFalsy();
    const crop = (await r.client.callTool({ name: 'crop_screenshot', arguments: { ref: hit.ref, x: box.x, y: box.y, width: box.width, height: box.height, coordinateUnits: 'pixels' } })) as CallToolResult;
    expect(crop.isError).toBeFalsy();
  });

  it('finds a phrase and a number', async () => {
    const { s } = await search(r, { query: '"invoice 4411"' });
    expect(s.results.map((h) => h.capturedAt)).toEqual(['2024-05-06T09:00:00+02:00']);
    expect(s.results[0]!.boxes.map((b) => b.text)).toEqual(['Invoice', '4411']);
  });

  it('finds screenshots by app, and filters by app', async () => {
    const byName = await search(r, { query: 'chrome' });
    expect(byName.s.results.map((h) => h.capturedAt)).toEqual(['2024-05-07T12:00:00+02:00', '2024-05-07T09:00:00+02:00']);
    expect(byName.s.results.every((h) => h.app === 'Google Chrome')).toBe(true);
    const filtered = await search(r, { query: 'invoice', app: 'Outlook' });
    expect(filtered.s.results.map((h) => h.capturedAt)).toEqual(['2024-05-06T09:00:00+02:00']);
  });

  it('filters by a time window, newest first', async () => {
    const all = await search(r, { query: 'invoice' });
    expect(all.s.results.map((h) => h.capturedAt)).toEqual(['2024-05-07T09:00:00+02:00', '2024-05-06T09:00:00+02:00']);
    const day2 = await search(r, { query: 'invoice', from: '2024-05-07T00:00:00+02:00', to: '2024-05-08T00:00:00+02:00' });
    expect(day2.s.results.map((h) => h.capturedAt)).toEqual(['2024-05-07T09:00:00+02:00']);
    const finance = await search(r, { query: 'finance', source: 'manictime', to: '2024-05-07T00:00:00+02:00' });
    expect(finance.s.results.map((h) => h.capturedAt)).toEqual(['2024-05-06T09:00:00+02:00']);
  });

  it('a word that is not there finds nothing, and says why', async () => {
    const { res, s, text } = await search(r, { query: 'zeppelin' });
    expect(res.isError).toBeFalsy();
    expect(s.results).toEqual([]);
    expect(s.reason).toBe('NO_MATCH');
    expect(text).toMatch(/No screenshots \(NO_MATCH\)/);
    expect(text).toMatch(/4 indexed frames searched/);
    const empty = await search(r, { query: 'invoice', from: '2020-01-01', to: '2020-01-02' });
    expect(empty.s.reason).toBe('NO_FRAMES_IN_RANGE');
  });

  it('quotes and operators in the query never reach FTS5 syntax', async () => {
    for (const query of ['"unbalanced', 'NEAR(a b)', 'app:Outlook', '^start', 'a AND OR NOT b', "'; DROP TABLE frames; --", '{text}: x', 'invoice*']) {
      const { res } = await search(r, { query });
      expect(res.isError, query).toBeFalsy();
    }
    const bad = await search(r, { query: '"" ***' });
    expect(bad.res.isError).toBe(true);
    expect(bad.text).toMatch(/^INVALID_ARGUMENT: .*Hint:/s);
    const order = await search(r, { query: 'invoice', from: '2024-05-08', to: '2024-05-07' });
    expect(order.res.isError).toBe(true);
    expect(order.text).toMatch(/^INVALID_ARGUMENT: "from" must be before "to"/);
  });

  it("an excluded app's screenshots are never read nor indexed", async () => {
    const keepass = shot('11:00:00', '2024-05-07');
    // Never read: no OCR call saw its lines (the others' were read, stacked into fewer calls).
    expect(r.ocr.reads).toBeGreaterThanOrEqual(1);
    expect(r.ocr.read.join('\n')).toMatch(/pumpkin/i);
    expect(r.ocr.read.join('\n')).not.toMatch(/marmalade|vault/i);
    const { s } = await search(r, { query: 'marmalade' });
    expect(s.results).toEqual([]);
    expect((await search(r, { query: 'keepass' })).s.results).toEqual([]);
    const rows = r.core.catalog.frames.list({ source: 'manictime', limit: 100 }).filter((f) => f.capturedAt.startsWith('2024-05-07T11:00:00'));
    expect(rows.length).toBeLessThanOrEqual(1);
    for (const f of rows) expect(r.core.catalog.text.has(f.ref)).toBe(false);
    expect(r.core.indexer.status().excluded).toBeGreaterThanOrEqual(1);
    expect(keepass.app).toBe('KeePass');
  });
});

describe('the text index follows live frames, exclusions and retention', { timeout: 120_000 }, () => {
  it("indexes a live capture's title; an excluded app's capture never; retention deletes the text with the frame", async () => {
    const fake = new FakeSource({ id: 'desktop:ledger', app: 'Ledger', x: 0, y: 0, width: 400, height: 300, pixelRatio: 1 }, { id: 'desktop:vault', app: 'KeePassXC', x: 0, y: 0, width: 400, height: 300, pixelRatio: 1 });
    const capture = fake.screen.capture.bind(fake.screen);
    fake.screen.capture = async (target, o) => {
      const w = fake.windows.get(target)!;
      return { ...(await capture(target, o)), label: { title: `${w.app} main window`, app: w.app } };
    };
    const r = await start(join(base, 'live'), { fake });
    try {
      r.core.settings.update({ sources: { manictime: { enabled: false } } });
      const a = await r.client.callTool({ name: 'capture', arguments: { target: 'desktop:ledger' } });
      const b = await r.client.callTool({ name: 'capture', arguments: { target: 'desktop:vault' } });
      expect(a.isError).toBeFalsy();
      expect(b.isError).toBeFalsy();
      const ledgerRef = (a.structuredContent as { frame: { ref: string } }).frame.ref;
      const vaultRef = (b.structuredContent as { frame: { ref: string } }).frame.ref;
      await until('the live frame indexed', () => r.core.catalog.text.has(ledgerRef));
      await until('the indexer idle', () => r.core.indexer.status().state === 'idle');
      expect(r.core.catalog.text.has(vaultRef)).toBe(false);
      const found = await search(r, { query: 'ledger main', source: 'desktop' });
      expect(found.s.results.map((h) => h.ref)).toEqual([ledgerRef]);

      // Retention: the frames go, their text with them.
      const res = r.core.catalog.retention.apply({ maxAgeDays: 1, maxBytes: 1e12, now: new Date(Date.now() + 3 * 86_400_000) });
      expect(res.deletedFrames).toBe(2);
      expect(r.core.catalog.text.has(ledgerRef)).toBe(false);
      const db = r.core.catalog.text;
      expect(db.count()).toBe(0);
      const after = await search(r, { query: 'ledger', source: 'desktop' });
      expect(after.s.results).toEqual([]);
      expect(after.s.reason).toBe('NO_FRAMES_IN_RANGE');
    } finally {
      await r.close();
    }
  });
});

describe('an archive without its activity database', { timeout: 120_000 }, () => {
  it('is not indexed while ocr.excludeApps is set: which app a screenshot showed cannot be known', async () => {
    // The same screenshots, without ManicTimeReports.db (KeePass's among them).
    const bare = join(base, 'bare');
    cpSync(archive.dataDir, bare, { recursive: true });
    rmSync(join(bare, 'ManicTimeReports.db'), { force: true });
    const r = await start(join(base, 'no-activity'), { manictimeDir: bare });
    try {
      await until('the archive walked', () => r.core.indexer.status().state === 'idle' && (r.core.indexer.status().unlabeled ?? 0) >= SHOTS.length);
      expect(r.ocr.reads).toBe(0);
      expect(r.core.catalog.text.count()).toBe(0);
      expect((await search(r, { query: 'marmalade' })).s.results).toEqual([]);
    } finally {
      await r.close();
    }
  });
});

describe('a restarted core resumes the archive where the last one stopped', { timeout: 240_000 }, () => {
  it('reads each screenshot once across two runs', async () => {
    const dataDir = join(base, 'restart');
    const first = await start(dataDir, { batch: 1 });
    await until('two screenshots indexed', () => first.core.catalog.text.count() >= 2);
    await first.close();
    // Which screenshots each run read, by a word only that screenshot shows (a screenshot is
    // read as several pages: its body and its bars).
    const readBy = (r: Running): string[] => READ_KEYS.filter((k) => r.ocr.read.some((l) => l.toLowerCase().includes(k)));
    const firstRead = readBy(first);
    expect(firstRead.length).toBeGreaterThanOrEqual(2);

    const second = await start(dataDir, { batch: 1 });
    try {
      await until('the archive indexed', () => second.core.indexer.status().state === 'idle' && second.core.catalog.text.count() >= READABLE);
      const stored = second.core.catalog.text.count();
      expect(stored).toBe(READABLE);
      // Nothing the first run stored was read again (a screenshot cut off by the close may be read twice).
      const secondRead = readBy(second);
      expect(secondRead.filter((k) => firstRead.includes(k)).length).toBeLessThanOrEqual(1);
      expect(new Set([...firstRead, ...secondRead]).size).toBe(READABLE);
      const newest = await search(second, { query: 'pumpkin' });
      expect(newest.s.results).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
