/** Sampling helpers shared by the catalog listing and the archive. Pure. */

/** `k` items spread evenly over `items`, first and last included. */
export function spreadEvenly<T>(items: readonly T[], k: number): T[] {
  const n = items.length;
  if (k >= n) return items.slice();
  if (k <= 0) return [];
  if (k === 1) return [items[0] as T];
  const out: T[] = [];
  for (let i = 0; i < k; i++) out.push(items[Math.round((i * (n - 1)) / (k - 1))] as T);
  return out;
}
