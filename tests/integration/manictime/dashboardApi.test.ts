/**
 * The dashboard browses the whole ManicTime archive through the real `sightline serve`:
 * `/api/frames?source=manictime` pages the archive's own index, newest first, and the
 * thumbnails come through the archive's secure reader. `/api/frames` with no source (the
 * timeline's "All") merges the archive with Sightline's own frames by time from the first
 * request, and archive frames carry the activity at their moment.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrameSummary, FramesPage } from '../../../src/shared/api.ts';
import { seedFrames } from '../../e2e/support.ts';
import { serve, type Served } from '../../support/cli.ts';
import { createManicTimeFixture, type ManicTimeFixture } from '../../support/manictimeFixture.ts';

/** Sightline's own frames, dated among the archive's screenshots (and one of today); retention keeps them. */
const LIVE = [
  { ref: 'live_between', capturedAt: '2024-04-01T09:15:00+02:00' },
  // The same second as two archive screenshots: own frames come first.
  { ref: 'live_tie', capturedAt: '2024-04-01T09:20:00+02:00' },
  { ref: 'live_oldest', capturedAt: '2024-03-29T08:00:00+01:00' },
  { ref: 'live_now', capturedAt: new Date().toISOString() },
];

describe('dashboard API over the ManicTime archive', () => {
  let base: string;
  let fx: ManicTimeFixture;
  let s: Served;
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'sightline-mt-api-'));
    fx = await createManicTimeFixture(join(base, 'fixture'));
    const dataDir = join(base, 'data');
    const off = { enabled: false };
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ sources: { desktop: off, browser: off, android: off }, manictime: { dataDir: fx.dataDir }, retention: { maxAgeDays: 3650 } }));
    await seedFrames(
      dataDir,
      LIVE.map((l) => ({ ...l, source: 'desktop', target: 'desktop:display:0', look: 'editor' as const, width: 320, height: 200 })),
    );
    s = await serve(dataDir);
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  const auth = (): Record<string, string> => ({ Authorization: `Bearer ${s.token}` });
  const get = <T>(path: string): Promise<T> => fetch(`${s.base}${path}`, { headers: auth() }).then((r) => r.json() as Promise<T>);

  it('pages the archive newest first with its total, and serves its thumbnails', async () => {
    const auth = { Authorization: `Bearer ${s.token}` };
    const page = (offset: number): Promise<FramesPage> => fetch(`${s.base}/api/frames?source=manictime&limit=5&offset=${offset}`, { headers: auth }).then((r) => r.json() as Promise<FramesPage>);
    const first = await page(0);
    const readable = fx.shots.length;
    expect(first.total).toBe(readable);
    expect(first.frames).toHaveLength(5);
    expect(first.frames.every((f) => f.source === 'manictime')).toBe(true);
    const times = first.frames.map((f) => Date.parse(f.capturedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(Math.max(...times)).toBe(Math.max(...fx.shots.map((x) => x.utcMs)));
    const second = await page(5);
    expect(second.frames.map((f) => f.ref).filter((r) => first.frames.some((f) => f.ref === r))).toEqual([]);
    const thumb = await fetch(`${s.base}/api/frames/${first.frames[0]!.ref}/thumbnail`, { headers: auth });
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toMatch(/^image\//);
  });

  it('"All" holds the archive from the first request, interleaved with own frames by time', async () => {
    const readable = fx.shots.length;
    const anchor = new Date().toISOString();
    const first = await get<FramesPage>(`/api/frames?limit=10&before=${encodeURIComponent(anchor)}`);
    expect(first.total).toBe(readable + LIVE.length - 1 + (Date.parse(LIVE[3]!.capturedAt) < Date.parse(anchor) ? 1 : 0));
    expect(first.frames.some((f) => f.source === 'manictime')).toBe(true);
    // Page through all of it, as the timeline does.
    const all: FrameSummary[] = [];
    for (let offset = 0; offset < first.total; offset += 17) {
      all.push(...(await get<FramesPage>(`/api/frames?limit=17&offset=${offset}&before=${encodeURIComponent(anchor)}`)).frames);
    }
    expect(all).toHaveLength(first.total);
    expect(new Set(all.map((f) => f.ref)).size).toBe(all.length);
    const times = all.map((f) => Date.parse(f.capturedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const at = (ref: string): number => all.findIndex((f) => f.ref === ref);
    // Between the 09:20 and 09:10 screenshots of 2024-04-01; ahead of the archive's at the same second.
    const between = at('live_between');
    expect(all[between - 1]?.capturedAt).toBe('2024-04-01T09:20:00+02:00');
    expect(all[between + 1]?.capturedAt).toBe('2024-04-01T09:10:00+02:00');
    const tie = at('live_tie');
    expect(all[tie + 1]).toMatchObject({ source: 'manictime', capturedAt: '2024-04-01T09:20:00+02:00' });
    expect(at('live_oldest')).toBe(all.length - 1);
  });

  it('makes catalog rows only for the archive screenshots a page shows', async () => {
    const before = '2024-04-01T10:00:00+02:00';
    // A window nothing else has listed yet: 10:00 back to 09:00 on 2024-04-01 are 14 screenshots.
    const rows = (): Promise<number> => get<FramesPage>(`/api/frames?source=manictime&pinned=false&limit=1&from=2024-04-01T09:00:00%2B02:00&to=${encodeURIComponent(before)}`).then((p) => p.total);
    const had = await rows();
    const page = await get<FramesPage>(`/api/frames?limit=3&offset=2&before=${encodeURIComponent(before)}`);
    expect(page.frames).toHaveLength(3);
    expect((await rows()) - had).toBeLessThanOrEqual(page.frames.filter((f) => f.source === 'manictime').length);
  });

  it('titles archive frames with the activity at their moment, in pages and one by one', async () => {
    const page = await get<FramesPage>(`/api/frames?source=manictime&limit=100&before=${encodeURIComponent('2024-04-01T10:31:00+02:00')}`);
    const byTime = (local: string): FrameSummary | undefined => page.frames.find((f) => f.capturedAt === `2024-04-01T${local}+02:00` && f.monitor === 0);
    // Activities of the fixture (2024-04-01, CEST): Chrome on example.com/a, then Code on report.ts and notes.md, then Chrome on example.com/b.
    expect(byTime('09:10:00')?.activity).toEqual({ app: 'Google Chrome', document: 'https://example.com/a' });
    expect(byTime('09:30:00')?.activity).toEqual({ app: 'Visual Studio Code', document: 'report.ts' });
    expect(byTime('10:00:00')?.activity).toEqual({ app: 'Visual Studio Code', document: 'notes.md' });
    expect(byTime('10:30:00')?.activity).toEqual({ app: 'Google Chrome', document: 'https://example.com/b' });
    // No activity recorded on other days: the frame keeps its monitor as its name.
    const old = await get<FramesPage>(`/api/frames?source=manictime&limit=3&before=${encodeURIComponent('2024-03-30T10:10:00+01:00')}`);
    expect(old.frames.every((f) => f.activity === undefined && f.target.startsWith('manictime:monitor:'))).toBe(true);
    // The viewer asks for one frame; pinning answers with the frame too.
    const ref = byTime('09:30:00')!.ref;
    expect((await get<FrameSummary>(`/api/frames/${ref}`)).activity).toEqual({ app: 'Visual Studio Code', document: 'report.ts' });
    const pinned = await fetch(`${s.base}/api/frames/${ref}/pin`, { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: JSON.stringify({ pinned: true }) }).then((r) => r.json() as Promise<{ frame: FrameSummary }>);
    expect(pinned.frame).toMatchObject({ pinned: true, target: 'manictime:monitor:0', activity: { app: 'Visual Studio Code', document: 'report.ts' } });
    // Own frames carry none.
    const own = await get<FramesPage>('/api/frames?source=desktop&limit=10');
    expect(own.frames.length).toBeGreaterThan(0);
    expect(own.frames.every((f) => f.activity === undefined)).toBe(true);
  });
});
