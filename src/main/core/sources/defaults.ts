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
import type { SourceName } from '../../../shared/frame.ts';
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

/** Builds a live source from the settings of the moment (sources are rebuilt when theirs change). */
export type LiveSourceFactory = (settings: Settings) => Source;

export async function createDefaultSources(deps: DefaultSourceDeps): Promise<{ live: Source[]; archives: ArchiveProvider[]; factories: Map<SourceName, LiveSourceFactory> }> {
  const { env } = deps;
  const factories = new Map<SourceName, LiveSourceFactory>([
    ['desktop', (s) => createDesktopSource({ settings: s.desktop, env, permissions: deps.desktopPermissions })],
    ['browser', (s) => createBrowserSource({ settings: s.browser, dataDir: deps.dataDir, env })],
    ['android', (s) => createAndroidSource({ settings: s.android, env })],
  ]);
  const live = [...factories.values()].map((make) => make(deps.settings));
  // A getter: archive folders changed in the dashboard apply without a restart.
  const archives: ArchiveProvider[] = [createManicTimeSource({ settings: () => deps.core.settings.manictime, catalog: deps.catalog, env })];
  return { live, archives, factories };
}
