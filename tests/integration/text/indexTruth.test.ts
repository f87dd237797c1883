/**
 * The text index tells the truth, with the real tesseract and the real indexer over a generated
 * ManicTime archive of application screens in a light and a dark theme: neighbours that differ
 * only in a title bar, only in one side-bar word, only in a clock, and pages never seen before.
 * Every word bare tesseract reads on a whole screenshot (inverted too where it is dark) is found
 * on it (≥ 97 % per theme and per place, ≥ 95 % on each screenshot), and search_screenshots finds
 * a changed title, side-bar word or clock only on the screenshots that show it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScreenshotSearch } from '../../../src/shared/api.ts';
import { CATALOG_FILE } from '../../../src/main/core/catalog/catalog.ts';
import { createCore, type Core } from '../../../src/main/core/index.ts';
import { createMcpServer } from '../../../src/main/core/mcp/server.ts';
import { createManicTimeSource } from '../../../src/main/core/sources/manictime/manictimeSource.ts';
import { manictimeModule } from '../../../src/main/core/sources/manictime/module.ts';
import { tokens } from '../../../src/main/core/text/query.ts';
import { SCREEN, drawScreen, newScreen, rng, tick, word, words, type AppScreen, type DrawnScreen } from '../../support/appScreens.ts';
import { scoreIndex, share, type TruthShot } from '../../support/indexTruth.ts';
import { createTextArchive } from '../../support/textArchive.ts';

interface Shot {
  screen: AppScreen;
  drawn: DrawnScreen;
  time: string;
}

let base: string;
let core: Core;
let client: Client;
let stop: () => void;
const shots: Shot[] = [];
/** Each shot's capture time (UTC ms), in order. */
let times: number[] = [];
/** Words each neighbour changed (the older one's and the newer one's). */
const changed: { what: string; word: string }[] = [];

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sightline-index-truth-'));
  const r = rng(41);
  let minute = 0;
  const add = async (screen: AppScreen): Promise<number> => {
    const t = 9 * 60 + minute++;
    shots.push({ screen, drawn: await drawScreen(screen), time: `${String(Math.floor(t / 60)).padStart(2, '0')}:${String(t % 60).padStart(2, '0')}:00` });
    return shots.length - 1;
  };
  for (const theme of ['light', 'dark'] as const) {
    const a = newScreen(r, theme);
    await add(a);
    // Only the title bar: another document in front, the same layout.
    const titled = { ...a, document: words(r, 2) };
    await add(titled);
    changed.push(...tokensOf(a.document).map((w) => ({ what: `${theme} title before`, word: w })), ...tokensOf(titled.document).map((w) => ({ what: `${theme} title after`, word: w })));
    // Only one side-bar word.
    const side = [...titled.side];
    const k = 3;
    side[k] = word(r);
    const sided = { ...titled, side };
    await add(sided);
    changed.push({ what: `${theme} side word before`, word: (titled.side[k] as string).toLowerCase() }, { what: `${theme} side word after`, word: (side[k] as string).toLowerCase() });
    // Only the clock.
    const clocked = { ...sided, clock: tick(sided.clock) };
    await add(clocked);
    changed.push({ what: `${theme} clock before`, word: sided.clock }, { what: `${theme} clock after`, word: clocked.clock });
    // A page never seen before.
    await add(newScreen(r, theme));
  }
  const archive = await createTextArchive(
    join(base, 'fixture'),
    shots.map((s) => ({ date: '2024-05-07', time: s.time, app: s.screen.app, title: `${s.screen.document} - ${s.screen.app}`, lines: [], jpeg: s.drawn.jpeg, size: SCREEN })),
  );
  times = archive.shots.map((s) => s.utcMs);
  const module = {
    ...manictimeModule,
    create: (ctx: Parameters<typeof manictimeModule.create>[0]) =>
      createManicTimeSource({ settings: ctx.settings(), archive: ctx.archive, indexDir: ctx.dataDir, env: {}, now: () => new Date('2024-05-07T16:00:00Z'), retry: { attempts: 2, baseDelayMs: 5 } }),
  };
  core = await createCore({ dataDir: join(base, 'data'), env: {}, modules: [module], settings: { manictime: { dataDir: archive.dataDir }, ocr: { cpuBudget: 1 } }, textIndex: { startDelayMs: 0, quietMs: 0, pollMs: 200, retryMs: 300 } });
  stop = core.startMaintenance(() => undefined);
  const server = createMcpServer(core, { log: () => undefined });
  const [x, y] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'index-truth-test', version: '1' });
  await Promise.all([server.connect(x), client.connect(y)]);
  const end = Date.now() + 150_000;
  while (!(core.indexer.status().state === 'idle' && core.catalog.text.count() >= shots.length)) {
    if (Date.now() > end) throw new Error('the archive was not indexed');
    await new Promise((ok) => setTimeout(ok, 200));
  }
}, 180_000);

