/**
 * Listing the archive: a time window → candidates from the day records → sampling (activity
 * transitions, interval, all) → entries, each labelled with the app and document active then.
 * Only what a client is given becomes a catalog row (and so a ref it can use). The dashboard's
 * timeline pages the whole archive newest first, skipping whole days by their counts.
 */
import type { ScreenActivity, ScreenshotEntry, ScreenshotList } from '../../../../shared/frame.ts';
import type { ArchiveFrame } from '../../catalog/types.ts';
import type { ArchiveList, ArchivePageQuery, ArchiveStore, ScreenshotQuery } from '../source.ts';
import type { ActivityProvider } from './activities.ts';
import type { ArchiveIndex } from './archiveIndex.ts';
import type { ManicTimeLocation } from './dataDir.ts';
import { shotAt, type DayColumns } from './dayRecord.ts';
import { explainEmpty } from './reasons.ts';
import { SOURCE, archiveFrameState, targetOf, type ArchiveFrameState } from './rows.ts';
import { activityOf, capMoments, clusterTimes, sampleAll, sampleInterval, sampleTransitions, segmentAt, toMoments, type ActivitySegment } from './sampling.ts';
import { archiveTimeline, monitorFilter } from './timeline.ts';

interface Candidate {
  utcMs: number;
  day: string;
  i: number;
  cols: DayColumns;
}

export interface ArchiveQueriesOptions {
  index: ArchiveIndex;
  archive: ArchiveStore;
  locate: () => ManicTimeLocation;
  activities: (loc: ManicTimeLocation) => ActivityProvider;
  now: () => Date;
}

/** Instants further apart than this are read from ManicTimeReports.db separately. */
const ACTIVITY_RUN_GAP_MS = 6 * 3_600_000;

export class ArchiveQueries {
  readonly #o: ArchiveQueriesOptions;

  constructor(options: ArchiveQueriesOptions) {
    this.#o = options;
  }

  nameWarnings(): string[] {
    const n = this.#o.index.names();
    return n.unfamiliar ? [`${n.unknown} of ${n.files} files in the ManicTime Screenshots folder have names Sightline does not recognise (a newer ManicTime naming?): they are not listed.`] : [];
  }

  async listScreenshots(q: ScreenshotQuery, signal: AbortSignal): Promise<ScreenshotList> {
    const { index, archive } = this.#o;
    const loc = this.#o.locate();
    const fromMs = q.from ? q.from.getTime() : Number.NEGATIVE_INFINITY;
    const toMs = q.to ? q.to.getTime() : Number.POSITIVE_INFINITY;
    const max = Math.max(0, Math.floor(q.max));
    if (q.pinned) return this.#listPinned(q);
    const t = this.#o.now().getTime();
    await index.freshen(fromMs, toMs, signal);
    const folderFound = index.folderFound;
    if (!folderFound) {
      // The folder went away (an unplugged drive, a changed setting): list nothing rather than files that cannot be read.
      return { screenshots: [], matched: 0, ...explainEmpty({ folderFound, folder: loc.screenshotsDir, total: 0, firstMs: 0, lastMs: 0, inWindowAnyTarget: 0, target: q.target, targetsInWindow: [] }, { fromMs, toMs }, t) };
    }
    const act = this.#o.activities(loc);
    const warnings = this.nameWarnings();
    const monitor = monitorFilter(q.target);

    // Candidates in [from, to), any target (for the NO_MATCH explanation) counted on the side.
    const candidates: Candidate[] = [];
    let anyTarget = 0;
    const targetsInWindow = new Set<string>();
    const overlapping = index.daysOverlapping(fromMs, toMs);
    for (const s of overlapping) {
      const cols = index.columns(s.day);
      if (!cols) continue;
      for (let i = 0; i < cols.n; i++) {
        const utcMs = (cols.utcSec[i] as number) * 1000;
        if (utcMs < fromMs || utcMs >= toMs) continue;
        anyTarget++;
        const m = cols.monitor[i] as number;
        if (monitor !== undefined && m !== monitor) {
          if (targetsInWindow.size < 16) targetsInWindow.add(targetOf(m < 0 ? undefined : m));
          continue;
        }
        candidates.push({ utcMs, day: s.day, i, cols });
      }
    }
    if (overlapping.length > 1) {
      candidates.sort((a, b) => a.utcMs - b.utcMs || (a.cols.monitor[a.i] as number) - (b.cols.monitor[b.i] as number) || (a.cols.id[a.i] as number) - (b.cols.id[b.i] as number));
    }

    if (candidates.length === 0 || max === 0) {
      const out: ScreenshotList = { screenshots: [], matched: candidates.length };
      if (candidates.length === 0) {
        Object.assign(out, explainEmpty({ folderFound, folder: loc.screenshotsDir, ...index.range(), inWindowAnyTarget: anyTarget, target: q.target, targetsInWindow: [...targetsInWindow] }, { fromMs, toMs }, t));
      }
      if (warnings.length) out.warnings = warnings;
      return out;
    }

    const moments = toMoments(candidates);
    const first = candidates[0] as Candidate;
    const last = candidates[candidates.length - 1] as Candidate;
    const windowStart = Number.isFinite(fromMs) ? fromMs : first.utcMs;
    let picked: Candidate[];
    let segments: ActivitySegment[] | null = null;
    if (q.sampling === 'all') picked = sampleAll(moments, max);
    else if (q.sampling === 'interval') picked = sampleInterval(moments, q.intervalSeconds * 1000, windowStart, max);
    else {
      const timeline = await act.segments(first.utcMs, last.utcMs);
      segments = timeline?.segments ?? null;
      const transitions = timeline?.complete && segments?.length ? sampleTransitions(moments, segments, max) : [];
      if (transitions.length) picked = transitions;
      else {
        const why =
          timeline === null
            ? (act.status().detail ?? 'no ManicTimeReports.db')
            : !timeline.complete
              ? 'the window holds too many activities; narrow from/to'
              : 'no activity recorded in this window';
        warnings.push(`activity sampling fell back to one screenshot per ${q.intervalSeconds} s: ${why}.`);
        picked = sampleInterval(moments, q.intervalSeconds * 1000, windowStart, max);
      }
    }
    if (picked.length > max) picked = capMoments([picked], max);

    // Activity labels for what is returned (one query when sampling did not already read them).
    if (segments === null && picked.length && act.status().state !== 'none') {
      segments = (await act.segments((picked[0] as Candidate).utcMs, (picked[picked.length - 1] as Candidate).utcMs))?.segments ?? null;
    }
    const rows: ArchiveFrame[] = [];
    const screenshots: ScreenshotEntry[] = [];
    for (const c of picked) {
      const shot = shotAt(c.cols, c.i);
      const row = index.row(c.cols, c.i, c.day);
      rows.push(row);
      const e: ScreenshotEntry = {
        ref: row.ref,
        source: SOURCE,
        target: row.target,
        capturedAt: row.capturedAt,
        displayLocalTime: row.state.local,
        width: shot.width,
        height: shot.height,
        hasThumbnail: shot.hasThumb,
      };
      if (shot.monitor !== undefined) e.monitor = shot.monitor;
      const activity = activityOf(segments ? segmentAt(segments, shot.utcMs) : undefined);
      if (activity) e.activity = activity;
      screenshots.push(e);
    }
    const as = act.status();
    if (as.state !== 'ok' && as.state !== 'none') warnings.push(`activity data unavailable (${as.detail ?? as.state}).`);
    // Only what a client is given becomes a catalog row (and so a ref it can use).
    archive.upsertArchiveFrames(rows);
    for (const e of screenshots) {
      if (archive.getFrame(e.ref)?.pinned) e.pinned = true;
    }
    const out: ScreenshotList = { screenshots, matched: candidates.length };
    if (warnings.length) out.warnings = warnings;
    return out;
  }

