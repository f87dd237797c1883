/**
 * Reading archive files safely: the only code that opens a ManicTime screenshot.
 *
 * - A path is refused (PATH_REFUSED) unless it lies inside a configured root both
 *   as written and after realpath, and the part below the root has no `.`/`..`
 *   segment, no percent-encoded or NUL characters, no Windows device/stream
 *   syntax, and ends in `.jpg`/`.png`.
 *   The final open uses O_NOFOLLOW so a file swapped for a symlink after the check
 *   is refused too.
 * - A file that is empty, a JPEG without its FFD9 end marker, a PNG without IEND,
 *   or one another process holds (EBUSY/EPERM/EACCES/EAGAIN) is retried with a
 *   short backoff, then refused with FILE_UNAVAILABLE and the reason: a model never
 *   gets half an image.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { constants, promises as fsp } from 'node:fs';
import { isAbsolute, relative, sep as hostSep } from 'node:path';
import { SightlineError } from '../../../../shared/errors.ts';

export interface ArchiveIo {
  open(path: string, flags: number): Promise<fsp.FileHandle>;
  realpath(path: string): Promise<string>;
}

export const defaultIo: ArchiveIo = {
  open: (path, flags) => fsp.open(path, flags),
  realpath: (path) => fsp.realpath(path),
};

export interface RetryPolicy {
  /** Total attempts (1 = no retry). */
  attempts: number;
  /** First delay; doubles each time. */
  baseDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 50 };

/** Screenshots are a few MB at most; anything far larger is not one. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;
const ALLOWED_EXT = ['.jpg', '.png'];
const RETRYABLE_CODES = new Set(['EBUSY', 'EPERM', 'EACCES', 'EAGAIN', 'EMFILE', 'ENFILE']);
const HINT_REFUSED = 'Use a ref from list_screenshots; archive files are only reachable through their refs.';
const HINT_UNAVAILABLE = 'ManicTime may still be writing or holding this file: try again in a few seconds, or pick a neighbouring screenshot from list_screenshots.';

export type ImageKind = 'jpeg' | 'png';

/**
 * Lexical reasons to refuse the part of a path below its root, before touching the
 * disk (the root itself is configuration and may hold any character). Returns null
 * when acceptable.
 */
export function relativeRefusal(rel: string): string | null {
  if (typeof rel !== 'string' || rel.length === 0) return 'empty path';
  if (rel.includes('\0')) return 'NUL in path';
  // No ManicTime name contains `%`: any percent-encoding (%2e%2e, %2f, %5c, %252e…) is an attack.
  if (rel.includes('%')) return 'percent-encoded characters';
  if (isAbsolute(rel) || /^[a-zA-Z]:/.test(rel) || /^[\\/]/.test(rel)) return 'absolute path';
  // Windows alternate data streams and drive-relative forms (`file.jpg:stream`, `C:x`).
  if (rel.includes(':')) return 'device or stream syntax';
  for (const seg of rel.split(/[\\/]/)) {
    if (seg === '..' || seg === '.') return 'dot segment';
    // Windows ignores trailing dots and spaces: `.. ` and `...` resolve like `..`.
    if (seg.length > 0 && /^[. ]+$/.test(seg)) return 'dot segment';
  }
  const lower = rel.toLowerCase();
  if (!ALLOWED_EXT.some((e) => lower.endsWith(e))) return 'only .jpg and .png files are read';
  return null;
}

/** Whether `child` is strictly inside `root` (both absolute, same flavour). */
export function isInside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel.length > 0 && !isAbsolute(rel) && !rel.split(/[\\/]/).includes('..');
}

/** The part of `path` below `base` as written (no normalisation, so `..` stays visible), or undefined. */
export function below(base: string, path: string, platform: NodeJS.Platform = process.platform): string | undefined {
  const b = base.endsWith('/') || base.endsWith(hostSep) ? base : base + hostSep;
  const fold = platform === 'win32' || platform === 'darwin';
  if (!(fold ? path.toLowerCase().startsWith(b.toLowerCase()) : path.startsWith(b))) return undefined;
  return path.slice(b.length);
}

function refuse(message: string, details: Record<string, unknown>): SightlineError {
  return new SightlineError('PATH_REFUSED', message, HINT_REFUSED, details);
}

/** A configured root as written and after realpath. */
export interface ArchiveRoot {
  path: string;
  real: string;
}

