/**
 * A full or read-only data directory, for real — a small tmpfs mounted as the data
 * directory (needs root, as CI has; skipped where mounting is not allowed). Storage conditions
 * have their own codes naming the folder, a failed capture leaves no row and no temp file, and
 * writing the activity log never changes what an action answers.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSource, type FakeWindow } from '../../support/fakeSource.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';

const WIN: FakeWindow = { id: 'desktop:window:1', app: 'Notes', x: 0, y: 0, width: 400, height: 300, pixelRatio: 1 };

/** Mount an 8 MB tmpfs, or say why not. */
function mountTmpfs(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'sightline-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

const mounted = process.platform === 'linux' ? mountTmpfs() : undefined;

/** Fill the disk to the last byte. */
function fill(dir: string): void {
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(dir, `filler-${i}`), Buffer.alloc(i < 64 ? 256 * 1024 : 512));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOSPC') return;
      throw e;
    }
  }
}

/** Every file under the frames folder. */
function frameFiles(dir: string): string[] {
  return readdirSync(join(dir, 'frames'), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => d.name);
}

describe.skipIf(!mounted)('a full or read-only data directory (a real tmpfs)', () => {
  const dataDir = join(mounted ?? '', 'data');
  let h: Harness;
  let fake: FakeSource;

  beforeAll(async () => {
    fake = new FakeSource({ ...WIN });
    h = await startHarness({ dataDir, sources: [fake] });
  });

  afterAll(async () => {
    await h?.close().catch(() => undefined);
    if (mounted) {
      execFileSync('umount', [mounted]);
      rmSync(mounted, { recursive: true, force: true });
    }
  });

  it('full: capture is STORAGE_FULL naming the folder, with no row and no temp file; actions still say what happened', async () => {
    const first = await h.call('capture', { target: WIN.id, maxDimension: 200 });
    expect(first.isError, textOf(first)).toBeFalsy();
    const files = frameFiles(dataDir);
    fill(mounted!);

    const full = await h.call('capture', { target: WIN.id, maxDimension: 300 });
    expect(full.isError).toBe(true);
    expect(textOf(full)).toMatch(/^STORAGE_FULL: .*the disk of the data directory is full \(.*\/data\)\. Hint: Free space on that disk/);
    expect(h.core.frames.count({ source: 'desktop' })).toBe(1);
    expect(frameFiles(dataDir)).toEqual(files);

    // A click is done on the window whatever the log can record; the answer says so.
    const before = fake.actions.length;
    const click = await h.call('click', { target: WIN.id, x: 50, y: 40 });
    expect(click.isError, textOf(click)).toBeFalsy();
    expect(fake.actions.length).toBe(before + 1);
    const warnings = (click.structuredContent as { warnings?: string[] }).warnings ?? [];
    expect(warnings).toEqual([
      expect.stringMatching(/^The action was done, but the screen after it could not be captured \(STORAGE_FULL: Could not store frame f_\w+: the disk of the data directory is full \(.*\/data\)\)\.$/),
      expect.stringMatching(/^The action was done, but its activity-log entry could not be written \(STORAGE_FULL: .*\)\.$/),
    ]);
    expect(textOf(click)).toContain('\nWarning: The action was done, but its activity-log entry could not be written');

    // Refusals keep their own codes on a full disk.
    const outside = await h.call('click', { target: WIN.id, x: 5000, y: 40 });
    expect(textOf(outside)).toMatch(/^POINT_OUTSIDE_FRAME:/);
    h.core.setPaused(true);
    try {
      expect(textOf(await h.call('click', { target: WIN.id, x: 50, y: 40 }))).toMatch(/^INPUT_PAUSED:/);
    } finally {
      h.core.setPaused(false);
    }
    expect(fake.actions.length).toBe(before + 1);
    // Other settings cannot be changed without saving them: a clear code, nothing changed, no temp file.
    expect(() => h.core.settings.update({ capture: { maxDimension: 900 } })).toThrow(expect.objectContaining({ code: 'STORAGE_FULL' }));
    expect(h.core.settings.values().capture.maxDimension).not.toBe(900);
    expect(readdirSync(dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('read-only: capture is STORAGE_READ_ONLY naming the folder; an action is still done and says what it could not record', async () => {
    for (const f of readdirSync(mounted!)) if (f.startsWith('filler-')) rmSync(join(mounted!, f));
    // The frames folder made read-only under the running core (the catalog stays writable).
    const frames = join(dataDir, 'frames');
    execFileSync('mount', ['--bind', frames, frames]);
    try {
      execFileSync('mount', ['-o', 'remount,bind,ro', frames]);
      const ro = await h.call('capture', { target: WIN.id, maxDimension: 250 });
      expect(ro.isError).toBe(true);
      expect(textOf(ro)).toMatch(/^STORAGE_READ_ONLY: .*the data directory cannot be written \(.*\/data\) \(EROFS\)\. Hint: Make the data directory writable/);
      expect(h.core.frames.count({ source: 'desktop' })).toBe(1);
      const before = fake.actions.length;
      const click = await h.call('click', { target: WIN.id, x: 60, y: 40 });
      expect(click.isError, textOf(click)).toBeFalsy();
      expect(fake.actions.length).toBe(before + 1);
      expect((click.structuredContent as { warnings?: string[] }).warnings).toEqual([expect.stringMatching(/^The action was done, but the screen after it could not be captured \(STORAGE_READ_ONLY: /)]);
    } finally {
      execFileSync('umount', [frames]);
    }
  });
});
