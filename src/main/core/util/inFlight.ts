/**
 * Calls that ask for the same thing while it is being done share the one answer: eight
 * agents capturing the same tab get one screenshot, one catalog row. The shared work gets its
 * own abort signal, aborted only once every caller waiting for it has given up; a caller
 * that gives up alone is answered CANCELLED at once while the others keep waiting.
 */
import { SightlineError } from '../../../shared/errors.ts';

interface Entry<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiting: number;
}

export class InFlight<T> {
  readonly #entries = new Map<string, Entry<T>>();

  /** How many distinct jobs are running (for tests and the activity view). */
  get size(): number {
    return this.#entries.size;
  }

  run(key: string, signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (signal?.aborted) return Promise.reject(cancelled());
    let entry = this.#entries.get(key);
    if (!entry) {
      const controller = new AbortController();
      const created: Entry<T> = {
        controller,
        waiting: 0,
        promise: Promise.resolve()
          .then(() => work(controller.signal))
          .finally(() => {
            if (this.#entries.get(key) === created) this.#entries.delete(key);
          }),
      };
      // The shared promise is awaited through each caller's own promise below.
      created.promise.catch(() => undefined);
      this.#entries.set(key, created);
      entry = created;
    }
    const e = entry;
    e.waiting++;
    if (!signal) return e.promise.finally(() => void e.waiting--);
    return new Promise<T>((resolve, reject) => {
      const leave = (): void => {
        signal.removeEventListener('abort', onAbort);
        e.waiting--;
      };
      const onAbort = (): void => {
        leave();
        // Nobody is left to use the answer: stop the work (its row is never written).
        if (e.waiting === 0) e.controller.abort(signal.reason);
        reject(cancelled());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      e.promise.then(
        (v) => {
          if (signal.aborted) return;
          leave();
          resolve(v);
        },
        (err: unknown) => {
          if (signal.aborted) return;
          leave();
          reject(err);
        },
      );
    });
  }
}

function cancelled(): SightlineError {
  return new SightlineError('CANCELLED', 'The call was cancelled.', 'Call again if you still need it.');
}
