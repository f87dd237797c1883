import { createHash, randomBytes } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Refs name files too, so they are kept to a file-name-safe alphabet. */
export const REF_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

function base32(bytes: Buffer, chars: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

/** An opaque frame ref: `f_` + 16 random base32 characters (80 bits). */
export function newRef(): string {
  return `f_${base32(randomBytes(10), 16)}`;
}

/** A ref that is the same every time for the same key (an archive file's identity). */
export function deterministicRef(prefix: string, key: string): string {
  return `${prefix}_${base32(createHash('sha256').update(key).digest(), 16)}`;
}
