/** `--target` → one target from list_targets: an exact id, else one match on title, app, package or URL. */

export interface TargetEntry {
  id: string;
  source: string;
  kind: string;
  title: string;
  app?: string;
  state?: string;
  hint?: string;
  details?: Record<string, unknown>;
}

export type TargetMatch = { ok: true; target: TargetEntry } | { ok: false; message: string; candidates: TargetEntry[] };

function fields(t: TargetEntry): string[] {
  const d = t.details ?? {};
  return [t.title, t.app, d.package, d.url].filter((v): v is string => typeof v === 'string' && v !== '');
}

export function describeTarget(t: TargetEntry): string {
  const url = typeof t.details?.url === 'string' ? `  ${t.details.url}` : '';
  return `${t.id}  ${t.kind}  ${JSON.stringify(t.title)}${t.app ? `  (${t.app})` : ''}${url}`;
}

/**
 * Case-insensitive: targets whose title/app/package/URL equals the text win over those that
 * only contain it; more than one winner is ambiguous (the user says which by id).
 */
export function matchTarget(query: string, targets: readonly TargetEntry[]): TargetMatch {
  const byId = targets.find((t) => t.id === query);
  if (byId) return { ok: true, target: byId };
  const q = query.toLowerCase();
  const exact = targets.filter((t) => fields(t).some((f) => f.toLowerCase() === q));
  const partial = targets.filter((t) => fields(t).some((f) => f.toLowerCase().includes(q)));
  const winners = exact.length ? exact : partial;
  if (winners.length === 1) return { ok: true, target: winners[0]! };
  if (winners.length === 0) {
    return { ok: false, message: `No target matches "${query}". Targets:\n${targets.map((t) => `  ${describeTarget(t)}`).join('\n') || '  (none: check that the source is enabled and running)'}`, candidates: [] };
  }
  return { ok: false, message: `"${query}" matches ${winners.length} targets; pass one id with --target:\n${winners.map((t) => `  ${describeTarget(t)}`).join('\n')}`, candidates: winners };
}
