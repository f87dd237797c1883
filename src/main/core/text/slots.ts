/**
 * A CPU budget as a number of slots: at most `size` pages are read at once, and a waiting page of
 * a better priority (lower number: live frames before the archive) gets the next free slot.
 */
export class Slots {
  #size: number;
  #used = 0;
  readonly #waiting: { priority: number; grant: () => void }[] = [];
  readonly #idle = new Set<() => void>();

  constructor(size: number) {
    this.#size = Math.max(1, Math.floor(size));
  }

  get used(): number {
    return this.#used;
  }

  /** Change the budget; pages already running finish. */
  resize(size: number): void {
    this.#size = Math.max(1, Math.floor(size));
    this.#next();
  }

  /** A release function once a slot is free; undefined when `signal` aborts first. */
  acquire(priority: number, signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const entry = {
        priority,
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          this.#used++;
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.#used--;
            this.#next();
          });
        },
      };
      const onAbort = (): void => {
        const i = this.#waiting.indexOf(entry);
        if (i >= 0) this.#waiting.splice(i, 1);
        resolve(undefined);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      // Stable: equal priorities keep their order.
      let at = this.#waiting.findIndex((w) => w.priority > priority);
      if (at < 0) at = this.#waiting.length;
      this.#waiting.splice(at, 0, entry);
      this.#next();
    });
  }

  /** Resolves once no slot is in use. */
  drain(): Promise<void> {
    if (this.#used === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.add(resolve));
  }

  #next(): void {
    while (this.#used < this.#size && this.#waiting.length) (this.#waiting.shift() as { grant: () => void }).grant();
    if (this.#used === 0) {
      for (const r of this.#idle) r();
      this.#idle.clear();
    }
  }
}

/** Sleep, waking early (quietly) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    t.unref();
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
