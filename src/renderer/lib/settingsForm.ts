/**
 * The settings screen as data: which keys it edits, how a form value maps to a
 * setting and back, and which field a server validation error belongs to. The
 * server validates (one zod schema); the form only sends what the user changed, so
 * values that come from environment variables are never written to the file.
 * The core's own fields are here; each source's switch and fields come from its module
 * (`GET /api/sources`).
 */
import type { FieldDef } from '../../shared/sources.ts';
import type { SourceInfo } from '../../shared/sources.ts';

export type { FieldDef, FieldKind } from '../../shared/sources.ts';

export type FormValue = string | boolean;
export type FormValues = Record<string, FormValue>;

export const SECTIONS = ['Sources', 'Capture', 'Privacy', 'Agent input', 'Screen text', 'Retention', 'Connections', 'App'] as const;

/** The core's own fields (every Sightline has them, whatever its sources). */
export const CORE_FIELDS: readonly FieldDef[] = [
  {
    key: 'capture.profile',
    section: 'Capture',
    kind: 'select',
    label: 'Scaling profile',
    help: 'A model profile overrides the maximum dimension with that model’s limits.',
    options: [
      { value: 'default', label: 'Default (long edge ≤ max dimension)' },
      { value: 'claude', label: 'Claude (≤ 1568 px, ≤ 1.15 MP)' },
    ],
  },
  { key: 'capture.maxDimension', section: 'Capture', kind: 'number', label: 'Max dimension', unit: 'px', min: 64, max: 8192, step: 1, help: 'Long edge of the image the model sees.' },
  {
    key: 'capture.format',
    section: 'Capture',
    kind: 'select',
    label: 'Format',
    options: [
      { value: 'jpeg', label: 'JPEG' },
      { value: 'webp', label: 'WebP' },
      { value: 'png', label: 'PNG' },
    ],
  },
  { key: 'capture.quality', section: 'Capture', kind: 'number', label: 'Quality', min: 1, max: 100, step: 1, help: 'JPEG and WebP quality (1–100).' },
  {
    key: 'privacy.masking',
    section: 'Privacy',
    kind: 'toggle',
    label: 'Mask secrets',
    help: 'Password and payment fields, card numbers and API keys on screen are filled with one colour in every screenshot, and left out of UI trees, screen text, search and the activity log. Text typed into a password field is logged only as a count of characters.',
  },
  {
    key: 'privacy.maskPatterns',
    section: 'Privacy',
    kind: 'list',
    label: 'Secrets to mask in text',
    help: 'One per line: card-number (Luhn-checked card numbers) or a regular expression. Defaults: card numbers and API keys with well-known prefixes (sk-, ghp_, github_pat_, AKIA, xox…-, glpat-, …).',
    placeholder: 'card-number\n\\bACME-[0-9]{8}',
  },
  { key: 'input.readOnly', section: 'Agent input', kind: 'toggle', label: 'Read-only', help: 'Agents may look but never click, type or scroll.' },
  {
    key: 'input.allowlist',
    section: 'Agent input',
    kind: 'list',
    label: 'Input allowlist',
    help: 'One per line: desktop programs (the executable, e.g. firefox; on macOS and Windows also the app name), browser hosts, Android packages. Empty allows all.',
    placeholder: 'firefox\nexample.com\ncom.android.settings',
  },
  {
    key: 'files.uploadRoots',
    section: 'Agent input',
    kind: 'list',
    label: 'Folders agents may upload from',
    help: 'One per line. Browser upload_file and Android install_apk take files inside these folders only; empty allows none.',
    placeholder: '~/Documents/for-agents',
  },
  { key: 'ocr.enabled', section: 'Screen text', kind: 'toggle', label: 'Read text by OCR', help: 'Where a screen has no text of its own (desktop windows, the archive), so agents can find, click and wait for words on it. Text never leaves this machine.' },
  { key: 'ocr.index', section: 'Screen text', kind: 'toggle', label: 'Index screen text for search', help: 'Live frames as they are captured, the archive in the background, newest first.' },
  { key: 'ocr.cpuBudget', section: 'Screen text', kind: 'number', label: 'Indexer CPU budget', unit: 'cores', min: 1, max: 64, step: 1, help: 'At low priority; indexing pauses while agents capture.' },
  {
    key: 'ocr.excludeApps',
    section: 'Screen text',
    kind: 'list',
    label: 'Never index these apps',
    help: 'One per line, matched in the app name or window title. Password managers by default.',
  },
  { key: 'retention.maxAgeDays', section: 'Retention', kind: 'number', label: 'Keep frames for', unit: 'days', min: 0.01, max: 3650, step: 'any' },
  { key: 'retention.maxBytes', section: 'Retention', kind: 'gigabytes', label: 'Storage limit', unit: 'GB', min: 0.01, step: 'any' },
  { key: 'app.startAtLogin', section: 'App', kind: 'toggle', label: 'Start at login', help: 'Open the Sightline tray app when you log in (desktop app only).' },
];

