/**
 * Which URLs a tab may be sent to (the allowlist is the action's judgement, not this file's). Only
 * web pages by default: `file:` reads local files (the token in the data directory among them), `data:` and
 * `blob:` pages run script that leads anywhere, `view-source:` fetches any URL, and `chrome:`,
 * `devtools:`, `chrome-extension:` reach the browser's own powers. Local files come back only when
 * the person turns on browser.allowFileUrls, and never inside Sightline's data directory.
 */
import { SightlineError } from '../../../../shared/errors.ts';
import { filePathOf, isInside, ownUrl, type OwnFacts } from '../../util/self.ts';

export interface UrlRules {
  /** browser.allowFileUrls: file: URLs (outside the data directory) may be opened. */
  allowFileUrls: boolean;
  /** Sightline's own ports and data directory, read now. */
  own: OwnFacts;
}

const FILE_HINT = 'Open a web page (http:// or https://). The person can allow local files with the setting browser.allowFileUrls.';

/** The origin a tab is sent to, as the allowlist judges it; undefined for about:blank and URLs refused anyway. */
export function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Refuse (NOT_ALLOWED) a URL a tab may not be sent to; `url` is normalised (normaliseUrl). */
export function judgeUrl(url: string, rules: UrlRules): void {
  if (url === 'about:blank') return;
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0]?.toLowerCase() ?? '';
  if (scheme === 'http:' || scheme === 'https:') {
    const own = ownUrl(url, rules.own);
    if (own) throw new SightlineError('NOT_ALLOWED', `Not opened: ${own}. Agents never operate Sightline.`, 'Open another site; the person changes Sightline through its own dashboard.');
    return;
  }
  if (scheme === 'file:') {
    if (!rules.allowFileUrls) throw new SightlineError('NOT_ALLOWED', 'file: URLs are not opened (local files are off).', FILE_HINT);
    const path = filePathOf(url);
    if (path === undefined) throw new SightlineError('NOT_ALLOWED', 'Only local file: URLs (file:///path) are opened.', 'Give a file:///… URL of this computer.');
    if (rules.own.dataDir && isInside(path, rules.own.dataDir)) {
      throw new SightlineError('NOT_ALLOWED', "Not opened: the file is inside Sightline's data directory (its token, catalog and settings).", 'Open a file outside the data directory.');
    }
    return;
  }
  throw new SightlineError('NOT_ALLOWED', `${scheme || 'This kind of'} URLs are not opened: only http:, https: and about:blank.`, FILE_HINT);
}
