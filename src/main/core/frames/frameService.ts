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
import { cropMapping, fitMapping, planCrop, rectImageToSource, rectSourceToImage, resolveCropRect } from '../image/mapping.ts';
import { crop as cropImage, fitAndEncode, probe, sniffFormat, type ImageInput } from '../image/pipeline.ts';
import type { CaptureOutcome, CaptureParams, CropParams, FramesPort, UiTreeParams } from '../ports.ts';
import type { SettingsStore } from '../settings/store.ts';
import { screenOf, treeOf, type SourceRegistry } from '../sources/registry.ts';
import { toLocalIso } from '../util/time.ts';
import { decodeFrame } from './state.ts';
import { UiTrees, toImageNodes } from './uiTrees.ts';

export interface FrameServiceDeps {
  catalog: Catalog;
  sources: SourceRegistry;
  settings: SettingsStore;
  events: CoreBus;
  log: (line: string) => void;
}

export class FrameService implements FramesPort {
  readonly uiTrees = new UiTrees();
  readonly #d: FrameServiceDeps;
  /** Originals being written behind their capture, by frame ref. */
  readonly #originals = new Map<string, Promise<void>>();

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

  async capture(p: CaptureParams): Promise<CaptureOutcome> {
    const { catalog, sources, settings } = this.#d;
    const source = await sources.forTarget(p.target, 'screen');
    const fit = this.fitOptions(p.maxDimension);
    const capture = settings.values().capture;
    const format = p.format ?? capture.format;
    const quality = p.quality ?? capture.quality;
    const raw = p.raw ?? false;
    const captured = await screenOf(source).capture(p.target, {
      maxDimension: fit.maxDimension,
      maxPixels: fit.maxPixels,
      format,
      quality,
      raw,
      fullPage: p.fullPage,
      scrollOffset: p.scrollOffset,
      signal: p.signal ?? new AbortController().signal,
    });
    const warnings = [...(captured.warnings ?? [])];
    let image: { data: Buffer; format: ImageFormat; width: number; height: number };
    let full: { data: Buffer; format: ImageFormat } | undefined;
    if (captured.encoded) {
      image = captured.encoded;
    } else if (captured.pixels) {
      image = await fitAndEncode(captured.pixels, { ...fit, raw }, { format, quality });
      // An encoded original (e.g. Android's PNG) is kept as is for native-resolution crops.
      const pixels = captured.pixels;
      const originalFormat = pixels.kind === 'encoded' ? sniffFormat(pixels.data) : undefined;
      if (originalFormat && !raw) full = { data: pixels.data, format: originalFormat };
    } else {
      throw new SightlineError('SCREENSHOT_FAILED', `The ${source.name} source returned no image.`, 'Capture again.');
    }
    if (raw) warnings.push(`raw: this image is at native resolution (${image.width}×${image.height}, ~${estimateVisionTokens(image)} vision tokens); prefer the default scaled capture and crop_screenshot for detail.`);
    const previous = catalog.frames.latest(source.name, captured.target);
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
    });
    this.uiTrees.clear(captured.target);
    // The first capture after an action is that action's "after" frame in the activity log.
    catalog.activity.linkAfterFrame(captured.target, frame.ref, previous ? new Date(previous.capturedAt).toISOString() : '');
    if (captured.pixels?.kind === 'raw' && !raw) this.#writeOriginalBehind(frame.ref, captured.pixels);
    return { frame, image: { data: image.data, format: image.format }, warnings };
  }

  /** A crop is a new frame with its own mapping, cut from the native-resolution original when there is one. */
  async crop(p: CropParams): Promise<CaptureOutcome> {
    const { catalog, settings } = this.#d;
    const parent = this.get(p.ref);
    const rect = { x: p.x, y: p.y, width: p.width, height: p.height };
    const units = p.coordinateUnits ?? 'percent';
    // A crop of a crop is cut from the first frame's original, not from the smaller crop image.
    let base = parent;
    while (base.parentRef) {
      const up = catalog.frames.get(base.parentRef);
      if (!up) break;
      base = up;
    }
    await this.#originals.get(base.ref);
    const src = await catalog.frames.read(base.ref, 'full');
    const input = { kind: 'encoded' as const, data: src.data };
    const inputSize = await probe(input);
    const plan =
      base === parent
        ? planCrop(parent, inputSize, rect, units)
        : planCrop(base, inputSize, rectSourceToImage(base, rectImageToSource(parent, resolveCropRect(parent.image, rect, units))), 'pixels');
    const capture = settings.values().capture;
    const format = p.format ?? capture.format;
    const quality = p.quality ?? capture.quality;
    const out = await cropImage(input, plan.inputRect, this.fitOptions(p.maxDimension), { format, quality });
    const m = cropMapping(base, plan.imageRect, { width: out.width, height: out.height });
    const frame = await catalog.frames.insert({
      source: parent.source,
      target: parent.target,
      // A crop is made now: retention ages it from now, not from its (possibly archived) parent.
      capturedAt: toLocalIso(new Date()),
      image: m.image,
      sourceSize: { width: plan.sourceRect.width, height: plan.sourceRect.height },
      origin: m.origin,
      scale: m.scale,
      dpi: parent.dpi,
      monitor: parent.monitor,
      parentRef: parent.ref,
      format: out.format,
      data: out.data,
      state: parent.state,
    });
    return { frame, image: { data: out.data, format: out.format }, warnings: [] };
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

  /** The target's UI tree, bounds in image pixels of its latest frame (captured now if there is none). */
  async uiTree(p: UiTreeParams): Promise<{ frameRef: string; nodes: UiNode[] }> {
    const { catalog, sources } = this.#d;
    const source = await sources.forTarget(p.target, 'tree');
    const screen = screenOf(source);
    let frame = catalog.frames.latest(source.name, p.target, { rootOnly: true });
    if (!frame) frame = (await this.capture({ target: p.target, signal: p.signal })).frame;
    const raw = await treeOf(source).uiTree(p.target, decodeFrame(screen, frame), { maxNodes: p.maxNodes, query: p.query, signal: p.signal });
    this.uiTrees.set(p.target, frame.ref, raw);
    return { frameRef: frame.ref, nodes: toImageNodes(frame, raw) };
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
