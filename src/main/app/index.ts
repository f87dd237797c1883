/**
 * The Sightline tray app: the ONLY module that imports electron. It runs the core and
 * the same 127.0.0.1 server as `sightline serve` in-process, writes the discovery file
 * `sightline mcp` relays through, and shows the dashboard from that server. Every
 * decision (tray menu, window options, CSP, navigation, IPC checks, permissions) lives
 * in the plain modules beside it, which are unit-tested without Electron.
 */
import { join } from 'node:path';
import {
  app,
  BrowserWindow,
  ipcMain,
  Menu,
  nativeImage,
  nativeTheme,
  session,
  shell,
  systemPreferences,
  Tray,
  type IpcMainInvokeEvent,
  type MenuItemConstructorOptions,
  type NativeImage,
} from 'electron';
import type { StatusInfo } from '../../shared/api.ts';
import type { TargetInfo } from '../../shared/frame.ts';
import type { IpcArgs, IpcChannel, IpcResult } from '../../shared/ipc.ts';
import { removeDiscoveryFile, writeDiscoveryFile } from '../core/bridge/discovery.ts';
import { startServer, type RunningServer } from '../core/http/server.ts';
import { createCore, VERSION, type Core } from '../core/index.ts';
import { resolveDataDir } from '../core/settings/dataDir.ts';
import { withSecurityHeaders } from './csp.ts';
import { isTrustedSender, validateIpcArgs } from './ipcGuard.ts';
import { decideNavigation, decideWindowOpen, isAppUrl } from './navigation.ts';
import { desktopPermissionStates, loginItemSettings, permissionChecks, permissionPaneUrl, type MediaAccessStatus } from './permissions.ts';
import { trayIconFile, trayMenu, trayState, trayTooltip, type TrayAction, type TrayInput, type TrayItem } from './trayModel.ts';
import { dashboardWindowOptions } from './windowDefaults.ts';

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const here = import.meta.dirname;
/** Tray icons: resources/ at the app root (inside app.asar when packaged). */
const resourcesDir = (): string => join(app.getAppPath(), 'resources');

function flagValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith(`${name}=`));
  return eq?.slice(name.length + 1);
}

interface AppContext {
  core: Core;
  server: RunningServer;
  dataDir: string;
  window: BrowserWindow | null;
  tray: Tray | null;
  status: StatusInfo | null;
  targets: TargetInfo[];
  busy: number;
}

let ctx: AppContext | null = null;
let quitting = false;

// Guards for every web contents the app ever creates, set before any exists.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-attach-webview', (e) => e.preventDefault());
  const guard = (e: { preventDefault(): void }, url: string): void => {
    const origin = ctx?.server.url;
    const decision = origin ? decideNavigation(url, origin) : { action: 'deny' as const };
    if (decision.action === 'allow') return;
    e.preventDefault();
    if (decision.action === 'external') void shell.openExternal(decision.url);
  };
  contents.on('will-navigate', (e, url) => guard(e, url));
  contents.on('will-redirect', (e, url) => guard(e, url));
  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideWindowOpen(url);
    if (decision.action === 'external') void shell.openExternal(decision.url);
    return { action: 'deny' };
  });
});

if (!app.requestSingleInstanceLock()) {
  // Another Sightline owns the tray; it opens its dashboard (second-instance below).
  app.quit();
} else {
  app.on('second-instance', () => showDashboard());
  // A tray app keeps running with no window open.
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', (e) => {
    if (quitting || !ctx) return;
    e.preventDefault();
    quitting = true;
    void shutdown().finally(() => app.quit());
  });
  app
    .whenReady()
    .then(start)
    .catch((e: unknown) => {
      log(`[sightline] could not start: ${(e as Error)?.stack ?? String(e)}`);
      app.exit(1);
    });
}

