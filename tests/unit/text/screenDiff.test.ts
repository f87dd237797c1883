/**
 * Change detection between screenshots of one screen, on real rendered JPEGs: JPEG noise is the
 * same screen; a caret, a clock's new minute, a changed title, a changed letter or a new line
 * gives a band of whole text lines, full width; a scrolled pane beside a side bar is a shift of
 * that pane only; another size or half the screen is different. A 64-bit dHash, measured beside
 * it, cannot see a changed word. And the merge of kept and re-read words.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeGrey } from '../../../src/main/core/ocr/prepare.ts';
import { mergeText, sameScreenText } from '../../../src/main/core/text/wordLines.ts';
import { components, screenOf, type Screen } from '../../../src/main/core/text/screenCells.ts';
import { compare, dHash, hamming, merge, patch } from '../../../src/main/core/text/screenDiff.ts';
import { screenRuns } from '../../../src/main/core/catalog/text.ts';
import { drawScreen, newScreen, rng, tick } from '../../support/appScreens.ts';
import { TEXT_SHOT_SIZE, textScreenshot } from '../../support/textArchive.ts';

const LINES = ['Quarterly budget review with the finance team', 'Invoice 4411 was paid by Contoso yesterday', 'Run the tests before tagging'];

async function thumb(image: Buffer): Promise<Screen> {
  const g = await decodeGrey(image);
  return screenOf(g.data, g.width, g.height);
}

/** The screenshot with a rectangle drawn on it (a caret, a clock's digits). */
async function drawn(jpeg: Buffer, r: { x: number; y: number; width: number; height: number; text?: string }): Promise<Buffer> {
  const { width, height } = TEXT_SHOT_SIZE;
  const shape = r.text
    ? `<text x="${r.x}" y="${r.y + r.height - 3}" font-family="DejaVu Sans" font-size="${r.height - 4}" fill="#202020">${r.text}</text>`
    : `<rect x="${r.x}" y="${r.y}" width="${r.width}" height="${r.height}" fill="#101010"/>`;
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${shape}</svg>`);
  return sharp(jpeg).composite([{ input: svg }]).jpeg({ quality: 85 }).toBuffer();
}

describe('compare', () => {
  it('calls the same screen the same through JPEG noise, and reads again a caret and a clock in the menu bar', async () => {
    const { jpeg } = await textScreenshot(LINES);
    const base = await thumb(jpeg);
    for (const quality of [55, 70, 95]) expect(compare(base, await thumb(await sharp(jpeg).jpeg({ quality }).toBuffer()))).toEqual({ kind: 'same' });
    // A 1 px caret at the end of the second line: a band of that line, nothing else.
    const caret = compare(base, await thumb(await drawn(jpeg, { x: 453, y: 72, width: 1, height: 22 })));
    expect(caret).toMatchObject({ kind: 'bands', bands: [expect.objectContaining({})] });
    if (caret.kind === 'bands') expect(caret.share).toBeLessThan(0.25);
    // A clock in the bar along the top edge, then its next minute: each a band at the top.
    const clock = await drawn(jpeg, { x: 820, y: 2, width: 60, height: 20, text: '14:05' });
    expect(compare(base, await thumb(clock))).toMatchObject({ kind: 'bands', bands: [{ top: 0 }] });
    const next = await drawn(jpeg, { x: 820, y: 2, width: 60, height: 20, text: '14:06' });
    expect(compare(await thumb(clock), await thumb(next))).toMatchObject({ kind: 'bands', bands: [{ top: 0 }] });
  });

  it('sees one letter changed in a 12 px word, light or dark, where JPEG noise of the same screen moves nothing', async () => {
    for (const [ground, ink] of [
      ['#ffffff', '#1f1f1f'],
      ['#1e1e1e', '#d4d4d4'],
      ['#f3f3f3', '#6a737d'],
    ]) {
      const page = async (word: string, quality: number): Promise<Buffer> => {
        const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="80"><rect width="400" height="80" fill="${ground}"/><text x="20" y="40" font-family="Liberation Sans" font-size="12" fill="${ink}">Channels general ${word}</text></svg>`;
        return sharp(Buffer.from(svg)).jpeg({ quality }).toBuffer();
      };
      const base = await thumb(await page('random', 82));
      expect(compare(base, await thumb(await page('random', 60))), `${ground} noise`).toEqual({ kind: 'same' });
      expect(compare(base, await thumb(await page('rendom', 82))).kind, `${ground} a → e`).toBe('bands');
      expect(compare(base, await thumb(await page('randon', 82))).kind, `${ground} m → n`).toBe('bands');
    }
  });

  it('reads again only the band of whole text lines where a digit changed, full width', async () => {
    const a = await textScreenshot(LINES);
    const b = await textScreenshot([LINES[0] as string, 'Invoice 4412 was paid by Contoso yesterday', LINES[2] as string]);
    const got = compare(await thumb(a.jpeg), await thumb(b.jpeg), a.bands);
    expect(got.kind).toBe('bands');
    if (got.kind !== 'bands') return;
    expect(got.bands).toHaveLength(1);
    const band = got.bands[0] as { top: number; bottom: number };
    const line = a.bands[1] as { top: number; bottom: number };
    // The whole second line, not the first nor the third.
    expect(band.top).toBeLessThanOrEqual(line.top + 8);
    expect(band.bottom).toBeGreaterThanOrEqual(line.bottom - 8);
    expect(band.top).toBeGreaterThan((a.bands[0] as { top: number }).top + 10);
    expect(band.bottom).toBeLessThan((a.bands[2] as { bottom: number }).bottom - 10);
    expect(got.share).toBeLessThan(0.25);
  });

  it('a new line is a band of its own; another size or a new page is different', async () => {
    const a = await textScreenshot(LINES);
    const c = await textScreenshot([...LINES, 'a new line typed here']);
    const got = compare(await thumb(a.jpeg), await thumb(c.jpeg), a.bands);
    expect(got).toMatchObject({ kind: 'bands', bands: [expect.objectContaining({})] });
    if (got.kind === 'bands') expect((got.bands[0] as { top: number }).top).toBeGreaterThanOrEqual((a.bands[2] as { bottom: number }).bottom - 8);
    const other = await textScreenshot(['Lunch menu of the canteen today', 'Pumpkin soup and bread', 'Apple pie', 'Coffee and tea', 'Closed on Sunday']);
    expect(compare(await thumb(a.jpeg), await thumb(other.jpeg), a.bands)).toEqual({ kind: 'different' });
    const small = await textScreenshot(LINES, { width: 600, height: 300 });
    expect(compare(await thumb(a.jpeg), await thumb(small.jpeg))).toEqual({ kind: 'different' });
  });

  it('a line deleted (or a scroll) shifts the lines below: only what appeared is read, not every moved line', async () => {
    const six = [...LINES, 'Lunch menu of the canteen today', 'Pumpkin soup and bread', 'Apple pie for dessert'];
    const a = await textScreenshot(six);
    const b = await textScreenshot([six[0], six[2], six[3], six[4], six[5], 'Coffee and tea'] as string[]);
    const got = compare(await thumb(a.jpeg), await thumb(b.jpeg), a.bands);
    expect(got).toMatchObject({ kind: 'bands', shift: { from: expect.any(Number), dy: 40, left: expect.any(Number), right: expect.any(Number) } });
    if (got.kind !== 'bands') return;
    // The last line (new) is read; the moved lines are not.
    expect(got.share).toBeLessThan(0.3);
    expect(got.bands.some((x) => x.bottom >= (a.bands[5] as { bottom: number }).bottom - 8)).toBe(true);
    expect(got.bands.every((x) => x.top >= (a.bands[3] as { top: number }).top)).toBe(true);
  });

  it('a scroll by a number of px that is not a multiple of the cell is found to the pixel', async () => {
    const six = [...LINES, 'Lunch menu of the canteen today', 'Pumpkin soup and bread', 'Apple pie for dessert'];
    const a = await textScreenshot(six);
    // The same page scrolled up by 23 px under a fixed 24 px bar (the bar stays, the text moves).
    const { width, height } = TEXT_SHOT_SIZE;
    const page = await sharp(a.jpeg).extract({ left: 0, top: 24 + 23, width, height: height - 24 - 23 }).toBuffer();
    const scrolled = await sharp(a.jpeg)
      .composite([
        { input: page, left: 0, top: 24 },
        { input: { create: { width, height: 23, channels: 3, background: '#f7f7f7' } }, left: 0, top: height - 23 },
      ])
      .jpeg({ quality: 85 })
      .toBuffer();
    const got = compare(await thumb(a.jpeg), await thumb(scrolled), a.bands);
    expect(got).toMatchObject({ kind: 'bands', shift: { dy: 23 } });
  });

  it('lines typed at the top push the page down by a height no whole number of cells makes: a shift, only the new lines read', async () => {
    // An editor's page: 38 px a line (9.5 cells), lines of made-up words, three typed at the top.
    const syl = ['ka', 'lo', 'mi', 'ren', 'tu', 'sa', 'vel', 'dor', 'pi', 'na', 'gre', 'on'];
    const line = (i: number): string => Array.from({ length: 9 }, (_, k) => syl[(i * 7 + k * 5) % 12]! + syl[(i * 3 + k) % 12]! + syl[(i + k * k) % 12]!).join(' ');
    const page = async (lines: string[]): Promise<Buffer> => {
      const text = lines.map((l, i) => `<text x="40" y="${80 + i * 38}" font-family="DejaVu Sans" font-size="${15 + (i % 3)}" fill="#202020">${l}</text>`).join('');
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="720"><rect width="1280" height="720" fill="#fafafa"/><rect width="1280" height="32" fill="#dedede"/>${text}</svg>`;
      return sharp(Buffer.from(svg)).jpeg({ quality: 80 }).toBuffer();
    };
    const before = Array.from({ length: 16 }, (_, i) => line(i));
    const after = [line(20), line(21), line(22), ...before].slice(0, 16);
    const got = compare(await thumb(await page(before)), await thumb(await page(after)));
    expect(got, JSON.stringify(got)).toMatchObject({ kind: 'bands', shift: { dy: -114 } });
    if (got.kind !== 'bands') return;
    // The rows that scrolled in (the three new lines, y 62–176, grown to whole lines) and the
    // bottom, where the last line moved past the page's end (its words must leave the text), not
    // the thirteen moved ones.
    expect(got.share, JSON.stringify(got.bands)).toBeLessThan(0.3);
    expect(got.bands.every((x) => (x.top >= 50 && x.bottom <= 215) || x.top >= 640), JSON.stringify(got.bands)).toBe(true);
  });

  it("a pane scrolled beside a side bar while the title bar's clock ticks: a shift of the pane, and the clock a band of its own", async () => {
    const s = newScreen(rng(8), 'light');
    const scrolled = { ...s, body: s.body.slice(2), clock: tick(s.clock) };
    const got = compare(await thumb((await drawScreen(s)).jpeg), await thumb((await drawScreen(scrolled)).jpeg));
    expect(got, JSON.stringify(got)).toMatchObject({ kind: 'bands', shift: { left: expect.any(Number) } });
    if (got.kind !== 'bands' || !got.shift) return;
    // The pane's columns, not the side bar's (220 px wide).
    expect(got.shift.left).toBeGreaterThanOrEqual(220);
    expect(got.bands[0]?.top).toBeLessThan(30);
    expect(got.share).toBeLessThan(0.3);
  });

  it('a pane scrolled back (its content down) while the clock ticks: the pane starts below the tab strip, whose rows stay and are not read', async () => {
    const s = newScreen(rng(8), 'dark');
    const scrolled = { ...s, body: s.body.slice(2), clock: tick(s.clock) };
    const got = compare(await thumb((await drawScreen(scrolled)).jpeg), await thumb((await drawScreen(s)).jpeg));
    expect(got, JSON.stringify(got)).toMatchObject({ kind: 'bands', shift: { dy: expect.any(Number) } });
    if (got.kind !== 'bands' || !got.shift) return;
    expect(got.shift.dy).toBeLessThan(0);
    // The tab strip (rows 30–62) is neither moved with the pane nor read again: only the clock is.
    expect(got.shift.from).toBeGreaterThanOrEqual(62);
    expect(got.bands.some((b) => b.top < 62 && b.bottom > 30)).toBe(false);
  });

  it('a 64-bit dHash does not see a changed word (why the cells are compared instead)', async () => {
    const a = await textScreenshot(LINES);
    const b = await textScreenshot([LINES[0] as string, 'Invoice 9977 was paid by Fabrikam yesterday', LINES[2] as string]);
    const ta = await thumb(a.jpeg);
    const tb = await thumb(b.jpeg);
    expect(hamming(dHash(ta.thumb), dHash(tb.thumb))).toBeLessThanOrEqual(2);
    expect(compare(ta, tb, a.bands).kind).toBe('bands');
  });
});

describe('cells, groups and bands', () => {
  it('groups changed cells 8-connected', () => {
    const cols = 10;
    const rows = 40;
    const mask = new Uint8Array(cols * rows);
    for (const [x, y] of [
      [1, 14],
      [2, 15],
      [5, 20],
      [5, 21],
      [5, 22],
    ] as const)
      mask[y * cols + x] = 1;
    expect(components(mask, cols, rows)).toEqual([
      { x0: 1, y0: 14, x1: 2, y1: 15 },
      { x0: 5, y0: 20, x1: 5, y1: 22 },
    ]);
  });

  it('merges overlapping and nearly touching bands, top to bottom', () => {
    expect(
      merge([
        { top: 100, bottom: 140 },
        { top: 10, bottom: 40 },
        { top: 130, bottom: 160 },
        { top: 45, bottom: 60 },
        { top: 300, bottom: 320 },
      ]),
    ).toEqual([
      { top: 10, bottom: 60 },
      { top: 100, bottom: 160 },
      { top: 300, bottom: 320 },
    ]);
  });

  it('patch takes the rows of the bands from the new screenshot, the rest from the base', () => {
    const a = screenOf(new Uint8Array(8 * 16).fill(10), 8, 16);
    const b = screenOf(new Uint8Array(8 * 16).fill(200), 8, 16);
    const p = patch(a, b, [{ top: 4, bottom: 8 }]);
    expect([...p.thumb.cells]).toEqual([10, 10, 200, 200, 10, 10, 10, 10]);
    expect([...p.grey.subarray(0, 8 * 4)].every((v) => v === 10)).toBe(true);
    expect([...p.grey.subarray(8 * 4, 8 * 8)].every((v) => v === 200)).toBe(true);
    expect([...p.grey.subarray(8 * 8)].every((v) => v === 10)).toBe(true);
  });
});

describe('mergeText', () => {
  it('keeps the words outside the bands, takes those read inside, lines top to bottom', () => {
    const before = { text: 'alpha beta\ngamma delta\nomega', boxes: [10, 10, 40, 12, 60, 10, 40, 12, 10, 50, 40, 12, 60, 50, 40, 12, 10, 90, 40, 12] };
    const fresh = { text: 'gamma epsilon\nstray', boxes: [10, 51, 40, 12, 60, 51, 50, 12, 10, 200, 30, 12] };
    const out = mergeText(before, fresh, [{ top: 40, bottom: 70 }]);
    expect(out.text).toBe('alpha beta\ngamma epsilon\nomega');
    expect(out.boxes).toEqual([10, 10, 40, 12, 60, 10, 40, 12, 10, 51, 40, 12, 60, 51, 50, 12, 10, 90, 40, 12]);
  });
});

describe('mergeText after a shift', () => {
  it('moves the words below the shift with the content, drops those scrolled out, reads the band', () => {
    const before = { text: 'head\ngone\nmoved\nlast', boxes: [10, 10, 40, 12, 10, 50, 40, 12, 10, 90, 40, 12, 10, 130, 40, 12] };
    const fresh = { text: 'fresh', boxes: [10, 131, 40, 12] };
    const out = mergeText(before, fresh, [{ top: 125, bottom: 150 }], { from: 40, dy: 40, left: 0, right: 400 }, 160);
    expect(out.text).toBe('head\nmoved\nlast\nfresh');
    expect(out.boxes).toEqual([10, 10, 40, 12, 10, 50, 40, 12, 10, 90, 40, 12, 10, 131, 40, 12]);
  });

  it('moves only the words of the pane that scrolled: a side bar beside it stays', () => {
    const before = { text: 'inbox one\ndrafts two\nsent three', boxes: [10, 50, 40, 12, 300, 50, 40, 12, 10, 90, 40, 12, 300, 90, 40, 12, 10, 130, 40, 12, 300, 130, 40, 12] };
    const out = mergeText(before, { text: 'sent four', boxes: [10, 131, 40, 12, 300, 131, 40, 12] }, [{ top: 125, bottom: 150 }], { from: 40, dy: 40, left: 250, right: 600 }, 160);
    // The side bar's words (x 10) keep their rows; the pane's (x 300) move up by 40, "one" scrolled out.
    const at = new Map(out.text.split(/\s+/).map((w, i) => [w, out.boxes[i * 4 + 1]]));
    expect(Object.fromEntries(at)).toEqual({ inbox: 50, two: 50, drafts: 90, three: 90, sent: 131, four: 131 });
  });
});

  it('drops a word whose middle scrolled out below the screen, though a box taller than it keeps its top on screen', () => {
    // Content moved down by 30 px: "low" (box 100..140, an OCR box that took in the line above)
    // has its middle at 150 after the shift, past the 140 px image.
    const before = { text: 'stays\nlow', boxes: [10, 20, 40, 12, 10, 100, 40, 40] };
    const out = mergeText(before, { text: '', boxes: [] }, [], { from: 10, dy: -30, left: 0, right: 400 }, 140);
    expect(out.text).toBe('stays');
    expect(out.boxes).toEqual([10, 50, 40, 12]);
  });

describe('sameScreenText', () => {
  it('the same words in the same order, a clock aside, are the same screen; another word is not', () => {
    const t = (text: string): { text: string; boxes: number[] } => ({ text, boxes: [] });
    expect(sameScreenText(t('Inbox 09:41\nhello world'), t('Inbox 09:42\nhello world'))).toBe(true);
    expect(sameScreenText(t('Inbox 9:41PM\nhello world'), t('Inbox\nhello world'))).toBe(true);
    expect(sameScreenText(t('Inbox\nhello world'), t('Inbox\nhello there'))).toBe(false);
    expect(sameScreenText(t('Inbox (3)'), t('Inbox (4)'))).toBe(false);
  });
});

describe('screenRuns', () => {
  it('folds consecutive frames of one target with one screen key; a frame without text stands alone', () => {
    const f = (ref: string, target = 't1'): { ref: string; target: string } => ({ ref, target });
    const frames = [f('a'), f('b'), f('c'), f('d', 't2'), f('e'), f('g'), f('h')];
    const screens = new Map([
      ['a', 'a'],
      ['b', 'a'],
      ['c', 'c'],
      ['d', 'c'],
      ['e', 'c'],
      ['h', 'c'],
    ]);
    expect(screenRuns(frames, screens).map((r) => r.map((x) => x.ref).join(''))).toEqual(['ab', 'c', 'd', 'e', 'g', 'h']);
  });
});
