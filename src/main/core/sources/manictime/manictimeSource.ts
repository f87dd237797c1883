/**
 * The ManicTime archive as a read-only history source. Its parts:
 *
 *   archiveIndex.ts    day folders → packed day records, and how fresh they are
 *   archiveQueries.ts  list_screenshots (sampling, activity labels, reasons) and timeline pages
 *   rows.ts            catalog rows (deterministic refs) and the secure file reader
 *   textScan.ts        the archive newest first for the text indexer, with what was active
 *   health.ts          what Setup shows
 *
 * Only the screenshots a listing returns are written to the shared catalog; get_screenshot and
 * crop_screenshot then read them through `history.read`, which resolves the file from the row's
 * relative parts against the configured root and refuses anything else.
 */
import { existsSync } from 'node:fs';
import { homedir as osHomedir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ImageFormat } from '../../../../shared/frame.ts';
import type { FrameRecord, FrameVariant } from '../../catalog/types.ts';
import type { ArchiveStore, HistoryPort, Source } from '../source.ts';
import { createReportsDbProvider, noActivities, type ActivityProvider } from './activities.ts';
import { ArchiveIndex } from './archiveIndex.ts';
import { ArchiveQueries } from './archiveQueries.ts';
import { locateManicTime, type ManicTimeLocation } from './dataDir.ts';
import { archiveHealth } from './health.ts';
import { createSqliteStore, type IndexStore } from './indexStore.ts';
import { defaultIo, type ArchiveIo, type RetryPolicy } from './reader.ts';
import { SOURCE, readArchiveFrame } from './rows.ts';
import type { ScanStats } from './scanner.ts';
import { ArchiveText } from './textScan.ts';
import type { ManicTimeSettings } from './settings.ts';
import { privateFile } from '../../util/privateFile.ts';

export { refOf, targetOf, SOURCE } from './rows.ts';

/** The day records live in a SQLite file of our own beside the catalog. */
export const INDEX_FILE = 'manictime-index.sqlite';

export interface ManicTimeSourceOptions {
  settings: ManicTimeSettings;
  /** Where the catalog rows of listed screenshots go. */
  archive: ArchiveStore;
  /** Where `manictime-index.sqlite` lives (the data directory). */
  indexDir: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  now?: () => Date;
  /** Tests: home directory and existence check for locating the data dir. */
  homedir?: string;
  exists?: (path: string) => boolean;
  /** Tests: file access for the reader (e.g. an open that fails like a locked file). */
  io?: Partial<ArchiveIo>;
  retry?: RetryPolicy;
  /** Replace the ManicTimeReports.db reader (tests, or no database at all). */
  activities?: ActivityProvider;
  /** Where day records live; default `manictime-index.sqlite` in indexDir. */
  store?: IndexStore;
}

export interface ManicTimeHistory extends HistoryPort {
  read(rec: FrameRecord, variant: FrameVariant, signal?: AbortSignal): Promise<{ data: Buffer; format: ImageFormat & ('jpeg' | 'png') }>;
}

export interface ManicTimeSource extends Source {
  readonly history: ManicTimeHistory;
  /** Figures of the last scan, full or light (tests, health). */
  lastScan(): ScanStats | undefined;
  location(): ManicTimeLocation;
}

export function createManicTimeSource(options: ManicTimeSourceOptions): ManicTimeSource {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const now = options.now ?? (() => new Date());
  const exists = options.exists ?? ((p: string) => existsSync(p));
  const io: ArchiveIo = { ...defaultIo, ...options.io };
  const opened = options.store ? { store: options.store, close: () => undefined } : openStore(options.indexDir);
  const locate = (): ManicTimeLocation => locateManicTime({ settings: options.settings, env, platform, homedir: options.homedir ?? osHomedir(), exists });
  const activities = activityCache(options.activities, exists);
  const index = new ArchiveIndex({ locate, store: opened.store, archive: options.archive, now });
  const queries = new ArchiveQueries({ index, archive: options.archive, locate, activities: activities.get, now });
  const text = new ArchiveText({ index, archive: options.archive, locate, activities: activities.get });

  return {
    name: SOURCE,
    history: {
      refresh: ({ signal, onProgress }) => index.refresh(signal, onProgress),
      listScreenshots: (q, signal) => queries.listScreenshots(q, signal),
      page: (q) => queries.page(q),
      timeline: (q) => queries.timeline(q),
      activityAt: (times, signal) => queries.activityAt(times, signal),
      read: (rec, variant, signal) => {
        if (index.roots.length === 0) index.updateRoots();
        return readArchiveFrame(rec, variant, { roots: index.roots, io, retry: options.retry, signal });
      },
      textBatch: (q, signal) => text.batch(q, signal),
      extent: (q) => text.extent(q),
    },
    health: () => archiveHealth({ index, locate, activities: activities.get, now, exists }),
    lastScan: () => index.lastScan(),
    location: locate,
    async dispose() {
      await index.idle();
      activities.close();
      opened.close();
    },
  };
}

/** One ManicTimeReports.db reader, reopened when the database moves (a settings change). */
function activityCache(fixed: ActivityProvider | undefined, exists: (p: string) => boolean): { get: (loc: ManicTimeLocation) => ActivityProvider; close: () => void } {
  let provider: ActivityProvider | undefined = fixed;
  let path: string | undefined;
  return {
    get(loc) {
      if (fixed) return fixed;
      if (!loc.dbPath || !exists(loc.dbPath)) {
        provider?.close();
        provider = undefined;
        path = undefined;
        return noActivities(loc.dbPath ? `${loc.dbPath} not found` : 'ManicTime data folder not found');
      }
      if (!provider || path !== loc.dbPath) {
        provider?.close();
        provider = createReportsDbProvider(loc.dbPath);
        path = loc.dbPath;
      }
      return provider;
    },
    close() {
      provider?.close();
      provider = undefined;
    },
  };
}

function openStore(dir: string): { store: IndexStore; close: () => void } {
  const db = new Database(privateFile(join(dir, INDEX_FILE)));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 2000');
    return { store: createSqliteStore(db), close: () => db.close() };
  } catch (e) {
    db.close();
    throw e;
  }
}
