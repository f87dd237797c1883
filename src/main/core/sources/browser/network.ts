/** wait_for networkIdle: no request of the tab in flight for `idleMs`, from our session's Network events. */
import { SightlineError } from '../../../../shared/errors.ts';
import type { NetworkPort } from '../source.ts';
import type { BrowserFleet } from './fleet.ts';

export class BrowserNetwork implements NetworkPort {
  readonly #fleet: BrowserFleet;

  constructor(fleet: BrowserFleet) {
    this.#fleet = fleet;
  }

  async networkIdle(target: string, o: { idleMs: number; timeoutMs: number; signal: AbortSignal }): Promise<{ waitedMs: number }> {
    if (!(o.idleMs >= 0) || !(o.timeoutMs >= 0)) throw new SightlineError('INVALID_ARGUMENT', 'idleMs and timeoutMs must be 0 or more.', 'Use e.g. idleMs: 500, timeoutMs: 10000.');
    const tabs = this.#fleet.forTarget(target);
    // Found under the tab's lock, waited for without it: other calls on the tab go on meanwhile.
    const tab = await tabs.withTab(target, o.signal, 'dialog', async (t) => {
      await t.watch.trackNetwork();
      return t;
    });
    const w = tab.watch;
    const started = Date.now();
    // Quiet for idleMs from now on too: a request started just before this call may not be reported yet.
    const idle = await w.until(() => w.inflight === 0 && w.networkQuietFor(started) >= o.idleMs, o.timeoutMs, o.signal, 25);
    if (o.signal.aborted) throw new SightlineError('CANCELLED', 'The call was cancelled.', 'Call again if you still need it.');
    if (!idle) {
      throw new SightlineError('TIMEOUT', `${target} still had ${w.inflight} request${w.inflight === 1 ? '' : 's'} in flight (or one ended less than ${o.idleMs} ms ago) after ${o.timeoutMs} ms.`, 'Wait longer (timeoutMs), or wait for a text instead: some pages keep a connection open.');
    }
    return { waitedMs: Date.now() - started };
  }
}
