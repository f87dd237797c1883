/**
 * The real adb server (Debian's adb 29) on a port of its own with a HOME of its own, plus fake
 * devices connected to it with `adb connect`. Every test gets a fresh one.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeAdbDevice, type FakeDeviceOptions } from '../../support/fakeAdbDevice.ts';

export interface AdbHarness {
  port: number;
  home: string;
  /** The bare environment an MCP client gives Sightline, pointed at this server. */
  env: NodeJS.ProcessEnv;
  adb(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Start a fake device and `adb connect` it; resolves once adb lists it in `state`. */
  device(options?: FakeDeviceOptions, state?: string): Promise<FakeAdbDevice>;
  waitForState(serial: string, state: string | undefined): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export async function startAdb(options: { startServer?: boolean } = {}): Promise<AdbHarness> {
  const port = await freePort();
  const home = mkdtempSync(join(tmpdir(), 'sightline-adb-home-'));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, ANDROID_ADB_SERVER_PORT: String(port), LANG: 'C.UTF-8' };
  const devices: FakeAdbDevice[] = [];
  const adb = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('adb', ['-P', String(port), ...args], { env, timeout: 30_000 }, (e, stdout, stderr) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
  const states = async (): Promise<Map<string, string>> => {
    const out = (await adb('devices')).stdout;
    return new Map(out.split('\n').slice(1).filter((l) => l.includes('\t')).map((l) => l.split('\t') as [string, string]));
  };
  const waitForState = async (serial: string, state: string | undefined): Promise<void> => {
    for (let i = 0; i < 100; i++) {
      if ((await states()).get(serial) === state) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${serial} never became ${state ?? 'absent'}: ${JSON.stringify([...(await states())])}`);
  };
  if (options.startServer !== false) {
    const r = await adb('start-server');
    if (r.code !== 0) throw new Error(`adb start-server failed: ${r.stderr}`);
  }
  return {
    port,
    home,
    env,
    adb,
    waitForState,
    async device(o = {}, state = 'device') {
      const d = await FakeAdbDevice.start(o);
      devices.push(d);
      // A device that never answers keeps `adb connect` waiting for 10 s: poll the list instead.
      const connecting = adb('connect', d.serial);
      const listed = waitForState(d.serial, state);
      await Promise.race([connecting, listed.catch(() => {})]);
      await listed;
      return d;
    },
    async stop() {
      await adb('kill-server');
      await Promise.all(devices.map((d) => d.close()));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export const signal = (): AbortSignal => new AbortController().signal;
