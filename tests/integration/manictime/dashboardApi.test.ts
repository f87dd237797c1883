/**
 * The dashboard browses the whole ManicTime archive through the real `sightline serve`:
 * `/api/frames?source=manictime` pages the archive's own index, newest first, and the
 * thumbnails come through the archive's secure reader.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FramesPage } from '../../../src/shared/api.ts';
import { serve, type Served } from '../../support/cli.ts';
import { createManicTimeFixture, type ManicTimeFixture } from '../../support/manictimeFixture.ts';

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
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ sources: { desktop: off, browser: off, android: off }, manictime: { dataDir: fx.dataDir } }));
    s = await serve(dataDir);
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(base, { recursive: true, force: true });
  });

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
});