async function start(): Promise<void> {
  if (process.platform === 'darwin') app.dock?.hide();
  const dataDir = resolveDataDir(flagValue(process.argv, '--data-dir'));
  const core = await createCore({ dataDir, log, host: { macPermissions: () => desktopPermissionStates(permissionFacts()) } });
  core.startMaintenance(log);
  // The port used last (remembered in the data directory): a dashboard left open in a browser reconnects.
  const server = await startServer(core, { staticDir: join(here, '../renderer'), log });
  writeDiscoveryFile(dataDir, { pid: process.pid, url: server.url, mcpUrl: server.mcpUrl, token: server.token, version: VERSION, startedAt: new Date().toISOString() });
  ctx = { core, server, dataDir, window: null, tray: null, status: null, targets: [], busy: 0 };
  log(`[sightline] app serving ${server.url} (data ${dataDir})`);

  hardenSession(server.url);
  registerIpc(server.url);

  applyLoginItem(core.settings.values().app.startAtLogin);
  core.events.on('settings', (s) => applyLoginItem(s.app.startAtLogin));

  createTray(ctx);
  const hidden = process.argv.includes('--hidden') || app.getLoginItemSettings().wasOpenedAtLogin;
  if (!hidden) showDashboard();
}

async function shutdown(): Promise<void> {
  if (!ctx) return;
  const { core, server, dataDir } = ctx;
  removeDiscoveryFile(dataDir);
  ctx.tray?.destroy();
  await server.close().catch(() => undefined);
  await core.close().catch(() => undefined);
}

/** The default session: our origin only, our CSP, no permissions but image copy. */
function hardenSession(origin: string): void {
  const ses = session.defaultSession;
  ses.webRequest.onBeforeRequest({ urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'] }, (details, callback) => {
    callback({ cancel: !isAppUrl(details.url, origin) });
  });
  ses.webRequest.onHeadersReceived({ urls: [`${origin}/*`] }, (details, callback) => {
    callback({ responseHeaders: withSecurityHeaders(details.responseHeaders) });
  });
  ses.setPermissionRequestHandler((_wc, permission, callback, details) => {
    callback(permission === 'clipboard-sanitized-write' && isAppUrl(details.requestingUrl, origin));
  });
  ses.setPermissionCheckHandler((_wc, permission, requestingOrigin) => permission === 'clipboard-sanitized-write' && isAppUrl(requestingOrigin, origin));
}

function registerIpc(origin: string): void {
  function handle<C extends IpcChannel>(channel: C, fn: (...args: IpcArgs<C>) => IpcResult<C> | Promise<IpcResult<C>>): void {
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, ...raw: unknown[]) => {
      const frame = event.senderFrame;
      if (!isTrustedSender({ url: frame?.url, isMainFrame: !!frame && frame === event.sender.mainFrame }, origin)) {
        throw new Error(`Refused ${channel} from an untrusted sender.`);
      }
      return fn(...validateIpcArgs(channel, raw));
    });
  }
  handle('sightline:permissions', () => permissionChecks(permissionFacts()));
  handle('sightline:open-permission-pane', async (pane) => {
    if (process.platform !== 'darwin') return false;
    await shell.openExternal(permissionPaneUrl(pane));
    return true;
  });
  handle('sightline:request-accessibility', () => (process.platform === 'darwin' ? systemPreferences.isTrustedAccessibilityClient(true) : true));
  handle('sightline:app-info', () => ({ version: app.getVersion(), platform: process.platform, openAtLogin: app.getLoginItemSettings().openAtLogin }));
}

function permissionFacts(): { platform: string; screen?: MediaAccessStatus; accessibility?: boolean } {
  if (process.platform !== 'darwin') return { platform: process.platform };
  return {
    platform: process.platform,
    screen: systemPreferences.getMediaAccessStatus('screen'),
    accessibility: systemPreferences.isTrustedAccessibilityClient(false),
  };
}

function applyLoginItem(startAtLogin: boolean): void {
  // Linux has no login items in Electron; the setting is documented as macOS/Windows.
  if (process.platform === 'linux') return;
  app.setLoginItemSettings(loginItemSettings(startAtLogin));
}

