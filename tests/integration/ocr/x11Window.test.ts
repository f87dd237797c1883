/**
 * OCR on a real X11 window (Xvfb + openbox, Tk canvas with Xft text): find_text finds each
 * word the window drew within 3 px of its ink, on a light and a dark window.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { Monitor } from 'node-screenshots';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOcrEngine } from '../../../src/main/core/ocr/index.ts';
import { findText, itemsFromOcr } from '../../../src/main/core/text/match.ts';
import { PLAIN_VOCABULARY, type Box } from '../../support/ocrPage.ts';
import { edgeError } from '../../support/ocrScore.ts';
import { startXvfb, type XDisplay } from '../../support/xvfb.ts';

interface Ready {
  x: number;
  y: number;
  width: number;
  height: number;
  words: { text: string; bbox: [number, number, number, number] }[];
}

const WINDOW = resolve(import.meta.dirname, '../../fixtures/ocr/textWindow.py');
const engine = createOcrEngine('linux');
let x: XDisplay;

beforeAll(async () => {
  x = await startXvfb('1024x600');
  // node-screenshots reads the display from the environment of this (test) process.
  process.env.DISPLAY = x.display;
});
afterAll(async () => {
  await engine.dispose();
  await x?.stop();
});

async function openWindow(theme: string, words: string[]): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = spawn('python3', [WINDOW, '--theme', theme, '--words', words.join(' ')], { env: x.env, stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = await new Promise<Ready>((ok, fail) => {
    const t = setTimeout(() => fail(new Error('the text window did not report ready')), 15_000);
    createInterface({ input: proc.stdout! }).on('line', (l) => {
      clearTimeout(t);
      ok(JSON.parse(l) as Ready);
    });
  });
  return { proc, ready };
}

/** The ink inside a word's logical box: what a reader (and the test) calls the word's box. */
function inkBox(grey: Buffer, width: number, bg: number, b: [number, number, number, number]): Box {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -1, -1];
  for (let y = b[1]; y < b[3]; y++) {
    for (let x = b[0]; x < b[2]; x++) {
      if (Math.abs((grey[y * width + x] ?? bg) - bg) < 64) continue;
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    }
  }
  return { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

describe.each(['light', 'dark'])('OCR on a %s X11 window', (theme) => {
  it('finds every word the window drew within 3 px of its ink', async () => {
    const words = PLAIN_VOCABULARY.slice(theme === 'light' ? 0 : 20, (theme === 'light' ? 0 : 20) + 60);
    const { proc, ready } = await openWindow(theme, [...words]);
    try {
      const monitor = Monitor.all()[0];
      if (!monitor) throw new Error('no monitor on the Xvfb display');
      // The window's canvas as a frame of its own (what a window capture hands the engine), once
      // the X server shows its words (on a loaded machine the paint can trail the window's report).
      let frame = Buffer.alloc(0);
      let grey = Buffer.alloc(0);
      let bg = 0;
      for (const end = Date.now() + 10_000; ; ) {
        const shot = await (await monitor.captureImage()).toPng();
        frame = await sharp(shot).extract({ left: ready.x, top: ready.y, width: ready.width, height: ready.height }).png().toBuffer();
        grey = (await sharp(frame).greyscale().raw().toBuffer({ resolveWithObject: true })).data;
        bg = grey[0] ?? 0;
        const last = ready.words[ready.words.length - 1]!.bbox;
        if (inkBox(grey, ready.width, bg, last).width > 1 || Date.now() > end) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const result = await engine.recognize(frame);
      const items = itemsFromOcr(result);
      const missed: string[] = [];
      for (const w of ready.words) {
        const ink = inkBox(grey, ready.width, bg, w.bbox);
        const hits = findText(items, w.text, { fuzzy: true, max: 1000 }).filter((h) => h.wholeWord);
        const best = Math.min(...hits.map((h) => edgeError(h.box, ink)));
        if (best <= 3) continue;
        const read = result.lines.flatMap((l) => l.words).find((o) => edgeError(o.box, ink) <= 6);
        missed.push(`${w.text} at ${JSON.stringify(ink)}: ${hits.length ? `off by ${best}` : 'not found'}${read ? `, read as "${read.text}"` : ''}`);
      }
      expect(ready.words.length).toBeGreaterThanOrEqual(50);
      expect(missed).toEqual([]);
    } finally {
      proc.kill();
    }
  }, 180_000);
});
