/**
 * The fake device's commands: what `sh -c` finds on a phone's PATH (screencap, wm, dumpsys,
 * getprop, settings, content, pm/cmd package, am, monkey, input, uiautomator) plus the toybox
 * utilities of shell.ts. Input events are recorded and applied to the screen's views (ui.ts).
 */
import { broadcast, runInput, type RecordedInput } from './input.ts';
import type { FakePackages } from './packages.ts';
import { dumpsys, type ScreenHost } from './screen.ts';
import { contentCommand, settingsCommand, wmUserRotation, type SettingsHost } from './settings.ts';
import { coreutil, type CmdResult } from './shell.ts';
import type { FakeUi } from './ui.ts';

export interface CommandHost extends ScreenHost, SettingsHost {
  readonly files: Map<string, Buffer>;
  readonly inputs: RecordedInput[];
  readonly apps: FakePackages;
  readonly ui: FakeUi;
  readonly model: string;
  readonly density: number;
  readonly bootId: string;
  screenPng(): Promise<Buffer>;
  uiXml(): string;
}

const UI_DEFAULT = '/sdcard/window_dump.xml';
const BOOT_ID = '/proc/sys/kernel/random/boot_id';

const ok = (s: string | Buffer): CmdResult => ({ out: Buffer.from(s), err: '', rc: 0 });
const fail = (msg: string, rc = 1): CmdResult => ({ out: Buffer.alloc(0), err: msg, rc });

export async function runCommand(d: CommandHost, argv: string[], stdin: Buffer): Promise<CmdResult> {
  const [name, ...args] = argv as [string, ...string[]];
  if (name === 'cat' && args[0] === BOOT_ID) return ok(`${d.bootId}\n`);
  if (name === 'sleep') {
    const s = Number(args[0]);
    if (!Number.isFinite(s) || s < 0) return fail(`sleep: invalid number '${args[0] ?? ''}'\n`);
    await new Promise((r) => setTimeout(r, Math.min(s, 5) * 1000));
    return ok('');
  }
  const builtin = coreutil(name, args, stdin, d.files);
  if (builtin) return builtin;
  switch (name.replace(/^\/system\/bin\//, '')) {
    case 'screencap':
      return args.includes('-p') ? ok(await d.screenPng()) : fail('screencap: raw output not supported by the fake\n');
    case 'wm':
      if (args[0] === 'size') return ok(`Physical size: ${d.naturalWidth}x${d.naturalHeight}\n`);
      if (args[0] === 'density') return ok(`Physical density: ${d.density}\n`);
      if (args[0] === 'user-rotation') return wmUserRotation(d, args.slice(1));
      return fail(`Error: unknown command '${args[0] ?? ''}'\n`, 255);
    case 'dumpsys':
      return ok(args[0] === 'input_method' ? d.ui.imeDump() : dumpsys(d, args[0] ?? ''));
    case 'getprop': {
      const props: Record<string, string> = {
        'ro.product.model': d.model,
        'ro.product.manufacturer': 'Sightline',
        'ro.build.version.release': String(d.sdk - 20),
        'ro.build.version.sdk': String(d.sdk),
      };
      if (args[0]) return ok(`${props[args[0]] ?? ''}\n`);
      return ok(Object.entries(props).map(([k, v]) => `[${k}]: [${v}]\n`).join(''));
    }
    case 'settings':
      return settingsCommand(d, args);
    case 'content':
      return contentCommand(d, args);
    case 'pm':
      return d.apps.pm(args);
    case 'cmd':
      if (args[0] === 'package') return d.apps.pm(args.slice(1));
      return fail(`cmd: Can't find service: ${args[0] ?? ''}\n`, 20);
    case 'am':
      return args[0] === 'broadcast' ? applied(d, () => broadcast(args, d.adbKeyboard, d.inputs)) : d.apps.am(args);
    case 'monkey':
      return d.apps.monkey(args);
    case 'input':
      // What older `input` lacks: motionevent came with Android 11, draganddrop with Android 7.
      if ((d.sdk < 30 && args.includes('motionevent')) || (d.sdk < 24 && args.includes('draganddrop'))) return fail(`Error: Unknown command: ${args.find((a) => a === 'motionevent' || a === 'draganddrop')}\n`);
      return applied(d, () => runInput(args, d.inputs));
    case 'uiautomator': {
      if (args[0] !== 'dump') return fail('Usage: uiautomator <subcommand> [options]\n');
      const file = args.filter((a) => !a.startsWith('--'))[1] ?? UI_DEFAULT;
      const xml = d.uiXml();
      if (file === '/dev/tty') return ok(`${xml}UI hierchary dumped to: /dev/tty\n`);
      d.files.set(file, Buffer.from(xml));
      return ok(`UI hierchary dumped to: ${file}\n`);
    }
    default:
      return fail(`/system/bin/sh: ${name}: inaccessible or not found\n`, 127);
  }
}

/** Run an input command and let the screen react to what it recorded. */
function applied(d: CommandHost, run: () => CmdResult): CmdResult {
  const before = d.inputs.length;
  const r = run();
  for (const i of d.inputs.slice(before)) d.ui.apply(i);
  return r;
}
