/**
 * A hash router: the dashboard is served as static files from the local server, so
 * hash routes need no server support and survive a reload.
 */

export const SCREENS = ['timeline', 'targets', 'activity', 'setup', 'settings'] as const;
export type Screen = (typeof SCREENS)[number];

export interface Route {
  screen: Screen;
  /** The frame open in the viewer (timeline only). */
  ref?: string;
}

export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/');
  const screen = (SCREENS as readonly string[]).includes(parts[0] ?? '') ? (parts[0] as Screen) : 'timeline';
  const ref = screen === 'timeline' && parts[1] ? decodeURIComponent(parts.slice(1).join('/')) : undefined;
  return ref ? { screen, ref } : { screen };
}

export function hrefFor(route: Route): string {
  return route.ref ? `#/${route.screen}/${encodeURIComponent(route.ref)}` : `#/${route.screen}`;
}

export const router = $state<{ route: Route }>({ route: parseHash(location.hash) });

window.addEventListener('hashchange', () => {
  router.route = parseHash(location.hash);
});

export function navigate(route: Route, options: { replace?: boolean } = {}): void {
  const href = hrefFor(route);
  if (options.replace) history.replaceState(null, '', href);
  else if (location.hash !== href) history.pushState(null, '', href);
  router.route = route;
}
