/** URLs as agents give them (which ones may be opened is urlPolicy.ts's to judge). */
import { SightlineError } from '../../../../shared/errors.ts';

/** A URL to open: a bare host (with or without a port) gets https://; which URLs may be opened is urlPolicy's to judge. */
export function normaliseUrl(raw: string): string {
  if (raw.trim() === '') throw new SightlineError('INVALID_ARGUMENT', '"url" must not be blank.', 'Give a URL such as https://example.com/path.');
  let s = raw.trim();
  if (!/^[a-z][a-z0-9+.-]*:/i.test(s) || /^[^/:?#]+:\d+(?:[/?#]|$)/.test(s)) s = `https://${s}`;
  try {
    return new URL(s).toString();
  } catch {
    throw new SightlineError('INVALID_ARGUMENT', `"${raw}" is not a URL.`, 'Give a full URL such as https://example.com/path.');
  }
}
