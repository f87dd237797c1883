import { describe, expect, it } from 'vitest';
import { storageError } from '../../../src/main/core/util/storageError.ts';

const fail = (code: string): Error => Object.assign(new Error(`failed: ${code}`), { code });

describe('storageError', () => {
  it('names a full disk or quota STORAGE_FULL, from Node and from SQLite', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'SQLITE_FULL']) {
      const e = storageError(fail(code), 'Could not store frame f_1', '/data/sightline');
      expect(e).toMatchObject({ code: 'STORAGE_FULL', message: 'Could not store frame f_1: the disk of the data directory is full (/data/sightline).' });
      expect(e?.hint).toMatch(/retention\.maxBytes/);
    }
  });

  it('names an unwritable folder STORAGE_READ_ONLY with its cause', () => {
    for (const code of ['EROFS', 'EACCES', 'EPERM', 'SQLITE_READONLY', 'SQLITE_CANTOPEN']) {
      expect(storageError(fail(code), 'Could not save settings', '/d')).toMatchObject({ code: 'STORAGE_READ_ONLY', message: `Could not save settings: the data directory cannot be written (/d) (${code}).` });
    }
  });

  it('leaves every other failure to its caller', () => {
    expect(storageError(fail('EIO'), 'x')).toBeUndefined();
    expect(storageError(new Error('plain'), 'x')).toBeUndefined();
  });
});
