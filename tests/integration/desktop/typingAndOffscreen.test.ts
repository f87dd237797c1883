/**
 * The desktop source called directly (no MCP layer) on Xvfb + openbox with the Tk test
 * app: exact typing of more distinct non-ASCII characters than the keymap has spare
 * keycodes (so the typist binds in chunks), the keymap left as found, a window hanging
 * off the desktop captured by its visible part and clicked through that frame's mapping,
 * and focusing without xdotool.
 */
import { ready } from '../../../src/main/core/sources/aim.ts';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Point } from '../../../src/shared/frame.ts';
import type { CapturedImage, StoredFrame } from '../../../src/main/core/sources/source.ts';
import { createDesktopSource, type DesktopSource } from '../../../src/main/core/sources/desktop/desktopSource.ts';
import type { DesktopFrameState } from '../../../src/main/core/sources/desktop/screen.ts';
import { parseKeymap } from '../../../src/main/core/sources/desktop/x11Keymap.ts';
import { startTestApp, startXvfb, xdotool, type TestApp, type XDisplay } from '../../support/xvfb.ts';

const signal = new AbortController().signal;
const CAPTURE = { maxDimension: 600, format: 'jpeg', quality: 70, raw: false, signal } as const;

function stored(c: CapturedImage<DesktopFrameState>, imageWidth: number): StoredFrame<DesktopFrameState> {
  // What the core would store: the image fitted to imageWidth, scale = source units per image pixel.
  const scale = c.sourceSize.width / imageWidth;
  return {
    ref: 'f1',
    source: 'desktop',
    target: c.target,
    capturedAt: new Date().toISOString(),
    image: { width: imageWidth, height: Math.round(c.sourceSize.height / scale) },
    sourceSize: c.sourceSize,
    origin: c.origin,
    scale,
    state: c.state,
  };
}

/** The gate's mapping: source = origin + shift + image × scale. */
function toSource(f: StoredFrame, p: Point, shift: Point = { x: 0, y: 0 }): Point {
  return { x: f.origin.x + shift.x + p.x * f.scale, y: f.origin.y + shift.y + p.y * f.scale };
}

describe('desktop source, direct: exact typing, off-screen windows, focus without xdotool', () => {
  let x: XDisplay;
  let app: TestApp;
  let source: DesktopSource;
  let target: string;

  beforeAll(async () => {
    x = await startXvfb('1024x768');
    app = await startTestApp(x, { title: 'Typing Test', geometry: '600x300+100+100' });
    target = `desktop:window:${app.windowId}`;
    source = createDesktopSource({ settings: { display: x.display }, env: { PATH: process.env.PATH } });
  });
  afterAll(async () => {
    await source?.dispose?.();
    await app?.close();
    await x?.stop();
  });

  const freeKeycodes = (): number[] => parseKeymap(spawnSync('xmodmap', ['-pk'], { env: x.env, encoding: 'utf8' }).stdout).free;

  it('types symbols and more distinct non-ASCII characters than there are spare keycodes, exactly', async () => {
    const before = freeKeycodes();
    expect(before.length).toBeGreaterThan(2);
    const latin = Array.from({ length: before.length + 4 }, (_, i) => String.fromCodePoint(0xc0 + i)).join('');
    const text = `!@#$%^&*()_+{}|:"<>?~ héllo 世界 ${latin} Ωμέγα ©®`;
    const c = await source.screen.capture(target, CAPTURE);
    const f = stored(c, 600);
    const done = app.next((e) => e.event === 'text' && e.value === text, 30_000);
    // The field spans 60–85 % of the window's height.
    const details = await source.input.perform(ready({ kind: 'type_text', target, frame: f, point: toSource(f, { x: 300, y: f.image.height * 0.72 }), text }), signal);
    expect(details).toBeDefined();
    expect((await done).value).toBe(text);
    // The bindings made for typing are undone: the keymap is as it was.
    await source.dispose!();
    expect(freeKeycodes()).toEqual(before);
  });

  it('captures the visible part of a window hanging off the desktop and clicks through that frame', async () => {
    xdotool(x, 'windowmove', '--sync', String(app.windowId), '-150', '-60');
    let listed: { x: number; y: number; width: number; height: number } | undefined;
    for (let i = 0; i < 100; i++) {
      listed = (await source.screen.listTargets(signal)).find((t) => t.id === target)?.bounds;
      if (listed && listed.x < 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(listed!.x).toBeLessThan(0);
    const c = await source.screen.capture(target, CAPTURE);
    expect(c.warnings?.[0]).toMatch(/partly off-screen/);
    expect(c.origin).toEqual({ x: Math.max(0, listed!.x), y: Math.max(0, listed!.y) });
    expect(c.sourceSize).toEqual({ width: listed!.width + Math.min(0, listed!.x), height: listed!.height + Math.min(0, listed!.y) });
    expect(c.pixels).toMatchObject({ kind: 'raw', width: c.sourceSize.width, height: c.sourceSize.height, channels: 4 });
    const f = stored(c, 300);
    expect(await source.screen.checkFrame(f, signal)).toEqual({ shift: { x: 0, y: 0 } });
    // Aim at image (150, 20): in the window that is (150 × scale + visible offset) from its left edge.
    const click = app.next((e) => e.event === 'click');
    const p = toSource(f, { x: 150, y: 20 });
    await source.input.perform(ready({ kind: 'click', target, frame: f, point: p, button: 'left', clicks: 1, modifiers: [] }), signal);
    expect(await click).toMatchObject({ button: 1, x: Math.round(p.x - listed!.x), y: Math.round(p.y - listed!.y) });
    // A point of the window that is off the desktop is refused, never clicked at the screen edge.
    await expect(source.input.perform(ready({ kind: 'click', target, point: { x: listed!.x + 10, y: listed!.y + 100 }, button: 'left', clicks: 1, modifiers: [] }), signal)).rejects.toMatchObject({ code: 'POINT_OUTSIDE_FRAME' });
  });

  it('raises a covered window with nut-js when xdotool is not installed', async () => {
    const noXdotool = createDesktopSource({ settings: { display: x.display }, env: { PATH: '/nonexistent' } });
    xdotool(x, 'windowmove', '--sync', String(app.windowId), '100', '100');
    const cover = await startTestApp(x, { title: 'Cover', geometry: '600x300+150+150' });
    try {
      const listed = async (): Promise<boolean | undefined> => (await noXdotool.screen.listTargets(signal)).find((t) => t.id === target)?.focused;
      for (let i = 0; i < 40 && (await listed()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await listed()).toBe(false);
      const details = await noXdotool.input.perform(ready({ kind: 'focus_window', target }), signal);
      expect(details.note).toMatch(/nut-js/);
      expect(await listed()).toBe(true);
      // Its health says what the missing tool costs.
      expect((await noXdotool.health()).checks?.find((c) => c.id === 'xdotool')).toMatchObject({ status: 'warning' });
    } finally {
      await cover.close();
      await noXdotool.dispose?.();
    }
  });
});
