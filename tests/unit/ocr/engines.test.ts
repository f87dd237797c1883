import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createOcrEngine, defaultEngineFor, PREFERENCE } from '../../../src/main/core/ocr/index.ts';
import { ctcDecode, detectBoxes, inkRuns, wordsOfLine } from '../../../src/main/core/ocr/paddlePost.ts';
import { createSystemOcrEngine, fromSystemResult } from '../../../src/main/core/ocr/systemOcr.ts';
import { linesFromBlocks, linesFromTsv } from '../../../src/main/core/ocr/tesseractParse.ts';
import { abortable, tesseractLanguages, wordsByCharacters } from '../../../src/main/core/ocr/util.ts';
import { SightlineError } from '../../../src/shared/errors.ts';

describe('Tesseract output', () => {
  it('reads the CLI TSV into lines of words (captured from tesseract 5.3)', () => {
    const tsv = [
      'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
      '1\t1\t0\t0\t0\t0\t0\t0\t1000\t600\t-1\t',
      '4\t1\t1\t1\t1\t0\t39\t9\t144\t13\t-1\t',
      '5\t1\t1\t1\t1\t1\t39\t9\t70\t10\t85.535156\tDownloads',
      '5\t1\t1\t1\t1\t2\t131\t9\t52\t13\t78.709106\tDesktop',
      '5\t1\t1\t1\t2\t1\t38\t36\t29\t9\t86.019890\twhile',
      '5\t1\t1\t1\t2\t2\t74\t36\t29\t9\t-1\t ',
    ].join('\n');
    const lines = linesFromTsv(tsv);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ text: 'Downloads Desktop', box: { x: 39, y: 9, width: 144, height: 13 } });
    expect(lines[0]?.words[0]?.confidence).toBeCloseTo(0.855, 3);
    expect(lines[1]?.words.map((w) => w.text)).toEqual(['while']);
  });
  it('reads the tesseract.js block tree', () => {
    const blocks = [{ paragraphs: [{ lines: [{ words: [{ text: 'Save', confidence: 91, bbox: { x0: 10, y0: 5, x1: 40, y1: 17 } }, { text: ' ', confidence: 0, bbox: { x0: 0, y0: 0, x1: 1, y1: 1 } }] }] }] }];
    expect(linesFromBlocks(blocks)).toEqual([{ text: 'Save', box: { x: 10, y: 5, width: 30, height: 12 }, confidence: 0.91, words: [{ text: 'Save', box: { x: 10, y: 5, width: 30, height: 12 }, confidence: 0.91 }] }]);
    expect(linesFromBlocks(null)).toEqual([]);
  });
  it('maps BCP-47 tags to Tesseract codes', () => {
    expect(tesseractLanguages(undefined)).toEqual(['eng']);
    expect(tesseractLanguages(['en-US', 'fr', 'deu', '../x'])).toEqual(['eng', 'fra', 'deu']);
  });
});

describe('PaddleOCR post-processing', () => {
  it('turns the probability map into unclipped boxes in reading order', () => {
    const w = 40;
    const h = 20;
    const map = new Float32Array(w * h);
    const fill = (x0: number, y0: number, x1: number, y1: number, p: number): void => {
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) map[y * w + x] = p;
    };
    fill(24, 4, 37, 8, 0.9);
    fill(5, 4, 21, 8, 0.9);
    fill(2, 14, 6, 16, 0.4); // too unsure as a whole: dropped
    const boxes = detectBoxes(map, w, h);
    expect(boxes).toHaveLength(2);
    const d = (16 * 4 * 1.5) / (2 * 20);
    const b0 = boxes[0];
    for (const [k, v] of Object.entries({ x: 5 - d, y: 4 - d, width: 16 + 2 * d, height: 4 + 2 * d })) expect(b0?.[k as 'x'], k).toBeCloseTo(v, 6);
    expect(boxes[1]?.x).toBeGreaterThan(20);
  });
  it('decodes CTC: repeats merged, blanks dropped, positions at run centres', () => {
    const dict = ['a', 'b', ' '];
    const seq = [1, 1, 0, 2, 0, 0, 3, 1];
    const probs = new Float32Array(seq.length * 4);
    seq.forEach((c, t) => (probs[t * 4 + c] = 0.9));
    const { chars, confidence } = ctcDecode(probs, seq.length, 4, dict);
    expect(chars.map((c) => c.ch).join('')).toBe('ab a');
    expect(chars[0]?.t).toBe(0.5);
    expect(confidence).toBeCloseTo(0.9);
  });
  it('cuts words at spaces and ink gaps, with ink-tight boxes', () => {
    // Two ink blobs: columns 2–9 and 20–27, rows 3–8 of a 32×12 line.
    const w = 32;
    const h = 12;
    const grey = new Uint8Array(w * h).fill(255);
    for (let y = 3; y < 9; y++) for (const [a, b] of [[2, 10], [20, 28]] as const) for (let x = a; x < b; x++) grey[y * w + x] = 0;
    expect(inkRuns(new Uint8Array(grey.map((v) => (v < 128 ? 1 : 0))), w, h, 3)).toEqual([[2, 10], [20, 28]]);
    // The model read "abcd" with no space: characters at x = 3, 7, 21, 25.
    const chars = [3, 7, 21, 25].map((x, i) => ({ ch: 'abcd'[i] ?? '', t: x, p: 0.8 }));
    const words = wordsOfLine(chars, 1, { grey, width: w, height: h });
    expect(words.map((x) => [x.text, x.box])).toEqual([
      ['ab', { x: 2, y: 3, width: 8, height: 6 }],
      ['cd', { x: 20, y: 3, width: 8, height: 6 }],
    ]);
  });
});

