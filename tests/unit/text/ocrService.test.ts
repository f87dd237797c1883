import { describe, expect, it } from 'vitest';
import type { CoreSettings } from '../../../src/shared/settings.ts';
import type { OcrEngine, OcrResult } from '../../../src/main/core/ocr/types.ts';
import { OcrService, type OcrPriority } from '../../../src/main/core/text/ocr.ts';

type OcrSettings = CoreSettings['ocr'];
const base: OcrSettings = { enabled: true, engine: 'auto', index: true, cpuBudget: 1, excludeApps: [] };

/** Engines that record their life and answer once `release` is called. */
function factory() {
  const made: { priority: OcrPriority; threads: number; disposed: boolean }[] = [];
  const waiting: (() => void)[] = [];
  const create = (s: OcrSettings, priority: OcrPriority): OcrEngine => {
    const rec = { priority, threads: priority === 'background' ? s.cpuBudget : 1, disposed: false };
    made.push(rec);
    return {
      name: 'tesseract',
      available: async () => ({ ok: true }),
      recognize: () =>
        new Promise<OcrResult>((ok) => {
          waiting.push(() => ok({ engine: 'tesseract', width: 1, height: 1, geometry: 'word', lines: [] }));
        }),
      dispose: async () => void (rec.disposed = true),
    };
  };
  /** Answer the oldest page still being read. */
  return { made, create, release: () => waiting.shift()?.() };
}

describe('OcrService', () => {
  it('refuses while OCR is off, creating no engine', async () => {
    const f = factory();
    const ocr = new OcrService({ settings: () => ({ ...base, enabled: false }), create: f.create });
    await expect(ocr.recognize(Buffer.from('x'))).rejects.toMatchObject({ code: 'UNSUPPORTED', hint: expect.stringMatching(/Read text by OCR/) });
    expect(f.made).toEqual([]);
  });

  it('keeps one engine per priority, the background one within the CPU budget', async () => {
    const f = factory();
    const settings = { ...base, cpuBudget: 3 };
    const ocr = new OcrService({ settings: () => settings, create: f.create });
    const a = ocr.recognize(Buffer.from('x'));
    f.release();
    await a;
    const b = ocr.recognize(Buffer.from('x'), { priority: 'background' });
    f.release();
    await b;
    const c = ocr.recognize(Buffer.from('x'));
    f.release();
    await c;
    expect(f.made.map((m) => [m.priority, m.threads])).toEqual([
      ['interactive', 1],
      ['background', 3],
    ]);
    await ocr.dispose();
    expect(f.made.every((m) => m.disposed)).toBe(true);
  });

  it('after a settings change, a busy engine finishes its page before it is freed, and a new one takes over', async () => {
    const f = factory();
    let settings = { ...base };
    const ocr = new OcrService({ settings: () => settings, create: f.create });
    const busy = ocr.recognize(Buffer.from('x'));
    settings = { ...base, engine: 'tesseract-cli' };
    const next = ocr.recognize(Buffer.from('y'));
    expect(f.made).toHaveLength(2);
    expect(f.made[0]!.disposed).toBe(false);
    // The second engine answers; the first is still reading its page: it is not freed under it.
    const first = f.release;
    const order: string[] = [];
    void busy.then(() => order.push('busy'));
    void next.then(() => order.push('next'));
    await Promise.resolve();
    expect(f.made[0]!.disposed).toBe(false);
    first();
    await busy;
    await new Promise((r) => setTimeout(r, 0));
    expect(f.made[0]!.disposed).toBe(true);
    expect(f.made[1]!.disposed).toBe(false);
    f.release();
    await next;
    expect(order).toEqual(['busy', 'next']);
    await ocr.dispose();
    expect(f.made[1]!.disposed).toBe(true);
  });
});
