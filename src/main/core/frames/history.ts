/**
 * History: `list_screenshots` over the catalog (a time window, filters, sampling and a strict
 * `max`, metadata only), where an archive answers for its own source (activity sampling, reason
 * codes); the archive's index kept fresh, with progress to the caller and the dashboard; and the
 * dashboard's timeline, every archive merged in (timeline.ts).
 */
import type { FrameSummary } from '../../../shared/api.ts';
import type { EmptyReason, ScreenshotEntry, ScreenshotList, SourceName } from '../../../shared/frame.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { FrameRecord } from '../catalog/types.ts';
import type { CoreBus } from '../events.ts';
import type { HistoryService } from '../ports.ts';
import type { SettingsStore } from '../settings/store.ts';
import type { SourceRegistry } from '../sources/registry.ts';
import type { ArchiveExtent, HistoryPort, ProgressReport, ScreenshotQuery } from '../sources/source.ts';
import { spreadEvenly } from '../util/sampling.ts';
import { displayLocalTime } from '../util/time.ts';
import { summarize, timelinePage, timelinePositions, type Positions, type PositionsQuery, type TimelinePage, type TimelineQuery } from './timeline.ts';

/** Rows of a tall window's first screen (72 px rows): their thumbnails are made ahead. */
const FIRST_SCREEN_THUMBS = 16;

export interface HistoryDeps {
  catalog: Catalog;
  sources: SourceRegistry;
  settings: SettingsStore;
  events: CoreBus;
  /** Where an archive that cannot be opened or refreshed is said (once per reason). */
  log?: (line: string) => void;
}

/** An archive whose screenshots the text index reads. */
export interface TextArchive {
  name: string;
  history: Required<Pick<HistoryPort, 'textBatch' | 'extent'>>;
}

export class History implements HistoryService {
  readonly #d: HistoryDeps;

  readonly #said = new Set<string>();

  constructor(deps: HistoryDeps) {
    this.#d = deps;
  }

  /** The enabled archives the text index can read; one that cannot be opened is left out and said in the log. */
  async textArchives(): Promise<TextArchive[]> {
    const out: TextArchive[] = [];
    for (const name of this.#d.sources.names('archive')) {
      let h: HistoryPort | undefined;
      try {
        h = await this.#d.sources.history(name);
      } catch (e) {
        this.#say(`[sightline] the ${name} archive cannot be opened, so it is not indexed or searched: ${(e as Error).message}`);
        continue;
      }
      if (h?.textBatch && h.extent) out.push({ name, history: { textBatch: h.textBatch.bind(h), extent: h.extent.bind(h) } });
    }
    return out;
  }

  /**
   * The archives a search counts, each brought up to date first; one that cannot be reached now
   * (a ManicTime folder away) is left out of the counts, and said in the log.
   */
  async searchableArchives(signal: AbortSignal): Promise<{ name: string; extent(q: { from?: number; to?: number }): ArchiveExtent }[]> {
    const out: { name: string; extent(q: { from?: number; to?: number }): ArchiveExtent }[] = [];
    for (const a of await this.textArchives()) {
      try {
        await this.refreshArchive(a.name, signal);
      } catch (e) {
        if (signal.aborted) throw e;
        this.#say(`[sightline] the ${a.name} archive cannot be read now, so a search leaves it out: ${(e as Error).message}`);
        continue;
      }
      out.push({ name: a.name, extent: (q) => a.history.extent(q) });
    }
    return out;
  }

  #say(line: string): void {
    if (this.#said.has(line)) return;
    this.#said.add(line);
    this.#d.log?.(line);
  }

  async refreshArchive(name: SourceName, signal: AbortSignal, onProgress?: (p: ProgressReport) => void): Promise<void> {
    const archive = await this.#d.sources.history(name);
    if (!archive) return;
    const id = `${name}-index`;
    let reported = false;
    await archive.refresh({
      signal,
      onProgress: (p) => {
        reported = true;
        onProgress?.(p);
        this.#d.events.emit('progress', { id, label: p.label, done: p.done, total: p.total, finished: false });
      },
    });
    if (reported) this.#d.events.emit('progress', { id, label: `${name} index up to date`, done: 1, total: 1, finished: true });
  }

