/**
 * One connection to one browser: found through settings, a `DevToolsActivePort` file or the
 * usual ports (127.0.0.1 only), or launched with a dedicated profile; or one named endpoint of
 * `browser.endpoints` (a remote Chrome, a Selenium Grid node, browserless) with its headers.
 * Connects lazily, and again on the next call after the connection drops. Never downloads a browser.
 */
import { accessSync, constants, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import puppeteer, { type Browser, type Target } from 'puppeteer-core';
import { SightlineError } from '../../../../shared/errors.ts';
import {
  PROFILE_DIR_NAME,
  USUAL_DEBUG_PORTS,
  findExecutable,
  httpBaseOf,
  launchPlan,
  parseDevToolsActivePort,
  parseEndpoint,
  remoteWs,
  userDataDirs,
  versionUrl,
  type BrowserExecutable,
  type Platform,
} from './detect.ts';

export const REMEDIATION =
  'Start Chrome with --remote-debugging-port=9222 and a separate --user-data-dir, or set browser.endpoint (e.g. http://127.0.0.1:9222), or browser.executablePath for Sightline to launch one.';

/** Commands that take longer than this fail rather than hang a tool call forever. */
const PROTOCOL_TIMEOUT_MS = 60_000;
const CONNECT_TIMEOUT_MS = 15_000;
const PROBE_TIMEOUT_MS = 800;

export interface ConnectionOptions {
  settings: { endpoint?: string; executablePath?: string; headless: boolean };
  /** Sent with /json/version and the WebSocket upgrade (an endpoint's access token). */
  headers?: Record<string, string>;
  /** The endpoint's name in browser.endpoints (undefined: the default connection). */
  name?: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** Launch a browser when nothing answers (default true; never when browser.endpoint is set). */
  autoLaunch: boolean;
  platform?: Platform;
}

/** A debugging endpoint that answers, and how it was found. */
interface Found {
  ws: string;
  via: string;
}

export interface Probe {
  /** Connected now, or an endpoint answers. */
  endpoint?: string;
  via?: string;
  /** What would be launched when nothing answers. */
  executable?: BrowserExecutable;
  problem?: string;
}

function currentPlatform(): Platform {
  return process.platform === 'win32' ? 'win32' : process.platform === 'darwin' ? 'darwin' : 'linux';
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Skip DevTools windows and extensions: never ours, and attaching to them costs. */
function targetFilter(t: Target): boolean {
  const url = t.url();
  return !url.startsWith('devtools://') && !url.startsWith('chrome-extension://');
}

/** Ask a /json/version URL for the browser's WebSocket endpoint. */
async function versionInfo(url: string, timeoutMs = PROBE_TIMEOUT_MS, headers?: Record<string, string>): Promise<{ ws: string; product: string } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), ...(headers ? { headers } : {}) });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { webSocketDebuggerUrl?: unknown; Browser?: unknown };
    if (typeof body.webSocketDebuggerUrl !== 'string') return undefined;
    return { ws: body.webSocketDebuggerUrl, product: typeof body.Browser === 'string' ? body.Browser : '' };
  } catch {
    return undefined;
  }
}

