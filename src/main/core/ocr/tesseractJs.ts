/**
 * Tesseract 5 compiled to WebAssembly (tesseract.js), reading traineddata from an npm package
 * (`@tesseract.js-data/<lang>`, the integer LSTM model): no binary to install, no download.
 * Each worker is one worker_thread running single-threaded wasm, so `threads` bounds the CPU.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TesseractModule from 'tesseract.js';
import { SightlineError } from '../../../shared/errors.ts';
import { prepareForOcr, type PrepareOptions, type Prepared } from './prepare.ts';
import { linesFromBlocks, type TjsBlock } from './tesseractParse.ts';
import type { OcrAvailability, OcrEngine, OcrEngineOptions, OcrResult, RecognizeOptions } from './types.ts';
import { abortable, checkImage, scaleLines, tesseractLanguages, throwIfAborted, clampScale, SPARSE_PSM } from './util.ts';

type Tesseract = typeof TesseractModule;
type Worker = Awaited<ReturnType<Tesseract['createWorker']>>;

const require = createRequire(import.meta.url);
/** The integer-quantised "best" LSTM model: tesseract.js's own default, as accurate as `best` and 4× smaller. */
const MODEL_DIR = '4.0.0_best_int';

/** Where `@tesseract.js-data/<lang>` keeps its gzipped traineddata, or undefined when not installed. */
export function languageDir(lang: string): string | undefined {
  try {
    return join(dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`)), MODEL_DIR);
  } catch {
    return undefined;
  }
}

export interface TesseractJsOptions extends OcrEngineOptions {
  /** Override the traineddata folder (files `<lang>.traineddata.gz`); by default the npm package's. */
  langPath?: string;
  /** Page segmentation mode; default 3 (automatic layout). */
  psm?: number;
  prepare?: PrepareOptions;
}

interface Slot {
  key: string;
  worker: Promise<Worker>;
  busy: boolean;
  /** The page segmentation mode the worker is set to. */
  psm?: number;
}

export function createTesseractJsEngine(options: TesseractJsOptions = {}): OcrEngine {
  const size = Math.max(1, Math.floor(options.threads ?? 1));
  const slots: Slot[] = [];
  const waiting: (() => void)[] = [];

  async function spawnWorker(langs: string[]): Promise<Worker> {
    const tesseract = (await import('tesseract.js')) as Tesseract & { default?: Tesseract };
    const t = tesseract.default ?? tesseract;
    const langPath = options.langPath ?? languageDir(langs[0] ?? 'eng');
    if (!langPath) throw missingLanguage(langs[0] ?? 'eng');
    // cacheMethod 'none': tesseract.js would otherwise write <lang>.traineddata into the working directory.
    const worker = await t.createWorker(langs, t.OEM.LSTM_ONLY, { langPath, cacheMethod: 'none', gzip: true });
    // PSM 3 (automatic layout) read our generated screens and real Tk windows better than PSM 11
    // (sparse text), which cut bold words apart (`while` → `wl e`): CER 2.7 % against 3.7 %. The
    // text index asks for sparse text per call (`layout`), for the words of side and status bars.
    // debug_file: Tesseract's diagnostics ("Estimating resolution…") would go to our stderr.
    await worker.setParameters({ tessedit_pageseg_mode: String(options.psm ?? 3) as never, debug_file: '/dev/null' });
    return worker;
  }

  async function acquire(langs: string[]): Promise<Slot> {
    const key = langs.join('+');
    for (;;) {
      const free = slots.find((s) => !s.busy && s.key === key) ?? slots.find((s) => !s.busy);
      if (free) {
        free.busy = true;
        if (free.key !== key) {
          const old = free.worker;
          free.key = key;
          free.worker = old.then((w) => w.terminate()).catch(() => undefined).then(() => spawnWorker(langs));
        }
        return free;
      }
      if (slots.length < size) {
        const slot: Slot = { key, worker: spawnWorker(langs), busy: true };
        slots.push(slot);
        return slot;
      }
      await new Promise<void>((r) => waiting.push(r));
    }
  }

  function release(slot: Slot): void {
    slot.busy = false;
    waiting.shift()?.();
  }

  /** A worker stuck in a cancelled job is thrown away; the next call starts a fresh one. */
  function discard(slot: Slot): void {
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    void slot.worker.then((w) => w.terminate()).catch(() => undefined);
  }

  /** One prepared page on a worker; boxes back in the caller's pixels. */
  const read = async (prepared: Prepared, opts: Omit<RecognizeOptions, 'scale'>): Promise<OcrResult> => {
    throwIfAborted(opts.signal);
    const slot = await acquire(tesseractLanguages(opts.languages));
    let cancelled = false;
    try {
      const psm = opts.layout === 'sparse' ? SPARSE_PSM : (options.psm ?? 3);
      const job = slot.worker.then(async (w) => {
        if ((slot.psm ?? options.psm ?? 3) !== psm) {
          await w.setParameters({ tessedit_pageseg_mode: String(psm) as never });
          slot.psm = psm;
        }
        return w.recognize(prepared.png, {}, { blocks: true, text: false });
      });
      const result = await abortable(job, opts.signal, () => {
        cancelled = true;
        discard(slot);
      });
      const lines = scaleLines(linesFromBlocks(result.data.blocks as TjsBlock[] | null), 1 / prepared.scale, prepared.pad);
      return { engine: 'tesseract', width: prepared.width, height: prepared.height, geometry: 'word', lines };
    } catch (e) {
      if (!cancelled && !(e instanceof SightlineError)) discard(slot);
      throw e;
    } finally {
      if (!cancelled) release(slot);
      else waiting.shift()?.();
    }
  };

  return {
    name: 'tesseract',
    async available(): Promise<OcrAvailability> {
      try {
        await import('tesseract.js');
      } catch (e) {
        return { ok: false, reason: `tesseract.js cannot be loaded: ${(e as Error).message}`, remediation: 'reinstall Sightline (npm ci)' };
      }
      if (!options.langPath && !languageDir('eng')) return { ok: false, ...missingLanguage('eng').toAvailability() };
      return { ok: true };
    },
    async recognize(image: Buffer, opts: RecognizeOptions = {}): Promise<OcrResult> {
      checkImage(image);
      throwIfAborted(opts.signal);
      const prepared = await prepareForOcr(image, { ...options.prepare, ...(opts.scale ? { scale: clampScale(opts.scale) } : {}) });
      return read(prepared, opts);
    },
    async recognizePages(pages: readonly Prepared[], opts: Omit<RecognizeOptions, 'scale'> = {}): Promise<OcrResult[]> {
      const out: OcrResult[] = [];
      for (const p of pages) out.push(await read(p, opts));
      return out;
    },
    async dispose(): Promise<void> {
      const all = slots.splice(0);
      await Promise.all(all.map((s) => s.worker.then((w) => w.terminate()).catch(() => undefined)));
    },
  };
}

function missingLanguage(lang: string): SightlineError & { toAvailability(): { reason: string; remediation: string } } {
  const reason = `No Tesseract model for "${lang}": the package @tesseract.js-data/${lang} is not installed.`;
  const remediation = `install @tesseract.js-data/${lang} with Sightline, or ask for a language that is installed (eng)`;
  return Object.assign(new SightlineError('UNSUPPORTED', reason, remediation), { toAvailability: () => ({ reason, remediation }) });
}
