/**
 * list → get → crop on the ManicTime archive through a real MCP client and the real
 * server, in process (InMemoryTransport): the core registers the ManicTime module (with a
 * fixed clock), which writes its rows into the core's catalog.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../src/main/core/index.ts';
import { createMcpServer } from '../../../src/main/core/mcp/server.ts';
import { createManicTimeSource } from '../../../src/main/core/sources/manictime/manictimeSource.ts';
import { manictimeModule } from '../../../src/main/core/sources/manictime/module.ts';
import type { ScreenshotList } from '../../../src/shared/frame.ts';
import { createManicTimeFixture, type ManicTimeFixture } from '../../support/manictimeFixture.ts';

let base: string;
let fx: ManicTimeFixture;
let core: Core;
let client: Client;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sightline-mtmcp-'));
  fx = await createManicTimeFixture(join(base, 'fixture'));
  const dataDir = join(base, 'sightline');
  const module = {
    ...manictimeModule,
    create: (ctx: Parameters<typeof manictimeModule.create>[0]) =>
      createManicTimeSource({ settings: ctx.settings(), archive: ctx.archive, indexDir: ctx.dataDir, env: {}, now: () => new Date('2024-04-02T16:00:00Z'), retry: { attempts: 2, baseDelayMs: 5 } }),
  };
  core = await createCore({ dataDir, env: {}, modules: [module], settings: { manictime: { dataDir: fx.dataDir } } });
  const server = createMcpServer(core, { log: () => undefined });
  const [a, b] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'mt-test', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
});

afterAll(async () => {
  await client?.close();
  await core?.close();
  rmSync(base, { recursive: true, force: true });
});

const call = async (name: string, args: Record<string, unknown>, onprogress?: (p: unknown) => void): Promise<CallToolResult> =>
  (await client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined)) as CallToolResult;
const text = (r: CallToolResult): string => r.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text).join('\n');

describe('ManicTime through MCP', () => {
  it('list_screenshots → get_screenshot → crop_screenshot', async () => {
    const progress: unknown[] = [];
    const list = await call(
      'list_screenshots',
      { source: 'manictime', from: '2024-04-01T00:00:00+02:00', to: '2024-04-02T00:00:00+02:00', max: 20 },
      (p) => progress.push(p),
    );
    expect(list.isError).toBeFalsy();
    const s = list.structuredContent as unknown as ScreenshotList;
    // Activity sampling is the default for the archive: five changes × two monitors.
    expect(s.screenshots).toHaveLength(10);
    expect(s.screenshots[0]).toMatchObject({ source: 'manictime', target: 'manictime:monitor:0', capturedAt: '2024-04-01T09:00:00+02:00', displayLocalTime: '2024-04-01 09:00:00', width: 320, height: 200, hasThumbnail: true, activity: { app: 'Google Chrome', document: 'https://example.com/a' } });
    expect(text(list)).toMatch(/Google Chrome — https:\/\/example\.com\/a/);
    expect(progress.length).toBeGreaterThan(0); // the cold index reported progress

    const ref = s.screenshots[0]!.ref;
    const got = await call('get_screenshot', { ref });
    expect(got.isError).toBeFalsy();
    const images = got.content.filter((c) => c.type === 'image') as Array<{ data: string; annotations?: { audience?: string[] } }>;
    expect(images).toHaveLength(1);
    expect(images[0]!.annotations?.audience).toEqual(['user', 'assistant']);
    // The model gets ManicTime's own thumbnail …
    expect(await sharp(Buffer.from(images[0]!.data, 'base64')).metadata()).toMatchObject({ width: 160, height: 100 });
    // … the human a link to the full image.
    const link = got.content.find((c) => c.type === 'resource_link') as { uri: string; annotations?: { audience?: string[] } };
    expect(link.uri).toBe(`sightline://screenshot/${ref}`);
    expect(link.annotations?.audience).toEqual(['user']);
    const full = await client.readResource({ uri: link.uri });
    const blob = (full.contents[0] as { blob: string }).blob;
    expect(await sharp(Buffer.from(blob, 'base64')).metadata()).toMatchObject({ width: 320, height: 200 });

    // Crop the top-left quadrant (red) in percent, from the full-size file.
    const crop = await call('crop_screenshot', { ref, x: 0, y: 0, width: 50, height: 50 });
    expect(crop.isError, text(crop)).toBeFalsy();
    const frame = (crop.structuredContent as { frame: { parentRef: string; image: { width: number; height: number } } }).frame;
    expect(frame.parentRef).toBe(ref);
    expect(frame.image).toEqual({ width: 160, height: 100 });
    const img = crop.content.find((c) => c.type === 'image') as { data: string };
    const stats = await sharp(Buffer.from(img.data, 'base64')).stats();
    const [r, g, b] = stats.channels.map((c) => c.mean);
    expect(r).toBeGreaterThan(180);
    expect(g).toBeLessThan(70);
    expect(b).toBeLessThan(70);

    // normalized units give the same region.
    const crop2 = await call('crop_screenshot', { ref, x: 0.5, y: 0.5, width: 0.5, height: 0.5, coordinateUnits: 'normalized' });
    const stats2 = await sharp(Buffer.from((crop2.content.find((c) => c.type === 'image') as { data: string }).data, 'base64')).stats();
    expect(stats2.channels[0]!.mean).toBeGreaterThan(180); // yellow: red and green high
    expect(stats2.channels[1]!.mean).toBeGreaterThan(180);
  });

  it('explains an empty window with a reason and a remediation', async () => {
    const r = await call('list_screenshots', { source: 'manictime', from: '2024-02-01T00:00:00Z', to: '2024-02-02T00:00:00Z' });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ screenshots: [], reason: 'RETENTION_OR_PURGED' });
    expect(text(r)).toMatch(/RETENTION_OR_PURGED.*retention/s);
  });

  it('returns coded errors for files being written and for paths out of the root', async () => {
    const all = (await call('list_screenshots', { source: 'manictime', from: '2024-03-30T10:30:00+01:00', to: '2024-03-30T10:34:00+01:00', sampling: 'all' }))
      .structuredContent as unknown as ScreenshotList;
    const at = (t: string) => all.screenshots.find((e) => e.displayLocalTime === `2024-03-30 ${t}`)!.ref;
    const zero = await call('get_screenshot', { ref: at('10:30:30') });
    expect(zero.isError).toBe(true);
    expect(text(zero)).toMatch(/^FILE_UNAVAILABLE: .*empty.* Hint: /);
    const truncated = await call('crop_screenshot', { ref: at('10:31:30'), x: 0, y: 0, width: 10, height: 10 });
    expect(text(truncated)).toMatch(/^FILE_UNAVAILABLE: .*end marker/);
    const out = await call('get_screenshot', { ref: at('10:33:30') });
    expect(text(out)).toMatch(/^PATH_REFUSED: /);
    expect(out.structuredContent).toBeUndefined();
  });

  it('reports ManicTime in sightline://health', async () => {
    const res = await client.readResource({ uri: 'sightline://health' });
    const health = JSON.parse((res.contents[0] as { text: string }).text) as { sources: Array<{ source: string; available: boolean; checks?: Array<{ id: string }> }> };
    const mt = health.sources.find((h) => h.source === 'manictime')!;
    expect(mt.available).toBe(true);
    expect(mt.checks?.map((c) => c.id)).toContain('manictime.retention');
  });
});
