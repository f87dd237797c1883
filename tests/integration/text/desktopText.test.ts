/**
 * Text on a screen with no text of its own: a real X11 window (Xvfb + openbox, Tk) read by
 * the real OCR engine through MCP. find_text gives each word's box in image pixels of the
 * frame it names; click by text presses the right place; two equal labels are AMBIGUOUS_TEXT.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDesktopSource } from '../../../src/main/core/sources/desktop/desktopSource.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { startTestApp, startXvfb, type TestApp, type XDisplay } from '../../support/xvfb.ts';

interface Ready {
  x: number;
  y: number;
  width: number;
  height: number;
  words: { text: string; bbox: [number, number, number, number] }[];
}

interface Found {
  frameRef: string;
  image: { width: number; height: number };
  via: string;
  matches: { text: string; box: { x: number; y: number; width: number; height: number }; center: { x: number; y: number }; confidence: number }[];
  total: number;
}

const WINDOW = resolve(import.meta.dirname, '../../fixtures/ocr/textWindow.py');
const WORDS = ['Invoice', 'Quarterly', 'Settings', 'Download', 'Bookmarks', 'Save', 'Preferences', 'Calendar', 'Save', 'Network', 'Archive', 'Window'];

async function openWindow(x: XDisplay, words: string[]): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = spawn('python3', [WINDOW, '--theme', 'light', '--words', words.join(' ')], { env: x.env, stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = await new Promise<Ready>((ok, fail) => {
    const t = setTimeout(() => fail(new Error('the text window did not report ready')), 20_000);
    createInterface({ input: proc.stdout! }).on('line', (l) => {
      clearTimeout(t);
      ok(JSON.parse(l) as Ready);
    });
  });
  return { proc, ready };
}

describe('find_text and click by text on a desktop window (OCR)', { timeout: 120_000 }, () => {
  let x: XDisplay;
  let h: Harness;
  let win: { proc: ChildProcess; ready: Ready };
  let app: TestApp;
  let target: string;

  beforeAll(async () => {
    x = await startXvfb('1024x700');
    win = await openWindow(x, WORDS);
    app = await startTestApp(x, { title: 'Sightline Click Test', geometry: '300x200+700+420' });
    const env = { PATH: process.env.PATH };
    h = await startHarness({ sources: [createDesktopSource({ settings: { display: x.display }, env })], env });
    const listed = await h.call('list_targets', { source: 'desktop' });
    const t = (listed.structuredContent as { targets: { id: string; title: string }[] }).targets.find((w) => w.title === 'Sightline OCR light');
    if (!t) throw new Error(`the text window is not listed: ${textOf(listed)}`);
    target = t.id;
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    win?.proc.kill();
    await app?.close();
    await x?.stop();
  });

  it('finds words with their boxes in image pixels of the frame, read from the native original', async () => {
    // A small image (scale > 1): OCR must read the native original, and boxes come back scaled.
    const cap = await h.call('capture', { target, maxDimension: 480 });
    const frame = (cap.structuredContent as { frame: { ref: string; origin: { x: number; y: number }; scale: number } }).frame;
    expect(frame.scale).toBeGreaterThan(1.4);
    for (const word of ['Quarterly', 'Preferences', 'Network']) {
      const r = await h.call('find_text', { target, text: word.toLowerCase() });
      expect(r.isError, textOf(r)).toBeFalsy();
      const found = r.structuredContent as unknown as Found;
      expect(found.via).toBe('ocr');
      expect(found.matches).toHaveLength(1);
      const m = found.matches[0]!;
      expect(m.text).toBe(word);
      // Where Tk drew it: canvas px → screen (source) px → image px of the frame find_text names.
      const drawn = win.ready.words.find((w) => w.text === word)!.bbox;
      const fr = h.core.frames.get(found.frameRef);
      const toImage = (sx: number, sy: number): { x: number; y: number } => ({ x: (win.ready.x + sx - fr.origin.x) / fr.scale, y: (win.ready.y + sy - fr.origin.y) / fr.scale });
      const left = toImage(drawn[0], drawn[1]);
      const right = toImage(drawn[2], drawn[3]);
      expect(Math.abs(m.box.x - left.x), `${word} left edge`).toBeLessThanOrEqual(3);
      expect(Math.abs(m.box.x + m.box.width - right.x), `${word} right edge`).toBeLessThanOrEqual(3);
      expect(m.center.y).toBeGreaterThanOrEqual(left.y);
      expect(m.center.y).toBeLessThanOrEqual(right.y);
      expect(m.confidence).toBeGreaterThan(0.5);
    }
  });

  it('reads a stored frame by ref, and says plainly when a text is not there', async () => {
    const cap = await h.call('capture', { target, maxDimension: 600 });
    const ref = (cap.structuredContent as { frame: { ref: string } }).frame.ref;
    const r = await h.call('find_text', { ref, text: 'Bookmarks' });
    expect((r.structuredContent as unknown as Found).frameRef).toBe(ref);
    expect((r.structuredContent as unknown as Found).matches.map((m) => m.text)).toEqual(['Bookmarks']);
    const none = await h.call('find_text', { ref, text: 'Zanzibar' });
    expect(none.isError).toBeFalsy();
    expect(textOf(none)).toMatch(/^No "Zanzibar" on f_\w+ \(read from OCR; frame f_\w+, 600×\d+ px\)\.$/);
    expect(textOf(await h.call('find_text', { ref, target, text: 'x' }))).toMatch(/^INVALID_ARGUMENT: Give "target" .* Hint: /);
  });

  it('two equal labels: find_text lists both, click by text is AMBIGUOUS_TEXT until an index picks one', async () => {
    const found = (await h.call('find_text', { target, text: 'Save' })).structuredContent as unknown as Found;
    expect(found.matches.map((m) => m.text)).toEqual(['Save', 'Save']);
    const r = await h.call('click', { target, text: 'Save' });
    expect(textOf(r)).toMatch(/^AMBIGUOUS_TEXT: "Save" matches 2 places \(image pixels of your latest capture\): 1\. text "Save" at \(\d+, \d+\); 2\. text "Save" at/);
    const second = await h.call('click', { target, text: 'Save', index: 2 });
    expect(second.isError, textOf(second)).toBeFalsy();
    const at = (second.structuredContent as { imagePoint: { x: number; y: number }; frameRef: string });
    const now = (await h.call('find_text', { ref: at.frameRef, text: 'Save' })).structuredContent as unknown as Found;
    expect(Math.abs(at.imagePoint.x - now.matches[1]!.center.x)).toBeLessThanOrEqual(1);
    expect(Math.abs(at.imagePoint.y - now.matches[1]!.center.y)).toBeLessThanOrEqual(1);
  });

  it('clicks a button by its label', async () => {
    const appTarget = `desktop:window:${app.windowId}`;
    await h.call('capture', { target: appTarget });
    const click = app.next((e) => e.event === 'click');
    const r = await h.call('click', { target: appTarget, text: 'Click me' });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(textOf(r)).toMatch(/found “Click me” by OCR/);
    expect(await click).toMatchObject({ event: 'click', button: 1 });
  });
});