  /**
   * A page of the dashboard's timeline: Sightline's own frames and every enabled archive the
   * filter includes (each brought up to date first), merged by time.
   */
  async timelinePage(q: TimelineQuery, signal: AbortSignal): Promise<TimelinePage> {
    const page = timelinePage(this.#d.catalog, await this.#timelineArchives(q, signal), q);
    // The first page is the first screen: its thumbnails are made while it travels and is drawn.
    if (q.offset === 0) this.#d.catalog.frames.prepareThumbnails(page.frames.slice(0, FIRST_SCREEN_THUMBS).map((f) => f.ref));
    return page;
  }

  /** Where moments fall in that timeline (the dashboard's time strip). */
  async timelinePositions(q: PositionsQuery, signal: AbortSignal): Promise<Positions> {
    return timelinePositions(this.#d.catalog, await this.#timelineArchives(q, signal), q);
  }

  /** The enabled archives a timeline filter includes, each brought up to date first. */
  async #timelineArchives(q: { source?: SourceName | undefined; target?: string | undefined }, signal: AbortSignal): Promise<HistoryPort[]> {
    const archives: HistoryPort[] = [];
    for (const name of this.#d.sources.names('archive')) {
      if ((q.source && q.source !== name) || (q.target && !q.target.startsWith(`${name}:`))) continue;
      try {
        const archive = await this.#d.sources.history(name);
        if (!archive) continue;
        await this.refreshArchive(name, signal);
        archives.push(archive);
      } catch (e) {
        // An archive that cannot be read now must not hide the rest of "All" (Setup says why); asked for alone, it answers.
        if (q.source === name || signal.aborted) throw e;
      }
    }
    return archives;
  }

  /** Frames as the dashboard shows them: archive frames titled with the activity at their moment. */
  summarize(frames: readonly FrameRecord[], signal?: AbortSignal): Promise<FrameSummary[]> {
    return summarize(this.#d.catalog, frames, (name) => this.#d.sources.history(name), signal);
  }

  async listScreenshots(source: SourceName | undefined, q: ScreenshotQuery, signal: AbortSignal, onProgress?: (p: ProgressReport) => void): Promise<ScreenshotList> {
    const { catalog, sources } = this.#d;
    if (source) {
      const archive = await sources.history(source);
      if (archive) {
        await this.refreshArchive(source, signal, onProgress);
        return archive.listScreenshots(q, signal);
      }
      if (!sources.isEnabled(source)) {
        return { screenshots: [], reason: 'SOURCE_UNAVAILABLE', remediation: `The ${source} source is disabled: enable sources.${source}.enabled in settings.` };
      }
    }
    const filter = { source, target: q.target, pinned: q.pinned, from: q.from, to: q.to };
    const matched = catalog.frames.count(filter);
    let rows: FrameRecord[];
    if (q.sampling === 'interval' && matched > q.max) {
      rows = spreadEvenly(catalog.frames.firstPerInterval(filter, Math.max(1, q.intervalSeconds) * 1000), q.max);
    } else {
      // 'all' (and 'activity', which live sources answer like 'all'): the newest `max`, in time order.
      rows = catalog.frames.list({ ...filter, limit: q.max, order: 'desc' }).reverse();
    }
    const out: ScreenshotList = { screenshots: rows.map(toEntry), matched };
    if (q.sampling === 'activity' && rows.length && !(source && sources.module(source)?.kind === 'archive')) {
      out.warnings = ['activity sampling applies to the ManicTime archive; live frames are listed newest first.'];
    }
    if (rows.length === 0) Object.assign(out, this.#explainEmpty(source, q));
    return out;
  }

  #explainEmpty(source: SourceName | undefined, q: ScreenshotQuery): { reason: EmptyReason; remediation: string } {
    const frames = this.#d.catalog.frames;
    const anywhere = frames.count({ source, target: q.target, pinned: q.pinned });
    if (anywhere === 0) {
      if (q.pinned) return { reason: 'NO_MATCH', remediation: 'No frame is pinned. The user pins frames in the dashboard ("Pin for agent").' };
      return { reason: 'NO_MATCH', remediation: `No frames${source ? ` from ${source}` : ''}${q.target ? ` of ${q.target}` : ''} yet: call capture first.` };
    }
    const [newest] = frames.list({ source, target: q.target, pinned: q.pinned, limit: 1, order: 'desc' });
    const [oldest] = frames.list({ source, target: q.target, pinned: q.pinned, limit: 1, order: 'asc' });
    const maxAgeDays = this.#d.settings.values().retention.maxAgeDays;
    const retentionStart = Date.now() - maxAgeDays * 86_400_000;
    // Only a window older than retention keeps can have lost its frames to it.
    if (q.to && oldest && q.to.getTime() < Date.parse(oldest.capturedAt) && q.to.getTime() < retentionStart) {
      return {
        reason: 'RETENTION_OR_PURGED',
        remediation: `The window ends before the oldest kept frame (${oldest.capturedAt}); frames older than retention.maxAgeDays = ${maxAgeDays} are removed unless pinned.`,
      };
    }
    return { reason: 'NO_MATCH', remediation: `${anywhere} frames exist outside this window (${oldest?.capturedAt} … ${newest?.capturedAt}); widen from/to.` };
  }
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
  const title = f.label?.title ?? f.label?.app;
  if (title) e.title = title;
  if (f.parentRef) e.region = { of: f.parentRef, x: Math.round(f.origin.x), y: Math.round(f.origin.y), width: Math.round(f.sourceSize.width), height: Math.round(f.sourceSize.height) };
  if (f.annotation) e.note = f.annotation;
  return e;
}
