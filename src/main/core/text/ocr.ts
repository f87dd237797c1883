/**
 * OCR as the core uses it: one engine for agents waiting on an answer (find_text, click by
 * text), one for the background indexer (its threads capped at the settings' CPU budget, the
 * tesseract process at low priority). Each engine is created on first use from the `ocr`
 * settings, rebuilt when they change, and freed after a minute without work (the WebAssembly
 * build holds ~110 MiB).
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { CoreSettings } from '../../../shared/settings.ts';
import { createOcrEngine, readPages, type OcrEngine, type OcrResult } from '../ocr/index.ts';
import type { Prepared } from '../ocr/prepare.ts';
import { pagesOneByOne } from '../ocr/util.ts';

export type OcrPriority = 'interactive' | 'background';

export interface OcrReadOptions {
  signal?: AbortSignal;
  /** Read the image enlarged (1..3): for text shrunk below ~10 px. Boxes still come back in the image's pixels. */
  scale?: number;
  priority?: OcrPriority;
  /** `sparse`: a screen's parts, every word wherever it is (see the engines' RecognizeOptions). */
  layout?: 'page' | 'sparse';
}

export interface OcrPort {
  /** Whether OCR is on in settings (not whether an engine can run: `recognize` says that). */
  readonly enabled: boolean;
  recognize(image: Buffer, options?: OcrReadOptions): Promise<OcrResult>;
  /** Pages already prepared (ocr/prepare.ts), each laid out on its own; absent: one `recognize` each. */
  recognizePages?(pages: readonly Prepared[], options?: Omit<OcrReadOptions, 'scale'>): Promise<OcrResult[]>;
}

/** Prepared pages through a port, by its call for many when it has one. */
export function recognizePages(port: OcrPort, pages: readonly Prepared[], options: Omit<OcrReadOptions, 'scale'> = {}): Promise<OcrResult[]> {
  return port.recognizePages ? port.recognizePages(pages, options) : pagesOneByOne({ recognize: (image, o) => port.recognize(image, { ...options, ...o }) }, pages, options);
}

type OcrSettings = CoreSettings['ocr'];

const IDLE_MS = 60_000;

interface Slot {
  engine: OcrEngine;
  busy: number;
  idle?: NodeJS.Timeout;
  /** Replaced after a settings change: freed once its last page is read. */
  retired?: boolean;
}

export class OcrService implements OcrPort {
  readonly #settings: () => OcrSettings;
  readonly #create: (s: OcrSettings, priority: OcrPriority) => OcrEngine;
  readonly #slots = new Map<OcrPriority, Slot>();
  #key = '';

  constructor(deps: { settings: () => OcrSettings; create?: (s: OcrSettings, priority: OcrPriority) => OcrEngine }) {
    this.#settings = deps.settings;
    this.#create =
      deps.create ??
      ((s, priority) =>
        createOcrEngine(process.platform, {
          engine: s.engine,
          threads: priority === 'background' ? s.cpuBudget : 1,
          niceness: priority === 'background' ? 15 : 0,
        }));
  }

  get enabled(): boolean {
    return this.#settings().enabled;
  }

  recognize(image: Buffer, options: OcrReadOptions = {}): Promise<OcrResult> {
    return this.#use(options.priority, (engine) => engine.recognize(image, { signal: options.signal, ...(options.scale ? { scale: options.scale } : {}) }));
  }

  recognizePages(pages: readonly Prepared[], options: Omit<OcrReadOptions, 'scale'> = {}): Promise<OcrResult[]> {
    return this.#use(options.priority, (engine) => readPages(engine, pages, { signal: options.signal, ...(options.layout ? { layout: options.layout } : {}) }));
  }

  async #use<T>(priority: OcrPriority | undefined, work: (engine: OcrEngine) => Promise<T>): Promise<T> {
    if (!this.enabled) throw new SightlineError('UNSUPPORTED', 'OCR is turned off (ocr.enabled).', 'Turn on "Read text by OCR" in Settings, or give x, y in image pixels.');
    const slot = this.#slot(priority ?? 'interactive');
    slot.busy++;
    if (slot.idle) clearTimeout(slot.idle);
    try {
      return await work(slot.engine);
    } finally {
      slot.busy--;
      if (slot.busy === 0) {
        if (slot.retired) void slot.engine.dispose();
        else this.#idleLater(slot);
      }
    }
  }

  /** Free every engine (on close, and when the settings change). */
  async dispose(): Promise<void> {
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    for (const s of slots) if (s.idle) clearTimeout(s.idle);
    await Promise.allSettled(slots.map((s) => s.engine.dispose()));
  }

  #slot(priority: OcrPriority): Slot {
    const s = this.#settings();
    const key = `${s.engine}/${s.cpuBudget}`;
    if (key !== this.#key) {
      // The engine or its budget changed: idle engines go now, busy ones after their page.
      for (const old of this.#slots.values()) {
        if (old.idle) clearTimeout(old.idle);
        if (old.busy > 0) old.retired = true;
        else void old.engine.dispose();
      }
      this.#slots.clear();
      this.#key = key;
    }
    let slot = this.#slots.get(priority);
    if (!slot) {
      slot = { engine: this.#create(s, priority), busy: 0 };
      this.#slots.set(priority, slot);
    }
    return slot;
  }

  #idleLater(slot: Slot): void {
    slot.idle = setTimeout(() => {
      for (const [p, s] of this.#slots) if (s === slot) this.#slots.delete(p);
      void slot.engine.dispose();
    }, IDLE_MS);
    slot.idle.unref();
  }
}
