import { writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, stdioClient } from '../../support/cli.ts';
import { tempDir } from '../../support/mcpHarness.ts';

describe('sightline mcp over stdio (the real process)', () => {
  const dataDir = tempDir();
  const disabled = { sources: { desktop: { enabled: false }, browser: { enabled: false }, android: { enabled: false }, manictime: { enabled: false } } };
  writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(disabled));
  let stderr = (): string => '';
  let closeClient = async (): Promise<void> => undefined;
  afterAll(async () => closeClient());

  it('speaks MCP on stdout, logs on stderr, and answers tools and resources', async () => {
    const c = await stdioClient(['mcp', '--data-dir', dataDir, '--in-process']);
    stderr = c.stderr;
    closeClient = () => c.client.close();
    expect(c.client.getServerVersion()?.name).toBe('sightline');
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['capture', 'click', 'list_screenshots', 'get_screenshot', 'crop_screenshot']));
    // Every source is disabled: their own tools are not listed.
    expect(tools.map((t) => t.name)).not.toContain('swipe');
    const r = (await c.client.callTool({ name: 'list_screenshots', arguments: {} })) as CallToolResult;
    expect(r.structuredContent).toMatchObject({ screenshots: [], reason: 'NO_MATCH' });
    const cap = (await c.client.callTool({ name: 'capture', arguments: { target: 'browser:abc' } })) as CallToolResult;
    expect(cap.isError).toBe(true);
    expect((cap.content[0] as { text: string }).text).toMatch(/^SOURCE_DISABLED: .*Hint: .*sources\.browser\.enabled/);
    const health = await c.client.readResource({ uri: 'sightline://health' });
    expect(JSON.parse((health.contents[0] as { text: string }).text).sources).toHaveLength(4);
    expect(stderr()).toMatch(/MCP on stdio/);
  });

  it('tells a client that caches the tool list when the first health check changes it', async () => {
    // Only the desktop source is on, and there is no display: its health check fails a moment
    // after start, and focus_window (listed at first, health unknown) must go, with a notice.
    const dir = tempDir();
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ sources: { ...disabled.sources, desktop: { enabled: true } } }));
    const c = await stdioClient(['mcp', '--data-dir', dir, '--in-process'], { DISPLAY: '', WAYLAND_DISPLAY: '' });
    try {
      let changed = 0;
      c.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed++);
      const first = (await c.client.listTools()).tools.map((t) => t.name);
      expect(first).toContain('focus_window');
      await expect.poll(() => changed, { timeout: 10_000 }).toBeGreaterThan(0);
      const second = (await c.client.listTools()).tools.map((t) => t.name);
      expect(second).not.toContain('focus_window');
      expect(second.length).toBe(first.length - 1);
      // Nothing else changed: no second notice.
      await new Promise((r) => setTimeout(r, 500));
      expect(changed).toBe(1);
    } finally {
      await c.client.close();
    }
  });

  it('refuses a bad settings file with an error that names the key', () => {
    const bad = tempDir();
    writeFileSync(join(bad, 'settings.json'), JSON.stringify({ capture: { maxDimension: 'big' } }));
    const r = spawnSync(process.execPath, [BIN, 'mcp', '--data-dir', bad, '--in-process'], { input: '', encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^SETTINGS_INVALID: .*"capture\.maxDimension"/m);
  });

  it('prints usage and a version', () => {
    const v = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const u = spawnSync(process.execPath, [BIN, 'nonsense'], { encoding: 'utf8' });
    expect(u.status).toBe(2);
    expect(u.stderr).toMatch(/Unknown command/);
  });
});
