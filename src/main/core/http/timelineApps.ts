/**
 * Which apps the timeline shows over stretches of time (the dashboard's hour strip is coloured by
 * them): a few frames sampled evenly in each stretch, named by the app of their moment. Sampling
 * keeps the cost of a day at a few dozen one-frame pages, whatever the day holds.
 */
import type { TimelineApps } from '../../../shared/api.ts';
import { appOf } from '../../../shared/timeline.ts';
import type { SourceName } from '../../../shared/frame.ts';
import type { HistoryService } from '../ports.ts';

export interface TimelineAppsQuery {
  source?: SourceName | undefined;
  target?: string | undefined;
  before?: Date | undefined;
  /** Edges, newest first (epoch ms): stretch k lies between at[k+1] and at[k]. */
  at: readonly number[];
  /** Frames sampled per stretch at most. */
  per: number;
}

export async function timelineApps(history: HistoryService, q: TimelineAppsQuery, signal: AbortSignal): Promise<TimelineApps> {
  const filter = { source: q.source, target: q.target, before: q.before };
  const { since } = await history.timelinePositions({ ...filter, at: q.at }, signal);
  // Rows (0 = newest) of the frames sampled in each stretch, evenly spread over it.
  const picks: { span: number; row: number }[] = [];
  for (let k = 1; k < q.at.length; k++) {
    const first = since[k - 1] ?? 0;
    const n = (since[k] ?? first) - first;
    const m = Math.min(q.per, n);
    for (let i = 0; i < m; i++) picks.push({ span: k - 1, row: first + Math.floor(((i + 0.5) * n) / m) });
  }
  const pages = await Promise.all(picks.map((p) => history.timelinePage({ ...filter, offset: p.row, limit: 1 }, signal)));
  const frames = pages.map((p) => p.frames[0]);
  const summaries = await history.summarize(
    frames.filter((f) => f !== undefined),
    signal,
  );
  const byRef = new Map(summaries.map((s) => [s.ref, s]));
  const spans: Map<string, number>[] = Array.from({ length: Math.max(0, q.at.length - 1) }, () => new Map());
  picks.forEach((p, i) => {
    const f = frames[i];
    const summary = f && byRef.get(f.ref);
    if (!summary) return;
    const app = appOf(summary);
    const counts = spans[p.span]!;
    counts.set(app, (counts.get(app) ?? 0) + 1);
  });
  return { spans: spans.map((m) => [...m].sort((a, b) => b[1] - a[1]).map(([name, count]) => ({ name, count }))) };
}
