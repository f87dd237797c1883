/**
 * The browser source: Chrome/Chromium/Edge/Brave tabs over the DevTools protocol
 * (puppeteer-core). One connection (found, or launched with its own profile) and one set of
 * tab sessions serve the three ports: screen (capture in the browser), input (puppeteer's
 * mouse and keyboard) and tree (one call in Sightline's isolated world).
 */
import type { SourceHealth } from '../../../../shared/frame.ts';
import type { Source } from '../source.ts';
import { BrowserConnection, REMEDIATION } from './connection.ts';
import { BrowserInput } from './input.ts';
import { BrowserScreen } from './screen.ts';
import type { BrowserSettings } from './settings.ts';
import { TabSessions } from './tabs.ts';
import { BrowserTree } from './tree.ts';

export { REMEDIATION } from './connection.ts';
export { MAX_TEXT_LENGTH } from './input.ts';

export interface BrowserSourceOptions {
  settings: BrowserSettings;
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** Launch a browser when none answers (default true; never when browser.endpoint is set). */
  autoLaunch?: boolean;
}

export interface BrowserSource extends Source {
  readonly screen: BrowserScreen;
  readonly input: BrowserInput;
  readonly tree: BrowserTree;
  /** Launch Sightline's own browser (dedicated profile) and return its first tab's target id. */
  launch(): Promise<string>;
}

export function createBrowserSource(o: BrowserSourceOptions): BrowserSource {
  const conn = new BrowserConnection({ settings: o.settings, dataDir: o.dataDir, env: o.env ?? process.env, autoLaunch: o.autoLaunch ?? true });
  const tabs = new TabSessions(conn);
  return {
    name: 'browser',
    screen: new BrowserScreen(tabs),
    input: new BrowserInput(tabs),
    tree: new BrowserTree(tabs),
    health: () => health(conn),
    async launch() {
      const browser = await conn.launch();
      tabs.hook(browser);
      const target = browser.targets().find((t) => t.type() === 'page') ?? (await browser.waitForTarget((t) => t.type() === 'page', { timeout: 10_000 }));
      const tab = await tabs.tab(target);
      return `browser:${tab.id}`;
    },
    dispose: () => conn.close(),
  };
}

async function health(conn: BrowserConnection): Promise<SourceHealth> {
  const base = { source: 'browser', enabled: true };
  try {
    const p = await conn.probe();
    if (p.endpoint) {
      return { ...base, available: true, degraded: false, checks: [{ id: 'browser.endpoint', label: 'Browser debugging endpoint', status: 'ok', detail: p.via }] };
    }
    if (p.executable) {
      return {
        ...base,
        available: true,
        degraded: false,
        checks: [
          { id: 'browser.endpoint', label: 'Browser debugging endpoint', status: 'warning', detail: 'No browser with remote debugging is running.', fix: REMEDIATION },
          { id: 'browser.executable', label: 'Browser to launch', status: 'ok', detail: `${p.executable.path} (launched on first use, profile ${conn.profileDir})` },
        ],
      };
    }
    return {
      ...base,
      available: false,
      degraded: false,
      reason: p.problem ?? 'no browser found',
      remediation: REMEDIATION,
      checks: [{ id: 'browser.endpoint', label: 'Browser debugging endpoint', status: 'error', detail: p.problem, fix: REMEDIATION }],
    };
  } catch (e) {
    return { ...base, available: false, degraded: false, reason: (e as Error).message, remediation: REMEDIATION };
  }
}
