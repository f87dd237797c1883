/**
 * The settings of the moment: `settings.json` in the data directory, overridden by environment
 * variables, overridden by flags, validated by the schema composed from the registered modules.
 * Updates are validated before anything is written, written atomically, then applied; listeners
 * hear every change with the settings before and after.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { SightlineError } from '../../../shared/errors.ts';
import type { SettingsPatch, SettingsValues } from '../../../shared/settings.ts';
import type { AnySourceModule } from '../sources/module.ts';
import { storageError } from '../util/storageError.ts';
import { SETTINGS_FILE, buildSettingsSchema, envOverrides, mergeSettings, parseWith, type SettingsSchema } from './schema.ts';

export interface SettingsOptions {
  env?: NodeJS.ProcessEnv;
  /** Flag-level overrides (win over env and the file). */
  overrides?: SettingsPatch;
}

export class SettingsStore extends EventEmitter<{ change: [next: SettingsValues, previous: SettingsValues] }> {
  readonly dataDir: string;
  readonly #schema: SettingsSchema;
  readonly #env: SettingsPatch;
  readonly #overrides: SettingsPatch;
  readonly #modules: readonly AnySourceModule[];
  readonly #processEnv: NodeJS.ProcessEnv;
  #values: SettingsValues;
  #file: SettingsPatch;

  /** Read `settings.json` (absent = defaults), apply env and flag overrides, validate. */
  static load(dataDir: string, modules: readonly AnySourceModule[], options: SettingsOptions = {}): SettingsStore {
    const env = options.env ?? process.env;
    return new SettingsStore(dataDir, buildSettingsSchema(modules), envOverrides(modules, env), options.overrides ?? {}, modules, env);
  }

  private constructor(dataDir: string, schema: SettingsSchema, env: SettingsPatch, overrides: SettingsPatch, modules: readonly AnySourceModule[], processEnv: NodeJS.ProcessEnv) {
    super();
    this.dataDir = dataDir;
    this.#schema = schema;
    this.#modules = modules;
    this.#processEnv = processEnv;
    this.#env = env;
    this.#overrides = overrides;
    const path = join(dataDir, SETTINGS_FILE);
    let file: unknown = {};
    try {
      file = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code !== 'ENOENT') {
        throw new SightlineError('SETTINGS_INVALID', `${path} is not valid JSON (${err.message}).`, 'Fix the file or delete it to use defaults.');
      }
    }
    parseWith(schema, file, path);
    this.#file = file as SettingsPatch;
    this.#values = this.#effective(this.#file, path);
  }

  values(): SettingsValues {
    return this.#values;
  }

  /** What the file alone holds (what the dashboard edits and writes back). */
  file(): SettingsPatch {
    return this.#file;
  }

  /** A source's own section. */
  section<C>(name: string): C {
    return this.#values[name] as C;
  }

  isEnabled(source: string): boolean {
    return this.#values.sources[source]?.enabled ?? false;
  }

  /**
   * Validate a partial settings object, write settings.json atomically, apply. Bad input changes
   * nothing; a file that cannot be written (a full disk) is STORAGE_FULL / STORAGE_READ_ONLY and
   * changes nothing either, unless `inMemoryIfUnsaved` (the pause switch: it must work on a full
   * disk) — then it applies until the next start, and says so on stderr.
   */
  update(patch: SettingsPatch, o: { inMemoryIfUnsaved?: boolean } = {}): SettingsValues {
    const file = mergeSettings(this.#file, patch);
    parseWith(this.#schema, file, SETTINGS_FILE);
    const next = this.#effective(file);
    try {
      this.#write(file);
    } catch (e) {
      const err = storageError(e, 'Could not save settings', this.dataDir) ?? e;
      if (!o.inMemoryIfUnsaved) throw err;
      process.stderr.write(`[sightline] settings applied until restart, not saved: ${err instanceof Error ? err.message : String(err)}\n`);
    }
    const previous = this.#values;
    this.#file = file;
    this.#values = next;
    this.emit('change', next, previous);
    return next;
  }

  /**
   * Refuse a change that could not take effect on this machine, before anything is written: each
   * source whose section the patch changes is asked (a ManicTime folder must exist, an X11 display
   * must open). Judged on what the file would hold: an environment variable's value is not the
   * person's to fix here.
   */
  async vet(patch: SettingsPatch): Promise<void> {
    const before = parseWith(this.#schema, this.#file, SETTINGS_FILE);
    const after = parseWith(this.#schema, mergeSettings(this.#file, patch), SETTINGS_FILE);
    // Every section is asked, so the answer names every field that cannot take effect at once.
    const problems = (
      await Promise.all(this.#modules.map((m) => (!m.vet || isDeepStrictEqual(before[m.name], after[m.name]) ? undefined : m.vet(after[m.name], before[m.name], this.#processEnv))))
    ).filter((p) => p !== undefined);
    const first = problems[0];
    if (first) throw new SightlineError('SETTINGS_INVALID', first.message, first.hint, { key: first.key, problems });
  }

  /**
   * Fields an environment variable wins over now, with the variable (as the field names it) and its
   * value: the variables a module maps into its section, and those its source reads over a field
   * itself (DISPLAY over desktop.display).
   */
  environment(): Record<string, { variable: string; value: string }> {
    const out: Record<string, { variable: string; value: string }> = {};
    for (const m of this.#modules) {
      const mapped = m.env?.(this.#processEnv) ?? {};
      for (const f of m.fields ?? []) {
        const fromEnv = f.env ? this.#processEnv[f.env] : undefined;
        const fromSection = mapped[f.key.slice(m.name.length + 1)];
        if (fromEnv) out[f.key] = { variable: f.env!, value: fromEnv };
        else if (fromSection !== undefined) out[f.key] = { variable: 'an environment variable', value: String(fromSection) };
      }
    }
    return out;
  }

  #write(file: SettingsPatch): void {
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    const path = join(this.dataDir, SETTINGS_FILE);
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
      renameSync(tmp, path);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
  }

  #effective(file: SettingsPatch, where?: string): SettingsValues {
    return parseWith(this.#schema, mergeSettings(mergeSettings(file, this.#env), this.#overrides), where);
  }
}
