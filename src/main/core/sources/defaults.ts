/**
 * The built-in sources. Each is created lazily-safe: a source whose platform parts
 * are missing still constructs and reports itself unavailable through health().
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { Core } from '../index.ts';
import type { Settings } from '../settings.ts';
import type { ArchiveProvider, Source } from './source.ts';

export interface DefaultSourceDeps {
  core: Core;
  catalog: Catalog;
  settings: Settings;
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

export async function createDefaultSources(_deps: DefaultSourceDeps): Promise<{ live: Source[]; archives: ArchiveProvider[] }> {
  const live: Source[] = [];
  const archives: ArchiveProvider[] = [];
  return { live, archives };
}
