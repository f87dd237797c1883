/**
 * A device's UI tree (`uiautomator dump`) with node ids that are handles: an id stays valid for as
 * long as its element exists (dumps.ts, handles.ts), and the input port acts on it by finding the
 * element again.
 */
import type { SourceUiNode, StoredFrame, TreePort, UiTreeOptions } from '../source.ts';
import type { AndroidDevices } from './devices.ts';
import type { DeviceDumps } from './dumps.ts';
import { ROTATION_DEG, staleError, type AndroidFrameState } from './screen.ts';
import { matchesQuery } from './uiDump.ts';

export class AndroidTree implements TreePort<AndroidFrameState> {
  readonly #d: AndroidDevices;
  readonly #dumps: DeviceDumps;

  constructor(devices: AndroidDevices, dumps: DeviceDumps) {
    this.#d = devices;
    this.#dumps = dumps;
  }

  async uiTree(target: string, frame: StoredFrame<AndroidFrameState>, options: UiTreeOptions): Promise<SourceUiNode[]> {
    const ref = this.#d.device(target);
    return this.#d.exclusive(ref, options.signal, async () => {
      const dump = await this.#dumps.raw(ref, options.signal, frame.sourceSize);
      const state = frame.state;
      if (dump.rotation !== undefined && typeof state.rotation === 'number' && dump.rotation !== state.rotation) {
        throw staleError(frame, `the device rotated from ${ROTATION_DEG[state.rotation]} to ${ROTATION_DEG[dump.rotation] ?? dump.rotation}`);
      }
      // Handles come from the whole dump; the query only filters what is returned.
      let nodes = this.#dumps.adopt(ref, dump, frame.sourceSize).nodes;
      const query = options.query;
      if (query) nodes = nodes.filter((n) => matchesQuery(n, query));
      return nodes.slice(0, options.maxNodes);
    });
  }
}
