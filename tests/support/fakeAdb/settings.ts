/**
 * The fake device's `settings`, `content insert` on the settings provider and `wm user-rotation`:
 * a key-value store whose rotation keys turn the screen as WindowManager does (auto-rotate off:
 * the screen follows `user_rotation`; turning it off locks the screen to `user_rotation`).
 */
import type { CmdResult } from './shell.ts';

export interface SettingsHost {
  rotation: 0 | 1 | 2 | 3;
  userRotation: 0 | 1 | 2 | 3;
  autoRotate: boolean;
  adbKeyboard: boolean;
  /** Other values, as `namespace/key`. */
  readonly settings: Map<string, string>;
}

/** `settings [--user U] get|put|delete NAMESPACE KEY [VALUE]`; the rotation keys turn the screen. */
export function settingsCommand(d: SettingsHost, argv: string[]): CmdResult {
  const args = argv.filter((a, i) => a !== '--user' && argv[i - 1] !== '--user');
  const [verb, ns, key, value] = args;
  if (!verb || !ns || !key || !['system', 'secure', 'global'].includes(ns)) return { out: Buffer.alloc(0), err: 'usage:  settings [--user <USER_ID> | current] get namespace key\n', rc: 255 };
  const id = `${ns}/${key}`;
  if (verb === 'get') {
    if (id === 'secure/default_input_method') {
      return { out: Buffer.from(d.adbKeyboard ? 'com.android.adbkeyboard/.AdbIME\n' : 'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\n'), err: '', rc: 0 };
    }
    const v = id === 'system/accelerometer_rotation' ? String(Number(d.autoRotate)) : (d.settings.get(id) ?? (id === 'system/user_rotation' ? String(d.userRotation) : 'null'));
    return { out: Buffer.from(`${v}\n`), err: '', rc: 0 };
  }
  if (verb === 'delete') return { out: Buffer.from(`Deleted ${Number(d.settings.delete(id))} rows\n`), err: '', rc: 0 };
  if (verb !== 'put' || value === undefined) return { out: Buffer.alloc(0), err: 'usage:  settings [--user <USER_ID> | current] put namespace key value\n', rc: 255 };
  putSetting(d, id, value);
  return { out: Buffer.alloc(0), err: '', rc: 0 };
}

export function putSetting(d: SettingsHost, id: string, value: string): void {
  const n = Number(value);
  if (id === 'system/accelerometer_rotation') {
    d.autoRotate = Number.isInteger(n) && n !== 0;
    // Turning auto-rotate off locks the screen to the user rotation.
    if (!d.autoRotate) d.rotation = d.userRotation;
    return;
  }
  if (id === 'system/user_rotation' && (n === 0 || n === 1 || n === 2 || n === 3) && value.trim() !== '') {
    d.settings.delete(id);
    d.userRotation = n;
    if (!d.autoRotate) d.rotation = n;
    return;
  }
  d.settings.set(id, value); // stored as given (an invalid user_rotation turns nothing)
}

/** `content insert --uri content://settings/system --bind name:s:KEY --bind value:i:N` (mobile-mcp's way). */
export function contentCommand(d: SettingsHost, args: string[]): CmdResult {
  const uri = args[args.indexOf('--uri') + 1] ?? '';
  const binds = new Map(args.filter((_, i) => args[i - 1] === '--bind').map((b) => [b.split(':')[0]!, b.split(':').slice(2).join(':')]));
  const ns = /^content:\/\/settings\/(system|secure|global)$/.exec(uri)?.[1];
  if (args[0] !== 'insert' || !ns || !binds.has('name') || !binds.has('value')) return { out: Buffer.alloc(0), err: `Error while accessing provider:${uri}\n`, rc: 255 };
  putSetting(d, `${ns}/${binds.get('name')!}`, binds.get('value')!);
  return { out: Buffer.alloc(0), err: '', rc: 0 };
}

/** `wm user-rotation [-d DISPLAY] lock|free [ROTATION]` (Android 12+). */
export function wmUserRotation(d: SettingsHost, argv: string[]): CmdResult {
  const args = argv[0] === '-d' ? argv.slice(2) : argv;
  if (args[0] === 'free') putSetting(d, 'system/accelerometer_rotation', '1');
  else if (args[0] === 'lock') {
    if (args[1] !== undefined) putSetting(d, 'system/user_rotation', args[1]);
    putSetting(d, 'system/accelerometer_rotation', '0');
  } else return { out: Buffer.alloc(0), err: `Error: lock or free required, got ${args[0] ?? 'nothing'}\n`, rc: 255 };
  return { out: Buffer.alloc(0), err: '', rc: 0 };
}
