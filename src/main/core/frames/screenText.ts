/**
 * A target's visible text with boxes in source space: its source's own (the DOM, the UI tree)
 * when it has one, else OCR of a fresh capture's native original. Click, type and wait by text,
 * and find_text, read text here.
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { Rect } from '../../../shared/frame.ts';
import type { FrameRecord } from '../catalog/types.ts';
import type { OcrBox, OcrResult } from '../ocr/types.ts';
import type { FindTextParams, FindTextResult, FoundText, ScreenTextPort, ScreenTextResult, Session } from '../ports.ts';
import type { SourceRegistry } from '../sources/registry.ts';
import type { MaskSpec, TextItem } from '../sources/source.ts';
import { rectSourceToImage } from '../image/mapping.ts';
import { portOf } from '../sources/aim.ts';
import { matchItem } from '../text/items.ts';
import { findText } from '../text/match.ts';
import type { OcrPort } from '../text/ocr.ts';
import type { FrameService } from './frameService.ts';
import { redactItems } from './privacy.ts';
import { decodeFrame } from './state.ts';

/** Text below this size (in the image read) is read enlarged: the engines misread 6–8 px text. */
const MAX_ENLARGE = 2;

export class ScreenText implements ScreenTextPort {
  readonly #sources: SourceRegistry;
  readonly #frames: FrameService;
  readonly #ocr: OcrPort | undefined;

  /** The mask settings in force (undefined: masking off). */
  readonly #mask: () => MaskSpec | undefined;

  constructor(deps: { sources: SourceRegistry; frames: FrameService; ocr?: OcrPort; mask?: () => MaskSpec | undefined }) {
    this.#mask = deps.mask ?? (() => undefined);
    this.#sources = deps.sources;
    this.#frames = deps.frames;
    this.#ocr = deps.ocr;
  }

  async read(target: string, o: { signal: AbortSignal; session?: Session; words?: boolean }): Promise<ScreenTextResult> {
    const source = await this.#sources.forTarget(target, 'screen');
    const own = source.text ? await source.text.readText(target, o.signal, o.words ? { words: true } : undefined) : undefined;
    if (own) return { items: redactItems(own, this.#mask()), via: 'tree' };
    this.#requireOcr(target);
    // OCR reads the native original where there is one: a 1000 px image loses small text.
    const { frame } = await this.#frames.capture({ target, session: o.session, signal: o.signal });
    return this.readFrame(frame.ref, { signal: o.signal });
  }

  async readFrame(ref: string, o: { signal: AbortSignal; priority?: 'interactive' | 'background' }): Promise<ScreenTextResult & { frameRef: string }> {
    this.#requireOcr(ref);
    const { frame, data, shrunk } = await this.#frames.textImage(ref);
    const ocr = await this.#ocr!.recognize(data, { signal: o.signal, priority: o.priority ?? 'interactive', ...(shrunk > 1 ? { scale: Math.min(MAX_ENLARGE, shrunk) } : {}) });
    return { items: redactItems(ocrItems(ocr, frame), this.#mask()), via: 'ocr', frameRef: frame.ref };
  }

  /**
   * Where `query` is on a target now or in a stored frame, in image pixels of a frame: the
   * target's latest capture in this session when its text is its tree's and the frame still
   * shows the screen as it is, else a fresh capture; OCR reads a frame's native original.
   */
  async find(p: FindTextParams): Promise<FindTextResult> {
    let read: ScreenTextResult & { frameRef?: string };
    let frame: FrameRecord;
    if (p.ref !== undefined) {
      read = await this.readFrame(p.ref, { signal: p.signal });
      frame = this.#frames.get(p.ref);
    } else {
      const target = p.target as string;
      read = await this.read(target, { signal: p.signal, session: p.session, words: true });
      frame = read.frameRef ? this.#frames.get(read.frameRef) : await this.#frameNow(target, p.signal, p.session);
    }
    const hits = findText(read.items.map(matchItem), p.query, { regex: p.regex ?? false, fuzzy: read.via === 'ocr' && !p.regex, max: 10_000 });
    const seen = new Set<string>();
    const inside = hits
      .map((h): FoundText => {
        const exact = rectSourceToImage(frame, h.box);
        return {
          text: h.text,
          box: { x: Math.round(exact.x), y: Math.round(exact.y), width: Math.max(1, Math.round(exact.width)), height: Math.max(1, Math.round(exact.height)) },
          center: { x: tenth(exact.x + exact.width / 2), y: tenth(exact.y + exact.height / 2) },
          confidence: Math.round(h.confidence * 100) / 100,
          kind: h.kind,
          ...(h.edits ? { edits: h.edits } : {}),
          ...(h.id !== undefined ? { node: h.id } : {}),
        };
      })
      // Only what the frame shows: a centre outside its image cannot be clicked in it.
      .filter((m) => m.center.x >= 0 && m.center.y >= 0 && m.center.x <= frame.image.width && m.center.y <= frame.image.height)
      // The same words in the same place once: a link's words are also its paragraph's.
      .filter((m) => {
        const key = `${m.text.toLowerCase()}|${m.box.x},${m.box.y},${m.box.width},${m.box.height}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    return { frameRef: frame.ref, image: frame.image, via: read.via, matches: inside.slice(0, p.max), total: inside.length };
  }

  /** This session's latest frame of the target while it still shows the screen as it is, else a fresh capture. */
  async #frameNow(target: string, signal: AbortSignal, session?: Session): Promise<FrameRecord> {
    const latest = this.#frames.latest(target, session);
    if (latest) {
      try {
        const screen = portOf(await this.#sources.forTarget(target), 'screen');
        const check = await screen.checkFrame(decodeFrame(screen, latest), signal);
        if (!check.shift || (check.shift.x === 0 && check.shift.y === 0)) return latest;
      } catch {
        // Stale (resized, navigated): capture again below.
      }
    }
    return (await this.#frames.capture({ target, session, signal })).frame;
  }

  #requireOcr(what: string): void {
    if (!this.#ocr?.enabled) {
      throw new SightlineError('UNSUPPORTED', `Reading text on ${what} needs OCR, which is turned off.`, 'Turn on "Read text by OCR" (ocr.enabled) in Settings, or capture and give x, y in image pixels.');
    }
  }
}

function tenth(n: number): number {
  return Math.round(n * 10) / 10;
}

/** OCR lines (pixels of the image read) as text items in the frame's source space. */
export function ocrItems(ocr: OcrResult, frame: Pick<FrameRecord, 'origin' | 'sourceSize'>): TextItem[] {
  const kx = frame.sourceSize.width / ocr.width;
  const ky = frame.sourceSize.height / ocr.height;
  const toSource = (b: OcrBox): Rect => ({ x: frame.origin.x + b.x * kx, y: frame.origin.y + b.y * ky, width: b.width * kx, height: b.height * ky });
  return ocr.lines.map((l) => ({
    text: l.text,
    bounds: toSource(l.box),
    confidence: l.confidence,
    ...(ocr.geometry === 'word' || ocr.geometry === 'derived' ? { words: l.words.map((w) => ({ text: w.text, bounds: toSource(w.box), confidence: w.confidence })) } : {}),
  }));
}
