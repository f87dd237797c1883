import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureToken, isAllowedHost, isAllowedOrigin, requestToken, tokensEqual } from '../../../src/main/core/http/security.ts';
import { tempDir } from '../../support/mcpHarness.ts';

describe('local server guards', () => {
  it('creates a strong token once, in a user-only file', () => {
    const dir = tempDir();
    const t = ensureToken(dir);
    expect(t.length).toBeGreaterThanOrEqual(43);
    expect(ensureToken(dir)).toBe(t);
    expect(statSync(join(dir, 'token')).mode & 0o077).toBe(0);
  });
  it('accepts only loopback hosts on our port', () => {
    expect(isAllowedHost('127.0.0.1:4000', 4000)).toBe(true);
    expect(isAllowedHost('localhost:4000', 4000)).toBe(true);
    expect(isAllowedHost('127.0.0.1:4001', 4000)).toBe(false);
    expect(isAllowedHost('attacker.example:4000', 4000)).toBe(false);
    expect(isAllowedHost(undefined, 4000)).toBe(false);
  });
  it('accepts no Origin or our own, nothing else', () => {
    expect(isAllowedOrigin(undefined, 4000)).toBe(true);
    expect(isAllowedOrigin('http://127.0.0.1:4000', 4000)).toBe(true);
    expect(isAllowedOrigin('http://127.0.0.1:4000.evil.example', 4000)).toBe(false);
    expect(isAllowedOrigin('null', 4000)).toBe(false);
    expect(isAllowedOrigin('https://127.0.0.1:4000', 4000)).toBe(false);
  });
  it('reads the token from a bearer header or the session cookie, and compares in constant time', () => {
    expect(requestToken({ authorization: 'Bearer abc' })).toBe('abc');
    expect(requestToken({ cookie: 'x=1; sightline_session=abc' })).toBe('abc');
    expect(requestToken({})).toBeUndefined();
    expect(tokensEqual('abc', 'abc')).toBe(true);
    expect(tokensEqual('abc', 'abd')).toBe(false);
    expect(tokensEqual('abc', 'abcd')).toBe(false);
  });
});
