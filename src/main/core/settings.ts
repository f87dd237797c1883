/**
 * User-facing settings: `settings.json` in the data directory, overridden by
 * environment variables, overridden by flags. Validated by one zod schema; a bad
 * key or value is a SETTINGS_INVALID error that names it.
 */
import { readFileSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { SightlineError } from '../../shared/errors.ts';

const sourceToggle = z.strictObject({ enabled: z.boolean().default(true) }).prefault({});

export const settingsSchema = z
  .strictObject({
    sources: z
      .strictObject({
        desktop: sourceToggle,
        browser: sourceToggle,
        android: sourceToggle,
        manictime: sourceToggle,
      })
      .prefault({}),
    desktop: z
      .strictObject({
        /** X11 display to use when DISPLAY is not in the environment (MCP clients spawn with a bare env). */
        display: z.string().min(1).optional(),
      })
      .prefault({}),
    browser: z
      .strictObject({
        /** A running browser's debugging endpoint, e.g. http://127.0.0.1:9222 (env SIGHTLINE_BROWSER_URL). */
        endpoint: z.url({ protocol: /^(https?|wss?)$/ }).optional(),
        /** A browser to launch when no endpoint answers. */
        executablePath: z.string().min(1).optional(),
        /** Launch headless when Sightline launches the browser. */
        headless: z.boolean().default(false),
      })
      .prefault({}),
    android: z
      .strictObject({
        adbPath: z.string().min(1).optional(),
      })
      .prefault({}),
    manictime: z
      .strictObject({
        dataDir: z.string().min(1).optional(),
        screenshotsDir: z.string().min(1).optional(),
      })
      .prefault({}),
    capture: z
      .strictObject({
        maxDimension: z.int().min(64).max(8192).default(1000),
        /** A named model profile (overrides maxDimension with the profile's limits). */
        profile: z.enum(['default', 'claude']).default('default'),
        format: z.enum(['jpeg', 'webp', 'png']).default('jpeg'),
        quality: z.int().min(1).max(100).default(70),
      })
      .prefault({}),
    input: z
      .strictObject({
        paused: z.boolean().default(false),
        readOnly: z.boolean().default(false),
        /** Applications (desktop app names, browser hosts, android packages) input may go to; empty = all. */
        allowlist: z.array(z.string().min(1)).default([]),
      })
      .prefault({}),
    retention: z
      .strictObject({
        maxAgeDays: z.number().positive().max(3650).default(7),
        maxBytes: z.int().positive().default(2 * 1024 ** 3),
      })
      .prefault({}),
    app: z
      .strictObject({
        startAtLogin: z.boolean().default(false),
      })
      .prefault({}),
  })
  .prefault({});

export type Settings = z.infer<typeof settingsSchema>;
/** What a settings file or a PATCH may hold: every key optional. */
export type SettingsInput = z.input<typeof settingsSchema>;

export const SETTINGS_FILE = 'settings.json';

/** The platform's default data directory. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME ?? homedir();
  switch (platform()) {
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'Sightline');
    case 'win32':
      return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Sightline');
    default:
      return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'sightline');
  }
}

/** `--data-dir` wins over SIGHTLINE_DATA_DIR, which wins over the platform default. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag ?? env.SIGHTLINE_DATA_DIR ?? defaultDataDir(env);
}

/** Validate a settings object; a failure names the first bad key. */
export function parseSettings(input: unknown, where = SETTINGS_FILE): Settings {
  const result = settingsSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const keys = issue && 'keys' in issue && Array.isArray(issue.keys) ? issue.keys : [];
  const path = [...(issue?.path ?? []), ...keys.slice(0, 1)].join('.') || '(root)';
  throw new SightlineError(
    'SETTINGS_INVALID',
    `${where}: "${path}" ${issue?.code === 'unrecognized_keys' ? 'is not a known setting' : `is invalid (${issue?.message ?? 'bad value'})`}.`,
    'Fix or remove that key; the README lists every setting.',
    { key: path },
  );
}

/** Environment variables that override the file (DESIGN.md "Settings"). */
export function envOverrides(env: NodeJS.ProcessEnv): SettingsInput {
  const out: Record<string, Record<string, unknown>> = {};
  if (env.SIGHTLINE_BROWSER_URL) out.browser = { endpoint: env.SIGHTLINE_BROWSER_URL };
  if (env.MANICTIME_DATA_DIR) out.manictime = { dataDir: env.MANICTIME_DATA_DIR };
  return out as SettingsInput;
}

/** Deep-merge plain objects; arrays and scalars from `over` replace; `null` removes a key (back to its default). */
export function mergeSettings<T>(base: T, over: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
    if (v === null) delete out[k];
    else out[k] = Object.hasOwn(out, k) ? mergeSettings(out[k], v) : v;
  }
  return out as T;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Read `settings.json` (absent = defaults), apply env and flag overrides, validate. */
export function loadSettings(dataDir: string, options: { env?: NodeJS.ProcessEnv; overrides?: SettingsInput } = {}): {
  settings: Settings;
  /** What the file alone holds (what the dashboard edits and writes back). */
  file: SettingsInput;
} {
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
  parseSettings(file, path);
  const merged = mergeSettings(mergeSettings(file, envOverrides(options.env ?? process.env)), options.overrides ?? {});
  return { settings: parseSettings(merged, path), file: file as SettingsInput };
}
