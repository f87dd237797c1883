/**
 * The text indexer: OCR of frames into the catalog's text index, in the background.
 *
 * - Live frames are queued from the core's `frame` event and read after the capture has
 *   answered (never inside it), when agents are quiet, or after `liveMaxWaitMs` at the latest.
 * - The archives are walked newest first in batches (archiveWalk.ts), resuming after a restart.
 *   Frames that have text already are skipped, so nothing is read twice.
 * - At most `ocr.cpuBudget` pages are read at once (live frames first), by the background OCR
 *   engine (low priority), and only while no capture or action is in flight.
 * - Frames of `ocr.excludeApps` are never read and get no row at all, not even their title.
 *   While that list is not empty, a frame whose app cannot be known (no app and no title: a
 *   whole display, an archive screenshot without its activity) is skipped as well: never guess.
 *   When the list gains a name, the text already indexed for it is deleted.
 * - A failure that may pass (a file away for a moment, a timeout, a full disk) is retried; only a
 *   frame whose file is bad (IMAGE_INVALID, PATH_REFUSED), or that failed MAX_ATTEMPTS times, is
 *   stored as unreadable (its title, app and document only).
 * - Each frame's text records the reader that wrote it; text an older reader wrote is read again
 *   once everything else is done (reread.ts), newest first, while search answers with it.
 */
import { SightlineError, isSightlineError } from '../../../shared/errors.ts';
import type { TextIndexStatus } from '../../../shared/api.ts';
import type { FrameTextEntry } from '../catalog/text.ts';
import type { FrameLabel, FrameRecord } from '../catalog/types.ts';
import { ArchiveWalks } from './archiveWalk.ts';
import { applyExclusions, skipReason, type Skip } from './exclusions.ts';
import { FrameReader, type FrameRead } from './frameReader.ts';
import { indexedText } from './indexText.ts';
import { archivesDone, searchable } from './indexProgress.ts';
import { DEFAULT_TIMING, type IndexerTiming, type TextIndexerDeps } from './indexerPorts.ts';
import { Reread, TEXT_READER } from './reread.ts';
import { Slots, sleep } from './slots.ts';

export type { IndexerArchive, IndexerTiming, TextIndexStore, TextIndexerDeps } from './indexerPorts.ts';

const MAX_QUEUE = 2000;
/** Reads of one frame that failed for a reason that may pass, before it is stored as unreadable. */
export const MAX_ATTEMPTS = 3;
/** Failures that say the file itself is bad: reading it again gives the same answer. */
const PERMANENT = new Set<string>(['IMAGE_INVALID', 'PATH_REFUSED']);
/** Nothing is wrong with the frame (OCR off, no engine, the archive away): the walk waits. */
const WAIT = new Set<string>(['UNSUPPORTED', 'SOURCE_UNAVAILABLE', 'SOURCE_DISABLED', 'CANCELLED']);
/** One start-to-stop of the indexer: its signal, and the live pages it started. */
interface Run {
  ctrl: AbortController;
  pages: Set<Promise<void>>;
  done: Promise<void>;
}

/** A failure that stops the walk for a while (nothing is marked done). */
class Pause extends Error {}

export class TextIndexer {
  readonly #d: TextIndexerDeps;
  readonly #t: IndexerTiming;
  readonly #slots = new Slots(1);
  /** Reads only what changed on a screen since its last frame read (when handed the frames' images). */
  readonly #reader: FrameReader | undefined;
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  readonly #walks: ArchiveWalks;
  #run: Run | undefined;
  /** Ends when every run stopped so far has ended. */
  #stopping: Promise<void> | undefined;
  /** start() was called after the last stop(). */
  #want = false;
  #wake: (() => void) | undefined;
  #dropped = false;
  #excluded = 0;
  #unlabeled = 0;
  readonly #attempts = new Map<string, number>();
  readonly #reread: Reread;
  #active = 0;
  #reason: string | undefined;
  #ownCount: { n: number; at: number } | undefined;
  #lastEmit = 0;
  #emitTimer: NodeJS.Timeout | undefined;

  constructor(deps: TextIndexerDeps) {
    this.#d = deps;
    this.#t = { ...DEFAULT_TIMING, ...deps.timing };
    this.#reader = deps.look ? new FrameReader(deps.look) : undefined;
    this.#reread = new Reread(deps.store);
    this.#walks = new ArchiveWalks({ store: deps.store, refresh: deps.refresh, read: (items, signal) => this.#readAll(items, signal), changed: () => this.#changed(), pollMs: this.#t.pollMs, batch: this.#t.batch });
  }

