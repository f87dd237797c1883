import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cdpTargetId, remoteWs, splitTabId, tabTargetId, versionUrl } from '../../../src/main/core/sources/browser/detect.ts';
import { regionClip, remapNote, toFramePoint, toFrameRect, type BrowserFrameState } from '../../../src/main/core/sources/browser/frameState.ts';
import { normaliseUrl } from '../../../src/main/core/sources/browser/urls.ts';
import { judgeUrl } from '../../../src/main/core/sources/browser/urlPolicy.ts';

const state = (over: Partial<BrowserFrameState> = {}): BrowserFrameState => ({
  loaderId: 'L',
  url: 'http://x/',
  viewport: { width: 1280, height: 800 },
  dpr: 2,
  scroll: { x: 0, y: 0 },
  fullPage: false,
  ...over,
});

describe('remapNote', () => {
  it('says by how much the page scrolled since which frame, and what was scrolled to show', () => {
    expect(remapNote({ ref: 'f1', moved: { dx: 0, dy: 500 } })).toBe('the page scrolled by (0, 500) CSS px since frame f1; re-mapped through page coordinates');
    expect(remapNote({ moved: { dx: 0, dy: 0 } })).toBeUndefined();
    expect(remapNote({ ref: 'f1', moved: { dx: 0, dy: 800 }, fixed: { role: 'button', name: 'Menu' } })).toBe(
      'the page scrolled by (0, 800) CSS px since frame f1, but the point is on a fixed button "Menu" that stays in place: not re-mapped',
    );
    expect(remapNote({ scrolled: { to: { x: 0, y: 1200.4 }, which: 0 }, nodes: ['ab.3'] })).toBe('node ab.3 was off screen: scrolled the page to (0, 1200) to bring it into view');
    expect(remapNote({ ref: 'f', moved: { dx: 0, dy: 2000 }, scrolled: { to: { x: 0, y: 100 }, which: 0 }, nodes: [undefined] })).toBe(
      'the page scrolled by (0, 2000) CSS px since frame f; re-mapped through page coordinates; scrolled the page to (0, 100) to bring the point into view',
    );
    expect(remapNote({})).toBeUndefined();
  });
});

describe('toFrameRect', () => {
  const frame = (st: BrowserFrameState) => ({ state: st, sourceSize: st.viewport });

  it('is the viewport rect itself for a frame at the same scroll, or without a frame', () => {
    const r = { x: 10, y: 20, width: 30, height: 40 };
    expect(toFrameRect(r, { x: 0, y: 300 }, frame(state({ scroll: { x: 0, y: 300 } })))).toEqual(r);
    expect(toFrameRect(r, { x: 0, y: 300 }, undefined)).toEqual(r);
  });

  it('moves through page coordinates into the frame, clipped to what it shows', () => {
    // Scrolled by 100 since the frame: what is at viewport y 20 now was at 120 in the frame.
    expect(toFrameRect({ x: 10, y: 20, width: 30, height: 40 }, { x: 0, y: 100 }, frame(state()))).toEqual({ x: 10, y: 120, width: 30, height: 40 });
    expect(toFrameRect({ x: 0, y: 780, width: 100, height: 100 }, { x: 0, y: 0 }, frame(state()))).toEqual({ x: 0, y: 780, width: 100, height: 20 });
    expect(toFrameRect({ x: 0, y: 10, width: 100, height: 100 }, { x: 0, y: 2000 }, frame(state()))).toBeUndefined();
    // A full-page frame is in document coordinates.
    const full = { state: state({ fullPage: true }), sourceSize: { width: 1280, height: 5000 } };
    expect(toFrameRect({ x: 0, y: 10, width: 100, height: 100 }, { x: 0, y: 2000 }, full)).toEqual({ x: 0, y: 2010, width: 100, height: 100 });
  });

  it('never leaves the frame (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -3000, max: 3000 }), fc.integer({ min: -3000, max: 3000 }), fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 0, max: 5000 }), (x, y, size, sy) => {
        const r = toFrameRect({ x, y, width: size, height: size }, { x: 0, y: sy }, frame(state({ scroll: { x: 0, y: 1000 } })));
        if (!r) return;
        expect(r.x).toBeGreaterThanOrEqual(0);
        expect(r.y).toBeGreaterThanOrEqual(0);
        expect(r.x + r.width).toBeLessThanOrEqual(1280);
        expect(r.y + r.height).toBeLessThanOrEqual(800);
      }),
    );
  });
});

describe('toFramePoint', () => {
  it('puts a viewport point of now into the frame\'s coordinates', () => {
    expect(toFramePoint({ x: 10, y: 20 }, { x: 0, y: 500 }, { state: state({ scroll: { x: 0, y: 100 } }) })).toEqual({ x: 10, y: 420 });
    expect(toFramePoint({ x: 10, y: 20 }, { x: 0, y: 500 }, { state: state({ fullPage: true }) })).toEqual({ x: 10, y: 520 });
    expect(toFramePoint({ x: 10, y: 20 }, { x: 0, y: 500 }, undefined)).toEqual({ x: 10, y: 20 });
  });
});

