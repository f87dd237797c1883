/**
 * A colour per app for the time strip: the same app always gets the same colour (a hash of its
 * name picks one of a palette that reads on light and dark surfaces), so a day reads as stretches
 * of one app or another at a glance. Pure, unit-tested under Node.
 */
export const APP_PALETTE = ['#4b7bec', '#20a39e', '#e17a2d', '#a55eea', '#d6456a', '#3f9b4f', '#c29a16', '#5d6d8f'] as const;

export function appColour(app: string): string {
  let h = 2166136261;
  for (let i = 0; i < app.length; i++) h = Math.imul(h ^ app.charCodeAt(i), 16777619);
  return APP_PALETTE[(h >>> 0) % APP_PALETTE.length]!;
}

/** A day's apps by how many sampled frames showed them, most first (the strip's legend). */
export function dayApps(spans: readonly (readonly { name: string; count: number }[])[]): { name: string; count: number }[] {
  const total = new Map<string, number>();
  for (const span of spans) for (const a of span) total.set(a.name, (total.get(a.name) ?? 0) + a.count);
  return [...total].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}