afterAll(async () => {
  stop?.();
  await client?.close();
  await core?.close();
  rmSync(base, { recursive: true, force: true });
});

const tokensOf = (s: string): string[] => tokens(s);

/** Each shot's indexed text, read from the catalog file itself (by capture time: shots are a minute apart). */
function indexedTexts(): string[] {
  const db = new Database(join(base, 'data', CATALOG_FILE), { readonly: true });
  try {
    const rows = db.prepare('SELECT f.captured_at AS at, t.text AS text FROM frame_text_meta m JOIN frame_text t ON t.rowid = m.key JOIN frames f ON f.ref = m.ref ORDER BY f.captured_at').all() as { at: number; text: string }[];
    return rows.map((row) => row.text);
  } finally {
    db.close();
  }
}

describe('the text index against bare tesseract on each whole screenshot', { timeout: 120_000 }, () => {
  it('finds ≥ 97 % of the words bare tesseract reads, per theme and per place, and ≥ 95 % on each screenshot', async () => {
    const texts = indexedTexts();
    expect(texts).toHaveLength(shots.length);
    const truth: TruthShot[] = shots.map((s) => ({ jpeg: s.drawn.jpeg, theme: s.screen.theme, words: s.drawn.words }));
    const score = await scoreIndex(truth, texts);
    const report = JSON.stringify({ recall: Object.fromEntries([...score.recall].map(([k, t]) => [k, `${t.found}/${t.floor}`])), missed: score.missed.slice(0, 20) });
    for (const key of ['light', 'dark', 'title', 'tabs', 'side', 'status', 'body']) {
      if (score.recall.get(key)) expect(share(score.recall.get(key)), `${key}: ${report}`).toBeGreaterThanOrEqual(0.97);
    }
    score.perShot.forEach((t, i) => expect(share(t), `screenshot ${i}: ${report}`).toBeGreaterThanOrEqual(0.95));
    expect(score.wrong, report).toEqual([]);
  });

  it('search_screenshots finds a changed title, side-bar word or clock only on the screenshots that show it', async () => {
    const hits = async (query: string): Promise<number[]> => {
      const r = (await client.callTool({ name: 'search_screenshots', arguments: { query: `"${query}"`, max: 50 } })) as CallToolResult;
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      const found = (r.structuredContent as unknown as ScreenshotSearch).results.map((h) => Date.parse(h.capturedAt));
      return times.flatMap((t, i) => (found.includes(t) ? [i] : []));
    };
    // Which screenshots show a text: every token of it among the words drawn there, in order.
    const shows = (text: string): number[] => {
      const want = tokens(text).join(' ');
      return shots.flatMap((s, i) => (` ${s.drawn.words.flatMap((w) => tokens(w.text)).join(' ')} `.includes(` ${want} `) ? [i] : []));
    };
    let found = 0;
    for (const c of changed) {
      const got = await hits(c.word);
      const where = shows(c.word);
      expect(
        got.filter((i) => !where.includes(i)),
        `${c.what} "${c.word}" found on screenshots that do not show it (it is on ${where.join(', ')})`,
      ).toEqual([]);
      found += got.length;
    }
    // Not vacuous: the changed words are found where they are.
    expect(found).toBeGreaterThanOrEqual(changed.length);
  });
});
