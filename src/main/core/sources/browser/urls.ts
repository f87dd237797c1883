/** URLs as agents give them and as the allowlist names them. */
import { SightlineError } from '../../../../shared/errors.ts';

/** A URL's host (with its port), as the allowlist names pages; undefined for none (about:blank, data:) or no URL. */
export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

/** A URL to open: a bare host gets https://; script URLs are refused. */
export function normaliseUrl(raw: string): string {
  if (raw.trim() === '') throw new SightlineError('INVALID_ARGUMENT', '"url" must not be blank.', 'Give a URL such as https://example.com/path.');
  let s = raw.trim();
  if (!/^[a-z][a-z0-9+.-]*:/i.test(s)) s = `https://${s}`;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new SightlineError('INVALID_ARGUMENT', `"${raw}" is not a URL.`, 'Give a full URL such as https://example.com/path.');
  }
  if (u.protocol === 'javascript:') throw new SightlineError('INVALID_ARGUMENT', 'javascript: URLs are not opened.', 'Navigate to a page; act on it with the other tools.');
  return u.toString();
}
