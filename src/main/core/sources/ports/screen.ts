/**
 * A live source's screen: its targets, how it captures one (pixels the core fits, encodes and
 * stores, or an image the source already encoded), and how it judges whether a frame still shows
 * its target (moved, resized, another document).
 */
import type { z } from 'zod';
import type { ImageFormat, Point, Rect, Size, TargetInfo } from '../../../../shared/frame.ts';
import type { FrameLabel, StoredFrame } from '../../catalog/types.ts';
import type { ImageInput } from '../../image/pipeline.ts';

export interface CaptureOptions {
  /** Long-edge limit for the image the model sees. */
  maxDimension: number;
  /** Optional pixel-count limit (model profiles such as `claude`: 1.15 MP). */
  maxPixels?: number;
  format: ImageFormat;
  quality: number;
  /** Native resolution, no scaling (the response carries a warning). */
  raw: boolean;
  fullPage?: boolean;
  scrollOffset?: Point;
  /** Mask secrets in the image (privacy.masking); absent when masking is off. */
  mask?: MaskSpec;
  signal: AbortSignal;
}

/**
 * What to mask: password and payment fields (a source knows them: input types, autocomplete,
 * password nodes) and text matching `patterns` (util/secrets.ts), each box filled with one
 * colour before the image is encoded.
 */
export interface MaskSpec {
  patterns: readonly string[];
}

export interface CapturedImage<State = unknown> {
  /** Canonical target id (a source may resolve aliases). */
  target: string;
  /** Native-resolution pixels; the core fits, encodes and stores them. */
  pixels?: ImageInput;
  /**
   * Or an image the source already fitted and encoded at the requested size
   * (the browser's in-browser `clip.scale` path). Exactly one of pixels/encoded.
   */
  encoded?: { data: Buffer; format: ImageFormat; width: number; height: number };
  /** Size of the captured region in source units (device px, CSS px, screen points). */
  sourceSize: Size;
  /** Source-space position of the image's top-left corner. */
  origin: Point;
  dpi?: number;
  monitor?: number;
  /** What the source needs later to judge staleness (window size, rotation, document id); stored as JSON. */
  state: State;
  /** What the image shows, where the source knows it cheaply (window title and app, page title and URL): indexed for search. */
  label?: FrameLabel;
  /**
   * Boxes (source space) holding a secret. With `pixels` the core fills them before it fits and
   * encodes; an `encoded` image comes with them already filled (the browser masks in the page).
   */
  masks?: Rect[];
  warnings?: string[];
}

/** Result of a staleness check: fresh, or moved (re-mapped by `shift` in source units). */
export interface FrameCheck {
  shift?: Point;
}

/**
 * `State` is the source's own frame state; `state` is its codec. The core validates a stored
 * frame's state with it before handing the frame back (a frame written by an older Sightline, or
 * by another source, is refused as stale instead of being misread).
 */
export interface ScreenPort<State = unknown> {
  readonly state: z.ZodType<State>;
  listTargets(signal: AbortSignal): Promise<TargetInfo[]>;
  capture(target: string, options: CaptureOptions): Promise<CapturedImage<State>>;
  /**
   * Throws TARGET_NOT_FOUND when the frame's target is gone and FRAME_STALE when
   * its size, rotation or document changed; returns a shift when it only moved.
   */
  checkFrame(frame: StoredFrame<State>, signal: AbortSignal): Promise<FrameCheck>;
  /**
   * Optional: capture `rect` (source space of `frame`) again at the device's native resolution,
   * for a crop with real detail (the browser: CDP clip at the page's device scale). Undefined when
   * the frame no longer shows what is there (then the crop is cut from the stored image).
   */
  captureRegion?(frame: StoredFrame<State>, rect: Rect, options: RegionOptions): Promise<EncodedRegion | undefined>;
}

export interface RegionOptions {
  format: ImageFormat;
  quality: number;
  /** Long-edge limit for the region's image. */
  maxDimension: number;
  mask?: MaskSpec;
  signal: AbortSignal;
}

/** A region captured again: its image and the source-space rect it shows (may be clamped). */
export interface EncodedRegion {
  data: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
  rect: Rect;
  /** Boxes (source space) already filled in the image (see CapturedImage.masks). */
  masks?: Rect[];
}
