/**
 * Turns the caller's image into what Tesseract reads best: one grey channel, dark text on a
 * light ground in every part of the screen (a dark side bar beside a light body is turned, the
 * body is not), small text enlarged, and a margin. Boxes come back in the prepared
 * image's pixels; `scale` and `pad` map them to the caller's.
 */
import sharp from 'sharp';
import { SightlineError } from '../../../shared/errors.ts';

/** A page as the engines read it: grey PNG, dark on light, enlarged by `scale`, `pad` px of white around. */
export interface Prepared {
  png: Buffer;
  /** The caller's image size. */
  width: number;
  height: number;
  /** Prepared pixels per caller pixel. */
  scale: number;
  /** Margin added on every side, in prepared pixels. */
  pad: number;
}

export interface Grey {
  data: Buffer;
  width: number;
  height: number;
}

const PAD = 10;

export interface PrepareOptions {
  /** Enlarge by this factor (1 = as is). */
  scale?: number;
}

/**
 * One byte of grey a pixel. The decoder hands raw channels and the luma is taken here: libvips'
 * own grey conversion goes through a colour space and costs as much again as the decode
 * (measured on a 1280×720 screenshot: JPEG 23 ms against 14 ms, PNG 50 ms against 11 ms).
 */
export async function decodeGrey(image: Buffer): Promise<Grey> {
  try {
    const { data, info } = await sharp(image, { failOn: 'error' }).raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    return { data: luma(data, info.channels), width: info.width, height: info.height };
  } catch (e) {
    throw new SightlineError('IMAGE_INVALID', `The image cannot be decoded: ${(e as Error).message}`, 'pass a PNG, JPEG or WebP image', undefined, { cause: e });
  }
}

/** Rec. 601 luma of interleaved pixels (alpha ignored: screens are opaque). */
function luma(data: Buffer, channels: number): Buffer {
  if (channels === 1) return data;
  const n = data.length / channels;
  const out = Buffer.allocUnsafe(n);
  if (channels === 2) {
    for (let j = 0; j < n; j++) out[j] = data[j * 2] as number;
    return out;
  }
  for (let i = 0, j = 0; j < n; i += channels, j++) out[j] = ((data[i] as number) * 77 + (data[i + 1] as number) * 150 + (data[i + 2] as number) * 29 + 128) >> 8;
  return out;
}

/** Side of the square blocks whose ground is judged on its own (px): smaller than any panel, larger than a glyph's stroke. */
const BLOCK = 16;
/** A block whose levels span less than this holds no text: its ground is judged by its level alone. */
const FLAT = 40;
/**
 * A ground still darker than this once turned (a blue button's, a dark theme's grey title bar) is
 * brought to white: Tesseract binarizes a page with one threshold, which puts a mid-grey ground
 * beside a white one on the ink's side, text and all. Lighter grounds are kept as they are.
 */
const GREY_GROUND = 200;
/** Below GREY_GROUND − this, a ground is brought all the way to white; in between, part of the way. */
const GREY_RAMP = 20;

/**
 * Which grounds are brought to white: `grey` ones only (a whole screen: its light panels are left
 * as bare Tesseract would see them), or `all`, pixel by pixel (a band of a few lines or a bar read
 * alone: with so little around it, a white pane beside a light grey status bar reads to
 * Tesseract as a box, and the bar's words were lost; every ground white, they read).
 */
export type Whiten = 'grey' | 'all';
/** Grounds are not brightened from below this (the gain stays under 4). */
const MIN_GROUND = 64;

/**
 * The image with every block of light text on a dark ground turned into dark text on a light
 * one. Text covers well under half of any block it is in, so a block's ground is the level most
 * of its pixels are near: when its mean lies below the middle of its range, the ground is the
 * dark end. A flat block (a panel's empty part) is judged by its level, so a dark panel turns
 * light as a whole and its text keeps one polarity. Whole screens in one theme come out as a
 * whole-image inversion would make them; a dark side bar or status bar beside a light body is
 * turned alone. Levels are kept otherwise, but for mid-grey grounds (GREY_GROUND): Tesseract's
 * reading shifts with any change to the page (brightening a light grey side bar by 5 % changed
 * 29 words of the body beside it).
 */
