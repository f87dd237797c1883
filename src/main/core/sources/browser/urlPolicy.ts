/**
 * Which URLs a tab may be sent to, and what a tab answers to in the allowlist. Only web pages by
 * default: `file:` reads local files (the token in the data directory among them), `data:` and
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
  /** input.allowlist: where a redirect may lead (empty: anywhere). */
  allowlist?: readonly string[];
}

const FILE_HINT = 'Open a web page (http:// or https://). The person can allow local files with the setting browser.allowFileUrls.';

/** The names a tab showing `url` answers to in input.allowlist: its host (port included) and origin. */
export function allowNamesOfUrl(url: string | undefined): string[] | 'blank' {
  if (url === undefined) return [];
  if (url === 'about:blank') return 'blank';
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') return [u.host, u.origin];
    // Local files answer to "file://" as a whole: a file's name is not an application.
    if (u.protocol === 'file:') return ['file://'];
  } catch {
    // not a URL: no name
  }
  return [];
}

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

/**
 * Refuse (NOT_ALLOWED) a hop of a navigation the allowlist does not admit: the core judged where
 * the navigation was sent; a redirect may lead elsewhere, and is judged by the same names.
 */
export function judgeHop(url: string, rules: UrlRules): void {
  judgeUrl(url, rules);
  const allow = rules.allowlist ?? [];
  if (allow.length === 0 || url === 'about:blank') return;
  const names = allowNamesOfUrl(url);
  if (names !== 'blank' && names.some((n) => allow.some((a) => a.toLowerCase() === n.toLowerCase()))) return;
  const name = names === 'blank' ? url : (names[0] ?? url);
  throw new SightlineError('NOT_ALLOWED', `Input to ${name} (browser) is not in the input allowlist.`, `The user can add "${name}" to input.allowlist in settings.`);
}
