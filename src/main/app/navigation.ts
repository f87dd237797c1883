/**
 * Where the dashboard window may go. It shows only the local server's pages; a link to
 * anywhere else opens in the user's browser (http/https only), never inside the app.
 */

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** The window may navigate to `url` only when it is the local server's own origin. */
export function isAppUrl(url: string, appOrigin: string): boolean {
  const u = parse(url);
  const app = parse(appOrigin);
  return !!u && !!app && u.origin === app.origin && (u.protocol === 'http:' || u.protocol === 'https:');
}

/** A link the system browser may open for the user: plain web pages only. */
export function isExternalLink(url: string): boolean {
  const u = parse(url);
  return !!u && (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password;
}

export type NavigationDecision = { action: 'allow' } | { action: 'deny' } | { action: 'external'; url: string };

/** `will-navigate` / `will-redirect`: stay on the app's origin, send the rest out. */
export function decideNavigation(url: string, appOrigin: string): NavigationDecision {
  if (isAppUrl(url, appOrigin)) return { action: 'allow' };
  if (isExternalLink(url)) return { action: 'external', url };
  return { action: 'deny' };
}

/** `window.open`: never a new app window; web links go to the system browser. */
export function decideWindowOpen(url: string): NavigationDecision {
  return isExternalLink(url) ? { action: 'external', url } : { action: 'deny' };
}
