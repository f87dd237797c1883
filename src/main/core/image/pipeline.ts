/**
 * The one sharp module: decode (raw RGB/RGBA, PNG, JPEG, WebP), resize, crop, encode.
 * Every call is one sharp pipeline over the caller's buffer (no intermediate copies), and bad
 * input is an IMAGE_INVALID error, never a blank image.
 */
import type sharpDefault from 'sharp';
import type { Sharp, SharpOptions } from 'sharp';
import { SightlineError } from '../../../shared/errors.ts';
import type { ImageFormat, Rect, Size } from '../../../shared/frame.ts';
import { fitSize } from './fit.ts';

/** Native pixels handed to the pipeline: raw RGB(A), or an encoded PNG/JPEG/WebP. */
export type ImageInput =
  | { kind: 'raw'; data: Buffer; width: number; height: number; channels: 3 | 4 }
  | { kind: 'encoded'; data: Buffer };

type SharpLib = typeof sharpDefault;
let loading: Promise<SharpLib> | undefined;

/**
 * sharp, loaded on first use: libvips costs ~200 ms to load, which an MCP client waiting for
 * `initialize` should not pay before the first image.
 */
function lib(): Promise<SharpLib> {
  loading ??= import('sharp').then((m) => {
    const sharp = m.default;
    // Sharp's operation cache only helps when the same file is processed twice; frames never are,
    // and it would hold up to 50 MB of screenshots for nothing.
    sharp.cache(false);
    return sharp;
  });
  return loading;
}

/** Load the image library now, in the background (a server about to be asked for thumbnails). */
export function warmUpImages(): void {
  void lib().catch(() => undefined);
}

export interface Encoded {
  data: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
}

export interface FitOptions {
  maxDimension?: number;
  maxPixels?: number;
  /** Keep native resolution (no resize). */
  raw?: boolean;
}

export interface EncodeOptions {
  format: ImageFormat;
  /** 1..100; ignored for PNG (lossless). */
  quality: number;
}

export const THUMBNAIL_MAX_DIMENSION = 320;
const THUMBNAIL_QUALITY = 60;

/**
 * Abort on any decoder error, truncation included ('truncated' alone lets some corrupt JPEGs
 * through as grey); benign libjpeg warnings ('warning', sharp's default) are tolerated so that
 * a slightly odd archive file still opens.
 */
const DECODE: SharpOptions = { failOn: 'error' };

/** The size of `input`, validated (a header read for encoded images; the pixels are decoded later). */
export async function probe(input: ImageInput): Promise<Size> {
  if (input.kind === 'raw') return checkRaw(input);
  checkEncoded(input.data);
  const sharp = await lib();
  try {
    const meta = await sharp(input.data, DECODE).metadata();
    if (!meta.width || !meta.height) throw new Error('no dimensions in the header');
    return { width: meta.width, height: meta.height };
  } catch (e) {
    throw invalid(e);
  }
}

/** Fit `input` to the limits (or keep it native with `raw`) and encode it. */
export async function fitAndEncode(input: ImageInput, fit: FitOptions, enc: EncodeOptions): Promise<Encoded & { sourcePixels: Size }> {
  const src = await open(input);
  const out = fit.raw ? src.size : fitSize(src.size, fit);
  return { ...(await encode(await resampled(src, undefined, out), enc)), sourcePixels: src.size };
}

/** Cut `rectPx` (integer pixels of `input`) and fit and encode the cut. */
export async function crop(input: ImageInput, rectPx: Rect, fit: FitOptions, enc: EncodeOptions): Promise<Encoded> {
  const src = await open(input);
  const { x, y, width, height } = rectPx;
  const { width: w, height: h } = src.size;
  if (![x, y, width, height].every(Number.isSafeInteger) || x < 0 || y < 0 || width < 1 || height < 1 || x + width > w || y + height > h) {
    throw new SightlineError(
      'INVALID_ARGUMENT',
      `Crop ${x},${y} ${width}x${height} is not an integer rect inside the ${w}x${h} image.`,
      'resolve the crop with resolveCropRect/planCrop first',
    );
  }
  const out = fit.raw ? { width, height } : fitSize({ width, height }, fit);
  return encode(await resampled(src, rectPx, out), enc);
}

