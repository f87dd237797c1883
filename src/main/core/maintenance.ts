/**
 * Housekeeping for a long-running process (the app, `serve`, an in-process `mcp`): retention now
 * and hourly, source health soon and every 30 s (tool lists follow sources that come and go), and
 * the text indexer in the background. Nothing runs until `start`.
 */
export interface MaintenanceDeps {
  /** Apply retention (throws when it cannot). */
  retention(): unknown;
  /** Check every source's health (tool lists and the status follow it). */
  health(): Promise<unknown>;
  indexer: { start(): void; stop(): Promise<void> };
  /** How long the indexer waits after start (clients are answered first). */
  indexerDelayMs?: number;
}

export class Maintenance {
  readonly #d: MaintenanceDeps;
  #indexing = false;
  #closed = false;

  constructor(deps: MaintenanceDeps) {
    this.#d = deps;
  }

  /** Whether the background indexer runs in this process (search reports its progress then). */
  get indexing(): boolean {
    return this.#indexing;
  }

  /** Start the timers; the returned function stops them (and the indexer). */
  start(say: (line: string) => void): () => void {
    const retention = (): void => {
      try {
        this.#d.retention();
      } catch (e) {
        say(`[sightline] retention: ${(e as Error).message}`);
      }
    };
    const health = (): void => void this.#d.health().catch((e: unknown) => say(`[sightline] health check: ${(e as Error).message}`));
    const startIndexer = (): void => {
      if (this.#closed) return;
      this.#indexing = true;
      this.#d.indexer.start();
    };
    retention();
    // The first health check waits a moment: clients get `initialize` and `tools/list`
    // answered before any source is loaded or probed (the indexer loads the archives: later still).
    const timers = [setTimeout(health, 200), setTimeout(startIndexer, this.#d.indexerDelayMs ?? 3000), setInterval(retention, 3600_000), setInterval(health, 30_000)];
    for (const t of timers) t.unref();
    return () => {
      timers.forEach((t) => clearTimeout(t));
      this.#indexing = false;
      void this.#d.indexer.stop();
    };
  }

  /** No indexer starts after this. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#indexing = false;
    await this.#d.indexer.stop();
  }
}
