/** Pure helpers for the activity log (tested under Node). */
import type { ActivityEntry, ActivityQuery } from '../../shared/activity.ts';
import { placeName } from './format.ts';

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
  if (q.session && e.session !== q.session) return false;
  if (q.frame && e.frameRef !== q.frame && e.afterRef !== q.frame) return false;
  return true;
}

/**
 * A group of actions the log gathers under one heading: an agent run (`sightline agent`, with its
 * folder of artifacts), or an MCP client's session (one connection's actions: its agent's work).
 * Runs and sessions are grouped the same way, so whatever acts on a group (fold it, show it alone,
 * save it) treats both alike.
 */
export type ActionGroup = { kind: 'run'; id: string; artifacts?: string } | { kind: 'session'; id: string; client?: string };

/** A row of the activity table: a group's heading, or one action (under its group's heading when it has one). */
export type ActivityItem =
  | { kind: 'run'; key: string; run: { id: string; artifacts?: string }; count: number; failed: number; first: string; last: string }
  | { kind: 'session'; key: string; session: { id: string; client?: string }; count: number; failed: number; first: string; last: string }
  | { kind: 'entry'; key: string; entry: ActivityEntry; group?: string };

/** The key of a group's heading (and of its fold and filter): `r<run>` or `s<session>`. */
export const groupKey = (g: Pick<ActionGroup, 'kind' | 'id'>): string => `${g.kind === 'run' ? 'r' : 's'}${g.id}`;

/** The group an action belongs to: its agent run, else its MCP session. */
export function groupOf(e: ActivityEntry): ActionGroup | undefined {
  if (e.run) return e.run.artifacts ? { kind: 'run', id: e.run.id, artifacts: e.run.artifacts } : { kind: 'run', id: e.run.id };
  if (e.session) return e.client ? { kind: 'session', id: e.session, client: e.client } : { kind: 'session', id: e.session };
  return undefined;
}

/**
 * Entries (newest first) with each group's actions gathered under one heading, placed where the
 * group's newest action is; other actions keep their place. An agent run always has a heading; a
 * session one only from its second action (one action under a heading says nothing more). A
 * heading counts its actions (those loaded) and their failures, and spans their times.
 */
export function groupByRun(entries: readonly ActivityEntry[], quiet: readonly { id: string; startedAt: string }[] = []): ActivityItem[] {
  const out = groupEntries(entries);
  // Runs that never acted: a heading of their own, where their start falls among the actions.
  const timeOf = (item: ActivityItem): number => Date.parse(item.kind === 'entry' ? item.entry.at : item.last);
  for (const r of quiet) {
    if (out.some((x) => x.kind === 'run' && x.run.id === r.id)) continue;
    const t = Date.parse(r.startedAt);
    let at = out.findIndex((x) => !(x.kind === 'entry' && x.group) && timeOf(x) < t);
    if (at < 0) at = out.length;
    out.splice(at, 0, { kind: 'run', key: groupKey({ kind: 'run', id: r.id }), run: { id: r.id }, count: 0, failed: 0, first: r.startedAt, last: r.startedAt });
  }
  return out;
}

function groupEntries(entries: readonly ActivityEntry[]): ActivityItem[] {
  const byGroup = new Map<string, ActivityEntry[]>();
  for (const e of entries) {
    const g = groupOf(e);
    if (!g) continue;
    const key = groupKey(g);
    const list = byGroup.get(key);
    if (list) list.push(e);
    else byGroup.set(key, [e]);
  }
  const out: ActivityItem[] = [];
  for (const e of entries) {
    const g = groupOf(e);
    const key = g && groupKey(g);
    const list = key ? byGroup.get(key) : undefined;
    if (!g || !key || !list || (g.kind === 'session' && list.length < 2)) {
      out.push({ kind: 'entry', key: `e${e.id}`, entry: e });
      continue;
    }
    // Only the group's newest action places it; the others are already under it.
    if (list[0] !== e) continue;
    const common = { key, count: list.length, failed: list.filter((x) => x.result !== 'ok').length, first: (list.at(-1) as ActivityEntry).at, last: e.at };
    if (g.kind === 'run') {
      const artifacts = list.find((x) => x.run?.artifacts)?.run?.artifacts;
      out.push({ kind: 'run', ...common, run: artifacts ? { id: g.id, artifacts } : { id: g.id } });
    } else {
      out.push({ kind: 'session', ...common, session: g.client ? { id: g.id, client: g.client } : { id: g.id } });
    }
    for (const x of list) out.push({ kind: 'entry', key: `e${x.id}`, entry: x, group: key });
  }
  return out;
}

/** The actions in the order the table shows them (a group's under its heading): what the Activity viewer steps through. */
export function shownEntries(items: readonly ActivityItem[], collapsed: ReadonlySet<string>): ActivityEntry[] {
  return items.flatMap((i) => (i.kind === 'entry' && !(i.group && collapsed.has(i.group)) ? [i.entry] : []));
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
 * title now or its last known one, else its app, else its place in words ("Screen 1", "Tab").
 */
export function targetLabel(id: string | undefined, targetTitles: Readonly<Record<string, string>>, kept?: { title?: string; app?: string }): string {
  if (!id) return '—';
  return kept?.title ?? targetTitles[id] ?? kept?.app ?? placeName(id);
}
