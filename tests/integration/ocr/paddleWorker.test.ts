/**
 * PaddleOCR (onnxruntime-node, models from npm) hosted in a worker thread: it reads a small
 * dark toolbar with its word boxes, the event loop keeps turning meanwhile, and an abort is
 * CANCELLED.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import { afterAll, expect, it } from 'vitest';
import { createOcrEngine } from '../../../src/main/core/ocr/index.ts';
import { findText, itemsFromOcr } from '../../../src/main/core/text/match.ts';

const engine = createOcrEngine('linux', { engine: 'paddle' });
afterAll(() => engine.dispose());

it('reads a toolbar in a worker thread without stalling the event loop', async () => {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="420" height="40"><rect width="420" height="40" fill="#1e1e1e"/><text x="14" y="25" font-family="DejaVu Sans" font-size="14" fill="#d4d4d4">Save changes</text><text x="230" y="25" font-family="DejaVu Sans" font-size="14" fill="#d4d4d4">Discard</text></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  expect(await engine.available()).toEqual({ ok: true });
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const result = await engine.recognize(png);
  h.disable();
  expect(result).toMatchObject({ engine: 'paddle', width: 420, height: 40, geometry: 'derived' });
  const [save] = findText(itemsFromOcr(result), 'save changes');
  expect(save?.kind).toBe('phrase');
  // "Save" starts at the pen position 14 (+1 px side bearing); the phrase ends before x = 120.
  expect(Math.abs((save?.box.x ?? 0) - 15)).toBeLessThanOrEqual(3);
  expect(findText(itemsFromOcr(result), 'discard')[0]?.box.x).toBeGreaterThan(225);
  // The models run on the worker's thread: the main loop never waits for a whole inference.
  expect(h.max / 1e6).toBeLessThan(500);
  const ac = new AbortController();
  const p = engine.recognize(png, { signal: ac.signal });
  ac.abort();
  await expect(p).rejects.toMatchObject({ code: 'CANCELLED' });
}, 120_000);
