/**
 * The local server's guards: a bearer token kept in a user-only file, and Host and
 * Origin checks against DNS rebinding (a web page that resolves its own name to
 * 127.0.0.1 still sends its own Host and Origin).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TOKEN_FILE = 'token';
export const SESSION_COOKIE = 'sightline_session';

/** Read the token, creating it (mode 0600) on first use. */
export function ensureToken(dataDir: string): string {
  const path = join(dataDir, TOKEN_FILE);
  try {
    const t = readFileSync(path, 'utf8').trim();
    if (t.length >= 32) return t;
  } catch {
    // absent: create below
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return token;
}

export function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Hosts a request may name: the loopback names, on our port. */
export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

export function isAllowedHost(host: string | undefined, port: number): boolean {
  return !!host && allowedHosts(port).includes(host.toLowerCase());
}

/** No Origin (non-browser clients) is fine; a browser's Origin must be our own. */
export function isAllowedOrigin(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  return allowedHosts(port).some((h) => origin.toLowerCase() === `http://${h}`);
}

/** Cookies by name; one that does not decode (`progress=50%`, set by another app on localhost) is skipped. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    try {
      out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      // Not ours, and not readable: ignore it.
    }
  }
  return out;
}

/** The bearer token of `Authorization: Bearer …`, if any. */
export function bearerToken(headers: { authorization?: string }): string | undefined {
  const auth = headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
}

/**
 * Dashboard sessions: the cookie carries a random session id and its signature by the token, never
 * the token itself (cookies are not bound to a port, so other servers on 127.0.0.1 would receive it).
 * Signed rather than remembered, so an open dashboard stays signed in across a restart of the server
 * (the token lives in the data directory); a new token ends every session.
 */
export class BrowserSessions {
  readonly #key: Buffer;

  constructor(token: string) {
    // A key of its own: a session's signature says nothing about the bearer token.
    this.#key = createHmac('sha256', token).update('sightline dashboard session').digest();
  }

  create(): string {
    const id = randomBytes(32).toString('base64url');
    return `${id}.${this.#sign(id)}`;
  }

  valid(cookieHeader: string | undefined): boolean {
    const value = parseCookies(cookieHeader)[SESSION_COOKIE];
    const dot = value?.indexOf('.') ?? -1;
    if (value === undefined || dot <= 0) return false;
    return tokensEqual(value.slice(dot + 1), this.#sign(value.slice(0, dot)));
  }

  #sign(id: string): string {
    return createHmac('sha256', this.#key).update(id).digest('base64url');
  }
}

/** A request is authorised by the bearer token, or by a dashboard session cookie. */
export function isAuthorised(headers: { authorization?: string; cookie?: string }, token: string, sessions: BrowserSessions): boolean {
  const bearer = bearerToken(headers);
  if (bearer !== undefined) return tokensEqual(bearer, token);
  return sessions.valid(headers.cookie);
}
