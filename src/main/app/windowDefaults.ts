/**
 * The one place window options are decided (no electron import, so it is unit-tested).
 * Every window Sightline opens goes through `secureWebPreferences`; nothing in the app
 * builds webPreferences by hand.
 */

export interface SecureWebPreferences {
  preload: string;
  contextIsolation: true;
  sandbox: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  nodeIntegrationInSubFrames: false;
  webviewTag: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  experimentalFeatures: false;
  navigateOnDragDrop: false;
  spellcheck: false;
  /** The dashboard keeps polling and streaming while hidden in the tray. */
  backgroundThrottling: boolean;
}

export function secureWebPreferences(preload: string): SecureWebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webviewTag: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    backgroundThrottling: true,
  };
}

export interface DashboardWindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  show: boolean;
  title: string;
  backgroundColor: string;
  autoHideMenuBar: boolean;
  titleBarStyle?: 'hiddenInset' | 'default';
  webPreferences: SecureWebPreferences;
}

/** The dashboard window: shown once ready so it never flashes white in dark mode. */
export function dashboardWindowOptions(preload: string, platform: string, dark: boolean): DashboardWindowOptions {
  return {
    width: 1360,
    height: 860,
    minWidth: 900,
    minHeight: 560,
    show: false,
    title: 'Sightline',
    backgroundColor: dark ? '#111114' : '#f6f6f7',
    autoHideMenuBar: true,
    ...(platform === 'darwin' ? { titleBarStyle: 'default' as const } : {}),
    webPreferences: secureWebPreferences(preload),
  };
}
