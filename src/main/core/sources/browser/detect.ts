/**
 * Where browsers live and how to reach them: pure functions over (platform, env, exists), so
 * each OS's rules are unit-tested on this machine (tests/unit/browser/detect.test.ts).
 */
import { posix, win32 } from 'node:path';

export type Platform = 'linux' | 'darwin' | 'win32';
export type BrowserKind = 'chrome' | 'chromium' | 'edge' | 'brave';

export interface BrowserExecutable {
  kind: BrowserKind;
  path: string;
}

/** Ports a user typically starts Chrome with (`--remote-debugging-port=9222`). */
export const USUAL_DEBUG_PORTS = [9222, 9223] as const;

/** Flags every launch gets: no first-run UI, no background traffic. */
export const BASE_LAUNCH_FLAGS = [
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

export const PROFILE_DIR_NAME = 'browser-profile';

function pathFor(platform: Platform): typeof posix {
  return platform === 'win32' ? win32 : posix;
}

function home(platform: Platform, env: NodeJS.ProcessEnv): string | undefined {
  return platform === 'win32' ? (env.USERPROFILE ?? env.HOME) : env.HOME;
}

/** Executables to try, most preferred first. Linux names are also searched on PATH. */
export function executableCandidates(platform: Platform, env: NodeJS.ProcessEnv): BrowserExecutable[] {
  const p = pathFor(platform);
  const out: BrowserExecutable[] = [];
  if (platform === 'linux') {
    const names: [BrowserKind, string][] = [
      ['chrome', 'google-chrome-stable'],
      ['chrome', 'google-chrome'],
      ['chromium', 'chromium'],
      ['chromium', 'chromium-browser'],
      ['edge', 'microsoft-edge-stable'],
      ['edge', 'microsoft-edge'],
      ['brave', 'brave-browser'],
      ['brave', 'brave'],
    ];
    const dirs = (env.PATH ?? '').split(':').filter((d) => d.startsWith('/'));
    for (const d of ['/usr/bin', '/usr/local/bin', '/snap/bin']) if (!dirs.includes(d)) dirs.push(d);
    for (const [kind, name] of names) for (const d of dirs) out.push({ kind, path: p.join(d, name) });
    out.push(
      { kind: 'chrome', path: '/opt/google/chrome/chrome' },
      { kind: 'edge', path: '/opt/microsoft/msedge/msedge' },
      { kind: 'brave', path: '/opt/brave.com/brave/brave' },
    );
  } else if (platform === 'darwin') {
    const apps: [BrowserKind, string, string][] = [
      ['chrome', 'Google Chrome.app', 'Google Chrome'],
      ['chromium', 'Chromium.app', 'Chromium'],
      ['edge', 'Microsoft Edge.app', 'Microsoft Edge'],
      ['brave', 'Brave Browser.app', 'Brave Browser'],
      ['chrome', 'Google Chrome Canary.app', 'Google Chrome Canary'],
    ];
    const roots = ['/Applications'];
    const h = home(platform, env);
    if (h) roots.push(p.join(h, 'Applications'));
    for (const [kind, app, bin] of apps) for (const r of roots) out.push({ kind, path: p.join(r, app, 'Contents', 'MacOS', bin) });
  } else {
    const roots = [env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env.LOCALAPPDATA].filter((r): r is string => !!r);
    const rel: [BrowserKind, string[]][] = [
      ['chrome', ['Google', 'Chrome', 'Application', 'chrome.exe']],
      ['chromium', ['Chromium', 'Application', 'chrome.exe']],
      ['edge', ['Microsoft', 'Edge', 'Application', 'msedge.exe']],
      ['brave', ['BraveSoftware', 'Brave-Browser', 'Application', 'brave.exe']],
    ];
    for (const [kind, parts] of rel) for (const r of roots) out.push({ kind, path: p.join(r, ...parts) });
  }
  return out;
}

/** The configured executable if it exists, else the first installed browser; undefined when none. */
export function findExecutable(opts: {
  platform: Platform;
  env: NodeJS.ProcessEnv;
  exists: (path: string) => boolean;
  configured?: string;
}): BrowserExecutable | undefined {
  if (opts.configured) return opts.exists(opts.configured) ? { kind: kindOfPath(opts.configured), path: opts.configured } : undefined;
  return executableCandidates(opts.platform, opts.env).find((c) => opts.exists(c.path));
}

function kindOfPath(path: string): BrowserKind {
  const s = path.toLowerCase();
  if (s.includes('edge')) return 'edge';
  if (s.includes('brave')) return 'brave';
  if (s.includes('chromium')) return 'chromium';
  return 'chrome';
}

/**
 * User-data directories whose `DevToolsActivePort` file names a running browser's endpoint
 * (written by `--remote-debugging-port`, and by chrome://inspect's "allow remote debugging").
 */
export function userDataDirs(platform: Platform, env: NodeJS.ProcessEnv): string[] {
  const p = pathFor(platform);
  const h = home(platform, env);
  if (platform === 'linux') {
    const config = env.XDG_CONFIG_HOME ?? (h ? p.join(h, '.config') : undefined);
    if (!config) return [];
    const dirs = ['google-chrome', 'google-chrome-beta', 'google-chrome-unstable', 'chromium', 'microsoft-edge', 'microsoft-edge-beta', p.join('BraveSoftware', 'Brave-Browser')].map((d) =>
      p.join(config, d),
    );
    if (h) dirs.push(p.join(h, 'snap', 'chromium', 'common', 'chromium'));
    return dirs;
  }
  if (platform === 'darwin') {
    if (!h) return [];
    const support = p.join(h, 'Library', 'Application Support');
    return [p.join('Google', 'Chrome'), p.join('Google', 'Chrome Canary'), 'Chromium', 'Microsoft Edge', p.join('BraveSoftware', 'Brave-Browser')].map((d) => p.join(support, d));
  }
  const local = env.LOCALAPPDATA ?? (h ? p.join(h, 'AppData', 'Local') : undefined);
  if (!local) return [];
  return [['Google', 'Chrome'], ['Chromium'], ['Microsoft', 'Edge'], ['BraveSoftware', 'Brave-Browser']].map((d) => p.join(local, ...d, 'User Data'));
}

/** `DevToolsActivePort` is "PORT\n/devtools/browser/<id>\n"; undefined when it is anything else. */
export function parseDevToolsActivePort(text: string): { port: number; path: string } | undefined {
  const [portLine, pathLine] = text.split(/\r?\n/);
  const port = Number(portLine?.trim());
  const path = pathLine?.trim();
  if (!Number.isInteger(port) || port < 1 || port > 65535 || !path || !path.startsWith('/devtools/browser/')) return undefined;
  return { port, path };
}

/** What `browser.endpoint` is: an HTTP base (ask /json/version) or a WebSocket URL (connect directly). */
export function parseEndpoint(endpoint: string): { kind: 'http'; url: string } | { kind: 'ws'; url: string } {
  const u = new URL(endpoint);
  if (u.protocol === 'ws:' || u.protocol === 'wss:') return { kind: 'ws', url: u.toString() };
  return { kind: 'http', url: `${u.protocol}//${u.host}` };
}

/** The http://host:port base of a ws:// endpoint (to probe /json/version). */
export function httpBaseOf(wsUrl: string): string {
  const u = new URL(wsUrl);
  return `${u.protocol === 'wss:' ? 'https:' : 'http:'}//${u.host}`;
}

export interface LaunchPlan {
  args: string[];
  headless: boolean;
  /** Why headless was forced, if it was. */
  note?: string;
}

/**
 * Chrome's arguments for a Sightline-launched browser. A dedicated profile, because Chrome 136+
 * refuses remote debugging on the default one; `--no-sandbox` only as root, where Chrome will
 * not start without it; headless when asked, or when Linux has no display to show a window on.
 */
export function launchPlan(opts: { platform: Platform; env: NodeJS.ProcessEnv; profileDir: string; headless: boolean; isRoot: boolean }): LaunchPlan {
  let headless = opts.headless;
  let note: string | undefined;
  if (!headless && opts.platform === 'linux' && !opts.env.DISPLAY && !opts.env.WAYLAND_DISPLAY) {
    headless = true;
    note = 'no DISPLAY or WAYLAND_DISPLAY: launched headless';
  }
  const args = [`--user-data-dir=${opts.profileDir}`, ...BASE_LAUNCH_FLAGS];
  if (opts.isRoot) args.push('--no-sandbox');
  if (headless) args.push('--headless=new');
  args.push('about:blank');
  return note ? { args, headless, note } : { args, headless };
}

const HIDDEN_SCHEMES = ['devtools:', 'chrome-extension:', 'chrome:', 'chrome-untrusted:', 'edge:', 'brave:', 'opera:', 'vivaldi:', 'moz-extension:'];
const NEW_TAB_PAGES = ['chrome://newtab/', 'chrome://new-tab-page/', 'edge://newtab/', 'brave://newtab/'];

/**
 * Whether a page target is a tab an agent should see: browser UI (DevTools, settings,
 * extensions) is skipped, the new-tab page is kept because it is where a user's tab starts.
 */
export function isListedPage(url: string): boolean {
  if (NEW_TAB_PAGES.some((p) => url.startsWith(p))) return true;
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0]?.toLowerCase();
  return !scheme || !HIDDEN_SCHEMES.includes(scheme);
}

