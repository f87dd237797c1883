import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayList, mergeAll, splitAt, type PagedList } from '../../../src/main/core/util/mergedPages.ts';

interface Item {
  list: number;
  idx: number;
  t: number;
}
const timeOf = (x: Item): number => x.t;

/** Lists of times, each sorted newest first, as items that remember where they came from. */
const listsArb = fc.array(fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 60 }), { minLength: 1, maxLength: 4 }).map((lists) =>
  lists.map((times, list) =>
    [...times]
      .sort((a, b) => b - a)
      .map((t, idx): Item => ({ list, idx, t })),
  ),
);

/** The reference: every item, newest first; equal times keep list order, then each list's own order. */
function naive(lists: readonly Item[][]): Item[] {
  return lists.flat().sort((a, b) => b.t - a.t || a.list - b.list || a.idx - b.idx);
}

/** A list that counts what it was asked (probes and whole items). */
function counting(items: Item[]): PagedList<Item> & { probes: number; read: number } {
  const base = arrayList(items, timeOf);
  const l = {
    total: base.total,
    probes: 0,
    read: 0,
    timeAt(i: number) {
      l.probes++;
      if (!(i >= 0 && i < items.length)) throw new RangeError(`probe ${i} outside 0..${items.length - 1}`);
      return base.timeAt(i);
    },
    page(offset: number, limit: number) {
      const p = base.page(offset, limit);
      l.read += p.length;
      return p;
    },
  };
  return l;
}

describe('mergedPages', () => {
  it('pages a merge of several lists exactly as one sorted list, at any offset', () => {
    fc.assert(
      fc.property(listsArb, fc.nat(250), fc.integer({ min: 1, max: 30 }), (lists, offset, limit) => {
        const merged = mergeAll(
          lists.map((l) => arrayList(l, timeOf)),
          timeOf,
        );
        const all = naive(lists);
        expect(merged.total).toBe(all.length);
        expect(merged.page(offset, limit)).toEqual(all.slice(offset, offset + limit));
        if (offset < all.length) expect(merged.timeAt(offset)).toBe(all[offset]!.t);
      }),
      { numRuns: 400 },
    );
  });

  it('covers the whole list page after page with no item twice or missing', () => {
    fc.assert(
      fc.property(listsArb, fc.integer({ min: 1, max: 9 }), (lists, size) => {
        const merged = mergeAll(
          lists.map((l) => arrayList(l, timeOf)),
          timeOf,
        );
        const seen: Item[] = [];
        for (let o = 0; o < merged.total; o += size) seen.push(...merged.page(o, size));
        expect(seen).toEqual(naive(lists));
      }),
    );
  });

  it('splitAt counts the first k items that come from a (a first on equal times)', () => {
    const a = arrayList([9, 7, 5, 5, 1].map((t, idx) => ({ list: 0, idx, t })), timeOf);
    const b = arrayList([8, 5, 2].map((t, idx) => ({ list: 1, idx, t })), timeOf);
    // merged: a9 b8 a7 a5 a5 b5 b2 a1
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((k) => splitAt(a, b, k))).toEqual([0, 1, 1, 2, 3, 4, 4, 4, 5]);
  });

  it('reads whole only the items of the page, and probes logarithmically often', () => {
    const big = counting(Array.from({ length: 100_000 }, (_, idx) => ({ list: 1, idx, t: 10_000_000 - idx * 37 })));
    const small = counting(Array.from({ length: 5_000 }, (_, idx) => ({ list: 0, idx, t: 10_000_000 - idx * 700 })));
    const merged = mergeAll<Item>([small, big], timeOf);
    const page = merged.page(60_000, 100);
    expect(page).toHaveLength(100);
    expect(small.read + big.read).toBe(100);
    // Two binary searches over ≤ 5,000 candidates, two probes each: far below the offset.
    expect(small.probes + big.probes).toBeLessThan(80);
  });

  it('an empty merge and offsets past the end give empty pages', () => {
    expect(mergeAll<Item>([], timeOf).page(0, 10)).toEqual([]);
    const one = mergeAll([arrayList([{ list: 0, idx: 0, t: 1 }], timeOf)], timeOf);
    expect(one.page(5, 10)).toEqual([]);
    expect(one.page(0, 0)).toEqual([]);
  });
});