  get running(): boolean {
    return this.#run !== undefined;
  }

  /**
   * Start when the settings allow it (idempotent). A run being stopped ends first: the new one
   * starts after it (unless stop() is called again meanwhile).
   */
  start(): void {
    this.#want = true;
    this.#applyExclusions();
    this.#launch();
  }

  #launch(): void {
    if (!this.#want || this.#run || !this.#allowed()) return;
    if (this.#stopping) {
      void this.#stopping.then(() => this.#launch());
      return;
    }
    const ctrl = new AbortController();
    const pages = new Set<Promise<void>>();
    this.#reason = undefined;
    const run: Run = { ctrl, pages, done: Promise.resolve() };
    // The run ends when its loops have and every page it started has (its own, not a later run's).
    run.done = Promise.allSettled([this.#liveLoop(run), this.#backgroundLoop(ctrl.signal)]).then(async () => void (await Promise.allSettled([...pages])));
    this.#run = run;
    this.#changed();
  }

  /**
   * Stop the current run and wait until it, and any run stopped before, has ended: no page is
   * read and no catalog row written after this resolves.
   */
  stop(): Promise<void> {
    this.#want = false;
    const run = this.#run;
    if (!run) return this.#stopping ?? Promise.resolve();
    this.#run = undefined;
    run.ctrl.abort();
    this.#reader?.forget();
    this.#wake?.();
    const chain: Promise<void> = Promise.all([this.#stopping, run.done]).then(
      () => {
        clearTimeout(this.#emitTimer);
        this.#emitTimer = undefined;
        if (!this.#run) this.#changed(true);
      },
      (e: unknown) => this.#d.log(`[sightline] text index: stopping failed: ${(e as Error)?.message ?? String(e)}`),
    );
    this.#stopping = chain;
    void chain.then(() => {
      if (this.#stopping === chain) this.#stopping = undefined;
    });
    return chain;
  }

  /** The ocr settings changed: forget newly excluded apps, start, stop, or apply the new CPU budget. */
  async settingsChanged(): Promise<void> {
    this.#applyExclusions();
    if (!this.#allowed()) return this.stop();
    this.#slots.resize(this.#d.settings().cpuBudget);
    this.start();
  }

  /** Make the index agree with `ocr.excludeApps` (exclusions.ts). */
  #applyExclusions(): void {
    try {
      const n = applyExclusions(this.#d.store, this.#d.settings().excludeApps);
      if (n > 0) {
        this.#reader?.forget();
        this.#reread.recount();
        this.#d.log(`[sightline] text index: deleted the text of ${n} frame(s) of newly excluded apps (ocr.excludeApps)`);
        this.#changed();
      }
    } catch (e) {
      this.#d.log(`[sightline] text index: applying ocr.excludeApps failed: ${(e as Error)?.message ?? String(e)}`);
    }
  }

  #skip(label: FrameLabel | undefined): Skip | undefined {
    return skipReason(label, this.#d.settings().excludeApps);
  }

  #count(skip: Skip): void {
    if (skip === 'excluded') this.#excluded++;
    else this.#unlabeled++;
  }

  /** A frame was stored: queue it (no work here, so the capture answers first). */
  onFrame(f: FrameRecord): void {
    this.#ownCount = this.#ownCount ? { ...this.#ownCount, n: this.#ownCount.n + (f.external || f.parentRef ? 0 : 1) } : undefined;
    if (!this.#run || f.external || f.parentRef || this.#queued.has(f.ref)) return;
    if (this.#queue.length >= MAX_QUEUE) {
      // Caught up later from the catalog (newest first), like frames captured while the indexer was off.
      this.#dropped = true;
      return;
    }
    this.#queue.push(f.ref);
    this.#queued.add(f.ref);
    this.#wake?.();
    this.#changed();
  }

  status(): TextIndexStatus {
    const s = this.#d.settings();
    const total = this.#total();
    const out: TextIndexStatus = { state: 'idle', done: this.#d.store.count(), total, excluded: this.#excluded, unlabeled: this.#unlabeled, queued: this.#queue.length };
    if (!s.enabled || !s.index) {
      out.state = 'off';
      out.reason = !s.enabled ? 'OCR is turned off (ocr.enabled).' : 'Text indexing is turned off (ocr.index).';
    } else if (this.#reason) {
      out.state = 'paused';
      out.reason = this.#reason;
    } else if (this.#active > 0 || this.#queue.length > 0 || this.#reread.progress() || !archivesDone(this.#walks.extents, (name) => this.#walks.cursor(name))) {
      out.state = this.#d.busy.busy ? 'paused' : 'indexing';
      if (this.#d.busy.busy) out.reason = 'Agents are capturing or acting: the indexer waits for a quiet moment.';
    }
    Object.assign(out, searchable(this.#walks.extents, (name) => this.#walks.cursor(name)));
    const again = this.#reread.progress();
    if (again) out.reread = again;
    return out;
  }

  #allowed(): boolean {
    const s = this.#d.settings();
    return s.enabled && s.index;
  }

  // ── live frames ─────────────────────────────────────────────────────────────────────────

  async #liveLoop(run: Run): Promise<void> {
    const signal = run.ctrl.signal;
    while (!signal.aborted) {
      const ref = this.#queue.shift();
      if (ref === undefined) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
        continue;
      }
      // Waits for the capture (and whatever the agent does next) to finish first.
      const quiet = await this.#d.busy.quiet(this.#t.quietMs, signal, this.#t.liveMaxWaitMs);
      const release = quiet ? await this.#slots.acquire(0, signal) : undefined;
      if (!release) {
        // Stopped: the frame is left to the catch-up from the catalog (next run).
        this.#queued.delete(ref);
        this.#dropped = true;
        break;
      }
      const page = this.#page(ref, undefined, signal)
        .catch((e: unknown) => {
          // Not read now: the catch-up from the catalog tries it again.
          if (!signal.aborted) this.#dropped = true;
          this.#pause(e);
        })
        .finally(() => {
          this.#queued.delete(ref);
          run.pages.delete(page);
          release();
          this.#changed();
        });
      run.pages.add(page);
    }
  }

  // ── backlog and archives ────────────────────────────────────────────────────────────────

  async #backgroundLoop(signal: AbortSignal): Promise<void> {
    this.#slots.resize(this.#d.settings().cpuBudget);
    let ownDone = false;
    while (!signal.aborted) {
      try {
        if (!ownDone || this.#dropped) {
          this.#dropped = false;
          await this.#catchUpOwn(signal);
          ownDone = true;
        }
        let worked = false;
        const archives = await this.#d.archives();
        this.#walks.keepOnly(archives);
        for (const a of archives) {
          if (signal.aborted) break;
          if (await this.#walks.step(a, signal)) worked = true;
        }
        // With nothing new to read: what an older reader wrote, read again.
        if (!worked && !signal.aborted) worked = await this.#reread.step(this.#t.batch, (items) => this.#readAll(items, signal, true));
        this.#reason = undefined;
        this.#changed();
        if (!worked) await sleep(this.#t.pollMs, signal);
      } catch (e) {
        if (signal.aborted) break;
        this.#pause(e);
        await sleep(this.#t.retryMs, signal);
        this.#reason = undefined;
      }
    }
  }

  /** Own frames captured while the indexer was off (or dropped from a full queue), newest first. */
  async #catchUpOwn(signal: AbortSignal): Promise<void> {
    let before = Number.POSITIVE_INFINITY;
    for (;;) {
      const page = this.#d.store.unindexedOwn(before, this.#t.batch);
      if (page.length === 0 || signal.aborted) return;
      await this.#readAll(
        page.map((f) => ({ ref: f.ref, label: f.label ?? {} })),
        signal,
      );
      before = Date.parse((page[page.length - 1] as FrameRecord).capturedAt);
      // Pages whose frames are all skipped (no label, an excluded app) finish without waiting on
      // anything: yield between pages, or 100,000 of them hold the event loop (and every API
      // request behind it) for seconds.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Read every frame of a batch not read yet (`again`: read it even so), at most cpuBudget at
   * once; throws Pause when one must be retried. With the changed-region reader the batch is handed over whole: it compares
   * the frames first and reads what they need in as few OCR calls as fit (one slot for them all,
   * the engine's threads being the budget).
   */
  async #readAll(items: readonly { ref: string; label?: FrameLabel }[], signal: AbortSignal, again = false): Promise<void> {
    const done = again ? new Set<string>() : this.#d.store.indexed(items.map((i) => i.ref));
    const todo: { ref: string; label?: FrameLabel }[] = [];
    for (const item of items) {
      if (done.has(item.ref) || this.#queued.has(item.ref)) continue;
      // Skipped before waiting for a slot: nothing is read.
      const skip = this.#skip(item.label ?? this.#d.frames.find(item.ref)?.label);
      if (skip) {
        this.#count(skip);
        continue;
      }
      todo.push(item);
    }
    const group = this.#reader ? Math.max(1, todo.length) : 1;
    const jobs: Promise<void>[] = [];
    let failure: unknown;
    for (let i = 0; i < todo.length; i += group) {
      if (signal.aborted || failure) break;
      if (!(await this.#d.busy.quiet(this.#t.quietMs, signal))) break;
      const release = await this.#slots.acquire(1, signal);
      if (!release) break;
      const chunk = todo.slice(i, i + group);
      const reads = this.#reader?.readMany(
        chunk.map((c) => c.ref),
        signal,
      );
      jobs.push(
        Promise.all(chunk.map((item, k) => this.#page(item.ref, item.label, signal, reads?.[k]).catch((e: unknown) => void (failure ??= e)))).then(
          () => undefined,
          () => undefined,
        ).finally(release),
      );
    }
    await Promise.all(jobs);
    if (signal.aborted) throw new SightlineError('CANCELLED', 'The text indexer stopped.', 'It resumes where it stopped when started again.');
    if (failure) throw failure;
  }

  /** Read one frame and store its text (or skip it: excluded, gone, already there). */
  async #page(ref: string, label: FrameLabel | undefined, signal: AbortSignal, pending?: Promise<FrameRead>): Promise<void> {
    if (signal.aborted) return;
    const frame = this.#d.frames.find(ref);
    if (!frame) return;
    const shown = label ?? frame.label ?? {};
    const skip = this.#skip(shown);
    if (skip) {
      this.#count(skip);
      return;
    }
    this.#active++;
    this.#changed();
    let entry: Omit<FrameTextEntry, 'ref' | 'label'>;
    try {
      const got = pending ? await pending : this.#reader ? await this.#reader.read(ref, signal) : { ...indexedText((await this.#d.read(ref, signal)).items, frame), reuse: 'read' as const, screen: ref };
      entry = { text: got.text, boxes: got.boxes, status: 'read', reuse: got.reuse, screen: got.screen, reader: TEXT_READER };
      this.#attempts.delete(ref);
    } catch (e) {
      if (signal.aborted) throw e;
      const code = isSightlineError(e) ? e.code : 'INTERNAL';
      if (code === 'FRAME_NOT_FOUND') return;
      const msg = (e as Error)?.message ?? String(e);
      if (WAIT.has(code)) throw new Pause(msg, { cause: e });
      if (!PERMANENT.has(code)) {
        // May pass (the file away for a moment, a timeout, a full disk): read it again later.
        const n = (this.#attempts.get(ref) ?? 0) + 1;
        if (n < MAX_ATTEMPTS) {
          this.#attempts.set(ref, n);
          throw new Pause(`${ref} could not be read (${code}, attempt ${n} of ${MAX_ATTEMPTS}): ${msg}`, { cause: e });
        }
      }
      this.#attempts.delete(ref);
      // The file is bad (or kept failing): index what is known about it.
      this.#d.log(`[sightline] text index: ${ref} unreadable (${code}: ${msg})`);
      entry = { text: '', boxes: [], status: 'unreadable', reader: TEXT_READER };
    } finally {
      this.#active--;
    }
    // The exclusions may have changed while it was read.
    const late = this.#skip(shown);
    if (late) {
      this.#count(late);
      return;
    }
    this.#d.store.put({ ref, label: shown, ...entry });
    this.#changed();
  }

  #pause(e: unknown): void {
    if (e instanceof SightlineError && e.code === 'CANCELLED' && !(e instanceof Pause)) return;
    const msg = (e as Error)?.message ?? String(e);
    this.#reason = `Waiting to retry: ${msg}`;
    this.#d.log(`[sightline] text index paused: ${msg}`);
    this.#changed();
  }

  // ── progress ────────────────────────────────────────────────────────────────────────────

  #total(): number {
    const now = Date.now();
    if (!this.#ownCount || now - this.#ownCount.at > 60_000) this.#ownCount = { n: this.#d.frames.countOwn(), at: now };
    let n = this.#ownCount.n;
    for (const e of this.#walks.extents.values()) n += e.count;
    return n;
  }

  /** Report progress, at most twice a second (and once more when things settle). */
  #changed(now = false): void {
    const t = Date.now();
    if (now || t - this.#lastEmit >= 500) {
      this.#lastEmit = t;
      clearTimeout(this.#emitTimer);
      this.#emitTimer = undefined;
      this.#d.onProgress(this.status());
      return;
    }
    if (this.#emitTimer) return;
    this.#emitTimer = setTimeout(() => {
      this.#emitTimer = undefined;
      this.#changed(true);
    }, 500 - (t - this.#lastEmit));
    this.#emitTimer.unref();
  }
}
