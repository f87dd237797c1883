/**
 * Real X11 windows through an MCP client: a window is judged by its process as the X server
 * knows it (X-Resource, then /proc), never by its title or the _NET_WM_PID it sets itself, and a
 * window of Sightline's own process is never operated, whatever the allowlist says.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDesktopSource } from '../../../src/main/core/sources/desktop/desktopSource.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { startTestApp, startXvfb, type TestApp, type XDisplay } from '../../support/xvfb.ts';

describe('desktop windows are judged by their process', { timeout: 120_000 }, () => {
  let x: XDisplay;
  let h: Harness;
  let forged: TestApp;
  let mine: TestApp;
  let appPid: number;
  let minePid: number;
  /** A process whose executable the allowlist names in the forgery test (any program but the test app's). */
  let claimed: ChildProcess;

  const setPid = (app: TestApp, pid: number): void => {
    const r = spawnSync('xprop', ['-id', String(app.windowId), '-f', '_NET_WM_PID', '32c', '-set', '_NET_WM_PID', String(pid)], { env: x.env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`xprop: ${r.stderr}`);
  };
  const id = (app: TestApp): string => `desktop:window:${app.windowId}`;
  const call = (name: string, args: Record<string, unknown>): Promise<CallToolResult> => h.call(name, args);

  beforeAll(async () => {
    x = await startXvfb('1024x700');
    // A window whose title names what the allowlist admits: the title is the app's (or a page's) to choose.
    forged = await startTestApp(x, { title: 'example.com', geometry: '300x200+50+50' });
    mine = await startTestApp(x, { title: 'Sightline', geometry: '300x200+500+50' });
    appPid = forged.events.find((e) => e.event === 'ready')!.pid as number;
    minePid = mine.events.find((e) => e.event === 'ready')!.pid as number;
    claimed = spawn('sleep', ['600'], { stdio: 'ignore' });
    const env = { PATH: process.env.PATH };
    h = await startHarness({ sources: [createDesktopSource({ settings: { display: x.display }, env })], env });
    // As the tray app does: the discovery file names the process of the Sightline app (here the one behind `mine`).
    writeFileSync(join(h.dataDir, 'discovery.json'), JSON.stringify({ pid: minePid, url: 'http://127.0.0.1:1', mcpUrl: 'http://127.0.0.1:1/mcp', token: 't' }), { mode: 0o600 });
  }, 120_000);

  afterAll(async () => {
    claimed?.kill();
    await h?.close();
    await forged?.close();
    await mine?.close();
    await x?.stop();
  });

  it('lists the process the X server knows behind each window, not the one it claims', async () => {
    setPid(forged, claimed.pid!);
    const r = await call('list_targets', { source: 'desktop' });
    const t = (r.structuredContent as { targets: { id: string; details?: { pid?: number; exe?: string } }[] }).targets.find((w) => w.id === id(forged));
    expect(t?.details).toMatchObject({ pid: appPid, exe: realpathSync(`/proc/${appPid}/exe`) });
  });

  it('a window that sets _NET_WM_PID to an allowed program is judged by its own: refused', async () => {
    const exe = basename(realpathSync(`/proc/${appPid}/exe`));
    // The window claims to be the `sleep` process, and the allowlist admits `sleep`.
    setPid(forged, claimed.pid!);
    await call('capture', { target: id(forged) });
    h.core.settings.update({ input: { allowlist: [basename(realpathSync(`/proc/${claimed.pid!}/exe`))] } });
    try {
      const r = await call('click', { target: id(forged), x: 20, y: 20 });
      expect(r.isError, textOf(r)).toBe(true);
      expect(textOf(r)).toBe(`NOT_ALLOWED: Input to ${exe} (desktop) is not in the input allowlist. Hint: The user can add "${exe}" to input.allowlist in settings.`);
      expect(forged.events.some((e) => e.event === 'click')).toBe(false);
    } finally {
      h.core.settings.update({ input: { allowlist: [] } });
    }
  });

  it('a title naming an allowed name admits nothing; the executable does', async () => {
    const exe = basename(realpathSync(`/proc/${appPid}/exe`));
    await call('capture', { target: id(forged) });
    h.core.settings.update({ input: { allowlist: ['example.com'] } });
    try {
      const r = await call('click', { target: id(forged), x: 20, y: 20 });
      expect(r.isError, textOf(r)).toBe(true);
      expect(textOf(r)).toMatch(new RegExp(`^NOT_ALLOWED: Input to ${exe.replace(/\./g, '\\.')} \\(desktop\\) is not in the input allowlist\\.`));
      h.core.settings.update({ input: { allowlist: [exe] } });
      const ok = await call('click', { target: id(forged), x: 20, y: 20 });
      expect(ok.isError, textOf(ok)).toBeFalsy();
    } finally {
      h.core.settings.update({ input: { allowlist: [] } });
    }
  });

  it("the Sightline app's own window takes no input, whatever the allowlist says or the window claims", async () => {
    await call('capture', { target: id(mine) });
    // It claims another process; the X server says whose it is.
    setPid(mine, claimed.pid!);
    h.core.settings.update({ input: { allowlist: ['Sightline', 'Sightline-test-app', basename(realpathSync(`/proc/${minePid}/exe`))] } });
    try {
      for (const [tool, args] of [
        ['click', { target: id(mine), x: 20, y: 20 }],
        ['type_text', { target: id(mine), text: '/' }],
        ['focus_window', { target: id(mine) }],
      ] as const) {
        const r = await call(tool, args);
        expect(r.isError, textOf(r)).toBe(true);
        expect(textOf(r)).toBe(
          `NOT_ALLOWED: ${id(mine)} is Sightline itself: the Sightline app's own window (process ${minePid}). Agents never operate Sightline. Hint: Work in another tab or window; the person changes Sightline through its own dashboard.`,
        );
      }
      expect(mine.events.some((e) => e.event === 'click' || e.event === 'text')).toBe(false);
    } finally {
      h.core.settings.update({ input: { allowlist: [] } });
    }
  });
});
