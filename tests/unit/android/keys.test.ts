import { describe, expect, it } from 'vitest';
import { keyCode, parseKeys } from '../../../src/main/core/sources/android/keys.ts';

describe('keys', () => {
  it('maps Android names, KEYCODE_ names and numbers', () => {
    expect(keyCode('BACK')).toBe(4);
    expect(keyCode('HOME')).toBe(3);
    expect(keyCode('ENTER')).toBe(66);
    expect(keyCode('DEL')).toBe(67);
    expect(keyCode('TAB')).toBe(61);
    expect(keyCode('APP_SWITCH')).toBe(187);
    expect(keyCode('POWER')).toBe(26);
    expect(keyCode('VOLUME_UP')).toBe(24);
    expect(keyCode('KEYCODE_CAMERA')).toBe(27);
    expect(keyCode('keycode_back')).toBe(4);
    expect(keyCode('4')).toBe(4);
    expect(keyCode('187')).toBe(187);
  });

  it('maps DOM names and camel case', () => {
    expect(keyCode('Enter')).toBe(66);
    expect(keyCode('Escape')).toBe(111);
    expect(keyCode('Backspace')).toBe(67);
    expect(keyCode('Delete')).toBe(112);
    expect(keyCode('ArrowDown')).toBe(20);
    expect(keyCode('VolumeUp')).toBe(24);
    expect(keyCode('PageDown')).toBe(93);
    expect(keyCode('F5')).toBe(135);
    expect(keyCode('a')).toBe(29);
    expect(keyCode(' ')).toBe(62);
  });

  it('splits combinations, "+" included', () => {
    expect(parseKeys('Control+A')).toEqual([113, 29]);
    expect(parseKeys('Shift++')).toEqual([59, 81]);
    expect(parseKeys('+')).toEqual([81]);
  });

  it('refuses what it does not know, naming it', () => {
    expect(keyCode('NOPE')).toBeUndefined();
    expect(keyCode('é')).toBeUndefined();
    expect(() => parseKeys('Control+Hyper')).toThrow('Unknown key "Hyper" in "Control+Hyper"');
    expect(() => parseKeys('')).toThrow('press_key needs a "key"');
  });
});
