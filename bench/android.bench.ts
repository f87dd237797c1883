/**
 * Android capture against a fake 1080×2400 device behind the real adb server (Debian's adb 29):
 * Sightline (adbkit `exec:screencap -p` + the core's fit/encode at defaults) against the floor
 * (`adb exec-out screencap -p` through the adb binary + sharp resize + JPEG q70) in the same run,
 * bytes and vision tokens against the raw PNG, the cost of the staleness check and a tap, and
 * @mobilenext/mobile-mcp's screenshot side by side when it runs.
 */
import { ready } from '../src/main/core/sources/aim.ts';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { estimateVisionTokens } from '../src/main/core/image/fit.ts';
import { fitAndEncode } from '../src/main/core/image/pipeline.ts';
import { createAndroidSource } from '../src/main/core/sources/android/androidSource.ts';
import type { AndroidFrameState } from '../src/main/core/sources/android/screen.ts';
import type { CaptureOptions, StoredFrame } from '../src/main/core/sources/source.ts';
import { startAdb } from '../tests/integration/android/harness.ts';
import type { FakeAdbDevice } from '../tests/support/fakeAdbDevice.ts';
import type { BenchRow, BenchSection } from './types.ts';

const N = Number(process.env.BENCH_N ?? 30);
const WARMUP = 3;
const ADB = '/usr/lib/android-sdk/platform-tools/adb';

const p50 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (n: number, d = 1): number => Math.round(n * 10 ** d) / 10 ** d;

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

export default async function run(): Promise<BenchSection> {
  const h = await startAdb();
  const notes: string[] = [];
  const rows: BenchRow[] = [];
  const source = createAndroidSource({ settings: { adbPath: ADB }, env: h.env });
  try {
    const device = await h.device({ width: 1080, height: 2400 });
    await device.screenPng();
    const target = `android:${device.serial}`;
    const signal = new AbortController().signal;
    const opts: CaptureOptions = { maxDimension: 1000, format: 'jpeg', quality: 70, raw: false, signal };

    const sightline = async () => {
      const cap = await source.screen.capture(target, opts);
      const img = await fitAndEncode(cap.pixels!, { maxDimension: opts.maxDimension }, { format: 'jpeg', quality: 70 });
      return { png: cap.pixels!.data, img, cap };
    };
    const floor = async () => {
      const png = await new Promise<Buffer>((resolve, reject) =>
        execFile(ADB, ['-P', String(h.port), '-s', device.serial, 'exec-out', 'screencap', '-p'], { env: h.env, encoding: 'buffer', maxBuffer: 64 << 20 }, (e, out) => (e ? reject(e) : resolve(out))),
      );
      return sharp(png).resize(450, 1000).jpeg({ quality: 70 }).toBuffer();
    };

    for (let i = 0; i < WARMUP; i++) {
      await sightline();
      await floor();
    }
    const ours: number[] = [];
    const theirs: number[] = [];
    let last: Awaited<ReturnType<typeof sightline>> | undefined;
    for (let i = 0; i < N; i++) {
      // Alternate the order so neither side always runs on a warmer cache.
      const runOurs = async () => {
        const r = await time(sightline);
        ours.push(r.ms);
        last = r.value;
      };
      const runFloor = async () => theirs.push((await time(floor)).ms);
      if (i % 2) {
        await runOurs();
        await runFloor();
      } else {
        await runFloor();
        await runOurs();
      }
    }
    const ratio = p50(ours) / p50(theirs);
    rows.push(
      { metric: 'capture 1080×2400 → 450×1000 JPEG q70, p50', value: round(p50(ours)), unit: 'ms', ratio: round(ratio, 2), against: 'adb exec-out screencap -p + sharp resize + JPEG q70', target: '≤ 1.2×', pass: ratio <= 1.2 },
      { metric: 'floor: adb exec-out + sharp, p50', value: round(p50(theirs)), unit: 'ms' },
    );
    const { png, img, cap } = last!;
    const rawTokens = estimateVisionTokens({ width: 1080, height: 2400 });
    const tokens = estimateVisionTokens(img);
    rows.push(
      { metric: 'image bytes (450×1000 JPEG)', value: img.data.length, unit: 'B', ratio: round(img.data.length / png.length, 3), against: `raw PNG ${png.length} B` },
      { metric: 'vision tokens (≈ w×h/750)', value: tokens, unit: 'tokens', ratio: round(tokens / rawTokens, 3), against: `raw PNG 1080×2400: ${rawTokens}` },
    );

    // What an action costs on top: the staleness check (one shell call) and the tap itself.
    const frame: StoredFrame<AndroidFrameState> = { ref: 'bench', source: 'android', target, capturedAt: new Date().toISOString(), image: { width: img.width, height: img.height }, sourceSize: cap.sourceSize, origin: cap.origin, scale: cap.sourceSize.width / img.width, state: cap.state };
    const checks: number[] = [];
    const taps: number[] = [];
    for (let i = 0; i < N; i++) {
      checks.push((await time(() => source.screen.checkFrame(frame, signal))).ms);
      taps.push((await time(() => source.input.perform(ready({ kind: 'click', target, frame, point: { x: 480, y: 1200 }, button: 'left', clicks: 1, modifiers: [] }, 'none'), signal))).ms);
    }
    rows.push({ metric: 'checkFrame (wm size + rotation), p50', value: round(p50(checks)), unit: 'ms' }, { metric: 'tap (input tap, after none), p50', value: round(p50(taps)), unit: 'ms' });
    notes.push(
      `Fake device (tests/support/fakeAdbDevice.ts) behind the real adb server (Debian adb 29.0.6); PNG ${png.length} B; N=${N} after ${WARMUP} warm-ups, alternating order. The floor pays for starting the adb client process; Sightline talks to the server over a socket (adbkit).`,
      'The fake answers at once, so these are host-side costs: on a phone, screencap\'s own time adds the same to both sides, and the geometry read (wm size + dumpsys input) runs in parallel with it. checkFrame (one shell call before every action) is not cached: a rotation between two actions must be seen.',
    );

    const peer = await mobileMcp(h.env, device, Math.min(N, 10)).catch((e: unknown) => ({ error: (e as Error).message }));
    if ('error' in peer) {
      notes.push(`@mobilenext/mobile-mcp: not measured (${peer.error}).`);
    } else {
      rows.push({
        metric: 'mobile-mcp mobile_take_screenshot, p50',
        value: round(peer.p50),
        unit: 'ms',
        ratio: round(p50(ours) / peer.p50, 2),
        against: 'Sightline capture ÷ mobile-mcp',
      });
      rows.push({ metric: 'mobile-mcp image bytes', value: peer.bytes, unit: 'B', against: `${peer.width}×${peer.height} ${peer.mime}` });
      rows.push({ metric: 'mobile-mcp vision tokens', value: estimateVisionTokens(peer), unit: 'tokens', ratio: round(estimateVisionTokens(peer) / tokens, 2), against: 'mobile-mcp ÷ Sightline' });
      notes.push(
        `@mobilenext/mobile-mcp 1.0.4 (MOBILEMCP_LEGACY_ROBOT=1, ANDROID_HOME=/usr/lib/android-sdk) on the same fake device, N=${peer.n}: its legacy robot ignores maxSize and returns the full ${peer.width}×${peer.height} ${peer.mime} (no scaling, so nothing to map, at ${round(estimateVisionTokens(peer) / tokens, 1)}× the tokens); its taps take screen coordinates, never mapped from an image. Turned to landscape it told the model: "${peer.landscapeText}"`,
      );
    }
    return { title: 'Android (ADB)', rows, notes };
  } finally {
    await source.dispose?.();
    await h.stop();
  }
}

