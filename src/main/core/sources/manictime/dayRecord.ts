/**
 * One day folder of the archive as the index keeps it: the screenshots it holds
 * (thumbnails paired with their full images), packed column-wise into one buffer.
 * A million files over three years become ~1,100 small rows instead of a million
 * SQLite rows, which is what keeps a cold index within 2× a bare readdir. Pure.
 */
import { formatScreenshotName, type NameFields, type NameVersion } from './filename.ts';

export interface IndexedShot {
  utcMs: number;
  offsetMinutes: number;
  id: number;
  monitor: number | undefined;
  /** Full image size from its name (a thumbnail-only capture: the thumbnail name's). */
  width: number;
  height: number;
  /** Size written in the thumbnail's name (0 when there is no thumbnail). */
  thumbWidth: number;
  thumbHeight: number;
  hasFull: boolean;
  hasThumb: boolean;
  version: NameVersion;
  /** Folder inside the day folder, `/`-separated ('' = the day folder itself). */
  subdir: string;
  /** Exact names when they are not canonical (a `+` offset, leading zeros, upper case). */
  fullName: string | undefined;
  thumbName: string | undefined;
}

export interface DaySummary {
  day: string;
  fingerprint: string;
  /** Folders inside the day folder, for the next fingerprint check. */
  subdirs: string[];
  count: number;
  files: number;
  unknown: number;
  /** Capture instants of the first and last screenshot (0 when none). */
  firstMs: number;
  lastMs: number;
  /** The folder was changing while it was scanned: rescan it next time whatever the fingerprint. */
  hot: boolean;
}

export interface DayRecord extends DaySummary {
  data: Buffer;
  /** A few unrecognised names, for health messages. */
  unknownSamples: string[];
}

const MAGIC = 0x4d544431; // "MTD1"
const FLAG_FULL = 1;
const FLAG_THUMB = 2;
const FLAG_V0 = 4;
const FLAG_RAW_NAMES = 8;

/**
 * Collects the names of one day folder and pairs them by capture identity, straight
 * into columns (no object per screenshot: a cold index of a million files would
 * otherwise spend a good part of its time allocating and collecting them).
 */
export class DayBuilder {
  n = 0;
  files = 0;
  unknown = 0;
  duplicates = 0;
  readonly unknownSamples: string[] = [];
  #cap = 0;
  #utc = new Float64Array(0);
  #id = new Float64Array(0);
  /** width, height, thumbWidth, thumbHeight interleaved. */
  #sizes = new Uint32Array(0);
  #mon = new Int32Array(0);
  #off = new Int16Array(0);
  #sub = new Uint16Array(0);
  #flags = new Uint8Array(0);
  /** id → slot; ids are nearly unique, pairing checks the rest of the identity. */
  readonly #byId = new Map<number, number>();
  /** Captures whose id is shared with a different capture (rare). */
  readonly #byKey = new Map<string, number>();
  readonly #names = new Map<number, [string | null, string | null]>();
  readonly #subdirs: string[] = [''];
  readonly #subIndex = new Map<string, number>([['', 0]]);

  /** Count a file that is not a screenshot name. */
  addUnknown(name: string, subdir: string): void {
    this.files++;
    this.unknown++;
    if (this.unknownSamples.length < 5) this.unknownSamples.push(subdir ? `${subdir}/${name}` : name);
  }

  #grow(): void {
    const cap = Math.max(256, this.#cap * 2);
    const grow = <T extends Float64Array | Uint32Array | Int32Array | Int16Array | Uint16Array | Uint8Array>(a: T, size: number): T => {
      const b = new (a.constructor as new (n: number) => T)(size);
      b.set(a);
      return b;
    };
    this.#utc = grow(this.#utc, cap);
    this.#id = grow(this.#id, cap);
    this.#sizes = grow(this.#sizes, cap * 4);
    this.#mon = grow(this.#mon, cap);
    this.#off = grow(this.#off, cap);
    this.#sub = grow(this.#sub, cap);
    this.#flags = grow(this.#flags, cap);
    this.#cap = cap;
  }