/** Every field of the form: each source's switch, the core's fields, each source's own fields. */
export function fieldsFor(sources: readonly SourceInfo[]): FieldDef[] {
  const toggles: FieldDef[] = sources.map((s) => ({
    key: `sources.${s.name}.enabled`,
    section: 'Sources',
    kind: 'toggle',
    label: s.kind === 'archive' ? `${s.label} archive` : s.label,
    help: s.description,
  }));
  return [...toggles, ...CORE_FIELDS, ...sources.flatMap((s) => s.fields)];
}

/** The sections that hold fields, in the screen's order. */
export function sectionsOf(fields: readonly FieldDef[]): string[] {
  const used = new Set(fields.map((f) => f.section));
  return [...SECTIONS.filter((s) => used.has(s)), ...[...used].filter((s) => !(SECTIONS as readonly string[]).includes(s))];
}

const GB = 1024 ** 3;

export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (typeof next !== 'object' || next === null) cur[part] = {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

/** The form value shown for a field, from the effective settings. */
export function toFormValue(def: FieldDef, settings: unknown): FormValue {
  const v = getPath(settings, def.key);
  switch (def.kind) {
    case 'toggle':
      return v === true;
    case 'list':
      return Array.isArray(v) ? v.join('\n') : '';
    case 'gigabytes':
      return typeof v === 'number' ? String(Math.round((v / GB) * 100) / 100) : '';
    default:
      return v === undefined || v === null ? '' : String(v);
  }
}

/**
 * The form's values: the effective settings, except where an environment variable wins: there the
 * field shows what the file holds (what saving here changes), and the screen names the variable.
 */
export function formFrom(settings: unknown, defs: readonly FieldDef[], file?: unknown, environment: Record<string, unknown> = {}): FormValues {
  return Object.fromEntries(defs.map((d) => [d.key, toFormValue(d, d.key in environment ? file : settings)]));
}

/**
 * The setting a form value stands for. A number field that does not parse is sent
 * as typed, so the server's validation names the key instead of the form guessing.
 */
export function fromFormValue(def: FieldDef, value: FormValue): unknown {
  switch (def.kind) {
    case 'toggle':
      return value === true;
    case 'list':
      return String(value)
        .split('\n')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
    case 'number': {
      const s = String(value).trim();
      const n = Number(s);
      return s !== '' && Number.isFinite(n) ? n : s;
    }
    case 'gigabytes': {
      const s = String(value).trim();
      const n = Number(s);
      return s !== '' && Number.isFinite(n) ? Math.round(n * GB) : s;
    }
    default: {
      // An emptied text field means "not set"; null removes the key from the file.
      const s = String(value).trim();
      return s === '' ? null : s;
    }
  }
}

/** A nested partial-settings object holding only the fields that changed. */
export function buildPatch(initial: FormValues, current: FormValues, defs: readonly FieldDef[]): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const def of defs) {
    if (initial[def.key] === current[def.key]) continue;
    setPath(patch, def.key, fromFormValue(def, current[def.key] ?? ''));
  }
  return patch;
}