/** Names of extra endpoints (browser.endpoints): they prefix target ids, `browser:<name>/<id>`. */
export const ENDPOINT_NAME = /^[a-z0-9][a-z0-9_.-]{0,31}$/i;

/**
 * A browser target id split into its endpoint (undefined: the default connection) and CDP
 * target id: `browser:<id>` or `browser:<endpoint>/<id>`; undefined for anything else.
 */
export function splitTabId(target: string): { endpoint?: string; id: string } | undefined {
  const m = /^browser:(?:([^/]+)\/)?([A-Za-z0-9._-]+)$/.exec(target);
  if (!m) return undefined;
  const [, endpoint, id] = m;
  if (endpoint === undefined) return { id: id! };
  return ENDPOINT_NAME.test(endpoint) ? { endpoint, id: id! } : undefined;
}

/** The target id of a CDP target on an endpoint (undefined: the default connection). */
export function tabTargetId(endpoint: string | undefined, id: string): string {
  return endpoint ? `browser:${endpoint}/${id}` : `browser:${id}`;
}

/** `browser:<CDP target id>` of the default connection → the CDP target id; undefined for anything else. */
export function cdpTargetId(target: string): string | undefined {
  const t = splitTabId(target);
  return t && t.endpoint === undefined ? t.id : undefined;
}

/** Where an http(s) endpoint answers /json/version: its path and query kept (a proxy path, a token). */
export function versionUrl(endpoint: string): string {
  const u = new URL(endpoint);
  const path = u.pathname.replace(/\/json\/version\/?$/, '').replace(/\/+$/, '');
  return `${u.protocol}//${u.host}${path}/json/version${u.search}`;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|0\.0\.0\.0|\[::1?\])$/i;

/**
 * The WebSocket URL to use from a remote endpoint's /json/version answer. A browser behind a
 * proxy or in a container names itself (127.0.0.1, 0.0.0.0): then the endpoint's own host,
 * scheme and query (a token) are used instead.
 */
export function remoteWs(endpoint: string, ws: string): string {
  const e = new URL(endpoint);
  const w = new URL(ws);
  if (LOOPBACK.test(e.hostname) || !LOOPBACK.test(w.hostname)) return ws;
  w.protocol = e.protocol === 'https:' ? 'wss:' : 'ws:';
  w.hostname = e.hostname;
  w.port = e.port;
  if (!w.search && e.search) w.search = e.search;
  return w.toString();
}