/** Spawn mobile-mcp over stdio with the SDK client and time its screenshot tool. */
async function mobileMcp(env: NodeJS.ProcessEnv, device: FakeAdbDevice, n: number): Promise<{ p50: number; bytes: number; width: number; height: number; mime: string; n: number; landscapeText: string }> {
  const serial = device.serial;
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve('@mobilenext/mobile-mcp/lib/index.js', { paths: [join(import.meta.dirname, 'node_modules')] });
  } catch {
    throw new Error('not installed in bench/node_modules (run the bench install)');
  }
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const home = mkdtempSync(join(tmpdir(), 'sightline-bench-mobilemcp-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry],
    env: { ...(env as Record<string, string>), HOME: env.HOME ?? home, ANDROID_HOME: '/usr/lib/android-sdk', MOBILEMCP_LEGACY_ROBOT: '1', MOBILEMCP_DISABLE_TELEMETRY: '1' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sightline-bench', version: '0' });
  try {
    await client.connect(transport);
    const shot = async () => {
      const r = (await client.callTool({ name: 'mobile_take_screenshot', arguments: { device: serial } }, undefined, { timeout: 60_000 })) as { isError?: boolean; content: { type: string; data?: string; mimeType?: string; text?: string }[] };
      if (r.isError) throw new Error(r.content.map((c) => c.text).join(' ').slice(0, 300));
      const image = r.content.find((c) => c.type === 'image');
      if (!image?.data) throw new Error('no image in its answer');
      return { data: Buffer.from(image.data, 'base64'), mime: image.mimeType ?? '?', text: r.content.find((c) => c.type === 'text')?.text ?? '' };
    };
    await shot();
    const times: number[] = [];
    let last = await shot();
    for (let i = 0; i < n; i++) {
      const r = await time(shot);
      times.push(r.ms);
      last = r.value;
    }
    const meta = await sharp(last.data).metadata();
    // What it tells the model once the phone is turned (it reads `wm size`, which does not turn).
    device.rotate(1);
    const landscapeText = (await shot()).text;
    device.rotate(0);
    return { p50: p50(times), bytes: last.data.length, width: meta.width ?? 0, height: meta.height ?? 0, mime: last.mime, n, landscapeText };
  } finally {
    await client.close().catch(() => {});
    rmSync(home, { recursive: true, force: true });
  }
}