/** The field a server error key (`input.allowlist.2`, `capture.maxDimension`) belongs to. */
export function fieldForKey(key: string | undefined, defs: readonly FieldDef[]): string | undefined {
  if (!key) return undefined;
  let best: string | undefined;
  for (const d of defs) {
    if ((key === d.key || key.startsWith(`${d.key}.`)) && (!best || d.key.length > best.length)) best = d.key;
  }
  // A whole object rejected (e.g. `capture`) lands on its first field.
  return best ?? defs.find((d) => d.key.startsWith(`${key}.`))?.key;
}

/**
 * The part of a server validation message worth showing under its field, in a person's words:
 * `settings.json: "capture.maxDimension" is invalid (Too small: expected number to be >=64).`
 * → `Must be at least 64.` Other messages pass unchanged.
 */
export function fieldMessage(message: string): string {
  const m = /is invalid \((.+)\)\.?$/.exec(message);
  if (!m) return message;
  const inner = plainWords(m[1]!.trim());
  return `${inner.charAt(0).toUpperCase()}${inner.slice(1)}${/[.!?]$/.test(inner) ? '' : '.'}`;
}

/** The schema library's wording (`Too small: expected string to have >=1 characters`) as a person would say it. */
export function plainWords(message: string): string {
  let m: RegExpExecArray | null;
  if ((m = /^Too small: expected string to have >=?(\d+) characters?/.exec(message))) return m[1] === '1' ? 'Must not be empty' : `Must be at least ${m[1]} characters`;
  if ((m = /^Too big: expected string to have <=?(\d+) characters?/.exec(message))) return `Must be at most ${m[1]} characters`;
  if ((m = /^Too small: expected (?:number|int) to be >(=?)(-?[\d.e+]+)/.exec(message))) return m[1] ? `Must be at least ${m[2]}` : `Must be more than ${m[2]}`;
  if ((m = /^Too big: expected (?:number|int) to be <(=?)(-?[\d.e+]+)/.exec(message))) return m[1] ? `Must be at most ${m[2]}` : `Must be less than ${m[2]}`;
  if ((m = /^Too big: expected array to have <=?(\d+) items?/.exec(message))) return `At most ${m[1]} lines`;
  if (/^Invalid input: expected int, received number/.test(message)) return 'Must be a whole number';
  if (/^Invalid input: expected (?:number|int)/.test(message)) return 'Must be a number';
  if (/^Invalid URL/.test(message)) return 'Must be a web address such as http://127.0.0.1:9222';
  if ((m = /^Invalid option: expected one of (.+)$/.exec(message))) return `Must be one of ${m[1]!.replace(/"/g, '').split('|').join(', ')}`;
  if (/^Invalid input: expected boolean/.test(message)) return 'Must be on or off';
  return message;
}

/**
 * What a refused save says under each field: every problem the server named (`problems`), each on
 * its field, in a person's words, with its hint when that speaks to a person (not a README or a
 * source path). A problem no field shows is left to the general message.
 */
export function fieldErrors(err: { message: string; hint?: string | undefined; key?: string | undefined; problems: readonly { key: string; message: string; hint?: string }[] }, defs: readonly FieldDef[]): Record<string, string> {
  const problems = err.problems.length > 0 ? err.problems : err.key ? [{ key: err.key, message: err.message, ...(err.hint ? { hint: err.hint } : {}) }] : [];
  const out: Record<string, string> = {};
  for (const p of problems) {
    const field = fieldForKey(p.key, defs);
    if (!field || out[field]) continue;
    const hint = p.hint && !/README|src\//.test(p.hint) ? ` ${p.hint}` : '';
    out[field] = `${fieldMessage(p.message)}${hint}`;
  }
  return out;
}
