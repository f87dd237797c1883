/**
 * The files of Sightline's own frames under `<dataDir>/frames/`. A file is written to a temp
 * name in its final directory and renamed into place, so a reader never sees half a file;
 * whatever a failed write left behind is removed, and what a crash left is swept later.
 */
import { randomBytes } from 'node:crypto';
import { rmSync, rmdirSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SightlineError } from '../../../shared/errors.ts';
import { dirOf } from './rows.ts';

export const FRAMES_DIR = 'frames';
/** Generated thumbnails of archive frames (the archive's own folders are never written to). */
export const ARCHIVE_THUMBS_DIR = join(FRAMES_DIR, 'archive');
export const TMP_SUFFIX = '.tmp';

export class FileStore {
  readonly dataDir: string;
  readonly #knownDirs = new Set<string>();

  constructor(dataDir: string) {
    this.dataDir = dataDir;
  }

  abs(rel: string): string {
    return join(this.dataDir, rel);
  }

  async ensureDir(dir: string): Promise<void> {
    if (this.#knownDirs.has(dir)) return;
    // Screenshots are the user's alone, as the data directory is (a folder made before may be 0755).
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700).catch(() => undefined);
    this.#knownDirs.add(dir);
  }

  /** A temp name beside `final` (random, so concurrent writers never share one). */
  tempFor(final: string): string {
    return `${final}.${randomBytes(4).toString('hex')}${TMP_SUFFIX}`;
  }

  /**
   * Write several files (paths relative to the data dir) atomically: all land, or none does.
   * Returns the absolute paths placed, for the caller to remove if what follows fails.
   */
  async writeAll(writes: readonly (readonly [rel: string, data: Buffer])[]): Promise<string[]> {
    const temps = new Set<string>();
    const placed: string[] = [];
    try {
      // allSettled: cleanup must not start while a sibling write is still creating its file.
      const staged = await Promise.allSettled(
        writes.map(async ([rel, data]) => {
          const final = this.abs(rel);
          await this.ensureDir(dirOf(final));
          const tmp = this.tempFor(final);
          temps.add(tmp);
          await writeFile(tmp, data, { flag: 'wx', mode: 0o600 });
          return [tmp, final] as const;
        }),
      );
      for (const r of staged) if (r.status === 'rejected') throw r.reason;
      for (const r of staged) {
        if (r.status !== 'fulfilled') continue;
        const [tmp, final] = r.value;
        await rename(tmp, final);
        temps.delete(tmp);
        placed.push(final);
      }
      return placed;
    } catch (e) {
      await Promise.all([...temps, ...placed].map((p) => rm(p, { force: true })));
      throw e;
    }
  }

  /** One file, atomically; the temp file is removed when the write fails. */
  async writeOne(final: string, data: Buffer): Promise<void> {
    const tmp = this.tempFor(final);
    try {
      await this.ensureDir(dirOf(final));
      await writeFile(tmp, data, { flag: 'wx', mode: 0o600 });
      await rename(tmp, final);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }

  async readOwn(ref: string, rel: string): Promise<Buffer> {
    try {
      return await readFile(this.abs(rel));
    } catch (e) {
      throw new SightlineError('FILE_UNAVAILABLE', `The file of frame ${ref} is missing (${rel}).`, 'capture again; the file was removed outside Sightline', undefined, {
        cause: e,
      });
    }
  }
}

/**
 * Synchronous so that a caller sees the files gone when the call returns; retention deletes a
 * few frames per run. Best effort: a file that cannot be removed is an orphan for sweep().
 */
export function removeFiles(paths: string[], pruneDirs = false): void {
  for (const p of paths) {
    try {
      rmSync(p, { force: true });
    } catch {
      // Left for sweep().
    }
  }
  if (!pruneDirs) return;
  for (const dir of new Set(paths.map(dirOf))) {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty: other frames of that day remain.
    }
  }
}

export async function listDirs(root: string): Promise<string[]> {
  try {
    const entries = await readdir(root, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => join(root, e.name));
  } catch {
    return [];
  }
}
