import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** Integration tests spawn the built CLI (`out/main/cli.js`); build it once if missing. */
export default function setup(): void {
  if (!existsSync('out/main/cli.js') || process.env.SIGHTLINE_REBUILD === '1') {
    const r = spawnSync('npx', ['electron-vite', 'build'], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('electron-vite build failed');
  }
}
