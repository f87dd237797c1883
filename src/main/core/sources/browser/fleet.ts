/**
 * Every browser the source reaches: the default connection (browser.endpoint, a browser found on
 * this machine, or one Sightline launches) and one connection per named endpoint of
 * browser.endpoints (a remote Chrome, a Selenium Grid 4 node, browserless). Each has its own
 * tab sessions; target ids say which: `browser:<id>` or `browser:<name>/<id>`.
 */
import { SightlineError } from '../../../../shared/errors.ts';
import type { TargetInfo } from '../../../../shared/frame.ts';
import { ownFacts } from '../../util/self.ts';
import { BrowserConnection } from './connection.ts';
import { ENDPOINT_NAME, splitTabId } from './detect.ts';
import type { BrowserEndpoint, BrowserSettings } from './settings.ts';
import { TAB_HINT, TabSessions } from './tabs.ts';
import type { UrlRules } from './urlPolicy.ts';

export interface FleetOptions {
  settings: Omit<BrowserSettings, 'endpoints' | 'allowFileUrls'> & { endpoints?: BrowserEndpoint[]; allowFileUrls?: boolean };
  dataDir: string;
  env: NodeJS.ProcessEnv;
  autoLaunch: boolean;
}

export class BrowserFleet {
  readonly default: TabSessions;
  readonly #named = new Map<string, TabSessions>();
  /** Which URLs a tab may be sent to, read at each navigation: web pages only, nothing of Sightline's. */
  readonly urlRules: () => UrlRules;

  constructor(o: FleetOptions) {
    this.urlRules = (): UrlRules => ({ allowFileUrls: o.settings.allowFileUrls === true, own: ownFacts(o.dataDir) });
    const endpoints = o.settings.endpoints ?? [];
    // With a fleet configured, nothing is launched on this machine unasked (Setup's "Launch" still can).
    const conn = new BrowserConnection({ settings: o.settings, dataDir: o.dataDir, env: o.env, autoLaunch: o.autoLaunch && endpoints.length === 0 });
    this.default = new TabSessions(conn);
    for (const e of endpoints) {
      const c = new BrowserConnection({
        settings: { endpoint: e.url, headless: true },
        ...(e.headers ? { headers: e.headers } : {}),
        name: e.name,
        dataDir: o.dataDir,
        env: o.env,
        autoLaunch: false,
      });
      this.#named.set(e.name, new TabSessions(c, e.name));
    }
  }

  /** The default connection first, then the named ones in settings order. */
  all(): TabSessions[] {
    return [this.default, ...this.#named.values()];
  }

  get named(): TabSessions[] {
    return [...this.#named.values()];
  }

  /**
   * The connection of a tab id. With `connection`, also `browser:` (the default connection) and
   * `browser:<name>/` or `browser:<name>` (an endpoint) name a connection without a tab.
   */
  forTarget(target: string, o: { connection?: boolean } = {}): TabSessions {
    const tab = splitTabId(target);
    let endpoint = tab?.endpoint;
    if (o.connection && tab && endpoint === undefined && this.#named.has(tab.id)) endpoint = tab.id;
    if (!tab) {
      const m = o.connection ? /^browser:(?:([^/]+)\/?)?$/.exec(target) : null;
      if (!m) throw new SightlineError('TAB_NOT_FOUND', `"${target}" is not a browser tab id.`, TAB_HINT, { target });
      endpoint = m[1];
      if (endpoint !== undefined && !ENDPOINT_NAME.test(endpoint)) throw new SightlineError('INVALID_ARGUMENT', `"${endpoint}" is not an endpoint name.`, 'Use a name from browser.endpoints.');
    }
    if (endpoint === undefined) return this.default;
    const s = this.#named.get(endpoint);
    if (!s) {
      throw new SightlineError('TAB_NOT_FOUND', `No browser endpoint is named "${endpoint}".`, `Endpoints: ${[...this.#named.keys()].join(', ') || 'none'} (browser.endpoints in settings); call list_targets.`, { target });
    }
    return s;
  }

  /**
   * Tabs of every connection. A connection that fails is left out while another answers (its
   * health says why); when none answers, the default connection's error is thrown.
   */
  async listEach(list: (s: TabSessions) => Promise<TargetInfo[]>): Promise<TargetInfo[]> {
    const results = await Promise.allSettled(this.all().map(list));
    const ok = results.filter((r): r is PromiseFulfilledResult<TargetInfo[]> => r.status === 'fulfilled');
    if (ok.length === 0) throw (results[0] as PromiseRejectedResult).reason;
    return ok.flatMap((r) => r.value);
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((s) => s.conn.close()));
  }
}
