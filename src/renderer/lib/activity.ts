/** Pure helpers for the activity log (tested under Node). */
import type { ActivityEntry, ActivityQuery } from '../../shared/api.ts';
import { localTargetId } from './format.ts';

/** Tools an agent can call, for the filter (entries may name others; they are added as seen). */
export const KNOWN_TOOLS = [
  'click',
  'type_text',
  'press_key',
  'scroll',
  'swipe',
  'focus_window',
  'scroll_into_view',
  'capture',
  'crop_screenshot',
  'get_ui_tree',
  'list_targets',
  'list_screenshots',
  'get_screenshot',
] as const;

export function matchesActivity(e: ActivityEntry, q: ActivityQuery): boolean {
  if (q.tool && e.tool !== q.tool) return false;
  if (q.target && e.target !== q.target) return false;
  if (q.result === 'ok' && e.result !== 'ok') return false;
  if (q.result === 'error' && e.result === 'ok') return false;
  if (q.run && e.run?.id !== q.run) return false;
  return true;
}

/** A row of the activity table: an agent run's heading, or one action (under its run's heading when it has one). */
export type ActivityItem =
  | { kind: 'run'; key: string; run: { id: string; artifacts?: string }; count: number; failed: number; first: string; last: string }
  | { kind: 'entry'; key: string; entry: ActivityEntry; run?: string };

/**
 * Entries (newest first) with each agent run's actions gathered under one heading, placed where
 * the run's newest action is; actions of no run keep their place. A run's heading counts its
 * actions (those loaded) and their failures, and spans their times.
 */
export function groupByRun(entries: readonly ActivityEntry[], quiet: readonly { id: string; startedAt: string }[] = []): ActivityItem[] {
  const out = groupEntries(entries);
  // Runs that never acted: a heading of their own, where their start falls among the actions.
  const timeOf = (item: ActivityItem): number => Date.parse(item.kind === 'run' ? item.last : item.entry.at);
  for (const r of quiet) {
    if (out.some((x) => x.kind === 'run' && x.run.id === r.id)) continue;
    const t = Date.parse(r.startedAt);
    let at = out.findIndex((x) => !(x.kind === 'entry' && x.run) && timeOf(x) < t);
    if (at < 0) at = out.length;
    out.splice(at, 0, { kind: 'run', key: `r${r.id}`, run: { id: r.id }, count: 0, failed: 0, first: r.startedAt, last: r.startedAt });
  }
  return out;
}

function groupEntries(entries: readonly ActivityEntry[]): ActivityItem[] {
  const byRun = new Map<string, ActivityEntry[]>();
  for (const e of entries) {
    if (!e.run) continue;
    const list = byRun.get(e.run.id);
    if (list) list.push(e);
    else byRun.set(e.run.id, [e]);
  }
  const out: ActivityItem[] = [];
  for (const e of entries) {
    if (!e.run) {
      out.push({ kind: 'entry', key: `e${e.id}`, entry: e });
      continue;
    }
    const list = byRun.get(e.run.id);
    // Only the run's newest action places the group; the others are already under it.
    if (!list || list[0] !== e) continue;
    const artifacts = list.find((x) => x.run?.artifacts)?.run?.artifacts;
    out.push({
      kind: 'run',
      key: `r${e.run.id}`,
      run: artifacts ? { id: e.run.id, artifacts } : { id: e.run.id },
      count: list.length,
      failed: list.filter((x) => x.result !== 'ok').length,
      first: (list.at(-1) as ActivityEntry).at,
      last: e.at,
    });
    for (const x of list) out.push({ kind: 'entry', key: `e${x.id}`, entry: x, run: e.run.id });
  }
  return out;
}

const short = (s: string, n = 40): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** What the action did, in a few words: `"hello"`, `Control+A`, `↓ 300`, `right ×2`. */
export function paramSummary(e: ActivityEntry): string {
  const p = e.params ?? {};
  const parts: string[] = [];
  if (typeof p.text === 'string') parts.push(`“${short(p.text)}”`);
  if (typeof p.key === 'string') parts.push(p.key);
  if (typeof p.deltaY === 'number' && p.deltaY !== 0) parts.push(`${p.deltaY > 0 ? '↓' : '↑'} ${Math.abs(p.deltaY)}`);
  if (typeof p.deltaX === 'number' && p.deltaX !== 0) parts.push(`${p.deltaX > 0 ? '→' : '←'} ${Math.abs(p.deltaX)}`);
  if (typeof p.button === 'string' && p.button !== 'left') parts.push(p.button);
  if (typeof p.clicks === 'number' && p.clicks > 1) parts.push(`×${p.clicks}`);
  if (typeof p.node === 'string') parts.push(`node ${short(p.node, 16)}`);
  if (typeof p.query === 'string') parts.push(`“${short(p.query)}”`);
  if (typeof p.toX === 'number' && typeof p.toY === 'number') parts.push(`to ${Math.round(p.toX)}, ${Math.round(p.toY)}`);
  return parts.join(' ');
}

export function pointText(p: { x: number; y: number } | undefined): string {
  return p ? `${Math.round(p.x * 10) / 10}, ${Math.round(p.y * 10) / 10}` : '';
}

/** The target the agent named, even when the action was refused before resolving it. */
export function targetOf(e: ActivityEntry): string | undefined {
  return e.target ?? (typeof e.params?.target === 'string' ? e.params.target : undefined);
}

/**
 * A target by name: the title it had when the action was made (when the entry kept one), else its
 * title now or its last known one, else its app, else its id within its source.
 */
export function targetLabel(id: string | undefined, targetTitles: Readonly<Record<string, string>>, kept?: { title?: string; app?: string }): string {
  if (!id) return '—';
  return kept?.title ?? targetTitles[id] ?? kept?.app ?? localTargetId(id);
}
