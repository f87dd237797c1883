/**
 * The changed-region reader over a batch, with the real tesseract: a page, a broken file, a repeat
 * and two typed lines are compared first, the lines read by one OCR call; the broken file fails alone, the
 * others get their own text; and a frame whose OCR failed takes the frames built on it down with it.
 */
import { describe, expect, it } from 'vitest';
import { SightlineError } from '../../../src/shared/errors.ts';
import type { FrameRecord } from '../../../src/main/core/catalog/types.ts';
import { FrameReader, type FrameLook } from '../../../src/main/core/text/frameReader.ts';
import { OcrService, recognizePages } from '../../../src/main/core/text/ocr.ts';
import { TEXT_SHOT_SIZE, textScreenshot } from '../../support/textArchive.ts';

const OCR = { enabled: true, engine: 'auto' as const, index: true, cpuBudget: 1, excludeApps: [] };
const PAGE = ['Quarterly budget review with the finance team', 'Invoice 4411 was paid by Contoso yesterday'];

function frame(ref: string): FrameRecord {
  const size = TEXT_SHOT_SIZE;
  return {
    ref,
    source: 'manictime',
    target: 'manictime:monitor:0',
    capturedAt: '2024-06-03T09:00:00.000Z',
    image: size,
    sourceSize: size,
    origin: { x: 0, y: 0 },
    scale: 1,
    format: 'jpeg',
    bytes: 0,
    pinned: false,
    hasFull: false,
    external: true,
  } as FrameRecord;
}

async function reader(images: Record<string, Buffer>, failFirstCall = false): Promise<{ reader: FrameReader; calls: () => number; dispose: () => Promise<void> }> {
  const ocr = new OcrService({ settings: () => OCR });
  let calls = 0;
  const look: FrameLook = {
    image: async (ref) => ({ frame: frame(ref), data: images[ref] as Buffer, shrunk: 1 }),
    read: async (pages, o) => {
      calls++;
      if (failFirstCall && calls === 1) throw new SightlineError('INTERNAL', 'tesseract failed (exit 1)', 'check the image');
      return recognizePages(ocr, pages, { ...o, priority: 'background' });
    },
  };
  return { reader: new FrameReader(look), calls: () => calls, dispose: () => ocr.dispose() };
}

describe('the changed-region reader reads a batch by as few OCR calls as fit', { timeout: 120_000 }, () => {
  it('a broken file fails alone; the page, its repeat and its typed line each get their text', async () => {
    const page = (await textScreenshot(PAGE)).jpeg;
    const typed = (await textScreenshot([...PAGE, 'zebrafish appeared in the pond'])).jpeg;
    const more = (await textScreenshot([...PAGE, 'zebrafish appeared in the pond', 'Pumpkin soup and bread'])).jpeg;
    const r = await reader({ a: page, broken: Buffer.from('not an image'), b: page, c: typed, d: more });
    try {
      const got = await Promise.allSettled(r.reader.readMany(['a', 'broken', 'b', 'c', 'd'], new AbortController().signal));
      expect(got.map((g) => g.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
      expect((got[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'IMAGE_INVALID' });
      const [a, , b, c] = got.map((g) => (g.status === 'fulfilled' ? g.value : undefined));
      expect(a).toMatchObject({ reuse: 'read', screen: 'a' });
      expect(b).toMatchObject({ reuse: 'same', screen: 'a', text: a?.text });
      expect(c).toMatchObject({ reuse: 'bands', screen: 'c' });
      expect(a?.text).toMatch(/Contoso/);
      expect(a?.text).not.toMatch(/zebrafish/i);
      expect(c?.text).toMatch(/Contoso[\s\S]*zebrafish/i);
      expect(got[4]).toMatchObject({ status: 'fulfilled', value: { reuse: 'bands', text: expect.stringMatching(/zebrafish[\s\S]*Pumpkin/i) } });
      // The first page alone (the newest screenshot searchable at once), the two changed bands stacked into one call.
      expect(r.calls()).toBe(2);
    } finally {
      await r.dispose();
    }
  });

  it('when the OCR call fails, the frames whose text would come from it fail too, and the screen is read whole next time', async () => {
    const page = (await textScreenshot(PAGE)).jpeg;
    const r = await reader({ a: page, b: page, c: page }, true);
    try {
      const got = await Promise.allSettled(r.reader.readMany(['a', 'b'], new AbortController().signal));
      expect(got.map((g) => g.status)).toEqual(['rejected', 'rejected']);
      const again = await r.reader.read('c', new AbortController().signal);
      expect(again).toMatchObject({ reuse: 'read', screen: 'c' });
      expect(again.text).toMatch(/Contoso/);
    } finally {
      await r.dispose();
    }
  });
});
