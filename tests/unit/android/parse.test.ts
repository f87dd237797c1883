import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkPng, parseDisplay, parseForegroundPackage, parseGetpropLines, parseRotation, parseWmDensity, parseWmSize } from '../../../src/main/core/sources/android/parse.ts';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/android/${name}`, import.meta.url), 'utf8');

describe('wm size / wm density', () => {
  it('reads the physical size, and the override when one is set', () => {
    expect(parseWmSize(fixture('wm-size.txt'))).toEqual({ width: 1080, height: 2400 });
    expect(parseWmSize(fixture('wm-size-override.txt'))).toEqual({ width: 1080, height: 2340 });
    expect(parseWmSize('Physical size: 1080x2400\r\n')).toEqual({ width: 1080, height: 2400 });
    expect(parseWmSize('cmd: Failure calling service window')).toBeUndefined();
  });

  it('reads the density, override first', () => {
    expect(parseWmDensity(fixture('wm-density.txt'))).toBe(420);
    expect(parseWmDensity(fixture('wm-density-override.txt'))).toBe(420);
    expect(parseWmDensity('')).toBeUndefined();
  });
});

describe('rotation', () => {
  it('prefers the INTERNAL viewport of display 0 (Android 13+)', () => {
    expect(parseRotation(fixture('display-android13-landscape.txt'))).toBe(1);
  });

  it('reads the old viewport line and SurfaceOrientation (Android ≤ 12)', () => {
    expect(parseRotation(fixture('display-android9-rot270.txt'))).toBe(3);
    expect(parseRotation(fixture('display-surface-only.txt'))).toBe(2);
  });

  it('reads ROTATION_ names, dumpsys display and skips displayId=-1', () => {
    expect(parseRotation('Viewport INTERNAL: displayId=0, orientation=ROTATION_270, isActive=true')).toBe(3);
    expect(parseRotation('    mCurrentOrientation=1\n')).toBe(1);
    expect(parseRotation('Viewport INTERNAL: displayId=-1, orientation=2\nViewport INTERNAL: displayId=0, uniqueId=x, orientation=3, isActive=[1]')).toBe(3);
    expect(parseRotation('SurfaceOrientation: 3\nViewport INTERNAL: displayId=0, orientation=1, logicalFrame=[0, 0, 2712, 1224]')).toBe(1);
  });

  it('is undefined when nothing says (never a guess)', () => {
    expect(parseRotation('')).toBeUndefined();
    expect(parseRotation('Input Manager State:\n  Interactive: true\n')).toBeUndefined();
    expect(parseRotation('mCurrentOrientation=7')).toBeUndefined();
  });
});

describe('parseDisplay', () => {
  it('turns the natural size by the rotation', () => {
    expect(parseDisplay(fixture('display-android13-landscape.txt'))).toEqual({ natural: { width: 1080, height: 2400 }, size: { width: 2400, height: 1080 }, density: 420, rotation: 1 });
    expect(parseDisplay(fixture('display-android9-rot270.txt')).size).toEqual({ width: 1920, height: 1080 });
    expect(parseDisplay(fixture('display-surface-only.txt')).size).toEqual({ width: 720, height: 1280 });
  });

  it('keeps the natural size when the rotation is unknown, and fails without a size', () => {
    expect(parseDisplay('Physical size: 1080x2400\n')).toEqual({ natural: { width: 1080, height: 2400 }, size: { width: 1080, height: 2400 }, rotation: undefined });
    expect(() => parseDisplay('/system/bin/sh: wm: not found\n')).toThrow(/no screen size/);
  });
});

describe('getprop', () => {
  it('maps one value per line and skips empty ones', () => {
    expect(parseGetpropLines('Pixel 8\r\nGoogle\n\n34\n', ['model', 'maker', 'release', 'sdk'])).toEqual({ model: 'Pixel 8', maker: 'Google', sdk: '34' });
  });
});

describe('checkPng', () => {
  let png: Buffer;
  beforeAll(async () => {
    png = await sharp({ create: { width: 60, height: 120, channels: 3, background: '#3366cc' } }).png().toBuffer();
  });

  it('accepts a whole PNG and reads its size', () => {
    const r = checkPng(png);
    expect(r).toMatchObject({ width: 60, height: 120 });
    expect(r.data).toBe(png);
  });

  it('skips text printed before the PNG and bytes after IEND', () => {
    const noisy = Buffer.concat([Buffer.from('WARNING: linker: libdvm.so has text relocations.\n'), png, Buffer.from('\n')]);
    const r = checkPng(noisy);
    expect(r.data.equals(png)).toBe(true);
  });

  it('rejects empty, non-PNG and every truncation', () => {
    expect(() => checkPng(Buffer.alloc(0))).toThrow(/0 bytes/);
    expect(() => checkPng(Buffer.from('/system/bin/sh: screencap: not found\n'))).toThrow(/did not return a PNG: "\/system\/bin\/sh: screencap: not found"/);
    for (let cut = 1; cut < png.length; cut += Math.max(1, Math.floor(png.length / 40))) {
      expect(() => checkPng(png.subarray(0, cut)), `cut at ${cut}`).toThrow(/truncated|PNG/);
    }
    expect(() => checkPng(png.subarray(0, png.length - 1))).toThrow(/truncated/);
  });
});

describe('foreground package', () => {
  it('reads the focused window, else the focused activity', () => {
    expect(parseForegroundPackage('  mCurrentFocus=Window{f3e6c4 u0 com.google.android.apps.nexuslauncher/com.google.android.apps.nexuslauncher.NexusLauncherActivity}\n  mFocusedApp=ActivityRecord{2c7a3e5 u0 com.google.android.apps.nexuslauncher/.NexusLauncherActivity t1}\n')).toBe('com.google.android.apps.nexuslauncher');
    expect(parseForegroundPackage('  mCurrentFocus=Window{1a2b u0 NotificationShade}\n  mFocusedApp=ActivityRecord{9f u0 com.android.settings/.Settings t42}\n')).toBe('com.android.settings');
    expect(parseForegroundPackage('  mFocusedApp=AppWindowToken{4b1 token=Token{7c ActivityRecord{e2 u0 org.example.app/.Main t3}}}\n')).toBe('org.example.app');
    expect(parseForegroundPackage('  mCurrentFocus=null\n  mFocusedApp=null\n')).toBeUndefined();
  });
});
