import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { below, checkComplete, isInside, relativeRefusal, resolveInsideRoots, type ArchiveRoot } from '../../../src/main/core/sources/manictime/reader.ts';

describe('relativeRefusal (the part below the root)', () => {
  it('accepts a day folder and a screenshot name', () => {
    expect(relativeRefusal('2024-03-30/a.jpg')).toBeNull();
    expect(relativeRefusal('2024-03-30\\extra\\a.PNG')).toBeNull();
  });

  it.each([
    ['', 'empty path'],
    ['../../etc/passwd.jpg', 'dot segment'],
    ['2024-03-30/../../x.jpg', 'dot segment'],
    ['./a.jpg', 'dot segment'],
    ['..\\..\\secret.jpg', 'dot segment'],
    ['2024-03-30/.../a.jpg', 'dot segment'],
    ['.. /a.jpg', 'dot segment'],
    ['/etc/a.jpg', 'absolute path'],
    ['\\\\?\\C:\\secret.jpg', 'absolute path'],
    ['C:\\secret.jpg', 'absolute path'],
    ['%2e%2e/%2e%2e/etc/a.jpg', 'percent-encoded characters'],
    ['%252e%252e/a.jpg', 'percent-encoded characters'],
    ['..%2fetc/a.jpg', 'percent-encoded characters'],
    ['a.jpg\0.png', 'NUL in path'],
    ['2024-03-30/a.jpg:hidden.jpg', 'device or stream syntax'],
    ['2024-03-30/notes.txt', 'only .jpg and .png files are read'],
    ['2024-03-30/a.jpg.tmp', 'only .jpg and .png files are read'],
    ['2024-03-30/a.jpg.', 'only .jpg and .png files are read'],
  ])('%j → %s', (path, why) => {
    expect(relativeRefusal(path)).toBe(why);
  });
});

describe('below and isInside', () => {
  it('takes the part below a root as written, without normalising it', () => {
    expect(below('/mt/Screenshots', '/mt/Screenshots/2024/../../x.jpg', 'linux')).toBe('2024/../../x.jpg');
    expect(below('/mt/Screenshots', '/mt/Screenshots-evil/a.jpg', 'linux')).toBeUndefined();
    expect(below('/mt/Screenshots', '/MT/screenshots/a.jpg', 'linux')).toBeUndefined();
  });

  it('isInside is strict and segment-aware', () => {
    expect(isInside('/mt/Screenshots', '/mt/Screenshots/2024/a.jpg')).toBe(true);
    expect(isInside('/mt/Screenshots', '/mt/Screenshots/..a.jpg')).toBe(true);
    expect(isInside('/mt/Screenshots', '/mt/Screenshots')).toBe(false);
    expect(isInside('/mt/Screenshots', '/mt/Screenshots-evil/a.jpg')).toBe(false);
    expect(isInside('/mt/Screenshots', '/mt/a.jpg')).toBe(false);
  });
});

describe('resolveInsideRoots', () => {
  let dir: string;
  let roots: ArchiveRoot[];
  beforeAll(() => {
    // A root whose own path holds characters refused below it (`%`, `:`): configuration is trusted.
    dir = mkdtempSync(join(tmpdir(), 'sightline-mt-100%:root-'));
    mkdirSync(join(dir, 'Screenshots', '2024-03-30'), { recursive: true });
    writeFileSync(join(dir, 'Screenshots', '2024-03-30', 'a.jpg'), 'x');
    writeFileSync(join(dir, 'secret.jpg'), 'x');
    symlinkSync(join(dir, 'secret.jpg'), join(dir, 'Screenshots', '2024-03-30', 'b.jpg'));
    roots = [{ path: join(dir, 'Screenshots'), real: realpathSync(join(dir, 'Screenshots')) }];
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves a file inside the root', async () => {
    expect(await resolveInsideRoots(join(dir, 'Screenshots', '2024-03-30', 'a.jpg'), roots)).toBe(join(roots[0]!.real, '2024-03-30', 'a.jpg'));
  });

  it.each([
    ['outside', () => join(dir, 'secret.jpg'), 'outside root'],
    ['dot-dot', () => `${join(dir, 'Screenshots')}/2024-03-30/../../secret.jpg`, 'dot segment'],
    ['symlink out', () => join(dir, 'Screenshots', '2024-03-30', 'b.jpg'), 'resolves outside root'],
    ['etc', () => '/etc/passwd', 'outside root'],
    ['empty', () => '', 'empty or NUL'],
  ])('refuses %s', async (_l, path, reason) => {
    await expect(resolveInsideRoots(path(), roots)).rejects.toMatchObject({ code: 'PATH_REFUSED', details: { reason } });
  });
});

describe('checkComplete', () => {
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);
  it('accepts a whole JPEG, also with zero padding after EOI', () => {
    expect(checkComplete(jpeg)).toEqual({ kind: 'jpeg' });
    expect(checkComplete(Buffer.concat([jpeg, Buffer.alloc(10)]))).toEqual({ kind: 'jpeg' });
  });

  it('flags an empty file and a JPEG without its end marker as incomplete', () => {
    expect(checkComplete(Buffer.alloc(0))).toHaveProperty('incomplete');
    expect(checkComplete(jpeg.subarray(0, 7))).toEqual({ incomplete: 'the JPEG has no end marker (still being written)' });
  });

  it('checks PNGs for IEND', () => {
    const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const iend = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
    expect(checkComplete(Buffer.concat([sig, Buffer.alloc(20), iend]))).toEqual({ kind: 'png' });
    expect(checkComplete(Buffer.concat([sig, Buffer.alloc(20)]))).toHaveProperty('incomplete');
  });

  it('rejects bytes that are no image', () => {
    expect(checkComplete(Buffer.from('GIF89a not a jpeg at all'))).toHaveProperty('invalid');
  });
});
