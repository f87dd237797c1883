/**
 * A screenshot whose file has the same bytes as the last one read of its screen (an idle screen,
 * encoded the same way twice) is that screen without being decoded; one that only looks the same
 * (other JPEG noise) is decoded and compared. The real tesseract reads the first.
 */
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import type { FrameRecord } from '../../../src/main/core/catalog/types.ts';
import * as prepare from '../../../src/main/core/ocr/prepare.ts';
import { FrameReader } from '../../../src/main/core/text/frameReader.ts';
import { OcrService, recognizePages } from '../../../src/main/core/text/ocr.ts';
import { TEXT_SHOT_SIZE, textScreenshot } from '../../support/textArchive.ts';

vi.mock('../../../src/main/core/ocr/prepare.ts', async (original) => {
  const m = await original<typeof prepare>();
  return { ...m, decodeGrey: vi.fn(m.decodeGrey) };
});

const OCR = { enabled: true, engine: 'auto' as const, index: true, cpuBudget: 1, excludeApps: [] };

function frame(ref: string): FrameRecord {
  return { ref, source: 'manictime', target: 'manictime:monitor:0', capturedAt: '2024-06-03T09:00:00.000Z', image: TEXT_SHOT_SIZE, sourceSize: TEXT_SHOT_SIZE, origin: { x: 0, y: 0 }, scale: 1, format: 'jpeg', bytes: 0, pinned: false, hasFull: false, external: true } as FrameRecord;
}

describe('the same bytes again', { timeout: 120_000 }, () => {
  it('are the same screen, undecoded; the same pixels in other bytes are decoded and compared', async () => {
    const page = (await textScreenshot(['Quarterly budget review with the finance team', 'Invoice 4411 was paid by Contoso yesterday'])).jpeg;
    const noisy = await sharp(page).jpeg({ quality: 70 }).toBuffer();
    const images: Record<string, Buffer> = { a: page, b: Buffer.from(page), c: Buffer.from(page), d: noisy };
    const ocr = new OcrService({ settings: () => OCR });
    const reader = new FrameReader({ image: async (ref) => ({ frame: frame(ref), data: images[ref] as Buffer, shrunk: 1 }), read: (pages, o) => recognizePages(ocr, pages, { ...o, priority: 'background' }) });
    const decode = vi.mocked(prepare.decodeGrey);
    try {
      decode.mockClear();
      const got = await Promise.all(reader.readMany(['a', 'b', 'c', 'd'], new AbortController().signal));
      expect(got.map((g) => [g.reuse, g.screen])).toEqual([
        ['read', 'a'],
        ['same', 'a'],
        ['same', 'a'],
        ['same', 'a'],
      ]);
      expect(got[1]!.text).toBe(got[0]!.text);
      expect(got[0]!.text).toContain('Contoso');
      // Decoded: the first (read) and the noisy copy (compared); not the two with the first's bytes.
      expect(decode.mock.calls.map(([data]) => data)).toEqual([page, noisy]);
      // The next batch starts from the same screen: the same bytes again cost no decode.
      decode.mockClear();
      expect((await reader.read('b', new AbortController().signal)).reuse).toBe('same');
      expect(decode).not.toHaveBeenCalled();
    } finally {
      await ocr.dispose();
    }
  });
});
