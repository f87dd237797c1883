import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BrowserSessions, ensureToken, isAllowedHost, isAllowedOrigin, isAuthorised, parseCookies, tokensEqual } from '../../../src/main/core/http/security.ts';
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
  it('authorises by bearer token or by a session cookie that never holds the token', () => {
    const token = 't'.repeat(43);
    const sessions = new BrowserSessions(token);
    const id = sessions.create();
    expect(id).not.toContain(token);
    expect(isAuthorised({ authorization: `Bearer ${token}` }, token, sessions)).toBe(true);
    expect(isAuthorised({ authorization: 'Bearer nope' }, token, sessions)).toBe(false);
    expect(isAuthorised({ cookie: `x=1; sightline_session=${id}` }, token, sessions)).toBe(true);
    // The token itself is not a session id, and a bad bearer is not rescued by a cookie.
    expect(isAuthorised({ cookie: `sightline_session=${token}` }, token, sessions)).toBe(false);
    expect(isAuthorised({ authorization: 'Bearer nope', cookie: `sightline_session=${id}` }, token, sessions)).toBe(false);
    expect(isAuthorised({}, token, sessions)).toBe(false);
    // Another app's cookie on localhost that does not decode is skipped, not a failure.
    expect(isAuthorised({ cookie: `progress=50%; sightline_session=${id}` }, token, sessions)).toBe(true);
    expect(isAuthorised({ cookie: `sightline_session=${id}; bad=%E0%A4%A` }, token, sessions)).toBe(true);
    expect(parseCookies('a=1; progress=50%; b=%20x')).toEqual({ a: '1', b: ' x' });
    expect(tokensEqual('abc', 'abc')).toBe(true);
    expect(tokensEqual('abc', 'abd')).toBe(false);
    expect(tokensEqual('abc', 'abcd')).toBe(false);
  });
  it('keeps a session across a restart with the same token, and ends it with a new token or a forged signature', () => {
    const token = 't'.repeat(43);
    const id = new BrowserSessions(token).create();
    // A server started again over the same data directory.
    expect(new BrowserSessions(token).valid(`sightline_session=${id}`)).toBe(true);
    expect(new BrowserSessions('u'.repeat(43)).valid(`sightline_session=${id}`)).toBe(false);
    const [nonce, signature] = id.split('.') as [string, string];
    expect(new BrowserSessions(token).valid(`sightline_session=${nonce}x.${signature}`)).toBe(false);
    expect(new BrowserSessions(token).valid(`sightline_session=${nonce}`)).toBe(false);
    expect(new BrowserSessions(token).valid(`sightline_session=.${signature}`)).toBe(false);
    expect(id).not.toContain(token);
  });
});
