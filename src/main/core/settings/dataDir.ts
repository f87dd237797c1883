/** Where Sightline keeps its data: a platform default, `SIGHTLINE_DATA_DIR`, or `--data-dir`. */
import { homedir, platform } from 'node:os';
import { join } from 'node:path';

/** The platform's default data directory. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME ?? homedir();
  switch (platform()) {
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'Sightline');
    case 'win32':
      return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Sightline');
    default:
      return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'sightline');
  }
}

/** `--data-dir` wins over SIGHTLINE_DATA_DIR, which wins over the platform default. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag ?? env.SIGHTLINE_DATA_DIR ?? defaultDataDir(env);
}
