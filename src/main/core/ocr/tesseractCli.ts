/**
 * The system's `tesseract` binary (Debian: tesseract-ocr + tesseract-ocr-eng), one process per
 * image, TSV on stdout. Native and a little faster than the WebAssembly build, but present only
 * where the user installed it; OMP_THREAD_LIMIT bounds its threads.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SightlineError } from '../../../shared/errors.ts';
import { prepareForOcr, type PrepareOptions, type Prepared } from './prepare.ts';
import { linesFromTsv, pagesFromTsv } from './tesseractParse.ts';
import type { OcrAvailability, OcrEngine, OcrEngineOptions, OcrResult, RecognizeOptions } from './types.ts';
import { cancelled, checkImage, scaleLines, tesseractLanguages, throwIfAborted, clampScale, SPARSE_PSM } from './util.ts';

export interface TesseractCliOptions extends OcrEngineOptions {
  /** The binary; default `tesseract` on PATH. */
  binary?: string;
  psm?: number;
  prepare?: PrepareOptions;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function exec(bin: string, args: string[], input: Buffer | undefined, env: NodeJS.ProcessEnv, signal?: AbortSignal, niceness = 0): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    if (niceness > 0 && child.pid) {
      try {
        setPriority(child.pid, Math.min(19, Math.floor(niceness)));
      } catch {
        // Not allowed here: it runs at normal priority, still bounded to its threads.
      }
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const onAbort = (): void => {
      child.kill('SIGKILL');
      reject(cancelled());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.once('error', (e) => {
      signal?.removeEventListener('abort', onAbort);
      reject(e);
    });
    child.once('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    // EPIPE when tesseract exits early is reported through 'close' with its code.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

export function createTesseractCliEngine(options: TesseractCliOptions = {}): OcrEngine {
  const bin = options.binary ?? options.tesseractPath ?? 'tesseract';
  const threads = String(Math.max(1, Math.floor(options.threads ?? 1)));
  // A UTF-8 locale (tesseract refuses to start in some C locales) and a bounded OpenMP pool.
  const env = { ...process.env, OMP_THREAD_LIMIT: threads, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };
  let langs: Promise<Set<string>> | undefined;

  const listLanguages = (): Promise<Set<string>> => {
    langs ??= exec(bin, ['--list-langs'], undefined, env).then((r) => new Set(r.stdout.split('\n').slice(1).map((l) => l.trim()).filter(Boolean)));
    langs.catch(() => (langs = undefined));
    return langs;
  };

  const languagesFor = async (asked: string[] | undefined): Promise<string[]> => {
    const want = tesseractLanguages(asked);
    const have = await listLanguages().catch(() => new Set<string>());
    const use = want.filter((l) => have.has(l));
    if (use.length === 0) throw new SightlineError('UNSUPPORTED', `tesseract has no model for ${want.join(', ')}.`, `install tesseract-ocr-${want[0] ?? 'eng'}`);
    return use;
  };
  const run = async (input: string, stdin: Buffer | undefined, langs: string[], opts: Omit<RecognizeOptions, 'scale'>): Promise<string> => {
    const psm = opts.layout === 'sparse' ? SPARSE_PSM : (options.psm ?? 3);
    const args = [input, 'stdout', '-l', langs.join('+'), '--psm', String(psm), '-c', 'debug_file=/dev/null', 'tsv'];
    const r = await exec(bin, args, stdin, env, opts.signal, options.niceness);
    if (r.code !== 0) throw new SightlineError('INTERNAL', `tesseract failed (exit ${String(r.code)}): ${r.stderr.trim().slice(0, 300)}`, 'check the image; run `tesseract --version`');
    return r.stdout;
  };

  return {
    name: 'tesseract-cli',
    async available(): Promise<OcrAvailability> {
      try {
        const have = await listLanguages();
        if (!have.has('eng')) return { ok: false, reason: 'tesseract is installed without the English model.', remediation: 'install tesseract-ocr-eng (apt-get install tesseract-ocr-eng)' };
        return { ok: true };
      } catch {
        return { ok: false, reason: `The tesseract binary (${bin}) was not found.`, remediation: 'install tesseract-ocr and tesseract-ocr-eng, or use the built-in engine "tesseract"' };
      }
    },
    async recognize(image: Buffer, opts: RecognizeOptions = {}): Promise<OcrResult> {
      checkImage(image);
      throwIfAborted(opts.signal);
      const langs = await languagesFor(opts.languages);
      const prepared = await prepareForOcr(image, { ...options.prepare, ...(opts.scale ? { scale: clampScale(opts.scale) } : {}) });
      throwIfAborted(opts.signal);
      const tsv = await run('stdin', prepared.png, langs, opts);
      return { engine: 'tesseract-cli', width: prepared.width, height: prepared.height, geometry: 'word', lines: scaleLines(linesFromTsv(tsv), 1 / prepared.scale, prepared.pad) };
    },
    // One process reads every page (its start and model load are paid once: ~0.065 s of CPU,
    // as much as reading ten title bars): the pages go as files named in a list, each laid out
    // on its own, in a folder of this user's that is removed afterwards.
    async recognizePages(pages: readonly Prepared[], opts: Omit<RecognizeOptions, 'scale'> = {}): Promise<OcrResult[]> {
      if (pages.length === 0) return [];
      throwIfAborted(opts.signal);
      const langs = await languagesFor(opts.languages);
      const dir = await mkdtemp(join(tmpdir(), 'sightline-ocr-'));
      try {
        const files = pages.map((_, i) => join(dir, `${i}.png`));
        await Promise.all(pages.map((p, i) => writeFile(files[i] as string, p.png, { mode: 0o600 })));
        await writeFile(join(dir, 'pages.txt'), `${files.join('\n')}\n`, { mode: 0o600 });
        const read = pagesFromTsv(await run(join(dir, 'pages.txt'), undefined, langs, opts));
        return pages.map((p, i) => ({ engine: 'tesseract-cli', width: p.width, height: p.height, geometry: 'word', lines: scaleLines(read.get(i + 1) ?? [], 1 / p.scale, p.pad) }));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    async dispose(): Promise<void> {
      langs = undefined;
    },
  };
}
