/**
 * What Sightline writes is the user's alone, and the folders agents may upload from are named
 * absolutely: through an MCP client, the settings API and settings.json.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../../src/main/core/index.ts';
import { startServer, type RunningServer } from '../../../src/main/core/http/server.ts';
import { FakeSource } from '../../support/fakeSource.ts';
import { startHarness, tempDir, textOf, type Harness } from '../../support/mcpHarness.ts';

const WIN = { id: 'fake:win1', app: 'Notes', x: 0, y: 0, width: 400, height: 300, pixelRatio: 1 };

describe('files and folders Sightline writes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sources: [new FakeSource({ ...WIN })] });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('every folder is 0700 and every file 0600, frames/<day>/ included', async () => {
    const r = await h.call('capture', { target: WIN.id, maxDimension: 200 });
    expect(r.isError, textOf(r)).toBeFalsy();
    const entries = readdirSync(h.dataDir, { recursive: true, withFileTypes: true });
    const dirs = entries.filter((d) => d.isDirectory()).map((d) => join(d.parentPath, d.name));
    const files = entries.filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
    expect(dirs.some((d) => /frames\/\d{4}-\d{2}-\d{2}$/.test(d))).toBe(true);
    expect(files.some((f) => f.includes('/frames/'))).toBe(true);
    const mode = (p: string): string => (statSync(p).mode & 0o777).toString(8);
    for (const d of [h.dataDir, ...dirs]) expect(`${d} ${mode(d)}`).toBe(`${d} 700`);
    for (const f of files) expect(`${f} ${mode(f)}`).toBe(`${f} 600`);
  });
});

describe('files.uploadRoots are absolute paths', () => {
  let h: Harness;
  let server: RunningServer;
  beforeAll(async () => {
    h = await startHarness({});
    server = await startServer(h.core, { log: () => undefined });
  });
  afterAll(async () => {
    await server?.close();
    await h?.close();
  });

  it('the settings API refuses a relative folder and changes nothing', async () => {
    const before = JSON.stringify(h.core.settings.values());
    for (const root of ['.', 'uploads', '../..', '~/Documents']) {
      const res = await fetch(`${server.url}/api/settings`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ files: { uploadRoots: [root] } }),
      });
      const body = (await res.json()) as { error?: { code: string; message: string } };
      expect(res.status, root).toBe(400);
      expect(body.error?.code).toBe('SETTINGS_INVALID');
      expect(body.error?.message).toMatch(/files\.uploadRoots\.0.*must be an absolute path/);
    }
    expect(JSON.stringify(h.core.settings.values())).toBe(before);
    const abs = tempDir('sightline-uploads-');
    const ok = await fetch(`${server.url}/api/settings`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ files: { uploadRoots: [abs] } }),
    });
    expect(ok.status).toBe(200);
  });

  it('settings.json with a relative folder is an error that names the key', async () => {
    const dataDir = tempDir();
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ files: { uploadRoots: ['uploads'] } }));
    await expect(createCore({ dataDir })).rejects.toThrow(/files\.uploadRoots\.0.*must be an absolute path/);
  });
});
