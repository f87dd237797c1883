/**
 * A bare X server with no window manager (a CI box, a kiosk): windows cannot be listed,
 * and the source says so, yet still captures and drives the display.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDesktopSource } from '../../../src/main/core/sources/desktop/desktopSource.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { startXvfb, type XDisplay } from '../../support/xvfb.ts';

describe('desktop source without a window manager', () => {
  let x: XDisplay;
  let h: Harness;

  beforeAll(async () => {
    x = await startXvfb('800x600', { windowManager: false });
    const env = { PATH: process.env.PATH };
    h = await startHarness({ sources: [createDesktopSource({ settings: { display: x.display }, env })], env });
  });
  afterAll(async () => {
    await h?.close();
    await x?.stop();
  });

  it('is degraded, and names what is missing and the fix', async () => {
    const desktop = (await h.core.sources.health()).find((s) => s.source === 'desktop')!;
    expect(desktop.available).toBe(true);
    expect(desktop.degraded).toBe(true);
    expect(desktop.reason).toMatch(/no window manager/);
    expect(desktop.remediation).toMatch(/window manager/);
  });

  it('lists the display with a hint, and captures it', async () => {
    const r = await h.call('list_targets', { source: 'desktop' });
    expect(r.isError, textOf(r)).toBeFalsy();
    const targets = (r.structuredContent as { targets: { id: string; kind: string; hint?: string }[] }).targets;
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.every((t) => t.kind === 'display')).toBe(true);
    expect(targets[0]!.hint).toMatch(/no window manager/);
    const cap = await h.call('capture', { target: targets[0]!.id, maxDimension: 400 });
    expect(cap.isError, textOf(cap)).toBeFalsy();
    expect((cap.structuredContent as { frame: { image: { width: number } } }).frame.image.width).toBe(400);
  });
});
