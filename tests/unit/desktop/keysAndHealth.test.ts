import { describe, expect, it } from 'vitest';
import { ready } from '../../../src/main/core/sources/aim.ts';
import { desktopHealth, displayServer } from '../../../src/main/core/sources/desktop/environment.ts';
import { keyName, parseCombo } from '../../../src/main/core/sources/desktop/keys.ts';
import { createDesktopSource } from '../../../src/main/core/sources/desktop/desktopSource.ts';
import { typingRuns } from '../../../src/main/core/sources/desktop/desktopSource.ts';

const KNOWN = new Set(['LeftControl', 'LeftShift', 'LeftAlt', 'LeftSuper', 'LeftCmd', 'Return', 'Escape', 'Tab', 'Down', 'Up', 'A', 'T', 'Num1', 'F5', 'Space', 'Minus', 'Backspace', 'PageUp']);

describe('desktop key names', () => {
  it('maps DOM names, characters and combinations onto nut-js keys', () => {
    expect(keyName('Enter', KNOWN)).toBe('Return');
    expect(keyName('ArrowDown', KNOWN)).toBe('Down');
    expect(keyName('a', KNOWN)).toBe('A');
    expect(keyName('1', KNOWN)).toBe('Num1');
    expect(keyName('f5', KNOWN)).toBe('F5');
    expect(keyName('-', KNOWN)).toBe('Minus');
    expect(parseCombo('Control+Shift+T', KNOWN)).toEqual(['LeftControl', 'LeftShift', 'T']);
    expect(parseCombo('Meta+A', KNOWN, 'darwin')).toEqual(['LeftCmd', 'A']);
    expect(parseCombo('Meta+A', KNOWN, 'linux')).toEqual(['LeftSuper', 'A']);
  });
  it('refuses unknown keys and malformed combinations with a hint', () => {
    expect(() => keyName('Hyper', KNOWN)).toThrow(/Unknown key "Hyper"/);
    expect(() => parseCombo('Control+', KNOWN)).toThrow(/is not a key or key combination/);
    expect(() => parseCombo('A+T', KNOWN)).toThrow(/"A" is not a modifier/);
  });
});

describe('desktop health per platform', () => {
  it('explains Wayland instead of failing obscurely', () => {
    const h = desktopHealth({ platform: 'linux', waylandDisplay: 'wayland-0', sessionType: 'wayland' });
    expect(displayServer({ platform: 'linux', waylandDisplay: 'wayland-0' })).toBe('wayland');
    expect(h).toMatchObject({ available: false });
    expect(h.reason).toMatch(/Wayland/);
    expect(h.remediation).toMatch(/X11/);
  });
  it('is degraded under XWayland and without xdotool', () => {
    expect(desktopHealth({ platform: 'linux', display: ':0', sessionType: 'wayland', xdotool: true })).toMatchObject({ available: true, degraded: true });
    const h = desktopHealth({ platform: 'linux', display: ':0', xdotool: false });
    expect(h).toMatchObject({ available: true, degraded: true });
    expect(h.remediation).toMatch(/apt install xdotool/);
  });
  it('is unavailable with no display, naming the setting', () => {
    expect(desktopHealth({ platform: 'linux' })).toMatchObject({ available: false, remediation: expect.stringMatching(/desktop\.display/) });
  });
  it('names the macOS System Settings panes', () => {
    const denied = desktopHealth({ platform: 'darwin', screenRecording: 'denied', accessibility: 'granted' });
    expect(denied).toMatchObject({ available: false });
    expect(denied.remediation).toMatch(/Privacy & Security → Screen Recording/);
    const noInput = desktopHealth({ platform: 'darwin', screenRecording: 'granted', accessibility: 'denied' });
    expect(noInput).toMatchObject({ available: true, degraded: true });
    expect(noInput.remediation).toMatch(/Accessibility/);
    expect(desktopHealth({ platform: 'darwin' }).checks?.map((c) => c.status)).toEqual(['unknown', 'unknown']);
  });
  it('refuses input on macOS without Accessibility, and capture on Wayland, with codes', async () => {
    const mac = createDesktopSource({ settings: {}, platform: 'darwin', env: {}, permissions: () => ({ screenRecording: 'granted', accessibility: 'denied' }) });
    await expect(mac.input.perform(ready({ kind: 'press_key', target: 'desktop:window:1', key: 'Enter' }), new AbortController().signal)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', hint: expect.stringMatching(/Accessibility/) });
    const macNoCapture = createDesktopSource({ settings: {}, platform: 'darwin', env: {}, permissions: () => ({ screenRecording: 'denied' }) });
    await expect(macNoCapture.screen.listTargets(new AbortController().signal)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', hint: expect.stringMatching(/Screen Recording/) });
    const wayland = createDesktopSource({ settings: {}, platform: 'linux', env: { WAYLAND_DISPLAY: 'wayland-0', XDG_SESSION_TYPE: 'wayland' } });
    await expect(wayland.screen.capture('desktop:display:0', { maxDimension: 1000, format: 'jpeg', quality: 70, raw: false, signal: new AbortController().signal })).rejects.toMatchObject({ code: 'SOURCE_UNAVAILABLE' });
    expect(await wayland.health()).toMatchObject({ available: false });
  });
});

describe('typing runs', () => {
  it('types keymap characters fast and the rest slowly, losing nothing', () => {
    const text = '!@# héllo 世界\n';
    const runs = typingRuns(text);
    expect(runs.map((r) => r.text).join('')).toBe(text);
    expect(runs).toEqual([
      { text: '!@# h', delayMs: 2 },
      { text: 'é', delayMs: 40 },
      { text: 'llo ', delayMs: 2 },
      { text: '世界', delayMs: 40 },
      { text: '\n', delayMs: 2 },
    ]);
  });
});
