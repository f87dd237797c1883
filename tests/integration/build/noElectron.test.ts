import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const OUT = resolve(import.meta.dirname, '../../../out/main');

describe('the built core never loads electron', () => {
  it('runs the CLI bundle with electron made unloadable', () => {
    // A loader hook that fails any attempt to resolve "electron".
    const hook = `data:text/javascript,${encodeURIComponent(
      `export async function resolve(s, c, n) { if (s === 'electron' || s.startsWith('electron/')) throw new Error('ELECTRON_LOADED:' + s); return n(s, c); }`,
    )}`;
    const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hook)});`)}`;
    const r = spawnSync(process.execPath, ['--import', register, join(OUT, 'cli.js'), '--help'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).not.toMatch(/ELECTRON_LOADED/);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/sightline mcp/);
  });

  it('has no electron import in the CLI bundle or the chunks it shares', () => {
    const files = readdirSync(OUT, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js') && !/^index\.js$/.test(f));
    expect(files).toContain('cli.js');
    for (const f of files) {
      const src = readFileSync(join(OUT, f), 'utf8');
      expect(src, f).not.toMatch(/from\s*["']electron["']|require\(["']electron["']\)|import\(["']electron["']\)/);
    }
    // The app entry is the one place that does.
    expect(readFileSync(join(OUT, 'index.js'), 'utf8')).toMatch(/["']electron["']/);
  });
});
