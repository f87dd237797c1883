/**
 * Frames: capture (the source captures, the pipeline fits and encodes, the catalog stores; the
 * mapping is written only after the whole capture succeeded), crops at native resolution,
 * originals written behind their capture, UI trees mapped into a frame, pins.
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { ImageFormat, UiNode } from '../../../shared/frame.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { FrameListQuery, FrameQuery, FrameRecord, FrameVariant } from '../catalog/types.ts';
import type { CoreBus } from '../events.ts';
import { DEFAULT_MAX_DIMENSION, MODEL_PROFILES, estimateVisionTokens } from '../image/fit.ts';
import { fitMapping } from '../image/mapping.ts';
import { fitAndEncode, sniffFormat, type ImageInput } from '../image/pipeline.ts';
import type { CaptureOutcome, CaptureParams, CropParams, FramesPort, Session, UiTreeParams } from '../ports.ts';
import type { SettingsStore } from '../settings/store.ts';
import { portOf } from '../sources/aim.ts';
import type { SourceRegistry } from '../sources/registry.ts';
import type { MaskSpec } from '../sources/source.ts';
import type { BusySignal } from '../util/busy.ts';
import { InFlight } from '../util/inFlight.ts';
import { toLocalIso } from '../util/time.ts';
import { cropFrame } from './crop.ts';
import { maskCaptured, maskSpecOf, redactLabel, matchesShown, redactNodes, rememberPasswordNodes } from './privacy.ts';
import { decodeFrame } from './state.ts';
import { toImageNodes } from './uiTrees.ts';

export interface FrameServiceDeps {
  catalog: Catalog;
  sources: SourceRegistry;
  settings: SettingsStore;
  events: CoreBus;
  log: (line: string) => void;
  /** Marks captures as agent work (background work waits for a quiet moment). */
  busy?: BusySignal;
}

/** A capture's parameters with every default filled in: equal ones give the same frame. */
interface ResolvedCapture {
  target: string;
  fit: { maxDimension: number; maxPixels?: number };
  format: ImageFormat;
  quality: number;
  raw: boolean;
  fullPage?: boolean;
  scrollOffset?: CaptureParams['scrollOffset'];
  mask?: MaskSpec;
}

export class FrameService implements FramesPort {
  readonly #d: FrameServiceDeps;
  /** Originals being written behind their capture, by frame ref. */
  readonly #originals = new Map<string, Promise<void>>();
  /** Captures under way, by target and parameters: callers asking for the same one share it. */
  readonly #captures = new InFlight<CaptureOutcome>();

  constructor(deps: FrameServiceDeps) {
    this.#d = deps;
  }

  /** Fit limits for a capture: a call's maxDimension wins over the profile, which wins over settings. */
  fitOptions(maxDimension?: number): { maxDimension: number; maxPixels?: number } {
    if (maxDimension !== undefined) return { maxDimension };
    const c = this.#d.settings.values().capture;
    if (c.profile !== 'default') return { ...MODEL_PROFILES[c.profile] };
    return { maxDimension: c.maxDimension ?? DEFAULT_MAX_DIMENSION };
  }

  /**
   * Captures of the same target with the same parameters that arrive while one is under way
   * share it: one screenshot, one row, each caller's session remembering the frame. A capture
   * that scrolls the page first (scrollOffset) is an action of its own and never shared.
   */
  async capture(p: CaptureParams): Promise<CaptureOutcome> {
    const end = this.#d.busy?.begin();
    try {
      return await this.#captureShared(p);
    } finally {
      end?.();
    }
  }

  async #captureShared(p: CaptureParams): Promise<CaptureOutcome> {
    const capture = this.#d.settings.values().capture;
    const q: ResolvedCapture = {
      target: p.target,
      fit: this.fitOptions(p.maxDimension),
      format: p.format ?? capture.format,
      quality: p.quality ?? capture.quality,
      raw: p.raw ?? false,
      fullPage: p.fullPage,
      scrollOffset: p.scrollOffset,
      mask: maskSpecOf(this.#d.settings.values()),
    };
    const out = p.scrollOffset
      ? await this.#capture(q, p.signal ?? new AbortController().signal)
      : await this.#captures.run(JSON.stringify(q), p.signal, (signal) => this.#capture(q, signal));
    p.session?.remember(out.frame.target, out.frame.ref);
    return { ...out, warnings: [...out.warnings] };
  }

