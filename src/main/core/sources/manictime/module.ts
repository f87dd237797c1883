/** The ManicTime archive module: years of screenshots, read in place, read-only. */
import { defineSource } from '../module.ts';
import { manictimeSettings } from './settings.ts';

export const manictimeModule = defineSource({
  name: 'manictime',
  label: 'ManicTime',
  icon: 'history',
  description: 'Read-only screenshot history.',
  kind: 'archive',
  settings: manictimeSettings,
  env: (env) => (env.MANICTIME_DATA_DIR ? { dataDir: env.MANICTIME_DATA_DIR } : undefined),
  fields: [{ key: 'manictime.dataDir', section: 'Connections', kind: 'text', label: 'ManicTime data folder', placeholder: '%LOCALAPPDATA%\\Finkit\\ManicTime' }],
  async create(ctx) {
    const { createManicTimeSource } = await import('./manictimeSource.ts');
    return createManicTimeSource({ settings: ctx.settings(), archive: ctx.archive, indexDir: ctx.dataDir, env: ctx.env });
  },
});