export function darkOnLight(g: Grey, whitenGrounds: Whiten = 'grey'): Grey {
  const { width, height, data } = g;
  const cols = Math.ceil(width / BLOCK);
  const rows = Math.ceil(height / BLOCK);
  const min = new Uint8Array(cols * rows).fill(255);
  const max = new Uint8Array(cols * rows);
  const sum = new Float64Array(cols * rows);
  for (let y = 0; y < height; y++) {
    const rowBase = Math.floor(y / BLOCK) * cols;
    const o = y * width;
    for (let x = 0; x < width; x++) {
      const v = data[o + x] as number;
      const k = rowBase + ((x / BLOCK) | 0);
      if (v < (min[k] as number)) min[k] = v;
      if (v > (max[k] as number)) max[k] = v;
      sum[k] = (sum[k] as number) + v;
    }
  }
  // Per block: turned or not, and its ground's level once turned.
  const dark = new Uint8Array(cols * rows);
  const ground = new Float32Array(cols * rows);
  let turned = false;
  let grey = false;
  for (let r = 0; r < rows; r++) {
    const h = Math.min(BLOCK, height - r * BLOCK);
    for (let c = 0; c < cols; c++) {
      const k = r * cols + c;
      const mean = (sum[k] as number) / (h * Math.min(BLOCK, width - c * BLOCK));
      const lo = min[k] as number;
      const hi = max[k] as number;
      const flat = hi - lo < FLAT;
      dark[k] = (flat ? mean < 128 : mean < (lo + hi) / 2) ? 1 : 0;
      ground[k] = flat ? (dark[k] ? 255 - mean : mean) : dark[k] ? 255 - lo : hi;
      if (dark[k]) turned = true;
      if ((ground[k] as number) < GREY_GROUND) grey = true;
    }
  }
  if (!turned && !grey && whitenGrounds === 'grey') return g;
  const out = Buffer.from(data);
  for (let y = 0; y < height; y++) {
    const rowBase = Math.floor(y / BLOCK) * cols;
    const o = y * width;
    for (let c = 0; c < cols; c++) {
      if (!dark[rowBase + c]) continue;
      const x1 = Math.min(width, (c + 1) * BLOCK);
      for (let x = c * BLOCK; x < x1; x++) out[o + x] = 255 - (data[o + x] as number);
    }
  }
  if (whitenGrounds === 'all') groundToWhite(out, width, height);
  else if (grey) whiten(out, width, height, ground, cols, rows);
  return { data: out, width, height };
}

/** How far (px) a pixel's ground is looked for: wider than a glyph's stroke, narrower than a bar. */
const GROUND_REACH = 3;

/**
 * Every ground brought to white, pixel by pixel: each pixel divided by its ground, the lightest
 * level within GROUND_REACH of it (text strokes are thinner, so the lightest level near a glyph is
 * the ground beside it). Per pixel and not per block: a status bar 22 px high straddles the
 * blocks, and a gain taken from blocks that also held the pane above it left its words on a grey
 * gradient, misread.
 */
function groundToWhite(out: Buffer, width: number, height: number): void {
  const across = new Uint8Array(out.length);
  for (let y = 0; y < height; y++) {
    const o = y * width;
    for (let x = 0; x < width; x++) {
      let m = 0;
      const x1 = Math.min(width - 1, x + GROUND_REACH);
      for (let i = Math.max(0, x - GROUND_REACH); i <= x1; i++) if ((out[o + i] as number) > m) m = out[o + i] as number;
      across[o + x] = m;
    }
  }
  for (let y = 0; y < height; y++) {
    const y0 = Math.max(0, y - GROUND_REACH);
    const y1 = Math.min(height - 1, y + GROUND_REACH);
    for (let x = 0; x < width; x++) {
      let m = 0;
      for (let j = y0; j <= y1; j++) if ((across[j * width + x] as number) > m) m = across[j * width + x] as number;
      out[y * width + x] = Math.min(255, Math.round(((out[y * width + x] as number) * 255) / Math.max(MIN_GROUND, m)));
    }
  }
}

