/**
 * The settings schema, composed from the core's own sections (src/shared/settings.ts) and each
 * registered source module's section and on/off switch. A bad key or value is a
 * SETTINGS_INVALID error that names it.
 */
import { z } from 'zod';
import { SightlineError } from '../../../shared/errors.ts';
import { coreSettingsShape, type SettingsPatch, type SettingsValues } from '../../../shared/settings.ts';
import type { AnySourceModule } from '../sources/module.ts';

export const SETTINGS_FILE = 'settings.json';

const sourceToggle = z.strictObject({ enabled: z.boolean().default(true) }).prefault({});

export type SettingsSchema = z.ZodType<SettingsValues>;

export function buildSettingsSchema(modules: readonly AnySourceModule[]): SettingsSchema {
  const sections: Record<string, z.ZodType> = {};
  for (const m of modules) {
    if (m.name in coreSettingsShape || m.name === 'sources') throw new Error(`A source may not be named "${m.name}": that is a settings section of the core.`);
    sections[m.name] = m.settings;
  }
  return z
    .strictObject({
      sources: z.strictObject(Object.fromEntries(modules.map((m) => [m.name, sourceToggle]))).prefault({}),
      ...coreSettingsShape,
      ...sections,
    })
    .prefault({}) as unknown as SettingsSchema;
}

/**
 * Validate a settings object; a failure names the first bad key, and every bad key in
 * `details.problems` (a form shows them all at once, not one per save).
 */
export function parseWith(schema: SettingsSchema, input: unknown, where = SETTINGS_FILE): SettingsValues {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const problems: SettingsProblem[] = [];
  for (const issue of result.error.issues) {
    const keys = 'keys' in issue && Array.isArray(issue.keys) ? (issue.keys as string[]) : [undefined];
    for (const k of keys) {
      const key = [...issue.path, ...(k === undefined ? [] : [k])].join('.') || '(root)';
      if (problems.some((p) => p.key === key)) continue;
      problems.push({ key, message: `${where}: "${key}" ${issue.code === 'unrecognized_keys' ? 'is not a known setting' : `is invalid (${issue.message})`}.` });
    }
  }
  const first = problems[0] ?? { key: '(root)', message: `${where} is invalid.` };
  throw new SightlineError('SETTINGS_INVALID', first.message, 'Fix or remove that key; the README lists every setting.', { key: first.key, problems });
}

/** One setting that cannot be taken, by its full key. */
export interface SettingsProblem {
  key: string;
  message: string;
  hint?: string;
}

/** Environment variables that override the file, as each module reads them. */
export function envOverrides(modules: readonly AnySourceModule[], env: NodeJS.ProcessEnv): SettingsPatch {
  const out: SettingsPatch = {};
  for (const m of modules) {
    const section = m.env?.(env);
    if (section && Object.keys(section).length) out[m.name] = section;
  }
  return out;
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
