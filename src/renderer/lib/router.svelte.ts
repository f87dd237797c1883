/**
 * A hash router: the dashboard is served as static files from the local server, so
 * hash routes need no server support and survive a reload.
 */

export const SCREENS = ['timeline', 'targets', 'activity', 'routines', 'setup', 'settings'] as const;
export type Screen = (typeof SCREENS)[number];

export interface Route {
  screen: Screen;
  /** The frame open in the viewer (timeline only). */
  ref?: string;
  /** A point to mark on that frame, in its image pixels (where an agent clicked). */
  point?: { x: number; y: number };
  /** The agent run the activity log shows alone (activity only). */
  run?: string;
}

export function parseHash(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/');
  const screen = (SCREENS as readonly string[]).includes(parts[0] ?? '') ? (parts[0] as Screen) : 'timeline';
  const ref = screen === 'timeline' && parts[1] ? decodeURIComponent(parts.slice(1).join('/')) : undefined;
  const run = screen === 'activity' ? /(?:^|&)run=([^&]+)/.exec(search)?.[1] : undefined;
  if (run) return { screen, run: decodeURIComponent(run) };
  if (!ref) return { screen };
  const at = /(?:^|&)at=(-?[\d.]+),(-?[\d.]+)(?:&|$)/.exec(search);
  return at ? { screen, ref, point: { x: Number(at[1]), y: Number(at[2]) } } : { screen, ref };
}

export function hrefFor(route: Route): string {
  if (route.run && route.screen === 'activity') return `#/activity?run=${encodeURIComponent(route.run)}`;
  if (!route.ref) return `#/${route.screen}`;
  const at = route.point ? `?at=${route.point.x},${route.point.y}` : '';
  return `#/${route.screen}/${encodeURIComponent(route.ref)}${at}`;
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
