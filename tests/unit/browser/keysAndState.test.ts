import { describe, expect, it } from 'vitest';
import type { SightlineError } from '../../../src/shared/errors.ts';
import { captureRegion, documentToViewport, readState, scrollToShow, staleReason } from '../../../src/main/core/sources/browser/frameState.ts';
import { parseKeyCombo } from '../../../src/main/core/sources/browser/keys.ts';

describe('parseKeyCombo', () => {
  it('takes DOM key names, case-insensitively for named keys', () => {
    expect(parseKeyCombo('Enter')).toEqual({ modifiers: [], key: 'Enter' });
    expect(parseKeyCombo('escape')).toEqual({ modifiers: [], key: 'Escape' });
    expect(parseKeyCombo('ArrowDown')).toEqual({ modifiers: [], key: 'ArrowDown' });
    expect(parseKeyCombo('F5')).toEqual({ modifiers: [], key: 'F5' });
    expect(parseKeyCombo('a')).toEqual({ modifiers: [], key: 'a' });
    expect(parseKeyCombo('A')).toEqual({ modifiers: [], key: 'A' });
    expect(parseKeyCombo(' ')).toEqual({ modifiers: [], key: ' ' });
  });

  it('takes combinations and common spellings', () => {
    expect(parseKeyCombo('Control+A')).toEqual({ modifiers: ['Control'], key: 'a' });
    expect(parseKeyCombo('Shift+A')).toEqual({ modifiers: ['Shift'], key: 'A' });
    expect(parseKeyCombo('Ctrl+Shift+ArrowLeft')).toEqual({ modifiers: ['Control', 'Shift'], key: 'ArrowLeft' });
    expect(parseKeyCombo('Cmd+Esc')).toEqual({ modifiers: ['Meta'], key: 'Escape' });
    expect(parseKeyCombo('Control++')).toEqual({ modifiers: ['Control'], key: '+' });
    expect(parseKeyCombo('+')).toEqual({ modifiers: [], key: '+' });
    expect(parseKeyCombo('Alt + Tab')).toEqual({ modifiers: ['Alt'], key: 'Tab' });
  });

  it('names the unknown part', () => {
    const err = (k: string): SightlineError => {
      try {
        parseKeyCombo(k);
      } catch (e) {
        return e as SightlineError;
      }
      throw new Error(`no error for ${k}`);
    };
    expect(err('Foo').code).toBe('INVALID_ARGUMENT');
    expect(err('Foo').message).toContain('"Foo"');
    expect(err('Foo').hint).toMatch(/Enter/);
    expect(err('Control+Blah').message).toContain('"Blah" in "Control+Blah"');
    expect(err('a+b').message).toMatch(/not a modifier/);
    expect(err('Control+').code).toBe('INVALID_ARGUMENT');
    expect(err('').code).toBe('INVALID_ARGUMENT');
  });
});

const state = { loaderId: 'L1', url: 'http://x/a', viewport: { width: 1280, height: 800 }, dpr: 2, scroll: { x: 0, y: 300 }, fullPage: false };

describe('frame state', () => {
  it('reads what capture stored and rejects anything else', () => {
    expect(readState({ ...state })).toEqual(state);
    expect(readState({ ...state, fullPage: undefined })?.fullPage).toBe(false);
    expect(readState({ ...state, viewport: { width: 'x' } })).toBeUndefined();
    expect(readState(undefined)).toBeUndefined();
  });

  it('is stale after a new document or a viewport change, not after a scroll', () => {
    expect(staleReason(state, { loaderId: 'L1', url: 'http://x/a#b', viewport: { width: 1280, height: 800 } })).toBeUndefined();
    expect(staleReason(state, { loaderId: 'L2', url: 'http://x/b', viewport: { width: 1280, height: 800 } })).toMatch(/navigated.*http:\/\/x\/b/);
    expect(staleReason(state, { loaderId: 'L2', url: 'http://x/a', viewport: { width: 1280, height: 800 } })).toMatch(/reloaded/);
    expect(staleReason(state, { loaderId: 'L1', url: 'http://x/a', viewport: { width: 1024, height: 800 } })).toMatch(/1280×800 to 1024×800/);
  });

  it('scrolls a full-page point into view only when needed', () => {
    const vp = { width: 1000, height: 600 };
    expect(scrollToShow({ x: 10, y: 700 }, { x: 0, y: 500 }, vp)).toBeUndefined();
    expect(scrollToShow({ x: 10, y: 3000 }, { x: 0, y: 0 }, vp)).toEqual({ x: 0, y: 2700 });
    expect(documentToViewport({ x: 10, y: 3000 }, { x: 0, y: 2700 }, vp)).toEqual({ x: 10, y: 300 });
    expect(() => documentToViewport({ x: 10, y: 3000 }, { x: 0, y: 1000 }, vp)).toThrow(/cannot be scrolled/);
  });

  it('captures the viewport where it is scrolled to, or the whole document within the render limit', () => {
    const m = { w: 1280, h: 800, sx: 5, sy: 300, dw: 1265, dh: 5000, dpr: 2 };
    expect(captureRegion(m, false)).toEqual({ region: { x: 5, y: 300, width: 1280, height: 800 }, clipped: false });
    expect(captureRegion(m, true)).toEqual({ region: { x: 0, y: 0, width: 1265, height: 5000 }, clipped: false });
    expect(captureRegion({ ...m, dh: 40000 }, true)).toEqual({ region: { x: 0, y: 0, width: 1265, height: 8192 }, clipped: true });
  });
});
