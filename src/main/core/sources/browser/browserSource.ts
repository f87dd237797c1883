/**
 * The browser source: Chrome/Chromium/Edge/Brave tabs over the DevTools protocol
 * (puppeteer-core). A fleet of connections (the default one — found, or launched with its own
 * profile — and the named browser.endpoints) and their tab sessions serve the ports: screen
 * (capture in the browser, native region crops), input (puppeteer's mouse and keyboard, with
 * outcomes), tree and text (one call in Sightline's isolated world) and network (idle waits).
 */
import type { SourceHealth } from '../../../../shared/frame.ts';
import type { Source } from '../source.ts';
import { REMEDIATION } from './connection.ts';
import { BrowserFleet, type FleetOptions } from './fleet.ts';
import { BrowserInput } from './input.ts';
import { BrowserNetwork } from './network.ts';
import { BrowserScreen } from './screen.ts';
import type { TabSessions } from './tabs.ts';
import { BrowserTree } from './tree.ts';

export { REMEDIATION } from './connection.ts';
export { MAX_TEXT_LENGTH } from './input.ts';

export interface BrowserSourceOptions {
  settings: FleetOptions['settings'];
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** Launch a browser when none answers (default true; never when browser.endpoint or endpoints are set). */
  autoLaunch?: boolean;
  /** A browser's connection closed (it quit or was killed): its health is worth checking now. */
  onLost?: () => void;
}

export interface BrowserSource extends Source {
  readonly screen: BrowserScreen;
  readonly input: BrowserInput;
  readonly tree: BrowserTree;
  readonly text: BrowserTree;
  readonly network: BrowserNetwork;
  /** Launch Sightline's own browser (dedicated profile) and return its first tab's target id. */
  launch(): Promise<string>;
}

export function createBrowserSource(o: BrowserSourceOptions): BrowserSource {
  const fleet = new BrowserFleet({ settings: o.settings, dataDir: o.dataDir, env: o.env ?? process.env, autoLaunch: o.autoLaunch ?? true });
  const tree = new BrowserTree(fleet);
  if (o.onLost) for (const tabs of fleet.all()) tabs.conn.onLost(o.onLost);
  return {
    name: 'browser',
    screen: new BrowserScreen(fleet),
    input: new BrowserInput(fleet),
    tree,
    text: tree,
    network: new BrowserNetwork(fleet),
    health: () => health(fleet),
    async launch() {
      const tabs = fleet.default;
      const browser = await tabs.conn.launch();
      tabs.hook(browser);
      const target = browser.targets().find((t) => t.type() === 'page') ?? (await browser.waitForTarget((t) => t.type() === 'page', { timeout: 10_000 }));
      return (await tabs.tab(target)).targetId;
    },
    dispose: () => fleet.close(),
  };
}

async function health(fleet: BrowserFleet): Promise<SourceHealth> {
  const base = { source: 'browser', enabled: true };
  try {
    const local = await localHealth(fleet.default, fleet.named.length > 0);
    const remote = await Promise.all(
      fleet.named.map(async (s) => {
        const p = await s.conn.probe().catch((e: unknown) => ({ problem: (e as Error).message, endpoint: undefined, via: undefined }));
        const label = `Endpoint ${s.endpoint}`;
        return p.endpoint
          ? { id: `browser.endpoints.${s.endpoint}`, label, status: 'ok' as const, detail: p.via }
          : { id: `browser.endpoints.${s.endpoint}`, label, status: 'error' as const, detail: p.problem, fix: 'Check the endpoint URL and headers in browser.endpoints, and that the browser there is running.' };
      }),
    );
    const anyRemote = remote.some((c) => c.status === 'ok');
    const available = local.available || anyRemote;
    const degraded = available && remote.some((c) => c.status === 'error');
    const out: SourceHealth = { ...base, available, degraded, checks: [...local.checks, ...remote] };
    if (!available) {
      out.reason = local.reason ?? 'no browser answers';
      out.remediation = REMEDIATION;
    } else if (degraded) out.reason = `${remote.filter((c) => c.status === 'error').length} of ${remote.length} endpoints do not answer`;
    return out;
  } catch (e) {
    return { ...base, available: false, degraded: false, reason: (e as Error).message, remediation: REMEDIATION };
  }
}

async function localHealth(tabs: TabSessions, fleet: boolean): Promise<{ available: boolean; reason?: string; checks: NonNullable<SourceHealth['checks']> }> {
  const conn = tabs.conn;
  const p = await conn.probe();
  if (p.endpoint) return { available: true, checks: [{ id: 'browser.endpoint', label: 'Browser debugging endpoint', status: 'ok', detail: p.via }] };
  if (p.executable) {
    return {
      available: true,
      checks: [
        { id: 'browser.endpoint', label: 'Browser debugging endpoint', status: 'warning', detail: 'No browser with remote debugging is running.', fix: REMEDIATION },
        { id: 'browser.executable', label: 'Browser to launch', status: 'ok', detail: `${p.executable.path} (launched on first use, profile ${conn.profileDir})` },
      ],
    };
  }
  // With endpoints configured, no local browser is fine.
  const status = fleet ? 'warning' : 'error';
  return { available: false, reason: p.problem ?? 'no browser found', checks: [{ id: 'browser.endpoint', label: 'Browser debugging endpoint', status, detail: p.problem, fix: REMEDIATION }] };
}
