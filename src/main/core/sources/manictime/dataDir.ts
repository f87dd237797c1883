/**
 * Where ManicTime keeps its data: settings, then MANICTIME_DATA_DIR, then the
 * platform defaults (first one that exists). Pure: the caller injects env,
 * platform, home directory and an `exists` check, so every branch is testable on
 * any OS (Windows paths are joined with path.win32).
 */
import { posix, win32 } from 'node:path';

export const REPORTS_DB = 'ManicTimeReports.db';
export const SCREENSHOTS_FOLDER = 'Screenshots';

export type DataDirOrigin = 'settings' | 'env' | 'default' | 'portable';

export interface DataDirCandidate {
  path: string;
  origin: DataDirOrigin;
}

export interface ManicTimeLocation {
  /** The chosen data directory (may not exist when settings or env name it). */
  dataDir: string | undefined;
  origin: DataDirOrigin | undefined;
  dataDirExists: boolean;
  /** settings.screenshotsDir, else `<dataDir>/Screenshots`. */
  screenshotsDir: string | undefined;
  screenshotsDirFromSettings: boolean;
  dbPath: string | undefined;
  /** Every place looked at, in order (for health messages). */
  candidates: DataDirCandidate[];
}

export interface LocateInput {
  settings: { dataDir?: string | undefined; screenshotsDir?: string | undefined };
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homedir: string;
  exists: (path: string) => boolean;
}

/** Platform default locations, most likely first. */
export function defaultCandidates(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, homedir: string): DataDirCandidate[] {
  if (platform === 'win32') {
    const p = win32;
    const home = env.USERPROFILE ?? homedir;
    const local = env.LOCALAPPDATA ?? p.join(home, 'AppData', 'Local');
    const out: DataDirCandidate[] = [{ path: p.join(local, 'Finkit', 'ManicTime'), origin: 'default' }];
    // The portable edition keeps everything in a `Data` folder beside ManicTime.exe;
    // these are the usual unzip places (anything else needs manictime.dataDir).
    for (const pf of [env.ProgramFiles, env['ProgramFiles(x86)']]) {
      if (pf) {
        out.push({ path: p.join(pf, 'ManicTime', 'Data'), origin: 'portable' });
        out.push({ path: p.join(pf, 'Finkit', 'ManicTime', 'Data'), origin: 'portable' });
      }
    }
    out.push({ path: p.join(home, 'ManicTime', 'Data'), origin: 'portable' });
    return out;
  }
  const p = posix;
  const home = env.HOME ?? homedir;
  if (platform === 'darwin') {
    return [
      { path: p.join(home, 'Library', 'Application Support', 'ManicTime'), origin: 'default' },
      { path: p.join(home, 'Library', 'Application Support', 'Finkit', 'ManicTime'), origin: 'default' },
    ];
  }
  const dataHome = env.XDG_DATA_HOME ?? p.join(home, '.local', 'share');
  const configHome = env.XDG_CONFIG_HOME ?? p.join(home, '.config');
  return [
    { path: p.join(dataHome, 'ManicTime'), origin: 'default' },
    { path: p.join(dataHome, 'Finkit', 'ManicTime'), origin: 'default' },
    { path: p.join(configHome, 'ManicTime'), origin: 'default' },
  ];
}

export function locateManicTime(input: LocateInput): ManicTimeLocation {
  const p = input.platform === 'win32' ? win32 : posix;
  const candidates: DataDirCandidate[] = [];
  let chosen: DataDirCandidate | undefined;
  const fromSettings = input.settings.dataDir?.trim();
  const fromEnv = input.env.MANICTIME_DATA_DIR?.trim();
  if (fromSettings) {
    chosen = { path: fromSettings, origin: 'settings' };
    candidates.push(chosen);
  } else if (fromEnv) {
    chosen = { path: fromEnv, origin: 'env' };
    candidates.push(chosen);
  } else {
    for (const c of defaultCandidates(input.platform, input.env, input.homedir)) {
      candidates.push(c);
      if (!chosen && input.exists(c.path)) chosen = c;
    }
  }
  const dataDirExists = chosen ? input.exists(chosen.path) : false;
  const screenshotsSetting = input.settings.screenshotsDir?.trim();
  const dataDir = chosen?.path;
  return {
    dataDir,
    origin: chosen?.origin,
    dataDirExists,
    screenshotsDir: screenshotsSetting || (dataDir ? p.join(dataDir, SCREENSHOTS_FOLDER) : undefined),
    screenshotsDirFromSettings: Boolean(screenshotsSetting),
    dbPath: dataDir ? p.join(dataDir, REPORTS_DB) : undefined,
    candidates,
  };
}
