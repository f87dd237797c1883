/** How far the archives' text is indexed, from their extents and the covered intervals saved per archive. */
import type { ProgressInfo, TextIndexStatus } from '../../../shared/api.ts';
import type { ArchiveExtent } from '../sources/source.ts';
import type { Cursor } from './indexerPorts.ts';

type Extents = ReadonlyMap<string, ArchiveExtent>;
type CursorOf = (archive: string) => Cursor | undefined;

/** Every archive's screenshots, newest to oldest, are covered. */
export function archivesDone(extents: Extents, cursorOf: CursorOf): boolean {
  for (const [name, ext] of extents) {
    if (!ext.count) continue;
    const cur = cursorOf(name);
    if (!cur || cur.high === undefined || cur.low === undefined) return false;
    if (ext.newestMs !== undefined && ext.newestMs > cur.high) return false;
    if (ext.oldestMs !== undefined && ext.oldestMs < cur.low) return false;
  }
  return true;
}

/** How far back everything is searchable (the latest `low` of the archives that are caught up at the top). */
export function searchable(extents: Extents, cursorOf: CursorOf): Pick<TextIndexStatus, 'searchableSince' | 'newestDaySearchable'> {
  let since: number | undefined;
  let newest: number | undefined;
  for (const [name, ext] of extents) {
    if (!ext.count || ext.newestMs === undefined) continue;
    const cur = cursorOf(name);
    if (!cur || cur.low === undefined || cur.high === undefined || ext.newestMs > cur.high) return { newestDaySearchable: false };
    since = Math.max(since ?? cur.low, cur.low);
    newest = Math.max(newest ?? ext.newestMs, ext.newestMs);
  }
  if (since === undefined || newest === undefined) return {};
  const midnight = new Date(newest);
  midnight.setHours(0, 0, 0, 0);
  return { searchableSince: new Date(since).toISOString(), newestDaySearchable: since <= midnight.getTime() };
}

/**
 * The indexer's status as progress events for the header's bar and MCP progress. An idle indexer
 * looks for new screenshots every minute: "done" is said once, not each time.
 */
export function indexProgressEvents(emit: (progress: ProgressInfo) => void): (status: TextIndexStatus) => void {
  let last = '';
  return (p) => {
    const finished = p.state === 'idle' || p.state === 'off';
    const since = p.searchableSince ? `; searchable since ${p.searchableSince.slice(0, 10)}` : '';
    // Reading again after an upgrade is progress of its own: the count of frames indexed stays put.
    const progress: ProgressInfo = p.reread
      ? { id: 'text-index', label: `Text index: reading again ${p.reread.done} of ${p.reread.total} screenshots indexed by an older reader`, done: p.reread.done, total: p.reread.total, finished }
      : { id: 'text-index', label: `Text index: ${p.done} of ${p.total} screenshots${since}${p.reason ? ` (${p.reason})` : ''}`, done: p.done, total: p.total, finished };
    const key = JSON.stringify(progress);
    if (finished && key === last) return;
    last = key;
    emit(progress);
  };
}