/** The colour a masked box is filled with (a dark grey that reads as "hidden", not as a black screen). */
export const MASK_COLOUR = { r: 32, g: 32, b: 32 } as const;

/**
 * `input` with each rect (pixels of `input`, clamped to it) filled with MASK_COLOUR, as raw pixels
 * (an encoded input is decoded once; the fill is a few row copies, and the encode that follows
 * starts from raw pixels, so nothing is encoded twice). Without rects, `input` itself.
 */
export async function maskPixels(input: ImageInput, rectsPx: readonly Rect[]): Promise<ImageInput> {
  if (rectsPx.length === 0) return input;
  let raw: Extract<ImageInput, { kind: 'raw' }>;
  if (input.kind === 'raw') {
    checkRaw(input);
    raw = input;
  } else {
    const src = await open(input);
    try {
      const { data, info } = await src.image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
      raw = { kind: 'raw', data, width: info.width, height: info.height, channels: info.channels as 3 | 4 };
    } catch (e) {
      throw invalid(e);
    }
  }
  const { width, height, channels } = raw;
  // The caller's buffer is not ours to change.
  const data = input.kind === 'raw' ? Buffer.from(raw.data) : raw.data;
  const pixel = Buffer.from(channels === 4 ? [MASK_COLOUR.r, MASK_COLOUR.g, MASK_COLOUR.b, 255] : [MASK_COLOUR.r, MASK_COLOUR.g, MASK_COLOUR.b]);
  for (const r of rectsPx) {
    const x0 = Math.max(0, Math.floor(r.x));
    const y0 = Math.max(0, Math.floor(r.y));
    const x1 = Math.min(width, Math.ceil(r.x + r.width));
    const y1 = Math.min(height, Math.ceil(r.y + r.height));
    if (x1 <= x0 || y1 <= y0) continue;
    const row = Buffer.alloc((x1 - x0) * channels);
    for (let i = 0; i < row.length; i += channels) pixel.copy(row, i);
    for (let y = y0; y < y1; y++) row.copy(data, (y * width + x0) * channels);
  }
  return { kind: 'raw', data, width, height, channels };
}

/** A small JPEG for timelines and `…/thumbnail` resources. */
export async function thumbnail(input: ImageInput, maxDimension = THUMBNAIL_MAX_DIMENSION): Promise<Encoded> {
  return fitAndEncode(input, { maxDimension }, { format: 'jpeg', quality: THUMBNAIL_QUALITY });
}

interface Opened {
  image: Sharp;
  size: Size;
  alpha: boolean;
}

async function open(input: ImageInput): Promise<Opened> {
  const sharp = await lib();
  if (input.kind === 'raw') {
    const size = checkRaw(input);
    const image = sharp(input.data, { raw: { width: input.width, height: input.height, channels: input.channels } });
    return { image, size, alpha: input.channels === 4 };
  }
  checkEncoded(input.data);
  const image = sharp(input.data, DECODE);
  try {
    const meta = await image.metadata();
    if (!meta.width || !meta.height) throw new Error('no dimensions in the header');
    return { image, size: { width: meta.width, height: meta.height }, alpha: meta.hasAlpha };
  } catch (e) {
    throw invalid(e);
  }
}

/**
 * The opened image, cut to `rect` and resized to `out`, with its alpha dropped: screens are
 * opaque, and X11 and some capture APIs hand back alpha 0, which sharp would premultiply (or JPEG
 * flatten) to black. Sharp drops alpha only after resizing, so an image with alpha that must be
 * resampled is first cut and unpacked to raw RGB: measured on a 1920x1080 RGBA frame, that second
 * pass is faster (≈25 ms against ≈33 ms) than letting sharp premultiply and unpremultiply 4 bands.
 */
