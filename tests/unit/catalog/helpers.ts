import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach } from 'vitest';
import { Catalog } from '../../../src/main/core/catalog/catalog.ts';
import type { NewFrame } from '../../../src/main/core/catalog/types.ts';

const dirs: string[] = [];
const open: Catalog[] = [];

afterEach(() => {
  for (const c of open.splice(0)) c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'sightline-catalog-'));
  dirs.push(d);
  return d;
}

export function openCatalog(dataDir = tempDir()): Catalog {
  const c = Catalog.open(dataDir);
  open.push(c);
  return c;
}

/** Closes a catalog opened with openCatalog before the test ends (to reopen it). */
export function closeCatalog(c: Catalog): void {
  const i = open.indexOf(c);
  if (i >= 0) open.splice(i, 1);
  c.close();
}

/** Every file under `dir`, relative to it. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

export function fileSize(path: string): number {
  return statSync(path).size;
}

let n = 0;
/** A frame captured `minutesAgo` before `base` (default now), with a tiny image. */
export function frame(over: Partial<NewFrame> & { minutesAgo?: number; base?: Date } = {}): NewFrame {
  const { minutesAgo = 0, base = new Date(), ...rest } = over;
  n++;
  return {
    source: 'desktop',
    target: 'desktop:window:0x1',
    capturedAt: new Date(base.getTime() - minutesAgo * 60_000).toISOString(),
    image: { width: 100, height: 50 },
    sourceSize: { width: 200, height: 100 },
    origin: { x: 10, y: 20 },
    scale: 2,
    format: 'jpeg',
    data: Buffer.from(`image-${n}`),
    state: { n },
    ...rest,
  };
}