describe('system OCR results', () => {
  it('keeps text without boxes as geometry none (published 1.1.0)', () => {
    const r = fromSystemResult({ text: 'File Edit\nSave all', confidence: 1 }, 800, 600);
    expect(r.geometry).toBe('none');
    expect(r.lines.map((l) => l.text)).toEqual(['File Edit', 'Save all']);
    expect(r.lines[0]?.box).toEqual({ x: 0, y: 0, width: 800, height: 600 });
  });
  it('scales normalised line boxes to pixels and splits words by characters', () => {
    const r = fromSystemResult({ text: 'Save all', confidence: 0.5, lines: [{ text: 'Save all', confidence: 0.9, boundingBox: { x: 0.1, y: 0.5, width: 0.2, height: 0.05 } }] }, 800, 600);
    expect(r.geometry).toBe('line');
    expect(r.lines[0]?.box).toEqual({ x: 80, y: 300, width: 160, height: 30 });
    expect(r.lines[0]?.words.map((w) => [w.text, w.box.x, w.box.width])).toEqual([
      ['Save', 80, 80],
      ['all', 180, 60],
    ]);
  });
  it('loads the package lazily and reports why it cannot run (no macOS/Windows binding on Linux)', async () => {
    const a = await createSystemOcrEngine('darwin').available();
    expect(a.ok).toBe(false);
    expect(a.reason).toMatch(/@napi-rs\/system-ocr cannot be loaded/);
    expect(a.remediation).toMatch(/tesseract/);
  });
  it('cuts a line into words by character share', () => {
    expect(wordsByCharacters('ab  c', { x: 0, y: 0, width: 50, height: 10 }, 1).map((w) => [w.text, w.box.x, w.box.width])).toEqual([
      ['ab', 0, 20],
      ['c', 40, 10],
    ]);
  });
});

describe('engine factory', () => {
  it('picks Tesseract first on every platform and refuses unknown engines', () => {
    expect(defaultEngineFor('linux')).toBe('tesseract-cli');
    expect(PREFERENCE.linux?.[1]).toBe('tesseract');
    expect(defaultEngineFor('darwin')).toBe('tesseract');
    expect(defaultEngineFor('sunos')).toBe('tesseract');
    expect(PREFERENCE.win32).toContain('system');
    expect(() => createOcrEngine('linux', { engine: 'nope' as never })).toThrow(SightlineError);
  });
  it('falls back to the next engine of the list when the first is not installed', async () => {
    const e = createOcrEngine('linux', { tesseractPath: '/nonexistent/tesseract' });
    expect((await e.resolve()).name).toBe('tesseract');
    const cli = createOcrEngine('linux', { engine: 'tesseract-cli', tesseractPath: '/nonexistent/tesseract' });
    expect(await cli.available()).toMatchObject({ ok: false, remediation: expect.stringMatching(/tesseract-ocr/) });
    await Promise.all([e.dispose(), cli.dispose()]);
  });
  it('reports a forced engine that cannot run here, with a remediation', async () => {
    const e = createOcrEngine('linux', { engine: 'system' });
    const a = await e.available();
    expect(a.ok).toBe(false);
    expect(a.reason).toMatch(/macOS and Windows/);
    await expect(e.recognize(Buffer.from('x'))).rejects.toMatchObject({ code: 'UNSUPPORTED' });
  });
  it('loads no engine, wasm, native binding or model when the module is imported', () => {
    const script = `
      import { registerHooks } from 'node:module';
      const seen = [];
      registerHooks({ resolve(s, c, next) { const r = next(s, c); seen.push(r.url); return r; } });
      const t = performance.now();
      await import(${JSON.stringify(new URL('../../../src/main/core/ocr/index.ts', import.meta.url).href)});
      console.log(JSON.stringify({ ms: performance.now() - t, heavy: seen.filter((u) => /tesseract|onnxruntime|sharp|system-ocr|paddle|ocr-models/.test(u)) }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { ms: number; heavy: string[] };
    expect(out.heavy).toEqual([]);
  });
  it('rejects with CANCELLED when the signal aborts', async () => {
    const c = new AbortController();
    const p = abortable(new Promise(() => undefined), c.signal);
    c.abort();
    await expect(p).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});
