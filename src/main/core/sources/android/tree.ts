/** A device's UI tree: `uiautomator dump` to a random temp file, read and removed in one shell command. */
import { randomBytes } from 'node:crypto';
import { SightlineError } from '../../../../shared/errors.ts';
import type { SourceUiNode, StoredFrame, TreePort, UiTreeOptions } from '../source.ts';
import { TIMEOUT, type AndroidDevices } from './devices.ts';
import { ROTATION_DEG, staleError, type AndroidFrameState } from './screen.ts';
import { matchesQuery, parseUiDump } from './uiDump.ts';

export class AndroidTree implements TreePort<AndroidFrameState> {
  readonly #d: AndroidDevices;

  constructor(devices: AndroidDevices) {
    this.#d = devices;
  }

  async uiTree(target: string, frame: StoredFrame<AndroidFrameState>, options: UiTreeOptions): Promise<SourceUiNode[]> {
    const serial = this.#d.serial(target);
    return this.#d.exclusive(serial, options.signal, async () => {
      // A unique file, read and removed in the same command: nothing stays on the device.
      const file = `/data/local/tmp/sightline-ui-${randomBytes(6).toString('hex')}.xml`;
      let out: string;
      try {
        out = await this.#d.shell(serial, `uiautomator dump ${file} && cat ${file}; rm -f ${file}`, options.signal, 'uiautomator dump', TIMEOUT.uiautomator);
      } catch (e) {
        throw await this.#d.explain(serial, e, (msg) => new SightlineError('INTERNAL', `uiautomator dump on android:${serial} failed: ${msg}.`, 'Retry when the screen is idle (animations and video block uiautomator).'));
      }
      const state = frame.state;
      let dump: ReturnType<typeof parseUiDump>;
      try {
        dump = parseUiDump(out, frame.sourceSize);
      } catch (e) {
        throw new SightlineError('INTERNAL', `${(e as Error).message}.`, 'Retry when the screen is idle (animations and video block uiautomator).');
      }
      if (dump.rotation !== undefined && typeof state.rotation === 'number' && dump.rotation !== state.rotation) {
        throw staleError(frame, `the device rotated from ${ROTATION_DEG[state.rotation]} to ${ROTATION_DEG[dump.rotation] ?? dump.rotation}`);
      }
      let nodes = dump.nodes;
      const query = options.query;
      if (query) nodes = nodes.filter((n) => matchesQuery(n, query));
      return nodes.slice(0, options.maxNodes);
    });
  }
}
