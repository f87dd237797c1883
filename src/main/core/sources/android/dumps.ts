/**
 * UI dumps of a device, with node ids that stay valid (handles.ts): `uiautomator dump` to a random
 * temp file read and removed in one shell command, parsed, adopted by the device's handles. The
 * tree port, the text port and every action on a node read the screen through here, so they
 * share one set of ids and the latest dump (what `hit` reports for a click at a point).
 *
 * Cost: on the fake device a dump is a few ms plus one adb round trip; on a phone `uiautomator
 * dump` takes 1–3 s (it waits for the UI to be idle, and fails with "could not get idle state"
 * under endless animations), which is why actions read a dump only where they need one.
 */
import { randomBytes } from 'node:crypto';
import { SightlineError } from '../../../../shared/errors.ts';
import type { Size } from '../../../../shared/frame.ts';
import { TIMEOUT, type AndroidDevices, type DeviceRef } from './devices.ts';
import { NodeHandles, type HandledDump } from './handles.ts';
import { intersects, parseUiDump, type UiDump } from './uiDump.ts';

/** How old a dump may be to stand for the screen now, when no input was sent since it was read. */
export const REUSE_MS = 1000;

export class DeviceDumps {
  readonly #d: AndroidDevices;
  readonly #handles = new Map<string, NodeHandles>();
  /** Per device: the dump (seq) the next action may use instead of reading again. */
  readonly #reusable = new Map<string, number>();

  constructor(devices: AndroidDevices) {
    this.#d = devices;
  }

  /** The device's handles (kept while the source lives: a device that reconnects keeps its ids). */
  handles(ref: DeviceRef): NodeHandles {
    let h = this.#handles.get(ref.id);
    if (!h) {
      h = new NodeHandles();
      this.#handles.set(ref.id, h);
    }
    return h;
  }

  last(ref: DeviceRef): HandledDump | undefined {
    return this.#handles.get(ref.id)?.last();
  }

  /**
   * A dump the text port read for the action that follows (a click by text reads the screen,
   * then acts on the node it found: one dump for both, not two), if it is at most `maxAgeMs` old
   * and no input was sent since. Handed out once.
   */
  recent(ref: DeviceRef, maxAgeMs = REUSE_MS): HandledDump | undefined {
    const last = this.last(ref);
    const marked = this.#reusable.get(ref.id);
    this.#reusable.delete(ref.id);
    return last && last.seq === marked && last.at > this.#d.touchedAt(ref) && Date.now() - last.at <= maxAgeMs ? last : undefined;
  }

  /** `uiautomator dump`, parsed (the caller holds the device's lock). */
  async raw(ref: DeviceRef, signal: AbortSignal, screen?: Size): Promise<UiDump> {
    // A unique file, read and removed in the same command: nothing stays on the device.
    const file = `/data/local/tmp/sightline-ui-${randomBytes(6).toString('hex')}.xml`;
    let out: string;
    try {
      out = await this.#d.shell(ref, `uiautomator dump ${file} && cat ${file}; rm -f ${file}`, signal, 'uiautomator dump', TIMEOUT.uiautomator);
    } catch (e) {
      throw await this.#d.explain(ref, e, (msg) => new SightlineError('INTERNAL', `uiautomator dump on ${ref.id} failed: ${msg}.`, 'Retry when the screen is idle (animations and video block uiautomator).'));
    }
    try {
      return parseUiDump(out, screen);
    } catch (e) {
      throw new SightlineError('INTERNAL', `${(e as Error).message}.`, 'Retry when the screen is idle (animations and video block uiautomator).');
    }
  }

  /** Adopt a parsed dump: its nodes get their handle ids. */
  adopt(ref: DeviceRef, dump: UiDump, screen: Size): HandledDump {
    return this.handles(ref).adopt(dump.nodes, { screen, ...(dump.rotation !== undefined ? { rotation: dump.rotation } : {}) });
  }

  /** Read the screen now: the dump and the display size in parallel, adopted (the caller holds the lock). */
  async dump(ref: DeviceRef, signal: AbortSignal, o: { forNextAction?: boolean } = {}): Promise<HandledDump> {
    const [display, raw] = await Promise.all([this.#d.display(ref, signal), this.raw(ref, signal).catch((e: unknown) => e as Error)]);
    if (raw instanceof Error) throw raw;
    // The screen size came with the dump, not before it: set inViewport now.
    for (const n of raw.nodes) n.inViewport = intersects(n.bounds, display.size);
    const dump = this.adopt(ref, raw, display.size);
    if (o.forNextAction) this.#reusable.set(ref.id, dump.seq);
    else this.#reusable.delete(ref.id);
    return dump;
  }
}
