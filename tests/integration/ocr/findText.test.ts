/**
 * The default Linux OCR engine on generated screens with known text (UI fonts at 11–16 px,
 * light and dark): find_text's matcher finds each drawn word with its box within 3 image px
 * of the ink that was drawn, and reads the page with a low character error rate.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createOcrEngine, type OcrEngine } from '../../../src/main/core/ocr/index.ts';
import { findText, itemsFromOcr } from '../../../src/main/core/text/match.ts';
import { PLAIN_VOCABULARY, renderScreen, type Box, type DrawnWord, type Theme } from '../../support/ocrPage.ts';
import { characterErrorRate, edgeError } from '../../support/ocrScore.ts';

// Both Linux engines: the system binary (the default where installed; CI installs it) and the
// WebAssembly build (the fallback, and the default on macOS and Windows).
const hasCli = spawnSync('tesseract', ['--version']).status === 0;
const engines: Record<string, OcrEngine> = { tesseract: createOcrEngine('linux', { engine: 'tesseract' }), 'tesseract-cli': createOcrEngine('linux', { engine: 'tesseract-cli' }) };
afterAll(() => Promise.all(Object.values(engines).map((e) => e.dispose())));

interface Miss {
  word: string;
  /** Edge error of the nearest same-text hit; Infinity when the word was not read at all. */
  error: number;
  /** A same-text hit overlaps the drawn word: it was read, but its box is off. */
  boxOff: boolean;
}

const overlap = (a: Box, b: Box): number => Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));

function misses(words: DrawnWord[], items: ReturnType<typeof itemsFromOcr>, fuzzy = false): Miss[] {
  const out: Miss[] = [];
  for (const w of words) {
    const hits = findText(items, w.text, { max: 10_000, fuzzy }).filter((h) => h.wholeWord);
    const best = Math.min(...hits.map((h) => edgeError(h.box, w.box)));
    if (best <= 3) continue;
    const boxOff = hits.some((h) => overlap(h.box, w.box) > 0.5 * w.box.width * w.box.height);
    out.push({ word: `${w.text} (${w.font} ${w.size}px at ${w.box.x},${w.box.y})`, error: best, boxOff });
  }
  return out;
}

const cases = (['tesseract-cli', 'tesseract'] as const).flatMap((name) => (['light', 'dark'] as Theme[]).map((theme) => [name, theme] as const));

describe.each(cases)('OCR find_text with %s on a %s screen', (name, theme) => {
  const engine = engines[name] as OcrEngine;
  // The CLI is a Debian package (.ci/run installs it); without it only the wasm build runs.
  const maybe = name === 'tesseract-cli' && !hasCli ? it.skip : it;

  // Tesseract misreads about one word in 150 here (`Desktop` → `Deskiop`, `archived` → `arc ived`
  // at 13 px in a grey title bar): find_text's fuzzy mode takes the single-letter slips, and
  // at most 1 % of the words may be missed. Real X11 windows: see x11Window.test.ts.
  maybe('finds the drawn words of a letters-only page within 3 px (≥ 99 %)', { timeout: 180_000 }, async () => {
    const page = await renderScreen({ width: 960, height: 600, theme, seed: 21, vocabulary: PLAIN_VOCABULARY });
    const result = await engine.recognize(page.png);
    expect(result).toMatchObject({ engine: name, width: 960, height: 600, geometry: 'word' });
    expect(page.words.length).toBeGreaterThan(250);
    expect(new Set(page.words.map((w) => w.size))).toEqual(new Set([11, 12, 13, 14, 15, 16]));
    const missed = misses(page.words, itemsFromOcr(result), true);
    expect(missed.length / page.words.length, JSON.stringify(missed)).toBeLessThanOrEqual(0.01);
  });

  maybe('reads a page of numbers, versions and accented names with CER ≤ 4 % and ≥ 97 % of words within 3 px', { timeout: 180_000 }, async () => {
    const page = await renderScreen({ width: 960, height: 600, theme, seed: 11 });
    const result = await engine.recognize(page.png);
    const missed = misses(page.words, itemsFromOcr(result));
    expect(missed.length / page.words.length, JSON.stringify(missed)).toBeLessThanOrEqual(0.03);
    expect(characterErrorRate(page, result).cer).toBeLessThanOrEqual(0.04);
    // A phrase of two neighbouring words comes back as one box around both.
    const plain = (w: DrawnWord | undefined): boolean => !!w && /^[A-Za-z]{4,}$/.test(w.text);
    const i = page.words.findIndex((w, k) => plain(w) && plain(page.words[k + 1]) && page.words[k + 1]?.line === w.line && w.size === 15);
    const [a, b] = [page.words[i], page.words[i + 1]];
    const phrase = findText(itemsFromOcr(result), `${a?.text} ${b?.text}`);
    expect(phrase.some((h) => h.kind === 'phrase' && Math.abs(h.box.x - (a?.box.x ?? 0)) <= 3)).toBe(true);
  });
});
