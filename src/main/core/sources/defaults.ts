/**
 * The built-in sources. Construction is cheap and never fails: a source whose platform
 * parts are missing still registers and explains itself through health().
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { Core } from '../index.ts';
import type { Settings } from '../settings.ts';
import { createAndroidSource } from './android/index.ts';
import { createBrowserSource } from './browser/index.ts';
import { createDesktopSource, type PermissionState } from './desktop/index.ts';
import { createManicTimeSource } from './manictime/index.ts';
import type { ArchiveProvider, Source } from './source.ts';

export interface DefaultSourceDeps {
  core: Core;
  catalog: Catalog;
  settings: Settings;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** macOS permission states, when the Electron app can tell (systemPreferences). */
  desktopPermissions?: () => { screenRecording?: PermissionState; accessibility?: PermissionState };
}

export async function createDefaultSources(deps: DefaultSourceDeps): Promise<{ live: Source[]; archives: ArchiveProvider[] }> {
  const { settings, env } = deps;
  const live: Source[] = [
    createDesktopSource({ settings: settings.desktop, env, permissions: deps.desktopPermissions }),
    createBrowserSource({ settings: settings.browser, dataDir: deps.dataDir, env }),
    createAndroidSource({ settings: settings.android, env }),
  ];
  // A getter: archive folders changed in the dashboard apply without a restart.
  const archives: ArchiveProvider[] = [createManicTimeSource({ settings: () => deps.core.settings.manictime, catalog: deps.catalog, env })];
  return { live, archives };
}
