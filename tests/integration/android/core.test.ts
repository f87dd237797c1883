/**
 * The Android source inside the real core (catalog, pipeline, action gate, UI-tree cache): what
 * an agent's calls do end to end, and that a failed capture changes nothing.
 */
import { actTool } from '../../support/actTool.ts';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isSightlineError } from '../../../src/shared/errors.ts';
import { createCore, type Core } from '../../../src/main/core/index.ts';
import { createAndroidSource } from '../../../src/main/core/sources/android/androidSource.ts';
import { signal, startAdb, type AdbHarness } from './harness.ts';
import { moduleFor } from '../../support/modules.ts';

let h: AdbHarness;
let core: Core;
let dataDir: string;

beforeEach(async () => {
  h = await startAdb();
  dataDir = mkdtempSync(join(tmpdir(), 'sightline-android-core-'));
  core = await createCore({ dataDir, env: h.env, modules: [moduleFor(createAndroidSource({ settings: {}, env: h.env }))] });
});
afterEach(async () => {
  await core.close();
  await h.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const files = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort();

it('capture → 450×1000 frame, click in image pixels, click by node id, stale after rotation', async () => {
  const d = await h.device({ width: 1080, height: 2400 });
  const target = `android:${d.serial}`;
  const { frame } = await core.frames.capture({ target });
  expect(frame).toMatchObject({ image: { width: 450, height: 1000 }, sourceSize: { width: 1080, height: 2400 }, origin: { x: 0, y: 0 }, scale: 2.4 });

  const r = await actTool(core, 'click', { target, x: 200, y: 500 }, { signal: signal() });
  expect(r).toMatchObject({ ok: true, sourcePoint: { x: 480, y: 1200 }, frameRef: frame.ref });
  expect(d.inputs).toEqual([{ kind: 'tap', x: 480, y: 1200 }]);

  const tree = await core.frames.uiTree({ target, maxNodes: 50, signal: signal() });
  const ok = tree.nodes.find((n) => n.name === 'OK')!;
  expect(ok.bounds).toEqual({ x: 135, y: 450, width: 180, height: 100 });
  await actTool(core, 'click', { target, node: ok.id }, { signal: signal() });
  expect(d.inputs.at(-1)).toEqual({ kind: 'tap', x: 540, y: 1200 });

  d.rotate(1);
  const stale = await actTool(core, 'click', { target, x: 200, y: 500 }, { signal: signal() }).catch((e: unknown) => e);
  expect(isSightlineError(stale) && stale.code).toBe('FRAME_STALE');
  expect(d.inputs).toHaveLength(2);
});

it('a capture cut short by a disconnect stores no frame and leaves no file', async () => {
  const d = await h.device();
  const target = `android:${d.serial}`;
  const { frame } = await core.frames.capture({ target });
  const before = files(dataDir);
  d.failNext(/screencap/, { disconnectAfter: 300_000, refuse: true });
  const e = await core.frames.capture({ target }).catch((err: unknown) => err);
  expect(isSightlineError(e) && e.code).toBe('DEVICE_OFFLINE');
  expect(core.catalog.frames.latest('android', target)?.ref).toBe(frame.ref);
  expect(files(dataDir).filter((f) => !/\.(db|db-wal|db-shm|db-journal)$/.test(f))).toEqual(before.filter((f) => !/\.(db|db-wal|db-shm|db-journal)$/.test(f)));
});

it('the input allowlist names Android packages: the app in front decides', async () => {
  const d = await h.device();
  const target = `android:${d.serial}`;
  await core.frames.capture({ target });
  await core.close();
  core = await createCore({ dataDir, env: h.env, settings: { input: { allowlist: ['com.example.fake'] } }, modules: [moduleFor(createAndroidSource({ settings: {}, env: h.env }))] });
  await core.frames.capture({ target });
  await actTool(core, 'click', { target, x: 10, y: 10 }, { signal: signal() });
  d.foreground = 'com.bank.app';
  const refused = await actTool(core, 'click', { target, x: 10, y: 10 }, { signal: signal() }).catch((e: unknown) => e);
  expect(isSightlineError(refused) && refused.code).toBe('NOT_ALLOWED');
  expect(d.inputs).toEqual([{ kind: 'tap', x: 24, y: 24 }]);
});
