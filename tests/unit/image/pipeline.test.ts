import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { crop, fitAndEncode, probe, sniffFormat, thumbnail } from '../../../src/main/core/image/pipeline.ts';
import { isSightlineError } from '../../../src/shared/errors.ts';
import type { ImageInput } from '../../../src/main/core/image/pipeline.ts';

/**
 * A 400x300 test card: left half red, right half blue, a 100x100 white square at (50,50),
 * alpha 0 everywhere (as X11 hands back).
 */
const W = 400;
const H = 300;
function card(): Buffer {
  const buf = Buffer.alloc(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4;
      const white = x >= 50 && x < 150 && y >= 50 && y < 150;
      buf[i] = white || x < W / 2 ? 255 : 0;
      buf[i + 1] = white ? 255 : 0;
      buf[i + 2] = white || x >= W / 2 ? 255 : 0;
      buf[i + 3] = 0;
    }
  }
  return buf;
}

let rgba: Buffer;
let png: Buffer;
let jpeg: Buffer;
const rawInput = (): ImageInput => ({ kind: 'raw', data: rgba, width: W, height: H, channels: 4 });

beforeAll(async () => {
  rgba = card();
  const opaque = { raw: { width: W, height: H, channels: 4 as const } };
  png = await sharp(rgba, opaque).removeAlpha().png().toBuffer();
  jpeg = await sharp(rgba, opaque).removeAlpha().jpeg({ quality: 90 }).toBuffer();
});

async function pixel(data: Buffer, x: number, y: number): Promise<number[]> {
  const { data: px, info } = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [px[i]!, px[i + 1]!, px[i + 2]!];
}

function near(actual: number[], expected: number[], tol = 24): void {
  actual.forEach((v, i) => expect(Math.abs(v - expected[i]!), `channel ${i}: ${actual.join(',')} vs ${expected.join(',')}`).toBeLessThanOrEqual(tol));
}

async function expectInvalid(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (e) {
    expect(isSightlineError(e) && e.code, String(e)).toBe('IMAGE_INVALID');
    return;
  }
  expect.unreachable('expected IMAGE_INVALID');
}

describe('probe', () => {
  it('reads the size of raw, PNG and JPEG input', async () => {
    expect(await probe(rawInput())).toEqual({ width: W, height: H });
    expect(await probe({ kind: 'encoded', data: png })).toEqual({ width: W, height: H });
    expect(await probe({ kind: 'encoded', data: jpeg })).toEqual({ width: W, height: H });
  });

  it('rejects empty, headerless and short raw input', async () => {
    await expectInvalid(probe({ kind: 'encoded', data: Buffer.alloc(0) }));
    await expectInvalid(probe({ kind: 'encoded', data: Buffer.from('not an image at all') }));
    await expectInvalid(probe({ kind: 'raw', data: rgba.subarray(0, rgba.length - 4), width: W, height: H, channels: 4 }));
    await expectInvalid(probe({ kind: 'raw', data: Buffer.alloc(0), width: 0, height: 0, channels: 4 }));
  });
});

describe('fitAndEncode', () => {
  it('fits raw RGBA to 1000 px (here: keeps 400x300) and encodes JPEG without blacking out alpha-0 pixels', async () => {
    const out = await fitAndEncode(rawInput(), {}, { format: 'jpeg', quality: 80 });
    expect(out).toMatchObject({ format: 'jpeg', width: W, height: H, sourcePixels: { width: W, height: H } });
    expect((await sharp(out.data).metadata()).format).toBe('jpeg');
    near(await pixel(out.data, 10, 200), [255, 0, 0]);
    near(await pixel(out.data, 390, 200), [0, 0, 255]);
    near(await pixel(out.data, 100, 100), [255, 255, 255]);
  });

  it('downscales to the limit with the geometry of fitSize and the content where it belongs', async () => {
    const out = await fitAndEncode(rawInput(), { maxDimension: 200 }, { format: 'png', quality: 70 });
    expect([out.width, out.height]).toEqual([200, 150]);
    const meta = await sharp(out.data).metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['png', 200, 150, false]);
    near(await pixel(out.data, 50, 50), [255, 255, 255]); // square now at 25..75
    near(await pixel(out.data, 150, 140), [0, 0, 255]);
  });

  it('keeps the colours of an encoded PNG whose alpha is 0 when resizing it', async () => {
    const clear = await sharp(rgba, { raw: { width: W, height: H, channels: 4 } }).png().toBuffer();
    expect((await sharp(clear).metadata()).hasAlpha).toBe(true);
    const out = await fitAndEncode({ kind: 'encoded', data: clear }, { maxDimension: 200 }, { format: 'jpeg', quality: 90 });
    near(await pixel(out.data, 50, 50), [255, 255, 255]);
    near(await pixel(out.data, 10, 140), [255, 0, 0]);
  });

  it('honours maxPixels and raw', async () => {
    const small = await fitAndEncode({ kind: 'encoded', data: png }, { maxPixels: 30_000 }, { format: 'webp', quality: 60 });
    expect(small.width * small.height).toBeLessThanOrEqual(30_000);
    expect((await sharp(small.data).metadata()).format).toBe('webp');
    const raw = await fitAndEncode({ kind: 'encoded', data: jpeg }, { maxDimension: 100, raw: true }, { format: 'jpeg', quality: 70 });
    expect([raw.width, raw.height]).toEqual([W, H]);
  });

  it('encodes with the quality asked for', async () => {
    const lo = await fitAndEncode(rawInput(), {}, { format: 'jpeg', quality: 10 });
    const hi = await fitAndEncode(rawInput(), {}, { format: 'jpeg', quality: 95 });
    expect(hi.data.length).toBeGreaterThan(lo.data.length);
  });

  it('refuses empty, truncated and undecodable input instead of returning a blank image', async () => {
    const enc = { format: 'jpeg' as const, quality: 70 };
    await expectInvalid(fitAndEncode({ kind: 'encoded', data: Buffer.alloc(0) }, {}, enc));
    for (const cut of [0.3, 0.6, 0.95]) {
      await expectInvalid(fitAndEncode({ kind: 'encoded', data: jpeg.subarray(0, Math.floor(jpeg.length * cut)) }, {}, enc));
      await expectInvalid(fitAndEncode({ kind: 'encoded', data: png.subarray(0, Math.floor(png.length * cut)) }, {}, enc));
    }
    await expectInvalid(fitAndEncode({ kind: 'raw', data: rgba.subarray(0, 1000), width: W, height: H, channels: 4 }, {}, enc));
    await expectInvalid(fitAndEncode({ kind: 'raw', data: Buffer.alloc(W * H * 2), width: W, height: H, channels: 2 as 3 }, {}, enc));
  });
});