  /** Newest first through the packed day records: whole days are skipped by their counts. */
  page(q: ArchivePageQuery): { refs: string[]; total: number } {
    const list = this.timeline(q);
    return { refs: list.page(q.offset, q.limit), total: list.total };
  }

  timeline(q: { before?: Date; target?: string }): ArchiveList {
    return archiveTimeline(this.#o.index, this.#o.archive, q);
  }

  /** The activity at each instant: one read of ManicTimeReports.db per run of close instants. */
  async activityAt(times: readonly number[], signal?: AbortSignal): Promise<(ScreenActivity | undefined)[]> {
    const out: (ScreenActivity | undefined)[] = times.map(() => undefined);
    const act = this.#o.activities(this.#o.locate());
    if (act.status().state === 'none') return out;
    for (const run of clusterTimes(times, ACTIVITY_RUN_GAP_MS)) {
      if (signal?.aborted) break;
      const timeline = await act.segments(run.fromMs, run.toMs);
      // Unreadable now (busy, missing): the frames keep their plain titles until the next read.
      if (!timeline) break;
      for (const i of run.members) out[i] = activityOf(segmentAt(timeline.segments, times[i] as number));
    }
    return out;
  }

  #listPinned(q: ScreenshotQuery): ScreenshotList {
    const max = Math.max(0, Math.floor(q.max));
    const frames = this.#o.archive.listFrames({ source: SOURCE, target: q.target, from: q.from, to: q.to, pinned: true, limit: Math.max(1, max), order: 'asc' }).slice(0, max);
    const screenshots = frames.map((f): ScreenshotEntry => {
      const parsed = archiveFrameState.safeParse(f.state);
      const st: Partial<ArchiveFrameState> = parsed.success ? parsed.data : {};
      const e: ScreenshotEntry = {
        ref: f.ref,
        source: SOURCE,
        target: f.target,
        capturedAt: f.capturedAt,
        displayLocalTime: typeof st.local === 'string' ? st.local : f.capturedAt.slice(0, 19).replace('T', ' '),
        width: f.image.width,
        height: f.image.height,
        hasThumbnail: typeof st.thumb === 'string',
        pinned: true,
      };
      if (f.monitor !== undefined && f.monitor !== null) e.monitor = f.monitor;
      return e;
    });
    if (screenshots.length) return { screenshots, matched: screenshots.length };
    return { screenshots, matched: 0, reason: 'NO_MATCH', remediation: 'No ManicTime screenshot is pinned in this window. The user pins frames in the dashboard ("Pin for agent").' };
  }
}
