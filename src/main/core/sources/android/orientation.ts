/**
 * Screen orientation: names for the display's rotation and the `settings` commands that read and
 * fix it. Pure. Android keeps two settings: `accelerometer_rotation` (auto-rotate; 1 = follow the
 * sensor) and `user_rotation` (0–3 quarter turns, used only while auto-rotate is 0), so a fixed
 * orientation turns auto-rotate off first. Which rotation is "portrait" depends on the device's
 * natural orientation (WindowManager's DisplayRotation): rotation 0 is portrait on a phone and
 * landscape on most tablets and TVs.
 */
import type { Size } from '../../../../shared/frame.ts';
import { SightlineError } from '../../../../shared/errors.ts';
import type { Rotation } from './parse.ts';

export const ORIENTATIONS = ['portrait', 'landscape', 'reverse-portrait', 'reverse-landscape'] as const;
export type Orientation = (typeof ORIENTATIONS)[number];

/** The natural orientation from `wm size`'s physical size (DisplayInfo.natural). */
export type Natural = 'portrait' | 'landscape';

export function naturalOf(size: Size): Natural {
  return size.width > size.height ? 'landscape' : 'portrait';
}

/**
 * Orientation per rotation, for AOSP's default `config_reverseDefaultRotation=false`: a phone
 * turned a quarter counter-clockwise (ROTATION_90) is landscape; a landscape-first tablet
 * stands up as portrait at ROTATION_270.
 */
const BY_ROTATION: Record<Natural, readonly Orientation[]> = {
  portrait: ['portrait', 'landscape', 'reverse-portrait', 'reverse-landscape'],
  landscape: ['landscape', 'reverse-portrait', 'reverse-landscape', 'portrait'],
};

export function orientationOf(rotation: Rotation, natural: Natural = 'portrait'): Orientation {
  return BY_ROTATION[natural][rotation]!;
}

export function rotationFor(orientation: Orientation, natural: Natural = 'portrait'): Rotation {
  const r = BY_ROTATION[natural].indexOf(orientation);
  if (r < 0) throw new SightlineError('INVALID_ARGUMENT', `orientation ${JSON.stringify(orientation)} is not one of ${ORIENTATIONS.join(', ')}.`, `Use one of ${ORIENTATIONS.join(', ')}.`);
  return r as Rotation;
}

/** Two lines: auto-rotate (0/1), then the user rotation (0–3, or `null` when never set). */
export const ORIENTATION_SETTINGS_COMMAND = 'settings get system accelerometer_rotation; settings get system user_rotation';

export interface OrientationSettings {
  autoRotate: boolean;
  /** undefined when the device never stored one (`null`; Android then uses 0). */
  userRotation?: Rotation;
}

export function parseOrientationSettings(text: string): OrientationSettings {
  const [auto, user] = text.replace(/\r/g, '').split('\n').map((l) => l.trim());
  if (auto === undefined || !/^(\d+|null)$/.test(auto)) throw new Error(`no accelerometer_rotation in ${JSON.stringify(text.slice(0, 200))}`);
  const u = Number(user);
  // Android reads the setting as an int: anything but 0 is on; unset (`null`) is off.
  return { autoRotate: auto !== 'null' && Number(auto) !== 0, ...(u === 0 || u === 1 || u === 2 || u === 3 ? { userRotation: u } : {}) };
}

/** Auto-rotate off, then the rotation: the screen turns at once unless the app in front fixes its own. */
export function setOrientationCommand(orientation: Orientation, natural: Natural = 'portrait'): string {
  return `settings put system accelerometer_rotation 0 && settings put system user_rotation ${rotationFor(orientation, natural)}`;
}

/** Give rotation back to the sensor (what the quick-settings tile does). */
export function autoRotateCommand(on: boolean): string {
  return `settings put system accelerometer_rotation ${on ? 1 : 0}`;
}

/**
 * After setOrientationCommand, the display's rotation (parseRotation) must be the one asked for;
 * an app that declares its own screenOrientation keeps the screen where it wants it.
 */
export function checkOrientationApplied(wanted: Orientation, rotation: Rotation | undefined, natural: Natural = 'portrait'): void {
  if (rotation === undefined || rotation === rotationFor(wanted, natural)) return;
  throw new SightlineError(
    'UNSUPPORTED',
    `The screen stayed ${orientationOf(rotation, natural)} (asked for ${wanted}): the app in front fixes its orientation.`,
    'The setting is stored and applies to apps that rotate; switch to such an app (the home screen rotates on most tablets, not on most phones).',
  );
}