  #subdirIndex(subdir: string): number {
    let si = this.#subIndex.get(subdir);
    if (si === undefined) {
      si = this.#subdirs.length;
      this.#subdirs.push(subdir);
      this.#subIndex.set(subdir, si);
    }
    return si;
  }

  /** Add a parsed screenshot name (`f` is read, not kept). */
  add(name: string, f: NameFields, subdir: string): void {
    this.files++;
    // Identity: date, time and offset (utcMs + offset), id, monitor. W_H is left out on purpose.
    let slot = this.#byId.get(f.id);
    let key: string | undefined;
    if (slot !== undefined && (this.#utc[slot] !== f.utcMs || this.#off[slot] !== f.offsetMinutes || this.#mon[slot] !== f.monitor)) {
      key = `${f.utcMs}|${f.offsetMinutes}|${f.id}|${f.monitor}`;
      slot = this.#byKey.get(key);
    }
    const si = subdir === '' ? 0 : this.#subdirIndex(subdir);
    if (slot === undefined) {
      if (this.n === this.#cap) this.#grow();
      slot = this.n++;
      this.#utc[slot] = f.utcMs;
      this.#id[slot] = f.id;
      this.#mon[slot] = f.monitor;
      this.#off[slot] = f.offsetMinutes;
      this.#sub[slot] = si;
      this.#sizes[slot * 4] = f.width;
      this.#sizes[slot * 4 + 1] = f.height;
      this.#flags[slot] = f.version === 'v0' ? FLAG_V0 : 0;
      if (key !== undefined) this.#byKey.set(key, slot);
      else this.#byId.set(f.id, slot);
    } else if (this.#sub[slot] !== si || (this.#flags[slot] as number) & (f.thumbnail ? FLAG_THUMB : FLAG_FULL)) {
      // The same capture twice (a copy in another folder): keep the first.
      this.duplicates++;
      return;
    }
    if (f.thumbnail) {
      this.#flags[slot] = (this.#flags[slot] as number) | FLAG_THUMB;
      this.#sizes[slot * 4 + 2] = f.width;
      this.#sizes[slot * 4 + 3] = f.height;
    } else {
      this.#flags[slot] = (this.#flags[slot] as number) | FLAG_FULL;
      this.#sizes[slot * 4] = f.width;
      this.#sizes[slot * 4 + 1] = f.height;
    }
    if (!f.canonical) {
      const raw = this.#names.get(slot) ?? [null, null];
      raw[f.thumbnail ? 1 : 0] = name;
      this.#names.set(slot, raw);
      this.#flags[slot] = (this.#flags[slot] as number) | FLAG_RAW_NAMES;
    }
  }

  build(day: string, fingerprint: string, subdirs: string[], hot: boolean): DayRecord {
    const n = this.n;
    const utc = this.#utc;
    const mon = this.#mon;
    const id = this.#id;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => (utc[a] as number) - (utc[b] as number) || (mon[a] as number) - (mon[b] as number) || (id[a] as number) - (id[b] as number));
    return {
      day,
      fingerprint,
      subdirs,
      count: n,
      files: this.files,
      unknown: this.unknown,
      firstMs: n ? (utc[order[0] as number] as number) : 0,
      lastMs: n ? (utc[order[n - 1] as number] as number) : 0,
      hot,
      data: this.#encode(order),
      unknownSamples: this.unknownSamples,
    };
  }

  /**
   * Layout: header (magic, count, extra-JSON length) then columns, widest first so
   * every typed array is aligned: id f64 · utcSec u32 · w,h,tw,th u32 (as four
   * columns) · monitor i32 · offset i16 · subdir u16 · flags u8 · JSON {subdirs, names}.
   */
  #encode(order: Uint32Array): Buffer {
    const n = order.length;
    const names: Record<number, [string | null, string | null]> = {};
    for (let i = 0; i < n; i++) {
      const raw = this.#names.get(order[i] as number);
      if (raw) names[i] = raw;
    }
    const extra = this.#subdirs.length > 1 || this.#names.size > 0 ? Buffer.from(JSON.stringify({ subdirs: this.#subdirs, names })) : Buffer.alloc(0);
    const bodyLen = n * (8 + 20 + 4 + 2 + 2 + 1);
    const out = Buffer.alloc(16 + bodyLen + extra.length);
    out.writeUInt32LE(MAGIC, 0);
    out.writeUInt32LE(n, 4);
    out.writeUInt32LE(extra.length, 8);
    const ab = new ArrayBuffer(bodyLen);
    let o = 0;
    const id = new Float64Array(ab, o, n);
    o += n * 8;
    const u32 = new Uint32Array(ab, o, n * 5);
    o += n * 20;
    const mon = new Int32Array(ab, o, n);
    o += n * 4;
    const off = new Int16Array(ab, o, n);
    o += n * 2;
    const sub = new Uint16Array(ab, o, n);
    o += n * 2;
    const flags = new Uint8Array(ab, o, n);
    for (let i = 0; i < n; i++) {
      const s = order[i] as number;
      id[i] = this.#id[s] as number;
      u32[i] = Math.floor((this.#utc[s] as number) / 1000);
      u32[n + i] = this.#sizes[s * 4] as number;
      u32[2 * n + i] = this.#sizes[s * 4 + 1] as number;
      u32[3 * n + i] = this.#sizes[s * 4 + 2] as number;
      u32[4 * n + i] = this.#sizes[s * 4 + 3] as number;
      mon[i] = this.#mon[s] as number;
      off[i] = this.#off[s] as number;
      sub[i] = this.#sub[s] as number;
      flags[i] = this.#flags[s] as number;
    }
    Buffer.from(ab).copy(out, 16);
    extra.copy(out, 16 + bodyLen);
    return out;
  }
}

/** Column view of a decoded day, for filtering without building objects. */
export interface DayColumns {
  n: number;
  id: Float64Array;
  utcSec: Uint32Array;
  sizes: Uint32Array;
  monitor: Int32Array;
  offset: Int16Array;
  subdir: Uint16Array;
  flags: Uint8Array;
  subdirs: string[];
  names: Record<number, [string | null, string | null]>;
}

export function decodeColumns(buf: Buffer): DayColumns {
  // Copy into a fresh, aligned ArrayBuffer (SQLite blobs land at arbitrary offsets).
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const view = new DataView(ab);
  if (ab.byteLength < 16 || view.getUint32(0, true) !== MAGIC) throw new Error('not a ManicTime day record');
  const n = view.getUint32(4, true);
  const extraLen = view.getUint32(8, true);
  let o = 16;
  const id = new Float64Array(ab, o, n);
  o += n * 8;
  const sizesAndUtc = new Uint32Array(ab, o, n * 5);
  o += n * 20;
  const monitor = new Int32Array(ab, o, n);
  o += n * 4;
  const offset = new Int16Array(ab, o, n);
  o += n * 2;
  const subdir = new Uint16Array(ab, o, n);
  o += n * 2;
  const flags = new Uint8Array(ab, o, n);
  o += n;
  let subdirs = [''];
  let names: Record<number, [string | null, string | null]> = {};
  if (extraLen > 0) {
    const extra = JSON.parse(Buffer.from(ab, o, extraLen).toString('utf8')) as { subdirs: string[]; names: typeof names };
    subdirs = extra.subdirs;
    names = extra.names;
  }
  return {
    n,
    id,
    utcSec: sizesAndUtc.subarray(0, n),
    sizes: sizesAndUtc.subarray(n),
    monitor,
    offset,
    subdir,
    flags,
    subdirs,
    names,
  };
}

/** One decoded screenshot (object form, built only for the ones a query keeps). */
export function shotAt(c: DayColumns, i: number): IndexedShot {
  const f = c.flags[i] as number;
  const raw = f & FLAG_RAW_NAMES ? c.names[i] : undefined;
  const m = c.monitor[i] as number;
  return {
    utcMs: (c.utcSec[i] as number) * 1000,
    offsetMinutes: c.offset[i] as number,
    id: c.id[i] as number,
    monitor: m < 0 ? undefined : m,
    width: c.sizes[i] as number,
    height: c.sizes[c.n + i] as number,
    thumbWidth: c.sizes[2 * c.n + i] as number,
    thumbHeight: c.sizes[3 * c.n + i] as number,
    hasFull: (f & FLAG_FULL) !== 0,
    hasThumb: (f & FLAG_THUMB) !== 0,
    version: f & FLAG_V0 ? 'v0' : 'v1',
    subdir: c.subdirs[c.subdir[i] as number] ?? '',
    fullName: raw?.[0] ?? undefined,
    thumbName: raw?.[1] ?? undefined,
  };
}

export function decodeShots(buf: Buffer): IndexedShot[] {
  const c = decodeColumns(buf);
  const out: IndexedShot[] = [];
  for (let i = 0; i < c.n; i++) out.push(shotAt(c, i));
  return out;
}

/** Wall clock of a shot: `date` `YYYY-MM-DD`, `time` `HH:mm:ss`. */
export function wallClockOf(shot: Pick<IndexedShot, 'utcMs' | 'offsetMinutes'>): { date: string; time: string } {
  const iso = new Date(shot.utcMs + shot.offsetMinutes * 60_000).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 19) };
}

/** File names of a shot's full image and thumbnail (the exact names when they were not canonical). */
export function fileNamesOf(shot: IndexedShot): { full: string | undefined; thumb: string | undefined } {
  const { date, time } = wallClockOf(shot);
  const ext = shot.version === 'v0' ? 'png' : 'jpg';
  const base = { date, time, offsetMinutes: shot.offsetMinutes, id: shot.id, monitor: shot.monitor, ext } as const;
  return {
    full: shot.hasFull ? (shot.fullName ?? formatScreenshotName({ ...base, width: shot.width, height: shot.height, thumbnail: false })) : undefined,
    thumb: shot.hasThumb
      ? (shot.thumbName ?? formatScreenshotName({ ...base, width: shot.thumbWidth, height: shot.thumbHeight, thumbnail: true }))
      : undefined,
  };
}