async function resampled(src: Opened, rect: Rect | undefined, out: Size): Promise<Sharp> {
  const sharp = await lib();
  const cut = rect ?? { x: 0, y: 0, ...src.size };
  const resize = out.width !== cut.width || out.height !== cut.height;
  let image = src.image;
  if (rect) image.extract({ left: rect.x, top: rect.y, width: rect.width, height: rect.height });
  if (src.alpha && resize) {
    try {
      const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
      image = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
    } catch (e) {
      throw invalid(e);
    }
  } else if (src.alpha) {
    image.removeAlpha();
  }
  if (resize) image.resize(out.width, out.height, { fit: 'fill' });
  return image;
}

async function encode(pipeline: Sharp, enc: EncodeOptions): Promise<Encoded> {
  const quality = Math.min(100, Math.max(1, Math.round(enc.quality)));
  switch (enc.format) {
    case 'jpeg':
      // mozjpeg's trellis quantisation saves ~10 % bytes at several times the encode time.
      pipeline.jpeg({ quality, mozjpeg: false, chromaSubsampling: '4:2:0' });
      break;
    case 'webp':
      pipeline.webp({ quality, effort: 2 });
      break;
    case 'png':
      // Screens compress well with fast zlib levels; higher levels cost a lot for a few %.
      pipeline.png({ compressionLevel: 6, adaptiveFiltering: false });
      break;
    default:
      throw new SightlineError('INVALID_ARGUMENT', `Unknown image format ${String(enc.format)}.`, 'use jpeg, webp or png');
  }
  try {
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return { data, format: enc.format, width: info.width, height: info.height };
  } catch (e) {
    throw invalid(e);
  }
}

function checkRaw(input: Extract<ImageInput, { kind: 'raw' }>): Size {
  const { width, height, channels, data } = input;
  if (!Number.isSafeInteger(width) || !Number.isSafeInteger(height) || width < 1 || height < 1) {
    throw new SightlineError('IMAGE_INVALID', `Raw image size ${width}x${height} is not a positive integer size.`, 'capture again');
  }
  if (channels !== 3 && channels !== 4) {
    throw new SightlineError('IMAGE_INVALID', `Raw image has ${String(channels)} channels; 3 (RGB) or 4 (RGBA) expected.`, 'capture again');
  }
  const expected = width * height * channels;
  if (data.length !== expected) {
    throw new SightlineError(
      'IMAGE_INVALID',
      `Raw image buffer holds ${data.length} bytes; ${width}x${height}x${channels} needs ${expected}.`,
      'capture again; the capture was cut short',
    );
  }
  return { width, height };
}

function checkEncoded(data: Buffer): void {
  if (data.length === 0) throw new SightlineError('IMAGE_INVALID', 'The image is empty (0 bytes).', 'capture again');
}

function invalid(e: unknown): SightlineError {
  if (e instanceof SightlineError) return e;
  const detail = e instanceof Error ? e.message.split('\n')[0] : String(e);
  return new SightlineError('IMAGE_INVALID', `The image could not be decoded: ${detail}.`, 'capture again; the image data is empty, truncated or not an image', undefined, { cause: e });
}

/** The format of encoded image bytes, from their magic numbers (no decode). */
export function sniffFormat(data: Buffer): ImageFormat | undefined {
  if (data.length >= 8 && data.readUInt32BE(0) === 0x89504e47) return 'png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  if (data.length >= 12 && data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return undefined;
}

/** An image as grey pixels at `width`×`height` (for comparing two frames cheaply). */
export async function greyPixels(data: Buffer, width: number, height: number): Promise<Buffer> {
  const sharp = await lib();
  try {
    return await sharp(data, DECODE).resize(width, height, { fit: 'fill' }).greyscale().raw().toBuffer();
  } catch (e) {
    throw invalid(e);
  }
}
