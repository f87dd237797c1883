/**
 * Pure parsers for what a device prints: `wm size`, `wm density`, the rotation in
 * `dumpsys input`, `getprop` values and the PNG `screencap -p` writes. Tested on captured strings.
 */
import type { Size } from '../../../../shared/frame.ts';

export type Rotation = 0 | 1 | 2 | 3;

export interface DisplayInfo {
  /** Size in the natural orientation (what `wm size` reports; the override wins). */
  natural: Size;
  /** Size in the current orientation (what `screencap` and `input tap` use). */
  size: Size;
  density?: number;
  /** Surface rotation in quarter turns; undefined when the device does not say. */
  rotation?: Rotation;
}

/**
 * One shell call reads the geometry: `wm size` never changes with rotation, so the rotation
 * comes from the input viewport (Android 13+ dropped `SurfaceOrientation`). The density is
 * only read when asked for (each `wm` starts a process on the device).
 */
export function displayCommand(options: { density: boolean }): string {
  return `wm size; ${options.density ? 'wm density; ' : ''}dumpsys input | grep -E 'SurfaceOrientation|Viewport'`;
}

export function parseDisplay(text: string): DisplayInfo {
  const natural = parseWmSize(text);
  if (!natural) throw new Error(`no screen size in ${JSON.stringify(text.slice(0, 200))}`);
  const rotation = parseRotation(text);
  const size = rotation !== undefined && rotation % 2 === 1 ? { width: natural.height, height: natural.width } : natural;
  const density = parseWmDensity(text);
  return { natural, size, rotation, ...(density !== undefined ? { density } : {}) };
}

/** `Physical size: 1080x2400` and, when set, `Override size: 720x1600` (which is what the screen uses). */
export function parseWmSize(text: string): Size | undefined {
  const pick = (label: string): Size | undefined => {
    const m = new RegExp(`${label} size:\\s*(\\d+)x(\\d+)`).exec(text);
    return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined;
  };
  return pick('Override') ?? pick('Physical');
}

