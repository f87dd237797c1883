import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSightlineError } from '../../../src/shared/errors.ts';
import {
  ORIENTATION_SETTINGS_COMMAND,
  ORIENTATIONS,
  autoRotateCommand,
  checkOrientationApplied,
  naturalOf,
  orientationOf,
  parseOrientationSettings,
  rotationFor,
  setOrientationCommand,
  type Orientation,
} from '../../../src/main/core/sources/android/orientation.ts';
import { displayCommand, parseDisplay, type Rotation } from '../../../src/main/core/sources/android/parse.ts';
import { FakeAdbDevice } from '../../support/fakeAdbDevice.ts';

describe('orientation names', () => {
  it('follows the natural orientation: a phone is portrait at 0, a tablet landscape', () => {
    expect([0, 1, 2, 3].map((r) => orientationOf(r as Rotation))).toEqual(['portrait', 'landscape', 'reverse-portrait', 'reverse-landscape']);
    expect([0, 1, 2, 3].map((r) => orientationOf(r as Rotation, 'landscape'))).toEqual(['landscape', 'reverse-portrait', 'reverse-landscape', 'portrait']);
    expect(naturalOf({ width: 1080, height: 2400 })).toBe('portrait');
    expect(naturalOf({ width: 2560, height: 1600 })).toBe('landscape');
    expect(rotationFor('portrait', 'landscape')).toBe(3);
    fc.assert(
      fc.property(fc.constantFrom(...ORIENTATIONS), fc.constantFrom('portrait' as const, 'landscape' as const), (o, n) => orientationOf(rotationFor(o, n), n) === o),
    );
    expect(() => rotationFor('sideways' as Orientation)).toThrow(/not one of portrait, landscape/);
  });

  it('reads both settings, unset ones included', () => {
    expect(parseOrientationSettings('0\n1\n')).toEqual({ autoRotate: false, userRotation: 1 });
    expect(parseOrientationSettings('1\r\n3\r\n')).toEqual({ autoRotate: true, userRotation: 3 });
    expect(parseOrientationSettings('null\nnull\n')).toEqual({ autoRotate: false });
    expect(parseOrientationSettings('0\n7\n')).toEqual({ autoRotate: false });
    expect(() => parseOrientationSettings('Security exception: …\n')).toThrow(/no accelerometer_rotation/);
  });

  it('turns auto-rotate off before fixing a rotation', () => {
    expect(setOrientationCommand('landscape')).toBe('settings put system accelerometer_rotation 0 && settings put system user_rotation 1');
    expect(setOrientationCommand('portrait', 'landscape')).toBe('settings put system accelerometer_rotation 0 && settings put system user_rotation 3');
    expect(autoRotateCommand(true)).toBe('settings put system accelerometer_rotation 1');
  });

  it('says when the app in front kept its orientation', () => {
    checkOrientationApplied('landscape', 1);
    checkOrientationApplied('landscape', undefined);
    let e: unknown;
    try {
      checkOrientationApplied('landscape', 0);
    } catch (err) {
      e = err;
    }
    expect(isSightlineError(e) && e).toMatchObject({ code: 'UNSUPPORTED', message: expect.stringMatching(/stayed portrait \(asked for landscape\)/) });
  });
});

describe('against the fake device', () => {
  let d: FakeAdbDevice;
  beforeAll(async () => {
    d = await FakeAdbDevice.start({ prerender: false, autoRotate: true });
  });
  afterAll(() => d.close());
  const sh = async (line: string): Promise<string> => (await d.run(line)).out.toString();

  it('sets and reads every orientation; the screen size, dumpsys and screenshots follow', async () => {
    expect(parseOrientationSettings(await sh(ORIENTATION_SETTINGS_COMMAND))).toEqual({ autoRotate: true, userRotation: 0 });
    for (const o of ['landscape', 'reverse-portrait', 'reverse-landscape', 'portrait'] as const) {
      await d.run(setOrientationCommand(o));
      const display = parseDisplay(await sh(displayCommand({ density: false })));
      checkOrientationApplied(o, display.rotation);
      expect(orientationOf(display.rotation!)).toBe(o);
      expect(display.size).toEqual(o.includes('landscape') ? { width: 2400, height: 1080 } : { width: 1080, height: 2400 });
      expect(parseOrientationSettings(await sh(ORIENTATION_SETTINGS_COMMAND))).toEqual({ autoRotate: false, userRotation: rotationFor(o) });
    }
    await d.run('settings put system user_rotation 1');
    const png = await d.screenPng();
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([2400, 1080]);
    expect(d.uiXml()).toContain('<hierarchy rotation="1">');
  });

  it('keeps the screen where the sensor has it while auto-rotate is on', async () => {
    await d.run(autoRotateCommand(true));
    d.rotate(0);
    await d.run('settings put system user_rotation 1');
    expect(d.rotation).toBe(0);
    // Turning auto-rotate off locks the screen to the stored user rotation.
    await d.run(autoRotateCommand(false));
    expect(d.rotation).toBe(1);
    // mobile-mcp's way through the settings provider works too.
    await d.run("content insert --uri content://settings/system --bind name:s:user_rotation --bind value:i:2");
    expect(d.rotation).toBe(2);
    await d.run('wm user-rotation lock 0');
    expect([d.rotation, d.autoRotate]).toEqual([0, false]);
  });
});
