/**
 * `sightline agent` on a real X11 window (Xvfb + openbox, the Tk test app): the model sees a
 * scaled image, answers in its pixels, and the text lands in the app's field.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { act, startFakeModelServer, type FakeModelServer } from '../../support/fakeModelServer.ts';
import { tempDir } from '../../support/mcpHarness.ts';
import { startTestApp, startXvfb, type TestApp, type XDisplay } from '../../support/xvfb.ts';
import { KEY, leaks, runAgent, stepFiles } from './harness.ts';

describe('sightline agent on a desktop window (Xvfb)', { timeout: 180_000 }, () => {
  let x: XDisplay;
  let app: TestApp;
  let model: FakeModelServer;
  let dataDir: string;

  beforeAll(async () => {
    x = await startXvfb();
    app = await startTestApp(x, { title: 'Agent Form Window', geometry: '800x500+40+60' });
    model = await startFakeModelServer({ key: KEY });
    dataDir = tempDir('sightline-agent-desktop-');
    // The display comes from settings; the agent's environment has DISPLAY too, as a user's shell would.
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ sources: { browser: { enabled: false }, android: { enabled: false }, manictime: { enabled: false } }, desktop: { display: x.display } }));
  });
  afterAll(async () => {
    await model?.close();
    await app?.close();
    await x?.stop();
  });

  it('types into the field at image coordinates, presses Return and says done: exit 0', async () => {
    model.script((r) => {
      const step = Number(/Step (\d+) of/.exec(r.text)?.[1]);
      const { width: w, height: h } = r.stated!;
      // The field spans 5–95 % of the width and 60–85 % of the height of the window.
      if (step === 1) return act({ action: 'type', text: 'hello agent', x: Math.round(w * 0.5), y: Math.round(h * 0.725), why: 'Type into the field' });
      if (step === 2) return act({ action: 'key', key: 'Return', why: 'Confirm' });
      return act({ action: 'done', why: 'The field holds the text' });
    });
    const typed = app.next((e) => e.event === 'text' && e.value === 'hello agent', 170_000);
    const entered = app.next((e) => e.event === 'key' && e.keysym === 'Return', 170_000);
    // Awaited below; a failed run must not leave them as unhandled rejections.
    for (const p of [typed, entered]) p.catch(() => undefined);
    const r = await runAgent(['--provider', 'anthropic', '--base-url', model.url, '--target', 'agent form window', '--goal', 'Enter "hello agent"', '--max-dimension', '600', '--json'], {
      dataDir,
      env: { ANTHROPIC_API_KEY: KEY, DISPLAY: x.display },
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    await typed;
    await entered;
    expect(model.problems()).toEqual([]);
    // The window scaled to a 600 px long edge; the model was told that size, and saw it.
    expect(model.requests[0]!.stated).toEqual({ width: 600, height: 375 });
    expect(model.requests[0]!.image).toMatchObject({ width: 600, height: 375 });
    // No UI tree for a desktop window: the prompt offers pixels only.
    expect(model.requests[0]!.system).not.toContain('"node"');
    const run = r.run!;
    expect(run).toMatchObject({ status: 'done', stop: { reason: 'done' }, target: { id: `desktop:window:${app.windowId}` } });
    expect(run.steps.map((s) => s.outcome)).toEqual(['ok', 'ok', 'goal reached']);
    // Image pixels → screen: (300, 272) in a 600×375 image of the 800×500 window, mapped by the server.
    const s1 = run.steps[0]!;
    const f = s1.frame!;
    expect(s1.imagePoint).toEqual({ x: 300, y: 272 });
    expect(f.scale).toBeCloseTo(800 / 600, 6);
    expect(s1.devicePoint!.x).toBeCloseTo(f.origin.x + 300 * f.scale, 1);
    expect(s1.devicePoint!.y).toBeCloseTo(f.origin.y + 272 * f.scale, 1);
    expect(r.files).toEqual(expect.arrayContaining(['run.json', 'target.json', 'system-prompt.md', ...stepFiles(1), ...stepFiles(2), ...stepFiles(3)]));
    expect(leaks(r)).toEqual([]);
  });
});
