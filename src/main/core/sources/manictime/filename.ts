/**
 * ManicTime screenshot file names, parsed without regular expressions: the indexer
 * runs this on every file of a multi-year archive (about 0.1 µs a name, see
 * bench/manictime.bench.ts for the regex comparison). Pure and culture-invariant:
 * only ASCII digits and fixed separators are accepted.
 *
 * v1 (current): `YYYY-MM-DD_HH-mm-ss_OFFSET_W_H_ID_MONITOR[.thumbnail].jpg`
 * v0 (older):   `YYYY-MM-DD_HH-mm-ss_OFFSET_W_H_ID[.thumbnail].png` (no monitor field)
 *
 * OFFSET is the wall clock's UTC offset: `01-00` (positive offsets carry no `+`),
 * `-05-00`; a leading `+` is accepted too. ID is a growing global id, not a
 * per-second sequence. A thumbnail's W_H may be its own size or the full image's,
 * so pairing never uses them (see `pairKey`).
 */

export const NAME_VERSIONS = ['v1', 'v0'] as const;
export type NameVersion = (typeof NAME_VERSIONS)[number];

export interface ParsedScreenshotName {
  version: NameVersion;
  /** `YYYY-MM-DD`, the wall-clock date as written. */
  date: string;
  /** `HH:mm:ss`, the wall-clock time as written. */
  time: string;
  /** Minutes east of UTC (`-05-00` → -300). */
  offsetMinutes: number;
  width: number;
  height: number;
  id: number;
  /** Absent in v0 names. */
  monitor: number | undefined;
  thumbnail: boolean;
  ext: 'jpg' | 'png';
  /** Capture instant, ms since the epoch. */
  utcMs: number;
  /**
   * Whether `formatScreenshotName` gives back exactly this name (no `+` sign, no
   * leading zeros, lower-case suffixes). The index stores only fields for those.
   */
  canonical: boolean;
}

interface Strategy {
  version: NameVersion;
  ext: 'jpg' | 'png';
  /** Numeric fields after the offset. */
  fields: 3 | 4;
}

/** Tried in order; a new ManicTime format gets a new entry here, the rest stays as is. */
const STRATEGIES: readonly Strategy[] = [
  { version: 'v1', ext: 'jpg', fields: 4 },
  { version: 'v0', ext: 'png', fields: 3 },
];

const THUMB = '.thumbnail';
const C0 = 48;
const C9 = 57;
const DASH = 45;
const PLUS = 43;
const UNDERSCORE = 95;
const MAX_NUMBER_DIGITS = 15;
const MAX_SIZE = 100_000;
const MAX_MONITOR = 9_999;
/** Real offsets run from -12:00 to +14:00. */
const MAX_OFFSET_MINUTES = 14 * 60;

function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - C0;
  const b = s.charCodeAt(i + 1) - C0;
  if (a < 0 || a > 9 || b < 0 || b > 9) return -1;
  return a * 10 + b;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Lower-case ASCII compare of `s` at `at` with `lit` (already lower case). */
