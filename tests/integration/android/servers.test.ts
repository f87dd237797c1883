/**
 * `android.servers`: phones behind another adb server (a lab machine, a device farm) are listed and
 * driven like local ones. Two real adb servers on 127.0.0.1, fake devices on each.
 */
import { ready } from '../../../src/main/core/sources/aim.ts';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAndroidSource, type AndroidSource } from '../../../src/main/core/sources/android/androidSource.ts';
import { freePort, signal, startAdb, type AdbHarness } from './harness.ts';

let h: AdbHarness;
let h2: AdbHarness;
let source: AndroidSource;
let remote: string;

beforeEach(async () => {
  [h, h2] = await Promise.all([startAdb(), startAdb()]);
  remote = `127.0.0.1:${h2.port}`;
  source = createAndroidSource({ settings: { servers: [remote] }, env: h.env });
});
afterEach(async () => {
  await source.dispose?.();
  await Promise.all([h.stop(), h2.stop()]);
});

const opts = { maxDimension: 1000, format: 'jpeg' as const, quality: 70, raw: false, signal: signal() };

it('lists and drives devices of both servers; ids name the other server', async () => {
  const local = await h.device({ model: 'Local Phone' });
  const far = await h2.device({ model: 'Lab Phone', width: 720, height: 1600 });
  const farId = `android:${remote}/${far.serial}`;
  const targets = await source.screen.listTargets(signal());
  expect(targets.map((t) => [t.id, t.details?.model, t.details?.server])).toEqual([
    [`android:${local.serial}`, 'Local Phone', undefined],
    [farId, 'Lab Phone', remote],
  ]);
  expect(targets[1]!.title).toBe(`Sightline Lab Phone (${far.serial} via ${remote})`);

  const cap = await source.screen.capture(farId, opts);
  expect(cap).toMatchObject({ target: farId, sourceSize: { width: 720, height: 1600 } });
  await source.input.perform(ready({ kind: 'click', target: farId, point: { x: 360, y: 800 }, button: 'left', clicks: 1, modifiers: [] }), signal());
  await source.apps.launch(ready({ kind: 'launch_app' as const, target: farId, params: { package: 'com.example.notes', wait: true } }), signal());
  expect(far.inputs).toEqual([{ kind: 'tap', x: 360, y: 800 }]);
  expect(far.apps.started.map((s) => s.resolved)).toEqual(['com.example.notes/.NotesActivity']);
  expect([local.inputs, local.apps.started]).toEqual([[], []]);
  expect((await source.apps.list(farId, {}, signal())).map((a) => a.package)).toContain('com.example.notes');

  const health = await source.health();
  expect(health).toMatchObject({ available: true, degraded: false });
  expect(health.checks?.map((c) => [c.id, c.status])).toEqual([
    ['adb-found', 'ok'],
    ['adb-server', 'ok'],
    [`adb-server:${remote}`, 'ok'],
    ['devices-authorised', 'ok'],
  ]);
  expect(health.checks?.[3]?.detail).toBe(`2 ready: ${local.serial}, ${remote}/${far.serial}`);
});

it('a phone attached to both servers is listed once; its other id still drives it', async () => {
  const d = await h.device();
  await h2.adb('connect', d.serial);
  await h2.waitForState(d.serial, 'device');
  const targets = await source.screen.listTargets(signal());
  expect(targets.map((t) => [t.id, t.details?.alsoAs])).toEqual([[`android:${d.serial}`, [`android:${remote}/${d.serial}`]]]);
  await source.input.perform(ready({ kind: 'click', target: `android:${remote}/${d.serial}`, point: { x: 10, y: 20 }, button: 'left', clicks: 1, modifiers: [] }), signal());
  expect(d.inputs).toEqual([{ kind: 'tap', x: 10, y: 20 }]);
});

it('a server that does not answer leaves the others listed; health names it', async () => {
  const down = `127.0.0.1:${await freePort()}`;
  const s = createAndroidSource({ settings: { servers: [down, remote] }, env: h.env });
  try {
    const far = await h2.device();
    expect((await s.screen.listTargets(signal())).map((t) => t.id)).toEqual([`android:${remote}/${far.serial}`]);
    const health = await s.health();
    expect(health).toMatchObject({ available: true, degraded: true, reason: expect.stringContaining(`No adb server answers at ${down}`) });
    expect(health.checks?.find((c) => c.id === `adb-server:${down}`)).toMatchObject({ status: 'error', fix: expect.stringMatching(/android.servers/) });
    // Sightline never starts a server it was told to reach.
    expect(health.checks?.find((c) => c.id === `adb-server:${down}`)?.detail).toMatch(/No adb server answers/);
  } finally {
    await s.dispose?.();
  }
});
