/**
 * A covered window on X11 without a compositor (Xvfb + openbox): its capture would show the
 * covering window's pixels. With raising allowed the window is brought to the front first; with
 * it off, the capture names what covers which part, and a window hidden whole is WINDOW_COVERED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDesktopSource } from '../../../src/main/core/sources/desktop/desktopSource.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { startTestApp, startXvfb, xdotool, type TestApp, type XDisplay } from '../../support/xvfb.ts';

interface Target {
  id: string;
  focused?: boolean;
  details?: { z?: number };
}

describe('a covered window', { timeout: 90_000 }, () => {
  let x: XDisplay;
  let under: TestApp;
  let over: TestApp;
  let h: Harness;
  let target: string;
  let allowRaise = true;

  beforeAll(async () => {
    x = await startXvfb('1024x768');
    under = await startTestApp(x, { title: 'Sightline Under', geometry: '400x300+100+100' });
    // Mapped later, so stacked above: it hides the lower right of the first window.
    over = await startTestApp(x, { title: 'Sightline Over', geometry: '400x300+300+250' });
    target = `desktop:window:${under.windowId}`;
    const env = { PATH: process.env.PATH };
    h = await startHarness({ sources: [createDesktopSource({ settings: { display: x.display }, env, raiseBeforeCapture: () => allowRaise })], env });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
    await over?.close();
    await under?.close();
    await x?.stop();
  });

  async function stack(): Promise<Map<string, number>> {
    const r = await h.call('list_targets', { source: 'desktop' });
    const targets = (r.structuredContent as { targets: Target[] }).targets;
    return new Map(targets.filter((t) => t.details?.z !== undefined).map((t) => [t.id, t.details!.z!]));
  }

  async function coverAgain(): Promise<void> {
    xdotool(x, 'windowactivate', '--sync', String(over.windowId));
    const end = Date.now() + 5000;
    for (;;) {
      const z = await stack();
      if (z.get(`desktop:window:${over.windowId}`)! > z.get(target)!) return;
      if (Date.now() > end) throw new Error('the covering window did not come to the front');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('raises a covered window before capturing it, when allowed', async () => {
    allowRaise = true;
    await coverAgain();
    const r = await h.call('capture', { target });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(textOf(r)).not.toMatch(/covered/);
    const z = await stack();
    expect(z.get(target)!).toBeGreaterThan(z.get(`desktop:window:${over.windowId}`)!);
  });

  it('with raising off, names what covers which part, in image pixels', async () => {
    allowRaise = false;
    await coverAgain();
    // 400×300 window at 500 px long edge: 1.25 image px per screen px.
    const r = await h.call('capture', { target, maxDimension: 500 });
    expect(r.isError, textOf(r)).toBeFalsy();
    const warnings = (r.structuredContent as { warnings?: string[] }).warnings ?? [];
    expect(warnings.join('\n')).toMatch(/is partly covered \(\d+%; raising is off/);
    expect(warnings.join('\n')).toMatch(/“Sightline Over” at image \(\d+, \d+\) \d+×\d+ px/);
    expect(textOf(r)).toMatch(/Warning: .*partly covered/);
    // Still covered: nothing was raised.
    const z = await stack();
    expect(z.get(`desktop:window:${over.windowId}`)!).toBeGreaterThan(z.get(target)!);
  });

  it('with raising off, refuses a window hidden whole with WINDOW_COVERED', async () => {
    allowRaise = false;
    xdotool(x, 'windowmove', '--sync', String(over.windowId), '80', '60');
    xdotool(x, 'windowsize', '--sync', String(over.windowId), '520', '420');
    await coverAgain();
    const r = await h.call('capture', { target });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^WINDOW_COVERED: desktop:window:\d+ is hidden by .*“Sightline Over” \(100% covered; raising is off.*Hint: Call focus_window/);
  });
});