describe('crop', () => {
  it('cuts the rect in input pixels, then fits and encodes it', async () => {
    const out = await crop(rawInput(), { x: 50, y: 50, width: 100, height: 100 }, {}, { format: 'png', quality: 70 });
    expect([out.width, out.height]).toEqual([100, 100]);
    near(await pixel(out.data, 0, 0), [255, 255, 255], 0);
    near(await pixel(out.data, 99, 99), [255, 255, 255], 0);
    const fitted = await crop({ kind: 'encoded', data: png }, { x: 150, y: 0, width: 250, height: 300 }, { maxDimension: 60 }, { format: 'jpeg', quality: 80 });
    expect([fitted.width, fitted.height]).toEqual([50, 60]);
    near(await pixel(fitted.data, 2, 2), [255, 0, 0]); // x 150..199 red
    near(await pixel(fitted.data, 45, 55), [0, 0, 255]);
  });

  it('refuses rects outside the input or not in integers', async () => {
    const enc = { format: 'png' as const, quality: 70 };
    for (const r of [
      { x: 350, y: 0, width: 100, height: 10 },
      { x: -1, y: 0, width: 10, height: 10 },
      { x: 0, y: 0, width: 0, height: 10 },
      { x: 0.5, y: 0, width: 10, height: 10 },
    ]) {
      await expect(crop(rawInput(), r, {}, enc)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    // The decoder stops once it has the rows a crop needs, so cut where those rows are missing.
    await expectInvalid(crop({ kind: 'encoded', data: jpeg.subarray(0, Math.floor(jpeg.length / 2)) }, { x: 300, y: 250, width: 100, height: 50 }, {}, enc));
    await expectInvalid(crop({ kind: 'encoded', data: png.subarray(0, Math.floor(png.length / 2)) }, { x: 300, y: 250, width: 100, height: 50 }, {}, enc));
  });
});

describe('thumbnail', () => {
  it('makes a JPEG of at most 320 px (or the size asked)', async () => {
    const big = await sharp({ create: { width: 1600, height: 900, channels: 3, background: '#336699' } }).png().toBuffer();
    const t = await thumbnail({ kind: 'encoded', data: big });
    expect([t.format, t.width, t.height]).toEqual(['jpeg', 320, 180]);
    expect((await sharp(t.data).metadata()).format).toBe('jpeg');
    const t2 = await thumbnail({ kind: 'encoded', data: big }, 100);
    expect([t2.width, t2.height]).toEqual([100, 56]);
  });
});

describe('sniffFormat', () => {
  it('tells PNG, JPEG and WebP bytes apart without decoding, and nothing else', async () => {
    const base = sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } });
    expect(sniffFormat(await base.clone().png().toBuffer())).toBe('png');
    expect(sniffFormat(await base.clone().jpeg().toBuffer())).toBe('jpeg');
    expect(sniffFormat(await base.clone().webp().toBuffer())).toBe('webp');
    expect(sniffFormat(Buffer.from('GIF89a'))).toBeUndefined();
    expect(sniffFormat(Buffer.alloc(0))).toBeUndefined();
  });
});
