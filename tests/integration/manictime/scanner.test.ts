/** The incremental scanner on a real folder tree: fingerprints, hot folders, removals. */
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DaySummary } from '../../../src/main/core/sources/manictime/dayRecord.ts';
import { decodeShots } from '../../../src/main/core/sources/manictime/dayRecord.ts';
import { createMemoryStore, type IndexStore } from '../../../src/main/core/sources/manictime/indexStore.ts';
import { HOT_MS, refreshIndex } from '../../../src/main/core/sources/manictime/scanner.ts';

let root: string;
let store: IndexStore;
let summaries: Map<string, DaySummary>;
const signal = new AbortController().signal;
const name = (sec: number, id: number, thumb = false): string => `2024-04-01_09-00-${String(sec).padStart(2, '0')}_02-00_320_200_${id}_0${thumb ? '.thumbnail' : ''}.jpg`;
const dayDir = (): string => join(root, '2024-04-01');
const old = new Date('2024-04-01T20:00:00Z');

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sightline-mtscan-'));
  mkdirSync(dayDir());
  writeFileSync(join(dayDir(), name(0, 1)), '');
  writeFileSync(join(dayDir(), name(0, 1, true)), '');
  utimesSync(dayDir(), old, old);
  store = createMemoryStore();
  summaries = new Map();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const refresh = (nowMs = Date.now(), onlyDays?: Set<string>) => refreshIndex({ root, store, summaries, now: () => nowMs, signal, onlyDays });

describe('refreshIndex', () => {
  it('rescans only changed day folders', async () => {
    expect((await refresh()).scanned).toEqual(['2024-04-01']);
    expect((await refresh()).scannedDays).toBe(0);
    writeFileSync(join(dayDir(), name(5, 2)), '');
    const s = await refresh();
    expect(s.scanned).toEqual(['2024-04-01']);
    expect(decodeShots(store.load('2024-04-01')!).map((x) => x.id)).toEqual([1, 2]);
  });

  it('rescans a folder written to within the last seconds even when its mtime looks unchanged', async () => {
    const mtime = statSync(dayDir()).mtimeMs;
    await refresh(mtime + HOT_MS / 2);
    expect(summaries.get('2024-04-01')?.hot).toBe(true);
    // A file lands in the same mtime tick as the scan (coarse timestamps): the fingerprint cannot see it.
    writeFileSync(join(dayDir(), name(9, 3)), '');
    utimesSync(dayDir(), old, old);
    const s = await refresh(mtime + HOT_MS * 5);
    expect(s.scanned).toEqual(['2024-04-01']);
    expect(summaries.get('2024-04-01')?.hot).toBe(false);
    expect(decodeShots(store.load('2024-04-01')!).map((x) => x.id)).toEqual([1, 3]);
    expect((await refresh(mtime + HOT_MS * 5)).scannedDays).toBe(0);
  });

  it('notices changes inside nested folders', async () => {
    mkdirSync(join(dayDir(), 'sub'));
    utimesSync(dayDir(), old, old);
    await refresh();
    writeFileSync(join(dayDir(), 'sub', name(7, 4)), '');
    expect((await refresh()).scanned).toEqual(['2024-04-01']);
    const shot = decodeShots(store.load('2024-04-01')!).find((x) => x.id === 4);
    expect(shot?.subdir).toBe('sub');
  });

  it('drops removed day folders, ignores other folders and never follows symlinked ones', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'sightline-mtscan-out-'));
    try {
      mkdirSync(join(outside, '2024-04-02'));
      writeFileSync(join(outside, '2024-04-02', name(0, 9)), '');
      symlinkSync(join(outside, '2024-04-02'), join(root, '2024-04-02'));
      mkdirSync(join(root, 'Temp'));
      mkdirSync(join(root, '2024-04-03'));
      const s = await refresh();
      expect(s.dayFolders).toBe(2);
      expect(s.symlinksSkipped).toBe(1);
      expect([...summaries.keys()].sort()).toEqual(['2024-04-01', '2024-04-03']);
      rmSync(join(root, '2024-04-03'), { recursive: true });
      expect((await refresh()).removed).toEqual(['2024-04-03']);
      expect(store.load('2024-04-03')).toBeUndefined();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('with onlyDays, still finds new folders but leaves other known ones unchecked', async () => {
    await refresh();
    mkdirSync(join(root, '2024-04-05'));
    writeFileSync(join(dayDir(), name(30, 5)), '');
    const s = await refresh(Date.now(), new Set(['2024-04-04']));
    expect(s.scanned).toEqual(['2024-04-05']);
  });
});
