/**
 * `createOcrEngine(platform, options)`: the OCR engine for this platform, chosen from the
 * figures in docs/benchmarks.md (section "OCR engines"), or the one `options.engine` forces.
 * Importing this module loads nothing: each engine's module (and its WebAssembly, native
 * binding or models) is imported on the first call that needs it.
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { Prepared } from './prepare.ts';
import type { OcrAvailability, OcrEngine, OcrEngineName, OcrEngineOptions, OcrResult, RecognizeOptions } from './types.ts';
import { pagesOneByOne } from './util.ts';

export type * from './types.ts';

export interface CreateOcrOptions extends OcrEngineOptions {
  /** Force one engine; `auto` (default) takes the platform's preference list, first available wins. */
  engine?: OcrEngineName | 'auto';
}

export const ENGINE_NAMES: readonly OcrEngineName[] = ['tesseract', 'tesseract-cli', 'paddle', 'system'];

/**
 * Preference per platform, from the benchmark (docs/benchmarks.md, "OCR engines"; one run on
 * this shared 2-core machine). On a 1000×600 native-resolution crop of UI text (11–16 px):
 *
 * | engine | CER light / dark | CPU per frame | words boxed within 3 px |
 * |---|---|---|---|
 * | tesseract-cli (Debian tesseract 5.3) | 2.4 % / 2.3 % | 0.8–0.9× | 99 % / 98 % |
 * | tesseract (tesseract.js, wasm)       | 2.6 % / 2.7 % | 1× (≈ 2.2 s) | 97 % / 96 % |
 * | paddle (PP-OCRv4 on onnxruntime)     | 2.9 % / 3.0 % | 1.6–2.0× | 99.5 % / 100 % |
 *
 * On a frame shrunk to 1000 px (text 6–8 px) every engine needs `scale: 2` (CER 2–5 %; PaddleOCR
 * 7–8 % at twice Tesseract's CPU). So: Tesseract everywhere. On Linux the system binary when it
 * is installed (a little more accurate, a little cheaper, a separate process), else the
 * WebAssembly build that ships in npm. On macOS and Windows the WebAssembly build: the system
 * OCR (@napi-rs/system-ocr 1.1.0) returns text without boxes and could not be measured here;
 * PaddleOCR is a dev dependency (300 MB) and a fallback only where it is installed.
 */
export const PREFERENCE: Record<string, readonly OcrEngineName[]> = {
  linux: ['tesseract-cli', 'tesseract', 'paddle'],
  darwin: ['tesseract', 'paddle', 'system'],
  win32: ['tesseract', 'paddle', 'system'],
};

export function defaultEngineFor(platform: NodeJS.Platform | string): OcrEngineName {
  return PREFERENCE[platform]?.[0] ?? 'tesseract';
}

/** One engine by name, its module imported on first use. */
export function loadEngine(name: OcrEngineName, options: OcrEngineOptions = {}, platform: NodeJS.Platform = process.platform): OcrEngine {
  let engine: Promise<OcrEngine> | undefined;
  const get = (): Promise<OcrEngine> => {
    engine ??= (async (): Promise<OcrEngine> => {
      switch (name) {
        case 'tesseract':
          return (await import('./tesseractJs.ts')).createTesseractJsEngine(options);
        case 'tesseract-cli':
          return (await import('./tesseractCli.ts')).createTesseractCliEngine(options);
        case 'paddle': {
          const paddle = await import('./paddle.ts');
          return options.inWorker === false ? paddle.createPaddleEngine(options) : paddle.createPaddleWorkerEngine(options);
        }
        case 'system':
          return (await import('./systemOcr.ts')).createSystemOcrEngine(platform);
      }
    })();
    return engine;
  };
  return {
    name,
    available: async () => (await get()).available(),
    recognize: async (image, opts) => (await get()).recognize(image, opts),
    recognizePages: async (pages, opts) => readPages(await get(), pages, opts),
    dispose: async () => {
      const e = engine;
      engine = undefined;
      await (await e)?.dispose();
    },
  };
}

/**
 * The engine to use. With `engine: 'auto'` the first engine of the platform's list that is
 * available is taken (checked once, on first use); a forced engine that is unavailable fails
 * with UNSUPPORTED and its remediation.
 */
export function createOcrEngine(platform: NodeJS.Platform = process.platform, options: CreateOcrOptions = {}): OcrEngine & { resolve(): Promise<OcrEngine> } {
  const forced = options.engine && options.engine !== 'auto' ? options.engine : undefined;
  if (forced && !ENGINE_NAMES.includes(forced)) {
    throw new SightlineError('INVALID_ARGUMENT', `Unknown OCR engine "${String(forced)}".`, `use one of: auto, ${ENGINE_NAMES.join(', ')}`);
  }
  const candidates = forced ? [forced] : (PREFERENCE[platform] ?? ['tesseract']);
  let chosen: Promise<OcrEngine> | undefined;
  const reasons: string[] = [];

  const resolve = (): Promise<OcrEngine> => {
    chosen ??= (async () => {
      let last: OcrAvailability = { ok: false };
      for (const name of candidates) {
        const e = loadEngine(name, options, platform);
        last = await e.available();
        if (last.ok) return e;
        reasons.push(`${name}: ${last.reason ?? 'unavailable'}`);
        await e.dispose();
      }
      throw new SightlineError('UNSUPPORTED', `No OCR engine can run here (${reasons.join('; ')}).`, last.remediation ?? 'reinstall Sightline');
    })();
    chosen.catch(() => (chosen = undefined));
    return chosen;
  };

  return {
    get name(): OcrEngineName {
      return forced ?? candidates[0] ?? 'tesseract';
    },
    resolve,
    async available(): Promise<OcrAvailability> {
      try {
        await resolve();
        return { ok: true };
      } catch (e) {
        const err = e as SightlineError;
        return { ok: false, reason: err.message, ...(err.hint ? { remediation: err.hint } : {}) };
      }
    },
    async recognize(image: Buffer, opts?: RecognizeOptions): Promise<OcrResult> {
      return (await resolve()).recognize(image, opts);
    },
    async recognizePages(pages: readonly Prepared[], opts?: Omit<RecognizeOptions, 'scale'>): Promise<OcrResult[]> {
      return readPages(await resolve(), pages, opts);
    },
    async dispose(): Promise<void> {
      const c = chosen;
      chosen = undefined;
      await (await c?.catch(() => undefined))?.dispose();
    },
  };
}

/** Prepared pages through the engine's own call for many, else one at a time. */
export function readPages(engine: OcrEngine, pages: readonly Prepared[], opts?: Omit<RecognizeOptions, 'scale'>): Promise<OcrResult[]> {
  return engine.recognizePages ? engine.recognizePages(pages, opts) : pagesOneByOne(engine, pages, opts);
}
