/**
 * The desktop source: displays and windows on macOS, Windows and X11. One session (platform
 * facts, the native modules, the X11 helpers) serves the screen port (node-screenshots) and the
 * input port (nut-js, xdotool on X11).
 */
import type { SourceHealth } from '../../../../shared/frame.ts';
import type { Source } from '../source.ts';
import { desktopHealth, displayServer } from './environment.ts';
import { DesktopInput } from './input.ts';
import { DesktopScreen } from './screen.ts';
import { DesktopSession, type DesktopSourceOptions } from './session.ts';
import { AppAccess } from './tree/appAccess.ts';
import { treeBackend } from './tree/backend.ts';
import { DesktopTree } from './tree/desktopTree.ts';

export { parseDesktopTarget, type DesktopSourceOptions } from './session.ts';
export { typingRuns } from './input.ts';

export interface DesktopSource extends Source {
  readonly screen: DesktopScreen;
  readonly input: DesktopInput;
  /** Absent on a platform without an accessibility route. */
  readonly tree?: DesktopTree;
  readonly text?: DesktopTree;
  /** Linux: starting Chromium, Electron and Qt 6 apps with their tree on (the appAccessibility setting). */
  readonly appAccess?: AppAccess;
}

export function createDesktopSource(options: DesktopSourceOptions): DesktopSource {
  const session = new DesktopSession(options);
  const screen = new DesktopScreen(session);
  const backend = treeBackend(session, options.env ?? process.env);
  const tree = backend ? new DesktopTree(session, backend) : undefined;
  const input = new DesktopInput(session, screen, tree);
  const env = options.env ?? process.env;
  const appAccess = tree && tree.backend === 'AT-SPI' ? new AppAccess({ env, ...(options.dataDir ? { dataDir: options.dataDir } : {}), ...(process.getuid ? { uid: process.getuid() } : {}) }) : undefined;
  const appAccessOn = options.settings?.appAccessibility ?? false;
  return {
    name: 'desktop',
    screen,
    input,
    ...(tree ? { tree, text: tree } : {}),
    ...(appAccess ? { appAccess } : {}),
    health: async () => {
      const h = await health(session);
      if (!h.available) return h;
      // Whether window trees can be read: checklist items, never a reason to call the source unavailable.
      const treeCheck = await tree?.check();
      const checks = [...(h.checks ?? []), ...(treeCheck ? [treeCheck] : [])];
      if (appAccess && treeCheck?.status === 'ok') checks.push(await appAccess.check(appAccessOn));
      return checks.length ? { ...h, checks } : h;
    },
    dispose: async () => {
      screen.dispose();
      await input.dispose();
      await tree?.dispose();
    },
  };
}

async function health(session: DesktopSession): Promise<SourceHealth> {
  const facts = session.facts();
  const h = desktopHealth(facts);
  if (!h.available || (displayServer(facts) !== 'x11' && displayServer(facts) !== 'xwayland')) return h;
  // An X display that is set but cannot be opened (server gone, no access).
  try {
    const { Monitor, Window } = await session.loadShots();
    if (Monitor.all().length === 0) throw new Error('no monitors');
    try {
      Window.all();
    } catch {
      const check = { id: 'window-manager', label: 'Window manager', status: 'warning' as const, detail: 'No window manager lists windows on this display: only whole displays can be captured and driven.', fix: 'Run a window manager that supports EWMH (any desktop session does).' };
      return { ...h, degraded: true, reason: 'no window manager: windows cannot be listed, displays can', remediation: check.fix, checks: [...(h.checks ?? []), check] };
    }
    return h;
  } catch (e) {
    return { ...h, available: false, reason: `cannot open X display ${facts.display} (${(e as Error).message})`, remediation: 'Check that the X server runs and DISPLAY / desktop.display names it (and XAUTHORITY allows access).' };
  }
}
