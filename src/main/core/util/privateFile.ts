/**
 * Files only this user may read. SQLite creates its database with the process umask (often 0644)
 * and gives its -wal and -shm files the database's mode, so the database file is made first,
 * 0600; an existing one is tightened.
 */
import { chmodSync, closeSync, openSync } from 'node:fs';

export function privateFile(path: string): string {
  closeSync(openSync(path, 'a', 0o600));
  if (process.platform !== 'win32') chmodSync(path, 0o600);
  return path;
}