function endsWithAt(s: string, at: number, lit: string): boolean {
  if (at < 0) return false;
  for (let i = 0; i < lit.length; i++) {
    const c = s.charCodeAt(at + i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lit.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * The fields of a name, written in place by `parseNameInto` so the indexer's hot
 * loop allocates nothing per file. Strings (date, time) are derived on demand.
 */
export interface NameFields {
  version: NameVersion;
  ext: 'jpg' | 'png';
  utcMs: number;
  offsetMinutes: number;
  width: number;
  height: number;
  id: number;
  /** -1 when the name has no monitor field (v0). */
  monitor: number;
  thumbnail: boolean;
  canonical: boolean;
}

export function newNameFields(): NameFields {
  return { version: 'v1', ext: 'jpg', utcMs: 0, offsetMinutes: 0, width: 0, height: 0, id: 0, monitor: -1, thumbnail: false, canonical: true };
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * Parse a bare file name (no directory) into `out`. Returns false for anything
 * that is not a ManicTime screenshot name (`out` is then unspecified).
 */
export function parseNameInto(name: string, out: NameFields): boolean {
  const len = name.length;
  // Shortest v0: 19 (date_time) + 1 + 5 (offset) + 3×2 (_N) + 4 (.png) = 35.
  if (len < 35 || len > 120) return false;
  let ext: 'jpg' | 'png';
  if (endsWithAt(name, len - 4, '.jpg')) ext = 'jpg';
  else if (endsWithAt(name, len - 4, '.png')) ext = 'png';
  else return false;
  let end = len - 4;
  const thumbnail = endsWithAt(name, end - THUMB.length, THUMB);
  if (thumbnail) end -= THUMB.length;

  // Date and time: fixed positions.
  if (name.charCodeAt(4) !== DASH || name.charCodeAt(7) !== DASH || name.charCodeAt(10) !== UNDERSCORE) return false;
  if (name.charCodeAt(13) !== DASH || name.charCodeAt(16) !== DASH || name.charCodeAt(19) !== UNDERSCORE) return false;
  const y1 = two(name, 0);
  const y2 = two(name, 2);
  const mo = two(name, 5);
  const d = two(name, 8);
  const h = two(name, 11);
  const mi = two(name, 14);
  const se = two(name, 17);
  if (y1 < 0 || y2 < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59) return false;
  const year = y1 * 100 + y2;
  if (year < 1970 || d > daysInMonth(year, mo)) return false;

  // Offset: [+|-]HH-MM
  let p = 20;
  let sign = 1;
  let canonical = true;
  const c = name.charCodeAt(p);
  if (c === DASH) {
    sign = -1;
    p++;
  } else if (c === PLUS) {
    p++;
    canonical = false;
  }
  const oh = two(name, p);
  const om = two(name, p + 3);
  if (oh < 0 || om < 0 || om > 59 || name.charCodeAt(p + 2) !== DASH || name.charCodeAt(p + 5) !== UNDERSCORE) return false;
  const offsetMinutes = sign * (oh * 60 + om);
  if (offsetMinutes > MAX_OFFSET_MINUTES || offsetMinutes < -MAX_OFFSET_MINUTES) return false;
  p += 6;

  // Up to four numeric fields separated by `_` up to `end`.
  let count = 0;
  let n0 = 0;
  let n1 = 0;
  let n2 = 0;
  let n3 = 0;
  while (p <= end) {
    if (count === 4) return false;
    let v = 0;
    const start = p;
    while (p < end) {
      const ch = name.charCodeAt(p);
      if (ch === UNDERSCORE) break;
      if (ch < C0 || ch > C9) return false;
      v = v * 10 + (ch - C0);
      p++;
    }
    if (p === start || p - start > MAX_NUMBER_DIGITS) return false;
    if (p - start > 1 && name.charCodeAt(start) === C0) canonical = false;
    if (count === 0) n0 = v;
    else if (count === 1) n1 = v;
    else if (count === 2) n2 = v;
    else n3 = v;
    count++;
    p++; // skip `_` (or step past `end` after the last field)
  }

  let strategy: Strategy | undefined;
  for (const s of STRATEGIES) {
    if (s.ext === ext && s.fields === count) {
      strategy = s;
      break;
    }
  }
  // Sizes and monitor numbers beyond any real screen are not ManicTime names (and keep the index's columns exact).
  if (!strategy || n0 === 0 || n1 === 0 || n0 > MAX_SIZE || n1 > MAX_SIZE || n3 > MAX_MONITOR) return false;

  // Upper-case suffixes parse (Windows names are case-insensitive) but are not canonical.
  if (name.charCodeAt(len - 1) < 97 || name.charCodeAt(len - 2) < 97 || name.charCodeAt(len - 3) < 97) canonical = false;
  if (thumbnail && !name.startsWith(THUMB, end)) canonical = false;
  out.version = strategy.version;
  out.ext = ext;
  out.utcMs = (daysFromCivil(year, mo, d) * 86_400 + h * 3600 + mi * 60 + se - offsetMinutes * 60) * 1000;
  out.offsetMinutes = offsetMinutes;
  out.width = n0;
  out.height = n1;
  out.id = n2;
  out.monitor = strategy.fields === 4 ? n3 : -1;
  out.thumbnail = thumbnail;
  out.canonical = canonical;
  return true;
}

/** Parse a bare file name (no directory). Returns null for anything that is not a ManicTime screenshot name. */
export function parseScreenshotName(name: string): ParsedScreenshotName | null {
  const f = newNameFields();
  if (!parseNameInto(name, f)) return null;
  return {
    version: f.version,
    date: name.slice(0, 10),
    time: `${name.slice(11, 13)}:${name.slice(14, 16)}:${name.slice(17, 19)}`,
    offsetMinutes: f.offsetMinutes,
    width: f.width,
    height: f.height,
    id: f.id,
    monitor: f.monitor < 0 ? undefined : f.monitor,
    thumbnail: f.thumbnail,
    ext: f.ext,
    utcMs: f.utcMs,
    canonical: f.canonical,
  };
}

/** ManicTime's offset field: `01-00`, `-05-00` (no `+` on positive offsets). */
export function offsetField(offsetMinutes: number): string {
  const abs = Math.abs(offsetMinutes);
  const h = Math.floor(abs / 60);
  const m = abs % 60;
  return `${offsetMinutes < 0 ? '-' : ''}${h < 10 ? '0' : ''}${h}-${m < 10 ? '0' : ''}${m}`;
}

export type NameParts = Pick<ParsedScreenshotName, 'date' | 'time' | 'offsetMinutes' | 'width' | 'height' | 'id' | 'monitor' | 'thumbnail' | 'ext'>;

/** The canonical name for these fields (inverse of `parseScreenshotName` for canonical names). */
export function formatScreenshotName(f: NameParts): string {
  const t = f.time;
  const mon = f.monitor === undefined ? '' : `_${f.monitor}`;
  return `${f.date}_${t.slice(0, 2)}-${t.slice(3, 5)}-${t.slice(6, 8)}_${offsetField(f.offsetMinutes)}_${f.width}_${f.height}_${f.id}${mon}${f.thumbnail ? THUMB : ''}.${f.ext}`;
}

/**
 * Identity of one capture on one monitor: date, time, offset, id and monitor.
 * A thumbnail and its full image share it; W_H is left out on purpose.
 */
export function pairKey(p: ParsedScreenshotName): string {
  return `${p.date}_${p.time}_${p.offsetMinutes}_${p.id}_${p.monitor ?? ''}`;
}

/** `+01:00` / `-05:00` / `+00:00`. */
export function formatOffset(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const h = Math.floor(abs / 60);
  const m = abs % 60;
  return `${sign}${h < 10 ? '0' : ''}${h}:${m < 10 ? '0' : ''}${m}`;
}

/** ISO-8601 with the file's own UTC offset: `2024-03-31T03:00:00+02:00`. */
export function capturedAtIso(p: Pick<ParsedScreenshotName, 'date' | 'time' | 'offsetMinutes'>): string {
  return `${p.date}T${p.time}${formatOffset(p.offsetMinutes)}`;
}

/** `YYYY-MM-DD HH:mm:ss`, the wall clock where the screenshot was taken. */
export function displayLocalTime(p: Pick<ParsedScreenshotName, 'date' | 'time'>): string {
  return `${p.date} ${p.time}`;
}

/** A day folder's name (`YYYY-MM-DD`), validated like the names inside it. */
export function isDayFolderName(name: string): boolean {
  if (name.length !== 10 || name.charCodeAt(4) !== DASH || name.charCodeAt(7) !== DASH) return false;
  const y1 = two(name, 0);
  const y2 = two(name, 2);
  const mo = two(name, 5);
  const d = two(name, 8);
  return y1 >= 0 && y2 >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y1 * 100 + y2, mo);
}
