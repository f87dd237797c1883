/**
 * Runs an engine in a worker thread, so that an engine whose inference is synchronous
 * (onnxruntime-node runs each model on the calling thread) never stalls the event loop that
 * serves MCP calls. The worker imports the engine's own module by URL: in a bundle that is the
 * engine's chunk, in tests the .ts file; either way no separate worker file has to be shipped.
 */
import { Worker } from 'node:worker_threads';
import { SightlineError, type ErrorCode } from '../../../shared/errors.ts';
import type { OcrAvailability, OcrEngine, OcrEngineName, OcrResult, RecognizeOptions } from './types.ts';
import { cancelled, checkImage, throwIfAborted } from './util.ts';

type Job = { kind: 'available' } | { kind: 'recognize'; image: Uint8Array; opts: Omit<RecognizeOptions, 'signal'> };
type Request = (Job & { id: number }) | { id: number; kind: 'abort' };
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: { code?: ErrorCode; message: string; hint?: string } };

/** The worker's side: imports `module`, builds the engine with `factory(options)`, answers requests. */
const WORKER_SOURCE = `
const { parentPort, workerData } = await import('node:worker_threads');
const mod = await import(workerData.module);
const engine = mod[workerData.factory](workerData.options);
const running = new Map();
parentPort.on('message', async (req) => {
  if (req.kind === 'abort') { running.get(req.id)?.abort(); return; }
  const ac = new AbortController();
  running.set(req.id, ac);
  try {
    const value = req.kind === 'available' ? await engine.available() : await engine.recognize(Buffer.from(req.image.buffer, req.image.byteOffset, req.image.byteLength), { ...req.opts, signal: ac.signal });
    parentPort.postMessage({ id: req.id, ok: true, value });
  } catch (e) {
    parentPort.postMessage({ id: req.id, ok: false, error: { code: e?.code, message: String(e?.message ?? e), hint: e?.hint } });
  } finally {
    running.delete(req.id);
  }
});
`;

export interface WorkerEngineSpec {
  name: OcrEngineName;
  /** URL of the module that exports `factory`. */
  module: string;
  factory: string;
  /** Structured-cloneable options for the factory. */
  options: unknown;
}

export function createWorkerEngine(spec: WorkerEngineSpec): OcrEngine {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();

  const fail = (e: unknown): void => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
    worker = undefined;
  };

  const start = (): Worker => {
    if (worker) return worker;
    // eval + a top-level-await module: no worker file to locate in a bundle.
    const w = new Worker(`import(${JSON.stringify('data:text/javascript,' + encodeURIComponent(WORKER_SOURCE))})`, {
      eval: true,
      workerData: { module: spec.module, factory: spec.factory, options: spec.options },
    });
    w.on('message', (r: Reply) => {
      const p = pending.get(r.id);
      if (!p) return;
      pending.delete(r.id);
      if (r.ok) p.resolve(r.value);
      else p.reject(r.error.code ? new SightlineError(r.error.code, r.error.message, r.error.hint) : new Error(r.error.message));
      if (pending.size === 0) w.unref();
    });
    w.on('error', (e) => fail(new SightlineError('INTERNAL', `The ${spec.name} OCR worker failed: ${e.message}`, 'try again; the engine restarts', undefined, { cause: e })));
    w.on('exit', (code) => fail(new SightlineError('INTERNAL', `The ${spec.name} OCR worker exited (${code}).`, 'try again; the engine restarts')));
    worker = w;
    return w;
  };

  const call = <T>(req: Job, signal?: AbortSignal, transfer: ArrayBuffer[] = []): Promise<T> => {
    const w = start();
    const id = nextId++;
    w.ref();
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        w.postMessage({ id, kind: 'abort' } satisfies Request);
        pending.delete(id);
        reject(cancelled());
      };
      pending.set(id, {
        resolve: (v) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(v as T);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      w.postMessage({ ...req, id } satisfies Request, transfer);
    });
  };

  return {
    name: spec.name,
    async available(): Promise<OcrAvailability> {
      try {
        return await call<OcrAvailability>({ kind: 'available' });
      } catch (e) {
        return { ok: false, reason: (e as Error).message, remediation: 'reinstall Sightline (npm ci)' };
      }
    },
    async recognize(image: Buffer, opts: RecognizeOptions = {}): Promise<OcrResult> {
      checkImage(image);
      throwIfAborted(opts.signal);
      // A copy the worker owns: the caller's buffer may be a slice of a pooled one.
      const copy = new Uint8Array(image);
      const { signal, ...rest } = opts;
      return call<OcrResult>({ kind: 'recognize', image: copy, opts: rest }, signal, [copy.buffer]);
    },
    async dispose(): Promise<void> {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
