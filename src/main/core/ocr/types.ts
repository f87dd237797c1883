import type { Prepared } from './prepare.ts';

/**
 * The one OCR interface. Every engine reads an encoded image (PNG, JPEG or WebP) and returns
 * lines and words with boxes in pixels of that same image, so that find_text can hand them
 * to the agent in the frame's own coordinates.
 */

export interface OcrBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface OcrWord {
  text: string;
  box: OcrBox;
  /** 0..1 */
  confidence: number;
}

export interface OcrLine {
  text: string;
  box: OcrBox;
  /** 0..1 */
  confidence: number;
  words: OcrWord[];
}

/**
 * How far the boxes can be trusted: `word` when the engine reports each word's own box,
 * `derived` when word boxes are cut from a line box (PaddleOCR), `line` when only lines have
 * boxes, `none` when the engine returns text alone (the system OCR package before it ships
 * line boxes): such a result can feed a text index but not find_text.
 */
export type OcrGeometry = 'word' | 'derived' | 'line' | 'none';

export interface OcrResult {
  engine: OcrEngineName;
  width: number;
  height: number;
  geometry: OcrGeometry;
  lines: OcrLine[];
}

export interface RecognizeOptions {
  signal?: AbortSignal;
  /** BCP-47 or Tesseract codes; each engine maps what it knows and ignores the rest. Default English. */
  languages?: string[];
  /**
   * Read the image enlarged by this factor (1..3; boxes still come back in the caller's pixels).
   * A frame shrunk to 1000 px carries 11–16 px UI text at 6–8 px, below what the engines read
   * well: pass the frame's shrink factor (capped at 2), or better, read the full-resolution image.
   */
  scale?: number;
  /**
   * How the text is laid out: `page` (default: columns and paragraphs, Tesseract's automatic
   * layout) or `sparse` (a screen's parts: every word wherever it is, side bars and status bars
   * included; Tesseract's sparse-text mode, PSM 11).
   */
  layout?: 'page' | 'sparse';
}

export interface OcrAvailability {
  ok: boolean;
  reason?: string;
  remediation?: string;
}

export type OcrEngineName = 'tesseract' | 'tesseract-cli' | 'paddle' | 'system';

export interface OcrEngine {
  readonly name: OcrEngineName;
  /** Whether the engine can run here (its package, binary or model is present); never throws. */
  available(): Promise<OcrAvailability>;
  /** Reads `image` (encoded PNG, JPEG or WebP). Rejects with CANCELLED when `signal` aborts. */
  recognize(image: Buffer, opts?: RecognizeOptions): Promise<OcrResult>;
  /**
   * Reads pages already prepared (grey, dark on light, enlarged and padded: prepare.ts), each
   * laid out on its own, so that one page's columns, ground or text size never mix with
   * another's; boxes come back in each page's caller pixels. An engine that starts a process per
   * call reads them all in one. Absent: the pages are read one `recognize` at a time.
   */
  recognizePages?(pages: readonly Prepared[], opts?: Omit<RecognizeOptions, 'scale'>): Promise<OcrResult[]>;
  /** Frees workers, sessions and threads; the engine may be used again afterwards (it reloads). */
  dispose(): Promise<void>;
}

export interface OcrEngineOptions {
  /**
   * Threads the engine may use: Tesseract workers (each one single-threaded WebAssembly),
   * onnxruntime intra-op threads, OMP_THREAD_LIMIT for the CLI. Default 1, so that the
   * background indexer stays inside its CPU budget.
   */
  threads?: number;
  /**
   * Engines whose inference blocks the calling thread (PaddleOCR on onnxruntime-node) run in a
   * worker thread unless this is false. Tesseract always reads in its own worker or process.
   */
  inWorker?: boolean;
  /** The tesseract binary for `tesseract-cli` (default `tesseract` on PATH). */
  tesseractPath?: string;
  /**
   * Scheduling niceness (0..19) for engine processes (the tesseract CLI), so that a background
   * indexer yields to the user. Worker threads share this process's priority.
   */
  niceness?: number;
}
