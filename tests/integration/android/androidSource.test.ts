/**
 * The Android source against the real adb server and fake devices: capture and mapping,
 * rotation and staleness, exact typing, keys, the UI tree, failures mid-transfer, several
 * devices, the per-device lock. The core's own pipeline and mapping code does the image side.
 */
import { ready } from '../../../src/main/core/sources/aim.ts';
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSightlineError, type SightlineError } from '../../../src/shared/errors.ts';
import type { Point } from '../../../src/shared/frame.ts';
import { imageToSource } from '../../../src/main/core/image/mapping.ts';
import { fitAndEncode } from '../../../src/main/core/image/pipeline.ts';
import { createAndroidSource, type AndroidSource } from '../../../src/main/core/sources/android/androidSource.ts';
import type { CaptureOptions, SourceAction as AnyAction, StoredFrame as AnyFrame } from '../../../src/main/core/sources/source.ts';
import type { AndroidFrameState } from '../../../src/main/core/sources/android/screen.ts';

type StoredFrame = AnyFrame<AndroidFrameState>;
type SourceAction = AnyAction<AndroidFrameState>;
import type { FakeAdbDevice } from '../../support/fakeAdbDevice.ts';
import { signal, startAdb, type AdbHarness } from './harness.ts';

let h: AdbHarness;
let source: AndroidSource;
let frames = 0;

beforeEach(async () => {
  h = await startAdb();
  source = createAndroidSource({ settings: {}, env: h.env });
});
afterEach(async () => {
  await source.dispose?.();
  await h.stop();
});

const opts = (over: Partial<CaptureOptions> = {}): CaptureOptions => ({ maxDimension: 1000, format: 'jpeg', quality: 70, raw: false, signal: signal(), ...over });

/** What the core does with a capture: fit and encode it, and store the mapping (scale = source width / image width). */
async function capture(target: string): Promise<{ frame: StoredFrame; jpeg: Buffer }> {
  const cap = await source.screen.capture(target, opts());
  const img = await fitAndEncode(cap.pixels!, { maxDimension: 1000 }, { format: 'jpeg', quality: 70 });
  const frame: StoredFrame = {
    ref: `frame-${++frames}`,
    source: 'android',
    target: cap.target,
    capturedAt: new Date().toISOString(),
    image: { width: img.width, height: img.height },
    sourceSize: cap.sourceSize,
    origin: cap.origin,
    scale: cap.sourceSize.width / img.width,
    state: cap.state,
  };
  return { frame, jpeg: img.data };
}

const tap = (frame: StoredFrame, image: Point): SourceAction => ({ kind: 'click', target: frame.target, frame, point: imageToSource(frame, image), button: 'left', clicks: 1, modifiers: [] });

async function rejection(p: Promise<unknown>): Promise<SightlineError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  if (!isSightlineError(e)) throw new Error(`expected a SightlineError, got ${String(e)}`);
  return e;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** A field has focus and the keyboard is up, as after the user tapped it. */
function focusField(d: FakeAdbDevice): void {
  d.ui.focused = 'com.example.fake:id/query';
  d.ui.imeShown = true;
}