/**
 * Mid-grey grounds brought towards white, by a gain that follows the ground smoothly (its level
 * interpolated between block centres): where two panels meet inside a line of text, a gain that
 * jumped from one block to the next would cut the glyphs in two.
 */
function whiten(out: Buffer, width: number, height: number, ground: Float32Array, cols: number, rows: number): void {
  const at = (c: number, r: number): number => ground[Math.min(rows - 1, Math.max(0, r)) * cols + Math.min(cols - 1, Math.max(0, c))] as number;
  for (let y = 0; y < height; y++) {
    const fy = (y + 0.5) / BLOCK - 0.5;
    const r0 = Math.floor(fy);
    const ty = fy - r0;
    const o = y * width;
    for (let x = 0; x < width; x++) {
      const fx = (x + 0.5) / BLOCK - 0.5;
      const c0 = Math.floor(fx);
      const tx = fx - c0;
      const level = (at(c0, r0) * (1 - tx) + at(c0 + 1, r0) * tx) * (1 - ty) + (at(c0, r0 + 1) * (1 - tx) + at(c0 + 1, r0 + 1) * tx) * ty;
      if (level >= GREY_GROUND) continue;
      // Nothing changes at GREY_GROUND; all the way to white from GREY_GROUND − the ramp down.
      const w = Math.min(1, (GREY_GROUND - level) / GREY_RAMP);
      const f = (level + (255 - level) * w) / Math.max(MIN_GROUND, level);
      out[o + x] = Math.min(255, (out[o + x] as number) * f);
    }
  }
}

/**
 * The level of an image's edge (the median of its border pixels): the margin around a page is
 * drawn in it, so a band of a grey title bar stays a grey bar with text, not a grey box on white,
 * in which Tesseract finds no text.
 */
export function edgeLevel(g: Grey): number {
  const counts = new Uint32Array(256);
  const { data, width, height } = g;
  const add = (i: number): void => void (counts[data[i] as number] = (counts[data[i] as number] as number) + 1);
  for (let x = 0; x < width; x++) {
    add(x);
    add((height - 1) * width + x);
  }
  for (let y = 0; y < height; y++) {
    add(y * width);
    add(y * width + width - 1);
  }
  const half = (2 * (width + height)) / 2;
  let seen = 0;
  for (let v = 0; v < 256; v++) {
    seen += counts[v] as number;
    if (seen >= half) return v;
  }
  return 255;
}

/** A grey image (already dark on light) as a page to read: enlarged by `scale`, with a margin of its edge's level. */
export async function preparedPage(g: Grey, scale = 1): Promise<Prepared> {
  let pipe = sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } });
  if (scale !== 1) pipe = pipe.resize(Math.round(g.width * scale), Math.round(g.height * scale), { kernel: 'cubic' });
  // Tesseract misplaces boxes of text that touches the image edge (a status bar's last line): a
  // margin gives it the space it expects. (sharp extends after resizing, whatever the call order.)
  const edge = edgeLevel(g);
  const png = await pipe.extend({ top: PAD, bottom: PAD, left: PAD, right: PAD, background: { r: edge, g: edge, b: edge } }).toColourspace('b-w').png({ compressionLevel: 0 }).toBuffer();
  return { png, width: g.width, height: g.height, scale, pad: PAD };
}

export async function prepareForOcr(image: Buffer, opts: PrepareOptions = {}): Promise<Prepared> {
  return preparedPage(darkOnLight(await decodeGrey(image)), opts.scale ?? 1);
}
