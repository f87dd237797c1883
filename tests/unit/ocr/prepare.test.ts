/**
 * How a page is prepared for Tesseract, on real rendered screens: light text on a dark panel is
 * turned block by block while the light body beside it is left exactly as it was, a mid-grey
 * ground is brought to white, and the margin is drawn in the image's own edge level.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { darkOnLight, decodeGrey, edgeLevel, type Grey } from '../../../src/main/core/ocr/prepare.ts';

async function grey(svg: string): Promise<Grey> {
  return decodeGrey(await sharp(Buffer.from(svg)).png().toBuffer());
}

const at = (g: Grey, x: number, y: number): number => g.data[y * g.width + x] as number;

describe('darkOnLight', () => {
  it("read alone ('all'), a light grey status bar under a white pane is white too, though nothing on the page needed turning", async () => {
    const g = await grey(
      `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="70"><rect width="300" height="70" fill="#ffffff"/><rect y="48" width="300" height="22" fill="#e8e8e8"/>` +
        `<text x="12" y="64" font-family="DejaVu Sans" font-size="12" fill="#333333">Ln 60</text></svg>`,
    );
    expect(at(g, 200, 60)).toBeLessThan(240);
    const out = darkOnLight(g, 'all');
    for (const y of [54, 60, 67]) expect(at(out, 200, y), `row ${y}`).toBeGreaterThan(250);
    // Read whole ('grey'), a light panel is left as it is.
    expect(at(darkOnLight(g, 'grey'), 200, 60)).toBe(at(g, 200, 60));
  });

  it("read alone ('all'), a blue status bar under a dark pane is white up to its top edge, its words dark", async () => {
    // A dark editor's last rows and its 22 px blue status bar, which straddles the 16 px blocks.
    const g = await grey(
      `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="70"><rect width="300" height="70" fill="#1e1e1e"/><rect y="48" width="300" height="22" fill="#007acc"/>` +
        `<text x="12" y="64" font-family="DejaVu Sans" font-size="12" fill="#ffffff">Ln 271</text></svg>`,
    );
    const out = darkOnLight(g, 'all');
    // The bar's ground, beside the words and from 4 px under the pane: white, no grey gradient.
    for (const y of [52, 54, 60, 67]) expect(at(out, 200, y), `row ${y}`).toBeGreaterThan(250);
    let darkest = 255;
    for (let y = 52; y < 66; y++) for (let x = 12; x < 60; x++) darkest = Math.min(darkest, at(out, x, y));
    expect(darkest).toBeLessThan(90);
  });

  it('turns a dark side bar and leaves the light body beside it untouched, pixel for pixel', async () => {
    // A chat app: a dark side bar with light channel names, a white body with dark text.
    const g = await grey(
      `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="160"><rect width="400" height="160" fill="#ffffff"/><rect width="160" height="160" fill="#3f0e40"/>` +
        `<text x="16" y="40" font-family="DejaVu Sans" font-size="14" fill="#ffffff">general</text><text x="192" y="40" font-family="DejaVu Sans" font-size="14" fill="#1d1c1d">Lunch at noon</text></svg>`,
    );
    const out = darkOnLight(g);
    // The side bar's ground is light now, its text dark.
    expect(at(out, 100, 120)).toBeGreaterThan(200);
    let darkest = 255;
    for (let y = 25; y < 45; y++) for (let x = 16; x < 80; x++) darkest = Math.min(darkest, at(out, x, y));
    expect(darkest).toBeLessThan(60);
    // The body is the same pixels as before.
    for (let y = 0; y < g.height; y++) for (let x = 176; x < g.width; x++) expect(at(out, x, y)).toBe(at(g, x, y));
  });

  it('a whole dark screen comes out as its inversion; a light one as it is', async () => {
    const dark = await grey(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="80"><rect width="200" height="80" fill="#1e1e1e"/><text x="10" y="40" font-family="DejaVu Sans" font-size="14" fill="#d4d4d4">const value</text></svg>`);
    const out = darkOnLight(dark);
    for (let i = 0; i < dark.data.length; i += 37) expect(out.data[i]).toBe(255 - (dark.data[i] as number));
    const light = await grey(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="80"><rect width="200" height="80" fill="#fafafa"/><text x="10" y="40" font-family="DejaVu Sans" font-size="14" fill="#202020">const value</text></svg>`);
    expect(darkOnLight(light)).toBe(light);
  });

  it('brings a mid-grey ground to white (a blue button turned is grey, and one threshold would take its text with it)', async () => {
    const g = await grey(`<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><rect width="300" height="200" fill="#f0f0f0"/><rect width="300" height="100" fill="#2060c0"/><text x="150" y="58" font-family="DejaVu Sans" font-size="21" fill="white" text-anchor="middle">Click me</text></svg>`);
    const out = darkOnLight(g);
    expect(at(g, 20, 20)).toBeLessThan(120);
    expect(at(out, 20, 20)).toBeGreaterThanOrEqual(250);
    // The window's light ground below stays as it was.
    expect(at(out, 20, 150)).toBe(at(g, 20, 150));
  });
});

describe('edgeLevel', () => {
  it('is the level most of the border has (a grey title bar band: grey)', () => {
    const data = new Uint8Array(40 * 10).fill(221);
    for (let x = 10; x < 14; x++) data[5 * 40 + x] = 30;
    expect(edgeLevel({ data: Buffer.from(data), width: 40, height: 10 })).toBe(221);
  });
});