function tcpOpen(port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export class BrowserConnection {
  readonly #o: ConnectionOptions;
  readonly #platform: Platform;
  #browser: Browser | undefined;
  #connecting: Promise<Browser> | undefined;
  #via = '';
  #launched = false;
  #launchNote: string | undefined;
  readonly #lostListeners: (() => void)[] = [];

  constructor(options: ConnectionOptions) {
    this.#o = options;
    this.#platform = options.platform ?? currentPlatform();
  }

  get profileDir(): string {
    return join(this.#o.dataDir, PROFILE_DIR_NAME);
  }

  /** The browser if connected now (no I/O). */
  get current(): Browser | undefined {
    return this.#browser?.connected ? this.#browser : undefined;
  }

  get via(): string {
    return this.#via;
  }

  get launched(): boolean {
    return this.#launched;
  }

  onLost(listener: () => void): void {
    this.#lostListeners.push(listener);
  }

  /** The connected browser, connecting (or launching) first when needed. */
  async get(signal?: AbortSignal): Promise<Browser> {
    const b = this.current;
    if (b) return b;
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = undefined;
    });
    return await abortable(this.#connecting, signal);
  }

  /** Launch Sightline's own browser (dropping a connection to another one). */
  async launch(): Promise<Browser> {
    if (this.#connecting) await this.#connecting.catch(() => undefined);
    const b = this.current;
    if (b && this.#launched) return b;
    if (b) this.#drop(b, false);
    const p = this.#launch();
    const pending = p.finally(() => {
      this.#connecting = undefined;
    });
    // Callers of get() share this attempt; its failure is reported to them and to us.
    pending.catch(() => undefined);
    this.#connecting = pending;
    return await p;
  }

  async #open(): Promise<Browser> {
    const found = await this.#discover();
    if (found) return this.#adopt(await this.#connect(found.ws), found.via, false);
    if (this.#o.settings.endpoint) {
      throw new SightlineError('SOURCE_UNAVAILABLE', `No browser answers at ${this.#label()}.`, `Start the browser with remote debugging on that address, or change the setting. ${REMEDIATION}`);
    }
    if (!this.#o.autoLaunch) throw new SightlineError('SOURCE_UNAVAILABLE', 'No browser with remote debugging is running.', REMEDIATION);
    return await this.#launch();
  }

  /** Every place an endpoint may be, in order; the first that answers wins. */
  async #discover(): Promise<Found | undefined> {
    const endpoint = this.#o.settings.endpoint;
    if (endpoint) {
      const e = parseEndpoint(endpoint);
      if (e.kind === 'ws') return { ws: e.url, via: this.#label() };
      const v = await versionInfo(versionUrl(endpoint), 3000, this.#o.headers);
      return v ? { ws: remoteWs(endpoint, v.ws), via: this.#label() } : undefined;
    }
    for (const dir of [this.profileDir, ...userDataDirs(this.#platform, this.#o.env)]) {
      const port = readActivePort(dir);
      if (port && (await tcpOpen(port.port))) return { ws: `ws://127.0.0.1:${port.port}${port.path}`, via: `DevToolsActivePort in ${dir}` };
    }
    for (const port of USUAL_DEBUG_PORTS) {
      const v = await versionInfo(`http://127.0.0.1:${port}/json/version`);
      // Port 9222 may be something else (a Node inspector answers /json/version too).
      if (v && !/node\.js/i.test(v.product)) return { ws: v.ws, via: `port ${port}` };
    }
    return undefined;
  }

  #label(): string {
    return this.#o.name ? `browser.endpoints ${this.#o.name} (${this.#o.settings.endpoint})` : `browser.endpoint ${this.#o.settings.endpoint}`;
  }

  async #connect(ws: string): Promise<Browser> {
    const headers = this.#o.headers;
    const pending = puppeteer.connect({ browserWSEndpoint: ws, defaultViewport: null, protocolTimeout: PROTOCOL_TIMEOUT_MS, targetFilter, ...(headers ? { headers } : {}) });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SightlineError('SOURCE_UNAVAILABLE', `The browser at ${ws} did not accept the connection within ${CONNECT_TIMEOUT_MS / 1000} s.`, 'If Chrome asks whether to allow remote debugging, allow it; then call again.')), CONNECT_TIMEOUT_MS);
    });
    try {
      return await Promise.race([pending, timeout]);
    } catch (e) {
      // A connection that completes after we gave up must not linger.
      pending.then((b) => b.disconnect()).catch(() => undefined);
      if (e instanceof SightlineError) throw e;
      throw new SightlineError('SOURCE_UNAVAILABLE', `Could not connect to the browser at ${ws}: ${(e as Error).message}`, REMEDIATION, undefined, { cause: e });
    } finally {
      clearTimeout(timer);
    }
  }

  async #launch(): Promise<Browser> {
    const exe = this.executable();
    if (!exe) {
      const configured = this.#o.settings.executablePath;
      throw new SightlineError(
        'SOURCE_UNAVAILABLE',
        configured ? `browser.executablePath ${configured} does not exist or is not executable.` : 'No browser with remote debugging is running, and no Chrome, Chromium, Edge or Brave is installed.',
        REMEDIATION,
      );
    }
    mkdirSync(this.profileDir, { recursive: true, mode: 0o700 });
    const plan = launchPlan({
      platform: this.#platform,
      env: this.#o.env,
      profileDir: this.profileDir,
      headless: this.#o.settings.headless,
      isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    });
    try {
      const browser = await puppeteer.launch({
        executablePath: exe.path,
        ignoreDefaultArgs: true,
        args: plan.args,
        defaultViewport: null,
        protocolTimeout: PROTOCOL_TIMEOUT_MS,
        timeout: 30_000,
        env: this.#o.env,
        targetFilter,
        // Puppeteer's signal handlers would exit the process on SIGINT and swallow SIGTERM: the
        // app owns its signals and closes the browser through dispose(); process exit still kills it.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      this.#launchNote = plan.note;
      return this.#adopt(browser, `launched ${exe.path}${plan.headless ? ' (headless)' : ''}`, true);
    } catch (e) {
      throw new SightlineError('SOURCE_UNAVAILABLE', `Could not launch ${exe.path}: ${(e as Error).message.split('\n')[0]}`, REMEDIATION, undefined, { cause: e });
    }
  }

  #adopt(browser: Browser, via: string, launched: boolean): Browser {
    this.#browser = browser;
    this.#via = via;
    this.#launched = launched;
    browser.once('disconnected', () => {
      if (this.#browser !== browser) return;
      this.#browser = undefined;
      for (const l of this.#lostListeners) l();
    });
    return browser;
  }

  #drop(browser: Browser, close: boolean): void {
    this.#browser = undefined;
    for (const l of this.#lostListeners) l();
    void (close ? browser.close() : browser.disconnect()).catch(() => undefined);
  }

  /** The executable a launch would use (settings.executablePath wins). */
  executable(): BrowserExecutable | undefined {
    return findExecutable({ platform: this.#platform, env: this.#o.env, exists: isExecutable, configured: this.#o.settings.executablePath });
  }

  get launchNote(): string | undefined {
    return this.#launchNote;
  }

  /** What health() reports: no connection is made and nothing is launched. */
  async probe(): Promise<Probe> {
    const b = this.current;
    if (b) return { endpoint: b.wsEndpoint(), via: this.#via };
    const endpoint = this.#o.settings.endpoint;
    if (endpoint) {
      let e: ReturnType<typeof parseEndpoint>;
      try {
        e = parseEndpoint(endpoint);
      } catch {
        return { problem: `browser.endpoint ${endpoint} is not a URL` };
      }
      if (e.kind === 'ws' && this.#o.name) {
        // A remote ws endpoint (a grid node, browserless) has no /json/version of Chrome's: connect.
        const ok = await this.get(AbortSignal.timeout(3000)).then(
          () => true,
          () => false,
        );
        return ok ? { endpoint: e.url, via: this.#label() } : { problem: `no browser answers at ${this.#label()}` };
      }
      const v = await versionInfo(versionUrl(e.kind === 'ws' ? httpBaseOf(e.url) : endpoint), PROBE_TIMEOUT_MS, this.#o.headers);
      return v ? { endpoint: v.ws, via: this.#label() } : { problem: `no browser answers at ${this.#label()}` };
    }
    for (const dir of [this.profileDir, ...userDataDirs(this.#platform, this.#o.env)]) {
      const port = readActivePort(dir);
      if (port && (await tcpOpen(port.port))) return { endpoint: `ws://127.0.0.1:${port.port}${port.path}`, via: `DevToolsActivePort in ${dir}` };
    }
    for (const port of USUAL_DEBUG_PORTS) {
      const v = await versionInfo(`http://127.0.0.1:${port}/json/version`);
      if (v && !/node\.js/i.test(v.product)) return { endpoint: v.ws, via: `port ${port}` };
    }
    const exe = this.executable();
    if (exe && this.#o.autoLaunch) return { executable: exe };
    const configured = this.#o.settings.executablePath;
    return {
      problem: configured
        ? `browser.executablePath ${configured} does not exist or is not executable`
        : exe
          ? 'no browser with remote debugging is running'
          : 'no browser with remote debugging is running, and no Chrome, Chromium, Edge or Brave is installed',
    };
  }

  async close(): Promise<void> {
    if (this.#connecting) await this.#connecting.catch(() => undefined);
    const b = this.#browser;
    this.#browser = undefined;
    if (!b) return;
    // Sightline's own browser goes with it; a user's browser is only let go.
    if (this.#launched) await b.close().catch(() => undefined);
    else await b.disconnect().catch(() => undefined);
  }
}

function readActivePort(dir: string): { port: number; path: string } | undefined {
  const file = join(dir, 'DevToolsActivePort');
  if (!existsSync(file)) return undefined;
  try {
    return parseDevToolsActivePort(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Wait for `p`, or fail with CANCELLED as soon as `signal` aborts (`p` carries on). */
export function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(cancelled(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(cancelled(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export function cancelled(signal: AbortSignal): SightlineError {
  const reason: unknown = signal.reason;
  if (reason instanceof SightlineError) return reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') return new SightlineError('TIMEOUT', 'The browser did not answer in time.', 'Call again; if the page is busy, wait for it first.');
  return new SightlineError('CANCELLED', 'The call was cancelled.', 'Call again if you still need it.');
}
