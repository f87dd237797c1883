/**
 * `list_screenshots` over the catalog: a time window, filters, sampling and a strict
 * `max`, metadata only. The ManicTime archive answers for its own source (activity
 * sampling, reason codes); every other query is answered from the catalog here.
 */
import type { EmptyReason, ScreenshotEntry, ScreenshotList, SourceName } from '../../shared/frame.ts';
import type { FrameRecord } from './catalog/types.ts';
import type { Core } from './index.ts';
import type { ScreenshotQuery } from './sources/source.ts';
import { spreadEvenly } from './sampling.ts';
import { displayLocalTime } from './time.ts';

export async function listScreenshots(core: Core, source: SourceName | undefined, q: ScreenshotQuery, signal: AbortSignal): Promise<ScreenshotList> {
  if (source) {
    const archive = core.registry.archive(source);
    if (archive) return archive.listScreenshots(q, signal);
    if (!core.registry.isEnabled(source)) {
      return { screenshots: [], reason: 'SOURCE_UNAVAILABLE', remediation: `The ${source} source is disabled: enable sources.${source}.enabled in settings.` };
    }
  }
  const filter = { source, target: q.target, pinned: q.pinned, from: q.from, to: q.to };
  const matched = core.catalog.countFrames(filter);
  let rows: FrameRecord[];
  if (q.sampling === 'interval' && matched > q.max) {
    rows = spreadEvenly(core.catalog.firstPerInterval(filter, Math.max(1, q.intervalSeconds) * 1000), q.max);
  } else {
    // 'all' (and 'activity', which live sources answer like 'all'): the newest `max`, in time order.
    rows = core.catalog.listFrames({ ...filter, limit: q.max, order: 'desc' }).reverse();
  }
  const out: ScreenshotList = { screenshots: rows.map(toEntry), matched };
  if (q.sampling === 'activity' && source !== 'manictime' && rows.length) {
    out.warnings = ['activity sampling applies to the ManicTime archive; live frames are listed newest first.'];
  }
  if (rows.length === 0) Object.assign(out, explainEmpty(core, source, q));
  return out;
}

function toEntry(f: FrameRecord): ScreenshotEntry {
  const e: ScreenshotEntry = {
    ref: f.ref,
    source: f.source,
    target: f.target,
    capturedAt: f.capturedAt,
    displayLocalTime: displayLocalTime(new Date(f.capturedAt)),
    width: f.image.width,
    height: f.image.height,
    hasThumbnail: true,
    pinned: f.pinned,
  };
  if (f.monitor !== undefined && f.monitor !== null) e.monitor = f.monitor;
  return e;
}

function explainEmpty(core: Core, source: SourceName | undefined, q: ScreenshotQuery): { reason: EmptyReason; remediation: string } {
  const anywhere = core.catalog.countFrames({ source, target: q.target, pinned: q.pinned });
  if (anywhere === 0) {
    if (q.pinned) return { reason: 'NO_MATCH', remediation: 'No frame is pinned. The user pins frames in the dashboard ("Pin for agent").' };
    return { reason: 'NO_MATCH', remediation: `No frames${source ? ` from ${source}` : ''}${q.target ? ` of ${q.target}` : ''} yet: call capture first.` };
  }
  const [newest] = core.catalog.listFrames({ source, target: q.target, pinned: q.pinned, limit: 1, order: 'desc' });
  const [oldest] = core.catalog.listFrames({ source, target: q.target, pinned: q.pinned, limit: 1, order: 'asc' });
  const retentionStart = Date.now() - core.settings.retention.maxAgeDays * 86_400_000;
  // Only a window older than retention keeps can have lost its frames to it.
  if (q.to && oldest && q.to.getTime() < Date.parse(oldest.capturedAt) && q.to.getTime() < retentionStart) {
    return {
      reason: 'RETENTION_OR_PURGED',
      remediation: `The window ends before the oldest kept frame (${oldest.capturedAt}); frames older than retention.maxAgeDays = ${core.settings.retention.maxAgeDays} are removed unless pinned.`,
    };
  }
  return { reason: 'NO_MATCH', remediation: `${anywhere} frames exist outside this window (${oldest?.capturedAt} … ${newest?.capturedAt}); widen from/to.` };
}
