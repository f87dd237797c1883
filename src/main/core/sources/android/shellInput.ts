/** Running `input` command lines on a device, each checked for its exit status and error output. */
import { SightlineError } from '../../../../shared/errors.ts';
import type { AndroidDevices, DeviceRef } from './devices.ts';
import { unknownInputCommand } from './gestures.ts';
import { batchCommands } from './inputText.ts';

/** Run commands joined into few shell lines (`&&`); a failure names the command and what the device said. */
export async function runInput(d: AndroidDevices, ref: DeviceRef, commands: string[], signal: AbortSignal, label: string): Promise<void> {
  d.touch(ref);
  for (const line of batchCommands(commands)) {
    let out: string;
    try {
      out = await d.shell(ref, `${line}; echo "__sl_rc=$?"`, signal, label);
    } catch (e) {
      throw await d.explain(ref, e, (msg) => new SightlineError('INTERNAL', `${label} on ${ref.id} failed: ${msg}.`, 'Check that the device is unlocked, then try again.'));
    }
    const m = /__sl_rc=(\d+)\s*$/.exec(out);
    const said = out.replace(/__sl_rc=\d+\s*$/, '').trim();
    if (!m || m[1] !== '0' || /^(Error|Exception)\b/m.test(said)) {
      const unknown = unknownInputCommand(said);
      throw new SightlineError(
        unknown ? 'UNSUPPORTED' : 'INTERNAL',
        `${label} on ${ref.id} failed${m ? ` (exit ${m[1]})` : ''}: ${said.split('\n').slice(0, 3).join(' ') || 'no output'}.`,
        unknown ? 'This Android version lacks that input command (key combinations need Android 12+, motion events Android 11+).' : 'Check the device is unlocked and the app is in front.',
        { unknownCommand: unknown },
      );
    }
  }
}
