/**
 * The operating system's own OCR through `@napi-rs/system-ocr`: Vision on macOS,
 * Windows.Media.Ocr on Windows. NOT RUN HERE (Linux has neither); built to the package's
 * published API (1.1.0: `recognize(image, accuracy?, preferredLangs?, signal?)` →
 * `{ text, confidence }`). 1.1.0 returns text without boxes, so its results have geometry
 * `none` (good for a text index, not for find_text). The project's main branch adds `lines`
 * with normalised top-left boxes; `fromSystemResult` reads them when a release ships them.
 */
import sharp from 'sharp';
import { SightlineError } from '../../../shared/errors.ts';
import type { OcrAvailability, OcrBox, OcrEngine, OcrLine, OcrResult, RecognizeOptions } from './types.ts';
import { abortable, checkImage, clamp01, throwIfAborted, wordsByCharacters } from './util.ts';

/** What the package returns: 1.1.0's fields, plus the line list a later release adds. */
export interface SystemOcrOutput {
  text: string;
  confidence: number;
  lines?: { text: string; confidence?: number; boundingBox?: Partial<OcrBox>; box?: Partial<OcrBox>; bbox?: Partial<OcrBox> }[];
}

type SystemOcr = {
  recognize(image: string | Uint8Array, accuracy?: number | null, langs?: string[] | null, signal?: AbortSignal | null): Promise<SystemOcrOutput>;
};

/** The package's result in our shape; boxes normalised 0..1 (top-left origin) are scaled to pixels. */
export function fromSystemResult(out: SystemOcrOutput, width: number, height: number): OcrResult {
  const conf = clamp01(out.confidence);
  const withBoxes = (out.lines ?? [])
    .map((l) => ({ l, b: l.boundingBox ?? l.box ?? l.bbox }))
    .filter(({ l, b }) => l.text.trim() && b && [b.x, b.y, b.width, b.height].every((n) => typeof n === 'number' && Number.isFinite(n)));
  if (withBoxes.length > 0) {
    const lines: OcrLine[] = withBoxes.map(({ l, b }) => {
      const box = { x: (b?.x ?? 0) * width, y: (b?.y ?? 0) * height, width: (b?.width ?? 0) * width, height: (b?.height ?? 0) * height };
      const c = clamp01(l.confidence ?? out.confidence);
      return { text: l.text.trim(), box, confidence: c, words: wordsByCharacters(l.text.trim(), box, c) };
    });
    return { engine: 'system', width, height, geometry: 'line', lines };
  }
  // Text only: every line spans the image, so that a search index can still use it.
  const full = { x: 0, y: 0, width, height };
  const lines = out.text
    .split(/\r?\n/)
    .map((t) => t.trim())
    .filter(Boolean)
    .map((text) => ({ text, box: full, confidence: conf, words: text.split(/\s+/).map((w) => ({ text: w, box: full, confidence: conf })) }));
  return { engine: 'system', width, height, geometry: 'none', lines };
}

export function createSystemOcrEngine(platform: NodeJS.Platform = process.platform): OcrEngine {
  let mod: Promise<SystemOcr> | undefined;
  const load = (): Promise<SystemOcr> => {
    // A variable specifier: the package is optional and absent from Linux installs.
    const name = '@napi-rs/system-ocr';
    mod ??= (import(name) as Promise<SystemOcr & { default?: SystemOcr }>).then((m) => m.default ?? m);
    mod.catch(() => (mod = undefined));
    return mod;
  };
  return {
    name: 'system',
    async available(): Promise<OcrAvailability> {
      if (platform !== 'darwin' && platform !== 'win32') return { ok: false, reason: `The system OCR exists on macOS and Windows only (this is ${platform}).`, remediation: 'use the engine "tesseract"' };
      try {
        await load();
        return { ok: true };
      } catch (e) {
        return { ok: false, reason: `@napi-rs/system-ocr cannot be loaded: ${(e as Error).message}`, remediation: 'install @napi-rs/system-ocr (its macOS/Windows binary comes as an optional dependency), or use the engine "tesseract"' };
      }
    },
    async recognize(image: Buffer, opts: RecognizeOptions = {}): Promise<OcrResult> {
      checkImage(image);
      throwIfAborted(opts.signal);
      let size;
      try {
        size = await sharp(image).metadata();
      } catch (e) {
        throw new SightlineError('IMAGE_INVALID', `The image cannot be decoded: ${(e as Error).message}`, 'pass a PNG, JPEG or WebP image', undefined, { cause: e });
      }
      const ocr = await load().catch((e: unknown) => {
        throw new SightlineError('UNSUPPORTED', `The system OCR is not available: ${(e as Error).message}`, 'use the engine "tesseract"');
      });
      // Accuracy 1 = Accurate (Vision's slower, better recogniser; ignored on Windows).
      const out = await abortable(ocr.recognize(image, 1, opts.languages?.length ? opts.languages : ['en-US'], opts.signal ?? null), opts.signal);
      return fromSystemResult(out, size.width ?? 0, size.height ?? 0);
    },
    async dispose(): Promise<void> {
      mod = undefined;
    },
  };
}