function showDashboard(hash?: string): void {
  if (!ctx) return;
  const c = ctx;
  if (c.window && !c.window.isDestroyed()) {
    if (hash) void c.window.loadURL(`${c.server.url}/${hash}`);
    if (c.window.isMinimized()) c.window.restore();
    c.window.show();
    c.window.focus();
    return;
  }
  const win = new BrowserWindow(dashboardWindowOptions(join(here, '../preload/index.cjs'), process.platform, nativeTheme.shouldUseDarkColors));
  c.window = win;
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (c.window === win) c.window = null;
  });
  // /auth sets the HttpOnly session cookie, then redirects to the dashboard.
  void win.loadURL(c.server.dashboardUrl).then(() => {
    if (hash) void win.loadURL(`${c.server.url}/${hash}`);
  });
}

function createTray(c: AppContext): void {
  const icons = new Map<string, NativeImage>();
  const icon = (file: string): NativeImage => {
    let img = icons.get(file);
    if (!img) {
      img = nativeImage.createFromPath(join(resourcesDir(), file));
      if (file.endsWith('Template.png')) img.setTemplateImage(true);
      icons.set(file, img);
    }
    return img;
  };
  const labels = Object.fromEntries(c.core.sources.info().map((i) => [i.name, i.label]));
  const input = (): TrayInput => ({ status: c.status, targets: c.targets, busy: c.busy > 0, labels });
  const tray = new Tray(icon(trayIconFile('idle', process.platform)));
  c.tray = tray;

  const render = (): void => {
    if (tray.isDestroyed()) return;
    const i = input();
    tray.setImage(icon(trayIconFile(trayState(i), process.platform)));
    tray.setToolTip(trayTooltip(i));
    tray.setContextMenu(Menu.buildFromTemplate(toElectronMenu(trayMenu(i), run)));
  };
  const refreshStatus = async (): Promise<void> => {
    c.status = await c.core.status().catch(() => c.status);
    render();
  };
  const refreshTargets = async (): Promise<void> => {
    c.targets = await c.core.targets
      .list()
      .then((r) => r.targets)
      .catch(() => c.targets);
    render();
  };

  async function run(action: TrayAction): Promise<void> {
    switch (action.kind) {
      case 'pause':
      case 'resume':
        c.core.setPaused(action.kind === 'pause');
        return;
      case 'capture':
        c.busy++;
        render();
        try {
          await c.core.frames.capture({ target: action.target });
        } catch (e) {
          log(`[sightline] capture ${action.target}: ${(e as Error).message}`);
        } finally {
          c.busy--;
          render();
        }
        return;
      case 'open-dashboard':
        return showDashboard();
      case 'open-setup':
        return showDashboard('#/setup');
      case 'quit':
        app.quit();
    }
  }

  c.core.events.on('status', () => void refreshStatus());
  // Long work (indexing, say) shows the busy icon until it finishes.
  const running = new Set<string>();
  c.core.events.on('progress', (p) => {
    const before = running.size;
    if (p.finished) running.delete(p.id);
    else running.add(p.id);
    if (running.size !== before) {
      c.busy += running.size - before;
      render();
    }
  });
  // On Windows and Linux a left click opens the dashboard; macOS shows the menu.
  if (process.platform !== 'darwin') tray.on('click', () => showDashboard());
  const timer = setInterval(() => void refreshTargets(), 15_000);
  timer.unref();
  void refreshStatus().then(refreshTargets);
}

function toElectronMenu(items: TrayItem[], run: (a: TrayAction) => Promise<void>): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    switch (item.type) {
      case 'separator':
        return { type: 'separator' };
      case 'label':
        return { label: item.label, enabled: false };
      case 'action':
        return { label: item.label, enabled: item.enabled, click: () => void run(item.action) };
      case 'submenu':
        return { label: item.label, enabled: item.enabled, submenu: toElectronMenu(item.items, run) };
    }
  });
}