  async #capture(q: ResolvedCapture, signal: AbortSignal): Promise<CaptureOutcome> {
    const { catalog, sources } = this.#d;
    const { fit, format, quality, raw } = q;
    const source = await sources.forTarget(q.target, 'screen');
    const captured = await portOf(source, 'screen').capture(q.target, {
      maxDimension: fit.maxDimension,
      maxPixels: fit.maxPixels,
      format,
      quality,
      raw,
      fullPage: q.fullPage,
      scrollOffset: q.scrollOffset,
      ...(q.mask ? { mask: q.mask } : {}),
      signal,
    });
    const warnings = [...(captured.warnings ?? [])];
    let image: { data: Buffer; format: ImageFormat; width: number; height: number };
    let full: { data: Buffer; format: ImageFormat } | undefined;
    let pixels: ImageInput | undefined;
    if (captured.encoded) {
      image = captured.encoded;
    } else if (captured.pixels) {
      // Secrets are filled before anything is encoded: the image, and the original kept for crops.
      pixels = q.mask ? await maskCaptured(captured.pixels, captured) : captured.pixels;
      image = await fitAndEncode(pixels, { ...fit, raw }, { format, quality });
      // An encoded original (e.g. Android's PNG) is kept as is for native-resolution crops; a
      // masked one was decoded to be filled, and is written behind like a raw capture's.
      const originalFormat = pixels.kind === 'encoded' ? sniffFormat(pixels.data) : undefined;
      if (originalFormat && !raw) full = { data: pixels.data, format: originalFormat };
    } else {
      throw new SightlineError('SCREENSHOT_FAILED', `The ${source.name} source returned no image.`, 'Capture again.');
    }
    if (raw) warnings.push(`raw: this image is at native resolution (${image.width}×${image.height}, ~${estimateVisionTokens(image)} vision tokens); prefer the default scaled capture and crop_screenshot for detail.`);
    const frame = await catalog.frames.insert({
      source: source.name,
      target: captured.target,
      capturedAt: toLocalIso(new Date()),
      image: { width: image.width, height: image.height },
      sourceSize: captured.sourceSize,
      origin: captured.origin,
      scale: fitMapping(image, captured.sourceSize, captured.origin).scale,
      dpi: captured.dpi,
      monitor: captured.monitor,
      format: image.format,
      data: image.data,
      full,
      state: captured.state,
      label: redactLabel(captured.label, q.mask),
    });
    if (pixels?.kind === 'raw' && !raw) this.#writeOriginalBehind(frame.ref, pixels);
    return { frame, image: { data: image.data, format: image.format }, warnings };
  }

  /** A crop is a new frame with its own mapping, at native resolution (see crop.ts). */
  async crop(p: CropParams): Promise<CaptureOutcome> {
    const capture = this.#d.settings.values().capture;
    return cropFrame(
      {
        catalog: this.#d.catalog,
        sources: this.#d.sources,
        fit: this.fitOptions(p.maxDimension),
        format: p.format ?? capture.format,
        quality: p.quality ?? capture.quality,
        original: (ref) => this.#originals.get(ref),
        mask: maskSpecOf(this.#d.settings.values()),
      },
      this.get(p.ref),
      p,
      p.signal ?? new AbortController().signal,
    );
  }

  /**
   * Raw captures keep their native-resolution original for crops and the human's view, but
   * encoding it must not delay the agent: it is written behind the response, and a crop of
   * the frame waits for it.
   */
  #writeOriginalBehind(ref: string, pixels: ImageInput): void {
    const job = fitAndEncode(pixels, { raw: true }, { format: 'jpeg', quality: 90 })
      .then((img) => this.#d.catalog.frames.attachFull(ref, { data: img.data, format: img.format }))
      .then(() => undefined)
      .catch((e: unknown) => this.#d.log(`[sightline] original of ${ref} not kept: ${(e as Error).message}`))
      .finally(() => this.#originals.delete(ref));
    this.#originals.set(ref, job);
  }

  /**
   * The best image of a frame to read text from: its native original where there is one
   * (waiting for one still being written), else the model image with how much it was shrunk.
   */
  async textImage(ref: string): Promise<{ frame: FrameRecord; data: Buffer; shrunk: number }> {
    await this.#originals.get(ref);
    const frame = this.get(ref);
    const native = frame.hasFull || frame.external;
    const { data } = await this.read(ref, native ? 'full' : 'image');
    return { frame, data, shrunk: native ? 1 : Math.max(1, frame.scale) };
  }

  get(ref: string): FrameRecord {
    const f = this.#d.catalog.frames.get(ref);
    if (!f) throw new SightlineError('FRAME_NOT_FOUND', `No frame "${ref}".`, 'Use a ref from capture, crop_screenshot or list_screenshots; old frames are removed by retention unless pinned.');
    return f;
  }

  find(ref: string): FrameRecord | undefined {
    return this.#d.catalog.frames.get(ref);
  }

  read(ref: string, variant: FrameVariant): Promise<{ data: Buffer; format: ImageFormat }> {
    return this.#d.catalog.frames.read(ref, variant);
  }

  list(q: FrameListQuery): FrameRecord[] {
    return this.#d.catalog.frames.list(q);
  }

  count(q?: FrameQuery): number {
    return this.#d.catalog.frames.count(q);
  }

  /**
   * The frame "the target's latest capture" means: this session's latest (never another
   * session's), or without a session (the dashboard, the tray) the catalog's.
   */
  latest(target: string, session: Session | undefined): FrameRecord | undefined {
    const { catalog } = this.#d;
    if (!session) return catalog.frames.latest(target.slice(0, target.indexOf(':')), target, { rootOnly: true });
    const ref = session.latest(target);
    return ref ? catalog.frames.get(ref) : undefined;
  }

  /** The target's UI tree, bounds in image pixels of its latest frame (captured now if there is none). */
  async uiTree(p: UiTreeParams): Promise<{ frameRef: string; nodes: UiNode[] }> {
    const source = await this.#d.sources.forTarget(p.target, 'tree');
    const screen = portOf(source, 'screen');
    const frame = this.latest(p.target, p.session) ?? (await this.capture({ target: p.target, signal: p.signal, session: p.session })).frame;
    const raw = await portOf(source, 'tree').uiTree(p.target, decodeFrame(screen, frame), { maxNodes: p.maxNodes, query: p.query, signal: p.signal });
    const spec = maskSpecOf(this.#d.settings.values());
    let nodes = redactNodes(raw, spec);
    const query = p.query;
    if (spec && query) nodes = nodes.filter((n) => matchesShown(n, query));
    rememberPasswordNodes(p.target, nodes);
    return { frameRef: frame.ref, nodes: toImageNodes(frame, nodes) };
  }

  setPinned(ref: string, pinned: boolean, annotation?: string | null): FrameRecord {
    const frames = this.#d.catalog.frames;
    let f = frames.setPinned(ref, pinned);
    if (annotation !== undefined) f = frames.setAnnotation(ref, annotation);
    this.#d.events.emit('resources-changed');
    return f;
  }

  /** Wait for originals still being written (before the catalog closes). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.#originals.values());
  }
}
