/** The ManicTime archive module: years of screenshots, read in place, read-only. */
import { defineSource } from '../module.ts';
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { manictimeSettings } from './settings.ts';

async function folderProblem(dir: string): Promise<string | undefined> {
  if (!isAbsolute(dir)) return `"${dir}" is not a full path to a folder.`;
  try {
    return (await stat(dir)).isDirectory() ? undefined : `${dir} is a file, not a folder.`;
  } catch {
    return `There is no folder ${dir} on this computer.`;
  }
}

export const manictimeModule = defineSource({
  name: 'manictime',
  label: 'ManicTime',
  icon: 'history',
  description: 'Read-only screenshot history.',
  kind: 'archive',
  settings: manictimeSettings,
  env: (env) => (env.MANICTIME_DATA_DIR ? { dataDir: env.MANICTIME_DATA_DIR } : undefined),
  fields: [{ key: 'manictime.dataDir', section: 'Connections', kind: 'text', label: 'ManicTime data folder', placeholder: '%LOCALAPPDATA%\\Finkit\\ManicTime', env: 'MANICTIME_DATA_DIR' }],
  // A folder that does not exist would be saved and then silently not read.
  vet: async (next, previous) => {
    for (const key of ['dataDir', 'screenshotsDir'] as const) {
      const dir = next[key];
      if (!dir || dir === previous[key]) continue;
      const problem = await folderProblem(dir);
      if (problem) return { key: `manictime.${key}`, message: problem, hint: key === 'dataDir' ? "Choose the folder that holds ManicTime's database (ManicTimeReports.db) and its Screenshots folder, or leave it empty to look in the usual places." : 'Choose the folder ManicTime saves screenshots in, or leave it empty for <data folder>/Screenshots.' };
    }
    return undefined;
  },
  async create(ctx) {
    const { createManicTimeSource } = await import('./manictimeSource.ts');
    return createManicTimeSource({ settings: ctx.settings(), archive: ctx.archive, indexDir: ctx.dataDir, env: ctx.env });
  },
});
