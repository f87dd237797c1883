/**
 * The settings every Sightline has, whatever its sources: capture, agent input, retention, the
 * app. Each source module adds its own section (`browser.endpoint`, …) and its on/off switch
 * (`sources.<name>.enabled`); the core composes the full schema from both. zod is pure
 * TypeScript, so the dashboard can share these types (it imports them as types only).
 */
import { z } from 'zod';

export const coreSettingsShape = {
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
  files: z
    .strictObject({
      /** Folders agents may upload files from (browser upload_file, Android install_apk); empty = none. */
      uploadRoots: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
} as const;

type CoreShape = typeof coreSettingsShape;
export type CoreSettings = { [K in keyof CoreShape]: z.output<CoreShape[K]> };

/** The effective settings: the core's sections, the source switches, and each source's own section. */
export type SettingsValues = CoreSettings & {
  sources: Record<string, { enabled: boolean }>;
  /** Source sections (`browser`, `android`, …), typed by their modules. */
  [section: string]: unknown;
};

/** A change to settings.json: any subset of keys; `null` removes a key (back to its default). */
export type SettingsPatch = { [section: string]: unknown };
