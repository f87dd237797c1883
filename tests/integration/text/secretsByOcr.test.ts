/**
 * Where text is read by OCR (the desktop, the ManicTime archive), secrets matching the mask
 * patterns are blanked from what is read: a generated archive screenshot shows a card number, an
 * API key and a number failing the Luhn check; the real OCR engine reads it into the real text
 * index, and neither search_screenshots nor find_text ever gives the secrets, while the readable
 * number is found.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ScreenshotSearch } from '../../../src/shared/api.ts';
import { createCore, type Core } from '../../../src/main/core/index.ts';
import { createMcpServer } from '../../../src/main/core/mcp/server.ts';
import { createManicTimeSource } from '../../../src/main/core/sources/manictime/manictimeSource.ts';
import { manictimeModule } from '../../../src/main/core/sources/manictime/module.ts';
import { OcrService } from '../../../src/main/core/text/ocr.ts';
import { createTextArchive, type TextArchive } from '../../support/textArchive.ts';

const CARD = '4111 1111 1111 1111';
const KEY = 'ghp_Zq8Wm3Lp0Xv7Tn2Rb5Yc9Hd4Kf6Jg1Ns8Qw3';
const ORDER = '4111 1111 1111 1112';

let base: string;
let archive: TextArchive;
let ocr: OcrService;

interface Running {
  core: Core;
  client: Client;
  stop: () => void;
}
const running: Running[] = [];

/** A core over the archive, indexed to the end, with masking on or off, and an MCP client of it. */
async function start(masking: boolean): Promise<Client> {
  const module = {
    ...manictimeModule,
    create: (ctx: Parameters<typeof manictimeModule.create>[0]) =>
      createManicTimeSource({ settings: ctx.settings(), archive: ctx.archive, indexDir: ctx.dataDir, env: {}, now: () => new Date('2024-05-07T16:00:00Z'), retry: { attempts: 2, baseDelayMs: 5 } }),
  };
  const core = await createCore({
    dataDir: join(base, masking ? 'data' : 'data-unmasked'),
    env: {},
    modules: [module],
    settings: { manictime: { dataDir: archive.dataDir }, privacy: { masking } },
    ocr,
    textIndex: { startDelayMs: 0, quietMs: 0, pollMs: 200, retryMs: 300 },
  });
  const stop = core.startMaintenance(() => undefined);
  const server = createMcpServer(core, { log: () => undefined });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'secrets-ocr-test', version: '1' });
  running.push({ core, client, stop });
  await Promise.all([server.connect(a), client.connect(b)]);
  await client.listTools();
  const end = Date.now() + 90_000;
  while (!(core.indexer.status().state === 'idle' && core.catalog.text.count() >= 1)) {
    if (Date.now() > end) throw new Error('the archive was not indexed');
    await new Promise((r) => setTimeout(r, 200));
  }
  return client;
}

let client: Client;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sightline-secrets-ocr-'));
  archive = await createTextArchive(join(base, 'fixture'), [
    { date: '2024-05-07', time: '09:00:00', app: 'Notepad', title: 'notes.txt - Notepad', lines: [`Card ${CARD} on file`, `Order ${ORDER} shipped`, `Token ${KEY}`] },
  ]);
  ocr = new OcrService({ settings: () => ({ enabled: true, engine: 'auto', index: true, cpuBudget: 1, excludeApps: [] }) });
  client = await start(true);
}, 120_000);

afterAll(async () => {
  for (const r of running) {
    r.stop();
    await r.client.close();
    await r.core.close();
  }
  await ocr?.dispose();
  rmSync(base, { recursive: true, force: true });
});

const call = async (name: string, args: Record<string, unknown>, via = client): Promise<{ s: Record<string, unknown>; text: string }> => {
  const r = (await via.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text).join('\n');
  expect(r.isError, text).toBeFalsy();
  return { s: r.structuredContent as Record<string, unknown>, text };
};

it('search_screenshots and find_text never give a card number or a token read by OCR; the non-Luhn number is found', { timeout: 60_000 }, async () => {
  const order = (await call('search_screenshots', { query: `"${ORDER}"` })).s as unknown as ScreenshotSearch;
  expect(order.results).toHaveLength(1);
  for (const q of [`"${CARD}"`, KEY, 'Zq8Wm3Lp0Xv7Tn2Rb5Yc9Hd4Kf6Jg1Ns8Qw3']) {
    const none = (await call('search_screenshots', { query: q })).s as unknown as ScreenshotSearch;
    expect(none.results, q).toEqual([]);
  }
  const ref = order.results[0]!.ref;
  // OCR matching forgives an edit, so the card's query may find the readable number next to it; never the card.
  const card = await call('find_text', { ref, text: CARD });
  expect((card.s.matches as { text: string }[]).map((m) => m.text)).not.toContain(CARD);
  expect(card.text).not.toContain(CARD.replace(/ /g, ''));
  expect((await call('find_text', { ref, text: 'Card' })).s.matches).toHaveLength(1);
  const readable = await call('find_text', { ref, text: ORDER });
  expect((readable.s.matches as unknown[]).length).toBe(1);
  // Nothing Sightline wrote holds them (the archive's own files are ManicTime's).
  const walk = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
  for (const f of walk(join(base, 'data'))) for (const secret of [CARD, KEY]) expect(readFileSync(f).includes(secret), `${secret} in ${f}`).toBe(false);
});

it('with masking off, the same screenshot is searchable by its card number and token (what the test above finds missing is masking\'s doing)', { timeout: 120_000 }, async () => {
  const unmasked = await start(false);
  for (const q of [`"${ORDER}"`, `"${CARD}"`, KEY]) {
    const found = (await call('search_screenshots', { query: q }, unmasked)).s as unknown as ScreenshotSearch;
    expect(found.results, q).toHaveLength(1);
  }
  const ref = ((await call('search_screenshots', { query: KEY }, unmasked)).s as unknown as ScreenshotSearch).results[0]!.ref;
  const card = await call('find_text', { ref, text: CARD }, unmasked);
  expect((card.s.matches as { text: string }[]).map((m) => m.text)).toContain(CARD);
});
