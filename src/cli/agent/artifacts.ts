/**
 * A run's artifacts: `<data dir>/runs/<time>-<slug>-<rand>/` (or --out DIR) with run.json, the
 * target's metadata, the system prompt, the server's log, and one folder per step (screenshot,
 * prompt, raw request and response, parsed action, mapping, outcome). Writes are queued so they
 * overlap the model call; everything written passes through `redact` (no key ever lands on disk).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

export function slugify(text: string, max = 40): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, max).replace(/-+$/, '') || 'run';
}

/** `20261122-013005-fill-the-search-form-3f2a`: sorts by time, says what, never collides. */
export function runName(at: Date, goal: string, rand = randomBytes(2).toString('hex')): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  const stamp = `${at.getFullYear()}${p(at.getMonth() + 1)}${p(at.getDate())}-${p(at.getHours())}${p(at.getMinutes())}${p(at.getSeconds())}`;
  return `${stamp}-${slugify(goal)}-${rand}`;
}

/** Every secret (longer than 3 characters) replaced, wherever it appears. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 3) out = out.split(s).join('[redacted]');
  return out;
}

export const stepDirName = (n: number): string => `step-${String(n).padStart(2, '0')}`;

export class RunArtifacts {
  readonly id: string;
  readonly dir: string;
  readonly #secrets: string[];
  /** Text files written so far (run-relative), so a secret learnt later is taken out of them too. */
  readonly #written = new Set<string>();
  readonly #pending = new Set<Promise<void>>();
  #failure: Error | undefined;

  private constructor(id: string, dir: string, secrets: readonly string[]) {
    this.id = id;
    this.dir = dir;
    this.#secrets = [...secrets];
  }

  /**
   * A secret learnt during the run (text the server says went into a password field): redacted
   * from every write from now on, and from the files already written (the model's reply that
   * chose to type it, the goal in run.json), after the writes queued before it.
   */
  addSecret(secret: string): void {
    if (secret.length <= 3 || this.#secrets.includes(secret)) return;
    // As written in JSON too (a quote or a backslash in it is escaped there).
    const forms = [...new Set([secret, JSON.stringify(secret).slice(1, -1)])];
    this.#secrets.push(...forms);
    const files = [...this.#written];
    const queued = [...this.#pending];
    this.#track(
      Promise.allSettled(queued).then(async () => {
        for (const rel of files) {
          const file = this.path(rel);
          const text = await readFile(file, 'utf8');
          if (forms.some((f) => text.includes(f))) await writeFile(file, redact(text, forms), { mode: 0o600 });
        }
      }),
    );
  }

  /** `out` is the run's own folder (it must be new or empty); else a new folder under <dataDir>/runs. */
  static create(options: { dataDir: string; out?: string; goal: string; at: Date; secrets: readonly string[] }): RunArtifacts {
    const name = runName(options.at, options.goal);
    let dir: string;
    if (options.out) {
      dir = resolve(options.out);
      if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`--out ${dir} is not empty; give a new or empty folder.`);
    } else {
      dir = join(resolve(options.dataDir), 'runs', name);
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return new RunArtifacts(options.out ? name : basename(dir), dir, options.secrets);
  }

  path(rel: string): string {
    return join(this.dir, rel);
  }

  /** Queue a write: text and JSON are redacted; a Buffer (an image) is written as is. */
  write(rel: string, data: string | Buffer | object): void {
    const body = Buffer.isBuffer(data) ? data : redact(typeof data === 'string' ? data : `${JSON.stringify(data, null, 2)}\n`, this.#secrets);
    if (!Buffer.isBuffer(data)) this.#written.add(rel);
    const file = this.path(rel);
    this.#track(mkdir(dirname(file), { recursive: true, mode: 0o700 }).then(() => writeFile(file, body, { mode: 0o600 })));
  }

  #track(p: Promise<void>): void {
    const tracked = p.catch((e: unknown) => void (this.#failure ??= e as Error)).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }

  /** Wait for every queued write; the first failure is reported once. */
  async flush(): Promise<Error | undefined> {
    while (this.#pending.size) await Promise.all([...this.#pending]);
    const f = this.#failure;
    this.#failure = undefined;
    return f;
  }
}
