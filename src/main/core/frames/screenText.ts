/**
 * A target's visible text with boxes in source space: its source's own (the DOM, the UI tree)
 * when it has one, else OCR of a fresh capture's native original. Click, type and wait by text,
 * and find_text, read text here.
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { ScreenTextPort, ScreenTextResult, Session } from '../ports.ts';
import type { SourceRegistry } from '../sources/registry.ts';
import type { TextItem } from '../sources/source.ts';
import type { FrameService } from './frameService.ts';

/** What OCR gives back for an image: lines with boxes in that image's pixels. */
export interface OcrLines {
  width: number;
  height: number;
  lines: readonly { text: string; box: { x: number; y: number; width: number; height: number }; confidence: number }[];
}
export type OcrFn = (image: Buffer, signal: AbortSignal) => Promise<OcrLines>;

export class ScreenText implements ScreenTextPort {
  readonly #sources: SourceRegistry;
  readonly #frames: FrameService;
  #ocr: OcrFn | undefined;

  constructor(deps: { sources: SourceRegistry; frames: FrameService; ocr?: OcrFn }) {
    this.#sources = deps.sources;
    this.#frames = deps.frames;
    this.#ocr = deps.ocr;
  }

  /** Plug in (or remove) the OCR engine. */
  useOcr(ocr: OcrFn | undefined): void {
    this.#ocr = ocr;
  }

  async read(target: string, o: { signal: AbortSignal; session?: Session }): Promise<ScreenTextResult> {
    const source = await this.#sources.forTarget(target, 'screen');
    if (source.text) return { items: await source.text.readText(target, o.signal), via: 'tree' };
    if (!this.#ocr) {
      throw new SightlineError('UNSUPPORTED', `Reading text on ${target} needs OCR, which is off or not available here.`, 'Turn on ocr.enabled in settings, or capture the target and give x, y in image pixels.');
    }
    // OCR reads the native original where there is one: a 1000 px image loses small text.
    const { frame } = await this.#frames.capture({ target, session: o.session, signal: o.signal });
    const image = await this.#frames.read(frame.ref, 'full');
    const ocr = await this.#ocr(image.data, o.signal);
    const kx = frame.sourceSize.width / ocr.width;
    const ky = frame.sourceSize.height / ocr.height;
    const items: TextItem[] = ocr.lines.map((l) => ({
      text: l.text,
      bounds: { x: frame.origin.x + l.box.x * kx, y: frame.origin.y + l.box.y * ky, width: l.box.width * kx, height: l.box.height * ky },
      confidence: l.confidence,
    }));
    return { items, via: 'ocr', frameRef: frame.ref };
  }
}
