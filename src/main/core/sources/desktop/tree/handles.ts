/**
 * Node ids of a window's tree that survive a fresh read. Each read is adopted: an element keeps
 * its id when the backend's own handle for it is unchanged (AT-SPI object path, UIA runtime id)
 * with the same role, else when its fingerprint finds it — the same role and name, the closest
 * place in the hierarchy and box; a nameless element only at the same place over much the same
 * box (after a layout change it is lost rather than guessed). Other elements get new ids. An id
 * from an older read still resolves through its last fingerprint. Ids carry a random prefix per
 * source instance, so an id from before a restart never names another element. Pure.
 */
import { boxCloseness, boxOverlap } from '../../../image/mapping.ts';
import { randomBytes } from 'node:crypto';
import type { Rect } from '../../../../../shared/frame.ts';
import type { AxElement } from './types.ts';

export interface Fingerprint {
  key?: string;
  role: string;
  name: string;
  /** Position among siblings at each level, from the window down. */
  indexPath: number[];
  /** Roles from the window down. */
  rolePath: string[];
  bounds: Rect;
}

/** A read with ids: `ids[i]` is element i's id. */
export interface HandledRead {
  seq: number;
  elements: AxElement[];
  ids: string[];
  byId: Map<string, number>;
  fingerprints: Fingerprint[];
}

export type Found = { index: number; how: 'tracked' | 'relocated' } | { ambiguous: number[] } | undefined;

export class TreeHandles {
  readonly #prefix: string;
  readonly #cap: number;
  #next = 1;
  #seq = 0;
  /** Insertion order is recency. */
  readonly #records = new Map<string, { fp: Fingerprint; seen: number }>();
  #last: HandledRead | undefined;

  constructor(options: { prefix?: string; cap?: number } = {}) {
    this.#prefix = options.prefix ?? randomPrefix();
    this.#cap = options.cap ?? 4000;
  }

  last(): HandledRead | undefined {
    return this.#last;
  }

  adopt(elements: AxElement[]): HandledRead {
    const fps = fingerprints(elements);
    const previous = this.#seq;
    const seq = ++this.#seq;
    const ids: (string | undefined)[] = Array.from({ length: elements.length });
    const taken = new Set<string>();
    const claim = (i: number, id: string): void => {
      ids[i] = id;
      taken.add(id);
    };
    const live = [...this.#records].filter(([, r]) => r.seen === previous && previous > 0);
    // The backend's own handle, where it has one: the same object is the same element.
    const byKey = new Map<string, number>();
    fps.forEach((fp, i) => fp.key && byKey.set(fp.key, i));
    const rest: [string, Fingerprint][] = [];
    for (const [id, r] of live) {
      const i = r.fp.key ? byKey.get(r.fp.key) : undefined;
      if (i !== undefined && ids[i] === undefined && fps[i]!.role === r.fp.role) claim(i, id);
      else rest.push([id, r.fp]);
    }
    // Then fingerprints, the surest first.
    const matches: { id: string; index: number; score: number }[] = [];
    for (const [id, fp] of rest) {
      const m = relocate(fp, fps, (i) => ids[i] === undefined);
      if (m && 'index' in m) matches.push({ id, index: m.index, score: m.score });
    }
    matches.sort((a, b) => b.score - a.score);
    for (const m of matches) if (ids[m.index] === undefined && !taken.has(m.id)) claim(m.index, m.id);
    for (let i = 0; i < ids.length; i++) if (ids[i] === undefined) claim(i, `${this.#prefix}${this.#next++}`);
    const done = ids as string[];
    done.forEach((id, i) => {
      this.#records.delete(id);
      this.#records.set(id, { fp: fps[i]!, seen: seq });
    });
    for (const id of this.#records.keys()) {
      if (this.#records.size <= this.#cap) break;
      this.#records.delete(id);
    }
    const read: HandledRead = { seq, elements, ids: done, byId: new Map(done.map((id, i) => [id, i])), fingerprints: fps };
    this.#last = read;
    return read;
  }

  /** The element `id` names in `read`: tracked into it, else found by its last fingerprint; undefined when gone. */
  find(id: string, read: HandledRead): Found {
    const tracked = read.byId.get(id);
    if (tracked !== undefined) return { index: tracked, how: 'tracked' };
    const r = this.#records.get(id);
    if (!r) return undefined;
    const m = relocate(r.fp, read.fingerprints, () => true);
    if (!m) return undefined;
    if ('ambiguous' in m) return m;
    return { index: m.index, how: 'relocated' };
  }

  knows(id: string): boolean {
    return this.#records.has(id);
  }
}

export function fingerprints(elements: readonly AxElement[]): Fingerprint[] {
  const out: Fingerprint[] = [];
  const childCount = new Map<number | undefined, number>();
  elements.forEach((e) => {
    const parent = e.parent === undefined ? undefined : out[e.parent];
    const index = childCount.get(e.parent) ?? 0;
    childCount.set(e.parent, index + 1);
    out.push({
      ...(e.key ? { key: e.key } : {}),
      role: e.role,
      name: e.name,
      indexPath: [...(parent?.indexPath ?? []), index],
      rolePath: [...(parent?.rolePath ?? []), e.role],
      bounds: e.bounds,
    });
  });
  return out;
}

/** Intersection over union needed for a nameless element to count as the same. */
const MIN_ANONYMOUS_OVERLAP = 0.75;

/** The best candidate for `fp` among `fps` (only those `free` allows); ties are ambiguous. */
export function relocate(fp: Fingerprint, fps: readonly Fingerprint[], free: (i: number) => boolean): { index: number; score: number } | { ambiguous: number[] } | undefined {
  const scored: { index: number; score: number }[] = [];
  fps.forEach((c, i) => {
    if (c.role !== fp.role || !free(i)) return;
    const samePlace = same(c.indexPath, fp.indexPath) && same(c.rolePath, fp.rolePath);
    if (fp.name) {
      if (norm(c.name) !== norm(fp.name)) return;
    } else if (c.name || !samePlace || boxOverlap(c.bounds, fp.bounds) < MIN_ANONYMOUS_OVERLAP) return;
    scored.push({ index: i, score: 2 * pathCloseness(fp, c) + boxCloseness(fp.bounds, c.bounds) });
  });
  if (!scored.length) return undefined;
  scored.sort((a, b) => b.score - a.score);
  const best = scored[0]!;
  const tied = scored.filter((s) => Math.abs(s.score - best.score) < 1e-9);
  return tied.length > 1 ? { ambiguous: tied.map((t) => t.index) } : best;
}

function norm(s: string): string {
  return s.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

function same<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function pathCloseness(a: Fingerprint, b: Fingerprint): number {
  let common = 0;
  while (common < a.indexPath.length && a.indexPath[common] === b.indexPath[common]) common++;
  return common / Math.max(a.indexPath.length, b.indexPath.length, 1) + (same(a.rolePath, b.rolePath) ? 0.5 : 0);
}



function randomPrefix(): string {
  const letters = 'abcdefghjkmnpqrstuvwxyz';
  return `w${[...randomBytes(2)].map((b) => letters[b % letters.length]!).join('')}`;
}