describe('regionClip', () => {
  const frame = (st: BrowserFrameState) => ({ state: st, sourceSize: st.viewport });

  it('captures at device resolution: a 256×122 CSS px region at DPR 2 is 512×244', () => {
    const plan = regionClip({ x: 100, y: 50, width: 256, height: 122 }, frame(state()), 2, 4000)!;
    expect(plan.size).toEqual({ width: 512, height: 244 });
    expect(plan.clip).toEqual({ x: 100, y: 50, width: 256, height: 122, scale: 1 });
  });

  it('clips in document coordinates (the frame\'s scroll added), to the frame, and within maxDimension', () => {
    const plan = regionClip({ x: 1200, y: -20, width: 200, height: 100 }, frame(state({ scroll: { x: 0, y: 900 } })), 2, 4000)!;
    expect(plan.rect).toEqual({ x: 1200, y: 0, width: 80, height: 80 });
    expect(plan.clip).toMatchObject({ x: 1200, y: 900, width: 80, height: 80, scale: 1 });
    const small = regionClip({ x: 0, y: 0, width: 1280, height: 800 }, frame(state()), 2, 1000)!;
    expect(small.size).toEqual({ width: 1000, height: 625 });
    expect(small.clip.scale).toBeCloseTo(1000 / 2560, 10);
    expect(regionClip({ x: 2000, y: 0, width: 10, height: 10 }, frame(state()), 2, 1000)).toBeUndefined();
  });
});

describe('tab ids with endpoints', () => {
  it('splits and builds ids of the default connection and of named endpoints', () => {
    expect(splitTabId('browser:8A2F4C')).toEqual({ id: '8A2F4C' });
    expect(splitTabId('browser:grid-1/8A2F4C')).toEqual({ endpoint: 'grid-1', id: '8A2F4C' });
    expect(splitTabId('browser:a/b/c')).toBeUndefined();
    expect(splitTabId('browser:/x')).toBeUndefined();
    expect(splitTabId('android:x')).toBeUndefined();
    expect(tabTargetId(undefined, 'AB')).toBe('browser:AB');
    expect(tabTargetId('farm', 'AB')).toBe('browser:farm/AB');
    expect(cdpTargetId('browser:farm/AB')).toBeUndefined();
    fc.assert(
      fc.property(fc.option(fc.stringMatching(/^[a-z0-9][a-z0-9_.-]{0,31}$/), { nil: undefined }), fc.stringMatching(/^[A-F0-9]{1,32}$/), (endpoint, id) => {
        expect(splitTabId(tabTargetId(endpoint, id))).toEqual(endpoint ? { endpoint, id } : { id });
      }),
    );
  });

  it('asks /json/version with the endpoint\'s path and query, and reaches a remote browser that names itself 127.0.0.1', () => {
    expect(versionUrl('http://127.0.0.1:9222')).toBe('http://127.0.0.1:9222/json/version');
    expect(versionUrl('https://gw.example/chrome/?token=abc')).toBe('https://gw.example/chrome/json/version?token=abc');
    expect(versionUrl('http://h:9222/json/version')).toBe('http://h:9222/json/version');
    expect(remoteWs('http://10.0.0.5:9222', 'ws://127.0.0.1:9222/devtools/browser/x')).toBe('ws://10.0.0.5:9222/devtools/browser/x');
    expect(remoteWs('https://gw.example/?token=abc', 'ws://0.0.0.0:3000/devtools/browser/x')).toBe('wss://gw.example/devtools/browser/x?token=abc');
    expect(remoteWs('http://127.0.0.1:9222', 'ws://127.0.0.1:9222/devtools/browser/x')).toBe('ws://127.0.0.1:9222/devtools/browser/x');
    expect(remoteWs('http://grid:4444', 'ws://node-3:5555/devtools/browser/x')).toBe('ws://node-3:5555/devtools/browser/x');
  });
});

describe('navigate', () => {
  it('adds https:// to a bare host and refuses script URLs', () => {
    expect(normaliseUrl('example.com/a')).toBe('https://example.com/a');
    expect(normaliseUrl('http://127.0.0.1:8080/x')).toBe('http://127.0.0.1:8080/x');
    expect(normaliseUrl('about:blank')).toBe('about:blank');
    expect(normaliseUrl('localhost:3000/x')).toBe('https://localhost:3000/x');
    const rules = { allowFileUrls: false, own: { ports: new Set<number>(), pids: new Set<number>() } };
    expect(() => judgeUrl(normaliseUrl('javascript:alert(1)'), rules)).toThrow(/javascript: URLs are not opened/);
    expect(() => judgeUrl('file:///etc/passwd', rules)).toThrow(/file: URLs are not opened/);
    expect(() => judgeUrl('file:///etc/passwd', { ...rules, allowFileUrls: true })).not.toThrow();
    expect(() => normaliseUrl('  ')).toThrow();
  });

});
