/**
 * A failure to write the data directory, named for what it is: a full disk or quota is
 * STORAGE_FULL, a read-only or unwritable folder STORAGE_READ_ONLY, both with the folder in the
 * message and a hint; undefined for anything else. SQLite reports the same conditions with its
 * own codes.
 */
import { SightlineError } from '../../../shared/errors.ts';

export function storageError(e: unknown, what: string, dataDir?: string): SightlineError | undefined {
  const err = e as { code?: string; message?: string };
  const where = dataDir ? ` (${dataDir})` : '';
  if (err.code === 'ENOSPC' || err.code === 'EDQUOT' || err.code === 'SQLITE_FULL') {
    return new SightlineError('STORAGE_FULL', `${what}: the disk of the data directory is full${where}.`, `Free space on that disk, or lower retention.maxBytes / retention.maxAgeDays so old frames are removed, or move the data directory (--data-dir).`, undefined, { cause: e });
  }
  if (err.code === 'EROFS' || err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'SQLITE_READONLY' || err.code === 'SQLITE_CANTOPEN') {
    return new SightlineError('STORAGE_READ_ONLY', `${what}: the data directory cannot be written${where} (${err.code}).`, `Make the data directory writable by this user, or start Sightline with --data-dir pointing at a writable folder.`, undefined, { cause: e });
  }
  return undefined;
}