/** Check a path against the roots (lexically and after realpath) and return its resolved form. */
export async function resolveInsideRoots(path: string, roots: readonly ArchiveRoot[], io: ArchiveIo = defaultIo): Promise<string> {
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) throw refuse('Refused to read an archive path (empty or NUL).', { reason: 'empty or NUL' });
  let rel: string | undefined;
  for (const r of roots) {
    rel = below(r.path, path) ?? below(r.real, path);
    if (rel !== undefined) break;
  }
  if (rel === undefined) throw refuse('Refused to read an archive path (it is outside the ManicTime screenshots folder).', { reason: 'outside root' });
  const why = relativeRefusal(rel);
  if (why) throw refuse(`Refused to read an archive path (${why}).`, { reason: why });
  let real: string;
  try {
    real = await io.realpath(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refuse('Refused to read an archive path (symlink loop).', { reason: 'symlink loop' });
    throw new SightlineError(
      'FILE_UNAVAILABLE',
      `The screenshot file is no longer on disk (${code ?? 'error'}); ManicTime may have deleted it under its retention setting.`,
      'List the window again with list_screenshots.',
      { reason: 'missing', code },
    );
  }
  if (!roots.some((r) => isInside(r.real, real))) {
    throw refuse('Refused to read an archive path (it resolves outside the ManicTime screenshots folder).', { reason: 'resolves outside root' });
  }
  const lower = real.toLowerCase();
  if (!ALLOWED_EXT.some((e) => lower.endsWith(e))) {
    throw refuse('Refused to read an archive path (it resolves to a file that is not .jpg or .png).', { reason: 'extension' });
  }
  return real;
}

/** Whether the bytes are a whole JPEG/PNG; returns the kind, or the reason it is not. */
export function checkComplete(data: Buffer): { kind: ImageKind } | { incomplete: string } | { invalid: string } {
  if (data.length === 0) return { incomplete: 'the file is empty (still being written)' };
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) {
    // Some writers pad after EOI; look for FFD9 in the last bytes, skipping zero padding.
    let end = data.length;
    while (end > 2 && data[end - 1] === 0x00 && data.length - end < 4096) end--;
    if (end >= 4 && data[end - 2] === 0xff && data[end - 1] === 0xd9) return { kind: 'jpeg' };
    return { incomplete: 'the JPEG has no end marker (still being written)' };
  }
  if (data.length >= 8 && data.readUInt32BE(0) === 0x89504e47 && data.readUInt32BE(4) === 0x0d0a1a0a) {
    // The last chunk of a whole PNG is IEND: length 0, type IEND, CRC AE426082.
    if (data.length >= 20 && data.readUInt32BE(data.length - 12) === 0 && data.toString('latin1', data.length - 8, data.length - 4) === 'IEND') {
      return { kind: 'png' };
    }
    return { incomplete: 'the PNG has no IEND chunk (still being written)' };
  }
  if (data.length < 8) return { incomplete: 'the file is too short to be an image (still being written)' };
  return { invalid: 'the file is neither a JPEG nor a PNG' };
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

type Attempt = { ok: true; data: Buffer; kind: ImageKind } | { ok: false; retry: boolean; reason: string; code?: string };

async function attemptRead(real: string, io: ArchiveIo): Promise<Attempt> {
  let fh: fsp.FileHandle;
  try {
    fh = await io.open(real, OPEN_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    if (code === 'ELOOP') throw refuse('Refused to read an archive path (it became a symlink).', { reason: 'symlink' });
    if (code === 'ENOENT') return { ok: false, retry: false, reason: 'the file was deleted', code };
    return { ok: false, retry: RETRYABLE_CODES.has(code), reason: `the file cannot be opened (${code}: locked by another process?)`, code };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { ok: false, retry: false, reason: 'it is not a regular file' };
    if (st.size > MAX_FILE_BYTES) return { ok: false, retry: false, reason: 'the file is too large to be a screenshot' };
    const data = await fh.readFile();
    const verdict = checkComplete(data);
    if ('kind' in verdict) return { ok: true, data, kind: verdict.kind };
    if ('incomplete' in verdict) return { ok: false, retry: true, reason: verdict.incomplete };
    return { ok: false, retry: false, reason: verdict.invalid };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    return { ok: false, retry: RETRYABLE_CODES.has(code) || code === 'EIO', reason: `the file cannot be read (${code})`, code };
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * Read one archive image: path checks, then up to `retry.attempts` tries with
 * doubling delays. Throws PATH_REFUSED or FILE_UNAVAILABLE (never partial bytes).
 */
export async function readArchiveFile(
  path: string,
  roots: readonly ArchiveRoot[],
  options: { io?: ArchiveIo; retry?: RetryPolicy; signal?: AbortSignal } = {},
): Promise<{ data: Buffer; format: ImageKind }> {
  const io = options.io ?? defaultIo;
  const retry = options.retry ?? DEFAULT_RETRY;
  const real = await resolveInsideRoots(path, roots, io);
  let last: Attempt | undefined;
  for (let i = 0; i < Math.max(1, retry.attempts); i++) {
    if (i > 0) await sleep(retry.baseDelayMs * 2 ** (i - 1));
    if (options.signal?.aborted) throw new SightlineError('CANCELLED', 'The read was cancelled.', 'Call again if you still need it.');
    last = await attemptRead(real, io);
    if (last.ok) return { data: last.data, format: last.kind };
    if (!last.retry) break;
  }
  const reason = last && !last.ok ? last.reason : 'unknown';
  throw new SightlineError('FILE_UNAVAILABLE', `The screenshot file cannot be used: ${reason}.`, HINT_UNAVAILABLE, {
    reason,
    code: last && !last.ok ? last.code : undefined,
    attempts: retry.attempts,
  });
}
