/**
 * A crop is a new frame with its own mapping at native resolution: captured again at the
 * device's resolution where the source can (the browser re-captures the region of a fresh frame),
 * else cut from the stored native original (desktop, Android, the archive), else — a stale browser
 * frame — from the stored image, and then it says so. Crops of crops are cut from the first frame.
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { FrameRecord } from '../catalog/types.ts';
import { checkCropRequest, cropMapping, planCrop, rectImageToSource, rectSourceToImage, resolveCropRect } from '../image/mapping.ts';
import { crop as cropImage, probe } from '../image/pipeline.ts';
import type { CaptureOutcome, CropParams } from '../ports.ts';
import type { SourceRegistry } from '../sources/registry.ts';
import type { EncodedRegion, MaskSpec } from '../sources/source.ts';
import { toLocalIso } from '../util/time.ts';
import { decodeFrame } from './state.ts';

export interface CropDeps {
  catalog: Catalog;
  sources: SourceRegistry;
  fit: { maxDimension: number; maxPixels?: number };
  format: 'jpeg' | 'webp' | 'png';
  quality: number;
  /** Mask secrets in a region captured again (privacy.masking); stored images are masked already. */
  mask?: MaskSpec;
  /** Wait for a raw capture's original still being written. */
  original: (ref: string) => Promise<void> | undefined;
}

export async function cropFrame(d: CropDeps, parent: FrameRecord, p: CropParams, signal: AbortSignal): Promise<CaptureOutcome> {
  const rect = { x: p.x, y: p.y, width: p.width, height: p.height };
  const units = p.coordinateUnits ?? 'percent';
  checkCropRequest(parent.image, rect, units);
  let base = parent;
  while (base.parentRef) {
    const up = d.catalog.frames.get(base.parentRef);
    if (!up) break;
    base = up;
  }
  const warnings: string[] = [];
  const sourceRect = rectImageToSource(parent, resolveCropRect(parent.image, rect, units));
  if (!base.hasFull && !base.external) {
    const region = await recapture(d, base, sourceRect, signal);
    if (region) return store(d, parent, region, warnings);
    if (region === null) warnings.push(`${parent.target} changed since frame ${base.ref}: this crop is cut from the stored image, with no more detail than it had. Capture again for a native-resolution crop.`);
  }
  await d.original(base.ref);
  const src = await d.catalog.frames.read(base.ref, 'full');
  const input = { kind: 'encoded' as const, data: src.data };
  const inputSize = await probe(input);
  const plan = base === parent ? planCrop(parent, inputSize, rect, units) : planCrop(base, inputSize, rectSourceToImage(base, sourceRect), 'pixels');
  const out = await cropImage(input, plan.inputRect, d.fit, { format: d.format, quality: d.quality });
  const m = cropMapping(base, plan.imageRect, { width: out.width, height: out.height });
  const frame = await d.catalog.frames.insert({
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
    // What the parent showed is what its region shows (the title an agent's list gives it).
    ...(parent.label ? { label: parent.label } : {}),
    format: out.format,
    data: out.data,
    state: parent.state,
  });
  return { frame, image: { data: out.data, format: out.format }, warnings };
}

/** The region captured again at native resolution; null when the source can but the frame is stale; undefined when it cannot. */
async function recapture(d: CropDeps, base: FrameRecord, rect: { x: number; y: number; width: number; height: number }, signal: AbortSignal): Promise<EncodedRegion | null | undefined> {
  if (!d.sources.isEnabled(base.source) || d.sources.module(base.source)?.kind !== 'live') return undefined;
  const source = await d.sources.get(base.source).catch(() => undefined);
  const screen = source?.screen;
  if (!screen?.captureRegion) return undefined;
  let stored;
  try {
    stored = decodeFrame(screen, base);
  } catch {
    return null;
  }
  const region = await screen.captureRegion(stored, rect, { format: d.format, quality: d.quality, maxDimension: d.fit.maxDimension, ...(d.mask ? { mask: d.mask } : {}), signal });
  return region ?? null;
}

async function store(d: CropDeps, parent: FrameRecord, region: EncodedRegion, warnings: string[]): Promise<CaptureOutcome> {
  const long = region.width >= region.height;
  const scale = long ? region.rect.width / region.width : region.rect.height / region.height;
  const frame = await d.catalog.frames.insert({
    source: parent.source,
    target: parent.target,
    capturedAt: toLocalIso(new Date()),
    image: { width: region.width, height: region.height },
    sourceSize: { width: region.rect.width, height: region.rect.height },
    origin: { x: region.rect.x, y: region.rect.y },
    scale,
    dpi: parent.dpi,
    monitor: parent.monitor,
    parentRef: parent.ref,
    ...(parent.label ? { label: parent.label } : {}),
    format: region.format,
    data: region.data,
    state: parent.state,
  });
  return { frame, image: { data: region.data, format: region.format }, warnings };
}