export function parseWmDensity(text: string): number | undefined {
  const m = /Override density:\s*(\d+)/.exec(text) ?? /Physical density:\s*(\d+)/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * The built-in display's rotation: the INTERNAL viewport of display 0 (`Viewport INTERNAL:
 * displayId=0, …, orientation=1, …`, `orientation=ROTATION_90` on some builds), else the touch
 * mapper's `SurfaceOrientation: 1` (Android ≤ 12), else `mCurrentOrientation=1` (`dumpsys
 * display`, for images whose input dump has neither), else any viewport's orientation.
 */
export function parseRotation(text: string): Rotation | undefined {
  const lines = text.split('\n');
  const viewports = lines.filter((l) => /Viewport/.test(l) && /orientation=(\d|ROTATION_)/.test(l));
  const internal = viewports.find((l) => /INTERNAL/.test(l) && /displayId=0\b/.test(l)) ?? viewports.find((l) => /INTERNAL/.test(l) && !/displayId=-/.test(l));
  const fromViewport = (l: string | undefined): Rotation | undefined => {
    const m = l ? /orientation=(?:ROTATION_(0|90|180|270)|(\d))\b/.exec(l) : null;
    if (!m) return undefined;
    return asRotation(m[1] !== undefined ? Number(m[1]) / 90 : Number(m[2]));
  };
  const surface = /SurfaceOrientation:\s*(\d)/.exec(text);
  const display = /mCurrentOrientation=(\d)/.exec(text);
  return (
    fromViewport(internal) ??
    (surface ? asRotation(Number(surface[1])) : undefined) ??
    (display ? asRotation(Number(display[1])) : undefined) ??
    fromViewport(viewports[0])
  );
}

/** For devices whose `dumpsys input` shows no rotation. */
export const DISPLAY_ROTATION_COMMAND = "dumpsys display | grep -E 'mCurrentOrientation'";

function asRotation(n: number): Rotation | undefined {
  return n === 0 || n === 1 || n === 2 || n === 3 ? n : undefined;
}

/** The app in front, for the input allowlist and list_targets. */
export const FOCUS_COMMAND = "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'";

/**
 * The focused window's package (`mCurrentFocus=Window{f3e6c4 u0 com.android.settings/…Settings}`),
 * else the focused activity's (`mFocusedApp=ActivityRecord{2c7a u0 com.android.settings/.Settings t42}`,
 * for when a system window such as the notification shade has focus).
 */
export function parseForegroundPackage(text: string): string | undefined {
  const pkg = /^[A-Za-z][\w]*(\.[\w]+)+$/;
  for (const re of [/mCurrentFocus=Window\{\S+ \S+ ([^/}\s]+)\//, /mFocusedApp=.*?ActivityRecord\{\S+ (?:u\d+ )?([^/}\s]+)\//]) {
    const m = re.exec(text);
    if (m && pkg.test(m[1]!)) return m[1];
  }
  return undefined;
}

/** The focused activity as `pkg/.Activity` (`mFocusedApp=ActivityRecord{2c7a u0 pkg/.Main t42}`), else the focused window's. */
export function parseForegroundActivity(text: string): string | undefined {
  const m = /mFocusedApp=.*?ActivityRecord\{\S+ (?:u\d+ )?([\w.]+\/[\w.$]+)/.exec(text) ?? /mCurrentFocus=Window\{\S+ \S+ ([\w.]+\/[\w.$]+)\}/.exec(text);
  if (!m) return undefined;
  const [pkg, cls] = m[1]!.split('/') as [string, string];
  return `${pkg}/${cls.startsWith(`${pkg}.`) ? cls.slice(pkg.length) : cls}`;
}

/** `getprop a; getprop b; …` prints one value per line, in order. */
export function parseGetpropLines(text: string, keys: readonly string[]): Record<string, string> {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const out: Record<string, string> = {};
  keys.forEach((k, i) => {
    const v = lines[i]?.trim();
    if (v) out[k] = v;
  });
  return out;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PngCheck {
  /** The PNG itself (warnings some devices print before it, and bytes after IEND, removed). */
  data: Buffer;
  width: number;
  height: number;
}

/**
 * Accept only a whole PNG: signature, IHDR first, every chunk complete, IEND reached. An empty,
 * truncated or non-PNG `screencap` output is rejected with the reason (never a partial frame).
 * Some devices print linker warnings on the same stream first, so the signature is looked for
 * in the first few KiB.
 */
export function checkPng(buf: Buffer): PngCheck {
  if (buf.length === 0) throw new Error('screencap returned nothing (0 bytes)');
  const start = buf.subarray(0, 4096 + PNG_SIGNATURE.length).indexOf(PNG_SIGNATURE);
  if (start < 0) {
    const text = buf.subarray(0, 200).toString('utf8').replace(/[^\x20-\x7e\n]/g, '?').trim();
    throw new Error(`screencap did not return a PNG${text ? `: "${text}"` : ''}`);
  }
  let at = start + PNG_SIGNATURE.length;
  let width = 0;
  let height = 0;
  let first = true;
  for (;;) {
    if (at + 8 > buf.length) throw new Error(`the PNG is truncated (${buf.length - start} bytes, no IEND)`);
    const len = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const end = at + 12 + len;
    if (end > buf.length) throw new Error(`the PNG is truncated in its ${type} chunk (${buf.length - start} bytes)`);
    if (first) {
      if (type !== 'IHDR' || len < 8) throw new Error('the PNG has no IHDR header');
      width = buf.readUInt32BE(at + 8);
      height = buf.readUInt32BE(at + 12);
      if (!width || !height) throw new Error(`the PNG header says ${width}x${height}`);
      first = false;
    }
    at = end;
    if (type === 'IEND') return { data: start === 0 && end === buf.length ? buf : buf.subarray(start, end), width, height };
  }
}
