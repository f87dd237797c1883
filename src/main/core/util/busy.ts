/**
 * "Agents are working": captures and actions in flight, and when the last one ended. Background
 * work (the text indexer) waits for a quiet moment so it never competes with an agent for the
 * CPU; the agent's own calls never wait for it.
 */
export class BusySignal {
  #active = 0;
  #lastEnd = 0;
  readonly #waiters = new Set<() => void>();

  /** Mark one piece of agent work as started; call the returned function when it ends. */
  begin(): () => void {
    this.#active++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#active--;
      this.#lastEnd = performance.now();
      if (this.#active === 0) for (const w of [...this.#waiters]) w();
    };
  }

  /** Run `work` marked as agent work. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    const end = this.begin();
    try {
      return await work();
    } finally {
      end();
    }
  }

  get busy(): boolean {
    return this.#active > 0;
  }

  /**
   * Resolves once nothing has been in flight for `quietMs` (at once when that is so already), or
   * after `maxWaitMs` at the latest; false when `signal` aborts first.
   */
  quiet(quietMs: number, signal: AbortSignal, maxWaitMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    const started = performance.now();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        signal.removeEventListener('abort', onAbort);
        resolve(ok);
      };
      const onAbort = (): void => done(false);
      const check = (): void => {
        clearTimeout(timer);
        const now = performance.now();
        if (now - started >= maxWaitMs) return done(true);
        if (this.#active > 0) {
          // Woken by the last end; also by the deadline.
          if (Number.isFinite(maxWaitMs)) timer = later(check, maxWaitMs - (now - started));
          return;
        }
        const left = quietMs - (now - this.#lastEnd);
        if (left <= 0) return done(true);
        timer = later(check, Math.min(left, maxWaitMs - (now - started)));
      };
      if (signal.aborted) return resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(check);
      // Never synchronously: whoever just finished gets its answer out first.
      timer = later(check, 0);
    });
  }
}

/** A timer that does not keep the process alive (background work waits on these). */
function later(f: () => void, ms: number): NodeJS.Timeout {
  const t = setTimeout(f, Math.max(0, ms));
  t.unref();
  return t;
}