async function pixel(jpeg: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

describe('targets and health', () => {
  it('starts from a bare environment: finds adb on PATH, reports the server, then the device', async () => {
    const before = await source.health();
    expect(before).toMatchObject({ available: true, degraded: true });
    expect(before.checks?.map((c) => [c.id, c.status])).toEqual([
      ['adb-found', 'ok'],
      ['adb-server', 'ok'],
      ['devices-authorised', 'warning'],
    ]);
    expect(before.checks?.[1]?.detail).toContain(`127.0.0.1:${h.port}`);
    const d = await h.device();
    const after = await source.health();
    expect(after).toMatchObject({ available: true, degraded: false });
    expect(after.checks?.[2]).toMatchObject({ status: 'ok', detail: `1 ready: ${d.serial}` });
  });

  it('lists serial, model, state, screen size, density and rotation', async () => {
    const d = await h.device({ width: 1080, height: 2400, density: 420, rotation: 1, model: 'Pixel Test' });
    const [t] = await source.screen.listTargets(signal());
    expect(t).toMatchObject({
      id: `android:${d.serial}`,
      source: 'android',
      kind: 'device',
      state: 'device',
      bounds: { x: 0, y: 0, width: 2400, height: 1080 },
      app: 'com.example.fake',
      details: { serial: d.serial, package: 'com.example.fake', model: 'Pixel Test', screen: { width: 2400, height: 1080 }, naturalSize: { width: 1080, height: 2400 }, density: 420, rotation: 1 },
    });
    expect(t!.title).toContain('Pixel Test');
  });

  it('lists unauthorised and offline devices with a hint instead of failing, and refuses to use them', async () => {
    const ok = await h.device();
    const locked = await h.device({ authorized: false }, 'unauthorized');
    const silent = await h.device({ respond: false }, 'offline');
    const targets = await source.screen.listTargets(signal());
    const by = (serial: string) => targets.find((t) => t.id === `android:${serial}`)!;
    expect(by(ok.serial).state).toBe('device');
    expect(by(locked.serial)).toMatchObject({ state: 'unauthorized', hint: expect.stringMatching(/Allow USB debugging/) });
    expect(by(silent.serial)).toMatchObject({ state: 'offline', hint: expect.stringMatching(/adb reconnect/) });
    expect((await rejection(source.screen.capture(`android:${locked.serial}`, opts()))).code).toBe('DEVICE_UNAUTHORIZED');
    expect((await rejection(source.screen.capture(`android:${silent.serial}`, opts()))).code).toBe('DEVICE_OFFLINE');
    expect((await rejection(source.screen.capture('android:nope:1', opts()))).code).toBe('TARGET_NOT_FOUND');
    const health = await source.health();
    expect(health).toMatchObject({ available: true, degraded: true });
    expect(health.checks?.[2]).toMatchObject({ status: 'warning', detail: `Not authorised: ${locked.serial}` });

    // Accepting the prompt makes it usable without restarting anything.
    locked.authorize();
    await h.waitForState(locked.serial, 'device');
    await expect(source.screen.capture(`android:${locked.serial}`, opts())).resolves.toMatchObject({ sourceSize: { width: 1080, height: 2400 } });
  });

  it('tracks devices as they come and go', async () => {
    expect(await source.screen.listTargets(signal())).toEqual([]);
    const d = await h.device();
    await expect.poll(async () => (await source.screen.listTargets(signal())).map((t) => t.id)).toEqual([`android:${d.serial}`]);
    await h.adb('disconnect', d.serial);
    await expect.poll(async () => (await source.screen.listTargets(signal())).length).toBe(0);
    expect((await rejection(source.screen.capture(`android:${d.serial}`, opts()))).code).toBe('TARGET_NOT_FOUND');
  });
});

describe('capture and mapping', () => {
  it('captures 1080×2400 as a 450×1000 frame; a tap at image (200, 500) arrives at device (480, 1200)', async () => {
    const d = await h.device({ width: 1080, height: 2400 });
    const cap = await source.screen.capture(`android:${d.serial}`, opts());
    expect(cap).toMatchObject({ target: `android:${d.serial}`, sourceSize: { width: 1080, height: 2400 }, origin: { x: 0, y: 0 }, dpi: 420, state: { width: 1080, height: 2400, rotation: 0 } });
    expect(cap.pixels).toMatchObject({ kind: 'encoded' });
    expect((await sharp(cap.pixels!.data).metadata()).format).toBe('png');
    // Labelled with the app in front (the text index keeps excluded apps out by it).
    expect(cap.label).toEqual({ app: 'com.example.fake' });
    d.foreground = 'com.x8bit.bitwarden';
    expect((await source.screen.capture(`android:${d.serial}`, opts())).label).toEqual({ app: 'com.x8bit.bitwarden' });
    d.foreground = 'com.example.fake';

    const { frame, jpeg } = await capture(`android:${d.serial}`);
    expect(frame.image).toEqual({ width: 450, height: 1000 });
    expect(frame.scale).toBe(2.4);
    // The device's red square is top-left and its blue one bottom-right: the image is upright.
    expect(await pixel(jpeg, 10, 10)).toEqual([expect.closeTo(220, -1.5), expect.closeTo(20, -1.5), expect.closeTo(20, -1.5)]);
    expect(await pixel(jpeg, 440, 990)).toEqual([expect.closeTo(20, -1.5), expect.closeTo(20, -1.5), expect.closeTo(220, -1.5)]);

    await expect(source.screen.checkFrame(frame, signal())).resolves.toEqual({});
    const details = await source.input.perform(ready(tap(frame, { x: 200, y: 500 })), signal());
    expect(d.inputs).toEqual([{ kind: 'tap', x: 480, y: 1200 }]);
    expect(details.command).toBe('input tap 480 1200');
  });

  it('follows a rotation: the old frame is stale, the new one maps in landscape', async () => {
    const d = await h.device({ width: 1080, height: 2400 });
    const target = `android:${d.serial}`;
    const { frame: portrait } = await capture(target);
    d.rotate(1);
    const stale = await rejection(source.screen.checkFrame(portrait, signal()));
    expect(stale.code).toBe('FRAME_STALE');
    expect(stale.message).toMatch(/rotated from 0° to 90°/);
    expect(stale.hint).toMatch(/Capture .* again/);

    const { frame: landscape, jpeg } = await capture(target);
    expect(landscape.sourceSize).toEqual({ width: 2400, height: 1080 });
    expect(landscape.image).toEqual({ width: 1000, height: 450 });
    expect(landscape.state).toMatchObject({ rotation: 1 });
    expect(await pixel(jpeg, 5, 5)).toEqual([expect.closeTo(220, -1.5), expect.closeTo(20, -1.5), expect.closeTo(20, -1.5)]);
    await expect(source.screen.checkFrame(landscape, signal())).resolves.toEqual({});
    await source.input.perform(ready(tap(landscape, { x: 500, y: 200 })), signal());
    expect(d.inputs).toEqual([{ kind: 'tap', x: 1200, y: 480 }]);

    // Turning upside-down keeps the size but still makes the frame stale.
    d.rotate(3);
    expect((await rejection(source.screen.checkFrame(landscape, signal()))).message).toMatch(/90° to 270°/);
  });

  it('reads the rotation from dumpsys display when the input dump has none', async () => {
    const d = await h.device({ rotationIn: 'display', rotation: 1 });
    const { frame } = await capture(`android:${d.serial}`);
    expect(frame.state).toMatchObject({ rotation: 1 });
    d.rotate(3);
    expect((await rejection(source.screen.checkFrame(frame, signal()))).code).toBe('FRAME_STALE');
    expect(d.services.filter((s) => s.includes('dumpsys display')).length).toBeGreaterThan(0);
  });

  it('sees a changed screen size (wm size override) as stale', async () => {
    const d = await h.device({ width: 1080, height: 2400 });
    const { frame } = await capture(`android:${d.serial}`);
    d.naturalWidth = 720;
    d.naturalHeight = 1600;
    expect((await rejection(source.screen.checkFrame(frame, signal()))).message).toMatch(/1080x2400 to 720x1600/);
  });
});

describe('failures leave nothing behind', () => {
  // /tmp is shared with other test runs: look for what this code could have left.
  const tmpEntries = () => new Set(readdirSync(tmpdir()).filter((n) => /\.(png|jpe?g|xml|tmp)$|screencap|screenshot|uiautomator|window_dump/i.test(n)));

  it('a device unplugged in the middle of a capture: DEVICE_OFFLINE, no frame, no temp file', async () => {
    const d = await h.device({ width: 1080, height: 2400 });
    const target = `android:${d.serial}`;
    const before = tmpEntries();
    d.failNext(/screencap/, { disconnectAfter: 200_000, refuse: true });
    const e = await rejection(source.screen.capture(target, opts()));
    expect(e.code).toBe('DEVICE_OFFLINE');
    expect(e.message).toMatch(/disconnected|offline/);
    expect(e.hint).toMatch(/Reconnect/);
    expect([...tmpEntries()].filter((n) => !before.has(n))).toEqual([]);
    expect([...d.files.keys()]).toEqual([]);

    // Plugged back in, the same target works again.
    d.reconnectable();
    await h.adb('connect', d.serial);
    await h.waitForState(d.serial, 'device');
    await expect(source.screen.capture(target, opts())).resolves.toMatchObject({ sourceSize: { width: 1080, height: 2400 } });
  });

  it('an empty or truncated PNG is SCREENSHOT_FAILED, never a partial frame', async () => {
    const d = await h.device();
    const target = `android:${d.serial}`;
    const png = await d.screenPng();
    d.failNext(/screencap/, { output: '' });
    expect((await rejection(source.screen.capture(target, opts()))).message).toMatch(/0 bytes/);
    d.failNext(/screencap/, { output: png.subarray(0, Math.floor(png.length / 2)) });
    const e = await rejection(source.screen.capture(target, opts()));
    expect(e.code).toBe('SCREENSHOT_FAILED');
    expect(e.message).toMatch(/truncated/);
    d.failNext(/screencap/, { output: 'Error: Could not take screenshot (secure window)\n' });
    expect((await rejection(source.screen.capture(target, opts()))).message).toMatch(/did not return a PNG: "Error: Could not take screenshot/);
  });

  it('a cancelled capture stops and frees the device', async () => {
    const d = await h.device();
    const target = `android:${d.serial}`;
    d.failNext(/screencap/, { hang: true });
    const ac = new AbortController();
    const before = d.services.length;
    const pending = source.screen.capture(target, opts({ signal: ac.signal }));
    // Cancel once the device is stuck in that screencap (not before it arrives, on a loaded machine).
    const deadline = Date.now() + 10_000;
    while (!d.services.slice(before).some((sv) => /screencap/.test(sv)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    setTimeout(() => ac.abort(), 100);
    expect((await rejection(pending)).code).toBe('CANCELLED');
    await expect(source.screen.capture(target, opts())).resolves.toBeTruthy();
  });
});

describe('input', () => {
  it('types tricky text exactly: quotes, $, backticks, ;, &, |, %s, backslashes, newlines, tabs', async () => {
    const d = await h.device();
    focusField(d);
    const text = `it's "q" $HOME \`id\` $(id) a;b&c|d >x <y *? # ! \\ 100%s 50% done %%s\nline 2\tcol`;
    await source.input.perform(ready({ kind: 'type_text', target: `android:${d.serial}`, text }), signal());
    const typed = d.inputs.map((i) => (i.kind === 'text' ? i.text : i.kind === 'key' ? ({ 66: '\n', 61: '\t' } as Record<number, string>)[i.code] : '?')).join('');
    expect(typed).toBe(text);
    expect(d.inputs.every((i) => i.kind !== 'text' || i.via === 'input')).toBe(true);
  });

  it('refuses non-ASCII text without ADB Keyboard (nothing typed), and types it through ADB Keyboard when selected', async () => {
    const plain = await h.device();
    focusField(plain);
    const e = await rejection(source.input.perform(ready({ kind: 'type_text', target: `android:${plain.serial}`, text: 'Grüße 👋' }), signal()));
    expect(e.code).toBe('UNSUPPORTED');
    expect(e.message).toMatch(/"ü" \(U\+00FC\).*"ß".*"👋"/);
    expect(e.hint).toMatch(/ADB Keyboard/);
    expect(plain.inputs).toEqual([]);

    const withIme = await h.device({ adbKeyboard: true });
    focusField(withIme);
    await source.input.perform(ready({ kind: 'type_text', target: `android:${withIme.serial}`, text: 'Grüße 👋\nça va' }), signal());
    expect(withIme.inputs).toEqual([{ kind: 'text', text: 'Grüße 👋\nça va', via: 'adbkeyboard' }]);
  });

  it('types at a point after tapping it', async () => {
    const d = await h.device();
    const { frame } = await capture(`android:${d.serial}`);
    await source.input.perform(ready({ kind: 'type_text', target: frame.target, frame, point: imageToSource(frame, { x: 100, y: 100 }), text: 'hi there' }), signal());
    expect(d.inputs).toEqual([{ kind: 'tap', x: 240, y: 240 }, { kind: 'text', text: 'hi there', via: 'input' }]);
  });

  it('long press, swipe and scroll in device pixels', async () => {
    const d = await h.device();
    const { frame } = await capture(`android:${d.serial}`);
    await source.input.perform(ready({ ...tap(frame, { x: 200, y: 500 }), holdMs: 800 } as SourceAction), signal());
    await source.input.perform(ready({ kind: 'swipe', target: frame.target, frame, point: imageToSource(frame, { x: 225, y: 800 }), to: imageToSource(frame, { x: 225, y: 200 }), durationMs: 250 }), signal());
    await source.input.perform(ready({ kind: 'scroll', target: frame.target, frame, deltaX: 0, deltaY: 600 }), signal());
    expect(d.inputs).toEqual([
      { kind: 'swipe', x1: 480, y1: 1200, x2: 480, y2: 1200, ms: 800 },
      { kind: 'swipe', x1: 540, y1: 1920, x2: 540, y2: 480, ms: 250 },
      { kind: 'swipe', x1: 540, y1: 1200, x2: 540, y2: 600, ms: 300 },
    ]);
    const right = await rejection(source.input.perform(ready({ ...tap(frame, { x: 1, y: 1 }), button: 'right' } as SourceAction), signal()));
    expect(right.code).toBe('UNSUPPORTED');
  });

  it('maps key names to key events', async () => {
    const d = await h.device();
    const target = `android:${d.serial}`;
    for (const key of ['BACK', 'HOME', 'ENTER', 'DEL', 'TAB', 'APP_SWITCH', 'POWER', 'VOLUME_UP', 'KEYCODE_CAMERA', '4', 'Escape', 'ArrowDown']) {
      await source.input.perform(ready({ kind: 'press_key', target, key }), signal());
    }
    await source.input.perform(ready({ kind: 'press_key', target, key: 'Control+A' }), signal());
    expect(d.inputs).toEqual([...[4, 3, 66, 67, 61, 187, 26, 24, 27, 4, 111, 20].map((code) => ({ kind: 'key', code })), { kind: 'combo', codes: [113, 29] }]);
    const bad = await rejection(source.input.perform(ready({ kind: 'press_key', target, key: 'Hyper' }), signal()));
    expect(bad).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('Unknown key "Hyper"') });
  });

  it('reports a failing input command instead of pretending', async () => {
    const d = await h.device();
    d.failNext(/input keyevent/, { output: 'Error: Injecting to another application requires INJECT_EVENTS permission\n' });
    const e = await rejection(source.input.perform(ready({ kind: 'press_key', target: `android:${d.serial}`, key: 'BACK' }), signal()));
    expect(e.message).toMatch(/INJECT_EVENTS/);
  });
});

describe('UI tree', () => {
  it('dumps, parses and a tap by node id lands on the node centre; nothing stays on the device', async () => {
    const d = await h.device({ width: 1080, height: 2400 });
    const { frame } = await capture(`android:${d.serial}`);
    const nodes = await source.tree.uiTree(frame.target, frame, { maxNodes: 100, signal: signal() });
    const ok = nodes.find((n) => n.name === 'OK')!;
    expect(ok).toMatchObject({ role: 'android.widget.Button', clickable: true, enabled: true, bounds: { x: 324, y: 1080, width: 432, height: 240 }, attributes: { 'resource-id': 'com.example.fake:id/ok' } });
    expect(nodes.find((n) => n.name === 'Settings')).toMatchObject({ enabled: false, attributes: { 'content-desc': 'Settings' } });
    expect(nodes.find((n) => n.role === 'android.widget.TextView')!.name).toBe('Wi-Fi & “network” é');
    expect(d.services.find((s) => s.includes('uiautomator dump'))).toMatch(/^shell:uiautomator dump \/data\/local\/tmp\/sightline-ui-[0-9a-f]+\.xml && cat .*; rm -f /);
    expect([...d.files.keys()]).toEqual([]);

    // As the core does it: the node's centre in device pixels, never rounded through the image.
    // The frame is 450×1000 (2.4 device px per image px): "Settings" [864,2040][1026,2208] is off
    // that grid, so a centre rounded in image pixels would land 2 px left of 945.
    expect(frame.scale).toBeCloseTo(2.4, 6);
    const settings = nodes.find((n) => n.name === 'Settings')!;
    for (const n of [ok, settings]) {
      const centre = { x: n.bounds.x + n.bounds.width / 2, y: n.bounds.y + n.bounds.height / 2 };
      await source.input.perform(ready({ kind: 'click', target: frame.target, frame, point: centre, button: 'left', clicks: 1, modifiers: [] }), signal());
    }
    expect(d.inputs).toEqual([
      { kind: 'tap', x: 540, y: 1200 },
      { kind: 'tap', x: 945, y: 2124 },
    ]);
  });

  it('filters by query, caps the count, and refuses a tree for a frame taken in another rotation', async () => {
    const d = await h.device();
    const { frame } = await capture(`android:${d.serial}`);
    expect((await source.tree.uiTree(frame.target, frame, { maxNodes: 100, query: 'fake:id/', signal: signal() })).map((n) => n.name)).toEqual(['', 'OK']);
    expect(await source.tree.uiTree(frame.target, frame, { maxNodes: 2, signal: signal() })).toHaveLength(2);
    d.rotate(1);
    expect((await rejection(source.tree.uiTree(frame.target, frame, { maxNodes: 100, signal: signal() }))).code).toBe('FRAME_STALE');
    expect([...d.files.keys()]).toEqual([]);
  });

  it('says what uiautomator said when the dump fails, and removes its file', async () => {
    const d = await h.device();
    const { frame } = await capture(`android:${d.serial}`);
    d.failNext(/uiautomator dump/, { output: 'ERROR: could not get idle state.\n' });
    const e = await rejection(source.tree.uiTree(frame.target, frame, { maxNodes: 100, signal: signal() }));
    expect(e.message).toMatch(/could not get idle state/);
    expect([...d.files.keys()]).toEqual([]);
  });
});

describe('several devices and concurrency', () => {
  it('drives two devices at once, each with its own size and input', async () => {
    const a = await h.device({ width: 1080, height: 2400, model: 'Phone A' });
    const b = await h.device({ width: 720, height: 1280, model: 'Phone B' });
    focusField(a);
    focusField(b);
    const targets = await source.screen.listTargets(signal());
    expect(targets.map((t) => [t.details?.model, t.bounds?.width, t.bounds?.height]).sort()).toEqual([
      ['Phone A', 1080, 2400],
      ['Phone B', 720, 1280],
    ]);
    const [fa, fb] = await Promise.all([capture(`android:${a.serial}`), capture(`android:${b.serial}`)]);
    expect(fa.frame.image).toEqual({ width: 450, height: 1000 });
    expect(fb.frame.image).toEqual({ width: 563, height: 1000 });
    await Promise.all([
      source.input.perform(ready(tap(fa.frame, { x: 200, y: 500 })), signal()),
      source.input.perform(ready(tap(fb.frame, { x: 200, y: 500 })), signal()),
      source.input.perform(ready({ kind: 'type_text', target: `android:${a.serial}`, text: 'on A' }), signal()),
      source.input.perform(ready({ kind: 'type_text', target: `android:${b.serial}`, text: 'on B' }), signal()),
    ]);
    expect(a.inputs).toEqual([{ kind: 'tap', x: 480, y: 1200 }, { kind: 'text', text: 'on A', via: 'input' }]);
    // 720/563 device px per image px: (200, 500) → (255.77, 639.43), pressed there (input takes floats).
    expect(b.inputs).toEqual([{ kind: 'tap', x: 255.77, y: 639.43 }, { kind: 'text', text: 'on B', via: 'input' }]);
  });

  it('serialises calls on one device: a tap waits for the capture in progress', async () => {
    const d = await h.device();
    const target = `android:${d.serial}`;
    const { frame } = await capture(target);
    d.log.length = 0;
    d.failNext(/screencap/, { delayMs: 300 });
    let captured = 0;
    const cap = source.screen.capture(target, opts()).then(() => (captured = performance.now()));
    const act = source.input.perform(ready(tap(frame, { x: 10, y: 10 })), signal());
    await Promise.all([cap, act]);
    const tapOpened = d.log.find((l) => l.service.includes('input tap'))!.opened;
    const screencapAnswered = d.log.find((l) => l.service.includes('screencap'))!.answered!;
    expect(tapOpened).toBeGreaterThan(screencapAnswered);
    expect(captured).toBeGreaterThan(0);
  });
});

describe('finding adb', () => {
  it('ADB_NOT_FOUND lists where it looked and how to install platform-tools', async () => {
    const missing = createAndroidSource({ settings: { adbPath: '/nowhere/adb' }, env: h.env });
    const health = await missing.health();
    expect(health).toMatchObject({ available: false, reason: expect.stringMatching(/not found/) });
    expect(health.checks?.[0]).toMatchObject({ id: 'adb-found', status: 'error', detail: 'Looked in: /nowhere/adb', fix: expect.stringMatching(/platform-tools/) });
    const e = await rejection(missing.screen.listTargets(signal()));
    expect(e.code).toBe('ADB_NOT_FOUND');
    expect(e.message).toContain('/nowhere/adb');
    expect(e.hint).toMatch(/apt install adb/);

    const bare = createAndroidSource({ settings: {}, env: { HOME: h.home, PATH: '/nonexistent' }, exists: () => false });
    const e2 = await rejection(bare.screen.listTargets(signal()));
    expect(e2.message).toMatch(/looked in: \/nonexistent\/adb, .*\/usr\/lib\/android-sdk\/platform-tools\/adb/);
  });

  it('starts the adb server on ANDROID_ADB_SERVER_PORT when none runs', async () => {
    const h2 = await startAdb({ startServer: false });
    try {
      expect(await listening(h2.port)).toBe(false);
      const src = createAndroidSource({ settings: { adbPath: '/usr/lib/android-sdk/platform-tools/adb' }, env: h2.env });
      const health = await src.health();
      expect(health.checks?.[0]?.detail).toMatch(/\(settings\)/);
      expect(health.checks?.[1]).toMatchObject({ status: 'ok', detail: expect.stringContaining(`:${h2.port}`) });
      expect(await listening(h2.port)).toBe(true);
      await src.dispose?.();
    } finally {
      await h2.stop();
    }
  });
});
