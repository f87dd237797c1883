/**
 * The settings every Sightline has, whatever its sources: capture, agent input, retention, the
 * app. Each source module adds its own section (`browser.endpoint`, …) and its on/off switch
 * (`sources.<name>.enabled`); the core composes the full schema from both. zod is pure
 * TypeScript, so the dashboard can share these types (it imports them as types only).
 */
import { z } from 'zod';

/** The built-in pattern for card numbers: 13–19 digits (spaces or dashes between groups) that pass the Luhn check. */
export const CARD_NUMBER_PATTERN = 'card-number';

/**
 * What is masked by default in page and screen text: card numbers, and API keys and tokens with a
 * well-known prefix (OpenAI and Anthropic, GitHub, AWS access key ids, Slack, GitLab, Stripe, Google).
 */
export const DEFAULT_MASK_PATTERNS: readonly string[] = [
  CARD_NUMBER_PATTERN,
  '\\bsk-[A-Za-z0-9_-]{20,}',
  '\\bgh[pousr]_[A-Za-z0-9]{30,}',
  '\\bgithub_pat_[A-Za-z0-9_]{30,}',
  '\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b',
  '\\bxox[baprs]-[A-Za-z0-9-]{10,}',
  '\\bglpat-[A-Za-z0-9_-]{20,}',
  '\\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}',
  '\\bAIza[0-9A-Za-z_-]{35}',
];

/** A mask pattern is the built-in card-number check or a JavaScript regular expression. */
function isMaskPattern(p: string): boolean {
  if (p === CARD_NUMBER_PATTERN) return true;
  try {
    // An expression that matches the empty string would mask nothing useful and loop forever.
    return !new RegExp(p, 'u').test('');
  } catch {
    return false;
  }
}

/** An absolute path on POSIX (/…) or Windows (C:\… or \\server\share); src/shared has no node:path. */
export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

/**
 * Password managers on every platform, by name (macOS, Windows, ManicTime), window class (X11),
 * Android package and macOS bundle id: their screens are never text-indexed.
 */
export const DEFAULT_EXCLUDED_APPS = [
  '1Password',
  'com.onepassword.android',
  'com.agilebits.onepassword*',
  'com.1password.*',
  'Bitwarden',
  'com.x8bit.bitwarden',
  'com.bitwarden.desktop',
  'KeePass',
  'KeePassXC',
  'org.keepassxc.keepassxc',
  'com.kunzisoft.keepass.*',
  'keepass2android.*',
  'LastPass',
  'com.lastpass.lpandroid',
  'Dashlane',
  'com.dashlane',
  'Keeper',
  'com.callpod.android_apps.keeper',
  'Enpass',
  'io.enpass.app',
  'in.sinew.enpass*',
  'Proton Pass',
  'proton.android.pass',
  'me.proton.pass*',
  'Keychain Access',
  'com.apple.keychainaccess',
  'Passwords',
  'com.apple.Passwords',
  'Samsung Pass',
  'com.samsung.android.samsungpass',
] as const;

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
      /** Folders agents may upload files from (browser upload_file, Android install_apk); empty = none. Absolute paths only. */
      uploadRoots: z.array(z.string().min(1).refine(isAbsolutePath, 'must be an absolute path (a relative one would depend on the folder Sightline was started in)')).default([]),
    })
    .prefault({}),
  ocr: z
    .strictObject({
      /** Read text by OCR where a screen has none of its own (desktop windows, the archive): find_text, click and wait by text. */
      enabled: z.boolean().default(true),
      /** `auto` takes the platform's best measured engine (docs/benchmarks.md, "OCR engines"). */
      engine: z.enum(['auto', 'tesseract', 'tesseract-cli', 'paddle', 'system']).default('auto'),
      /** Index the text of frames for search_screenshots: live frames as they are captured, the archive in the background. */
      index: z.boolean().default(true),
      /** CPU the background indexer may use, in cores, at low priority. */
      cpuBudget: z.int().min(1).max(64).default(1),
      /**
       * Apps whose frames are never text-indexed, matched case-insensitively in the app name, window
       * class, Android package, macOS bundle id or window title ("id*" matches ids that begin so).
       */
      excludeApps: z.array(z.string().min(1)).default([...DEFAULT_EXCLUDED_APPS]),
    })
    .prefault({}),
  privacy: z
    .strictObject({
      /** Mask password and payment fields and text matching maskPatterns in every image, tree, text and log. */
      masking: z.boolean().default(true),
      /** `card-number` (Luhn-checked) or regular expressions (JavaScript syntax) of secrets to mask in text on screen. */
      maskPatterns: z
        .array(z.string().min(1).refine(isMaskPattern, { message: 'not "card-number" nor a regular expression that matches something' }))
        .default([...DEFAULT_MASK_PATTERNS]),
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
