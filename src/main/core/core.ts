/**
 * The composition root: builds the core's parts and wires them. Plain Node, never imports
 * electron; the CLI, the HTTP server and the Electron app all run it. Nothing here does work of
 * its own: tools and routes are handed the narrow ports (ports.ts) the parts implement.
 */
import { EventEmitter } from 'node:events';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { StatusInfo } from '../../shared/api.ts';
import type { SettingsPatch } from '../../shared/settings.ts';
import { ActionGate } from './actions/gate.ts';
import { inputPolicy } from './actions/policy.ts';
import { redactor } from './actions/redact.ts';
import type { ActivityLog } from './catalog/activity.ts';
import { Catalog } from './catalog/catalog.ts';
import type { RetentionResult } from './catalog/types.ts';
import type { CoreBus, CoreEvents } from './events.ts';
import { FrameService } from './frames/frameService.ts';
import { History } from './frames/history.ts';
import { maskSpecOf, redactOcr } from './frames/privacy.ts';
import { ScreenText } from './frames/screenText.ts';
import { Routines } from './routines/routines.ts';
import { AgentRuns } from './runs/runs.ts';
import { indexProgressEvents } from './text/indexProgress.ts';
import { TextIndexer, type IndexerTiming } from './text/indexer.ts';
import { OcrService, recognizePages, type OcrPort } from './text/ocr.ts';
import { TextSearch } from './text/search.ts';
import { BusySignal } from './util/busy.ts';
import { ownFacts } from './util/self.ts';
import { SettingsStore } from './settings/store.ts';
import { BUILTIN_SOURCES } from './sources/builtin.ts';
import type { AnySourceModule, HostFacts } from './sources/module.ts';
import { portOf } from './sources/aim.ts';
import { SourceRegistry } from './sources/registry.ts';
import { Maintenance } from './maintenance.ts';
import { StatusService } from './status.ts';
import { TargetService } from './targets.ts';
import { VERSION } from './version.ts';

export interface CoreOptions {
  dataDir: string;
  /** Flag-level settings (win over env and the file). */
  settings?: SettingsPatch;
  env?: NodeJS.ProcessEnv;
  /** The sources to register (default: the built-in ones). */
  modules?: readonly AnySourceModule[];
  /** What the host app knows about the OS (macOS permissions from Electron). */
  host?: HostFacts;
  log?: (line: string) => void;
  /** The OCR the core reads text with (default: the engines of src/main/core/ocr, per the ocr settings). */
  ocr?: OcrPort;
  /** The text indexer's pacing (tests make it brisk; see TextIndexer). */
  textIndex?: Partial<IndexerTiming> & { startDelayMs?: number };
}

export interface Core {
  readonly dataDir: string;
  readonly version: string;
  readonly events: CoreBus;
  readonly settings: SettingsStore;
  readonly catalog: Catalog;
  readonly sources: SourceRegistry;
  readonly frames: FrameService;
  readonly actions: ActionGate;
  readonly targets: TargetService;
  readonly history: History;
  readonly activity: ActivityLog;
  /** `sightline agent` runs' artifacts under <data dir>/runs (read-only). */
  readonly runs: AgentRuns;
  /** Saved routines under <data dir>/routines, and their replays. */
  readonly routines: Routines;
  readonly text: ScreenText;
  readonly ocr: OcrPort;
  /** search_screenshots over the text index. */
  readonly search: TextSearch;
  /** The background text indexer (started by startMaintenance). */
  readonly indexer: TextIndexer;
  /** Captures and actions in flight: background work waits for a quiet moment. */
  readonly busy: BusySignal;
  status(): Promise<StatusInfo>;
  /** The status now, from the sources' last checks (never waits on a probe). */
  statusNow(): StatusInfo;
  /** Every source checked again, then the status. */
  statusChecked(): Promise<StatusInfo>;
  /** An MCP session opened (+1) or closed (−1). */
  clientConnected(delta: 1 | -1): void;
  setPaused(paused: boolean): void;
  /** Apply retention now (also run on start and hourly by startMaintenance). */
  applyRetention(): RetentionResult;
  /**
   * Housekeeping for a long-running process: retention now and hourly, source health soon and
   * every 30 s (tool lists follow sources that come and go), the text indexer (live frames and the
   * archives, in the background). Returns a stop function.
   */
  startMaintenance(log: (line: string) => void): () => void;
  close(): Promise<void>;
}

export async function createCore(options: CoreOptions): Promise<Core> {
  const { dataDir } = options;
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const modules = options.modules ?? BUILTIN_SOURCES;
  ensurePrivateDir(dataDir, log);
  const settings = SettingsStore.load(dataDir, modules, { env, overrides: options.settings });
  const catalog = Catalog.open(dataDir);
  // Files an interrupted write left behind (a crash between rename and row).
  void catalog.retention.sweep().catch((e: unknown) => log(`[sightline] leftover files could not be swept: ${(e as Error).message}`));
  const events: CoreBus = new EventEmitter<CoreEvents>();
  const sources = new SourceRegistry(modules, settings, {
    dataDir,
    env,
    archive: catalog.archive,
    host: options.host ?? {},
    inputAllowed: () => !settings.values().input.paused && !settings.values().input.readOnly,
  });
  // Archive frames are read through their source (its files are read in place, never copied).
  catalog.frames.setExternalReader(async (rec, variant) => portOf(await sources.get(rec.source), 'history').read(rec, variant));
  const busy = new BusySignal();
  const frames = new FrameService({ catalog, sources, settings, events, log, busy });
  const ocr = new OcrService({ settings: () => settings.values().ocr });
  const text = new ScreenText({ sources, frames, ocr: options.ocr ?? ocr, mask: () => maskSpecOf(settings.values()) });
  const redact = redactor(() => settings.values());
  const actions = new ActionGate({
    sources,
    frames,
    policy: inputPolicy({ input: () => settings.values().input, uploadRoots: () => settings.values().files.uploadRoots, own: () => ownFacts(dataDir) }),
    text,
    activity: catalog.activity,
    busy,
    warn: (line) => log(`[sightline] ${line}`),
    redact,
  });
  const targets = new TargetService(sources, (listed) => {
    try {
      catalog.activity.rememberNames(listed);
    } catch (e) {
      log(`[sightline] target names not kept: ${(e as Error).message}`);
    }
  });
  const history = new History({ catalog, sources, settings, events, log });
  const indexer = new TextIndexer({
    store: catalog.text,
    frames: { find: (ref) => catalog.frames.get(ref), countOwn: () => catalog.frames.count({ external: false, rootOnly: true }) },
    read: (ref, signal) => text.readFrame(ref, { signal, priority: 'background' }),
    look: {
      image: (ref) => frames.textImage(ref),
      // The port refuses when OCR is off (UNSUPPORTED): the indexer waits.
      // Secrets read by OCR never reach the index (masked patterns are blanked, as for every reader).
      read: async (pages, o) => (await recognizePages(options.ocr ?? ocr, pages, { ...o, priority: 'background' })).map((r) => redactOcr(r, maskSpecOf(settings.values()))),
    },
    archives: () => history.textArchives(),
    refresh: (name, signal) => history.refreshArchive(name, signal),
    settings: () => settings.values().ocr,
    busy,
    onProgress: indexProgressEvents((progress) => events.emit('progress', progress)),
    log,
    timing: options.textIndex,
  });
  const applyRetention = (): RetentionResult => catalog.retention.apply(settings.values().retention);
  const maintenance = new Maintenance({ retention: () => applyRetention(), health: () => sources.health(), indexer, indexerDelayMs: options.textIndex?.startDelayMs });
  const search = new TextSearch({
    store: catalog.text,
    countFrames: (q) => catalog.frames.count(q),
    archives: (signal) => history.searchableArchives(signal),
    sourceNames: () => sources.names(),
    settings: () => settings.values().ocr,
    status: () => (maintenance.indexing ? indexer.status() : undefined),
  });

  catalog.on('frame', (f) => {
    events.emit('frame', f);
    // Queued only: the OCR runs after the capture has answered.
    indexer.onFrame(f);
  });
  catalog.on('frame-updated', (f) => events.emit('frame-updated', f));
  catalog.on('activity', (a) => events.emit('activity', a));
  sources.onChange(() => events.emit('tools-changed'));
  // Every change of a source's health as shown (a check came back different, a call found it
  // down, a browser's connection closed) goes to the dashboard at once.
  sources.onHealth(() => events.emit('status'));
  settings.on('change', (next) => {
    events.emit('settings', next);
    events.emit('status');
    if (maintenance.indexing) void indexer.settingsChanged();
  });

  const status = new StatusService({ dataDir, settings: () => settings.values(), health: sources, textIndex: () => search.status(), changed: () => events.emit('status') });
  let closed = false;
  return {
    dataDir,
    version: VERSION,
    events,
    settings,
    catalog,
    sources,
    frames,
    actions,
    targets,
    history,
    activity: catalog.activity,
    runs: new AgentRuns(join(dataDir, 'runs')),
    routines: new Routines({ dataDir, activity: catalog.activity, reads: catalog.reads, blank: (params) => redact.params(params, {}) }),
    text,
    ocr: options.ocr ?? ocr,
    search,
    indexer,
    busy,
    status: () => status.status(),
    statusNow: () => status.snapshot(),
    statusChecked: () => status.checked(),
    clientConnected: (delta) => status.clientConnected(delta),
    setPaused(paused) {
      // The pause switch works on a full disk too: in memory until it can be saved.
      settings.update({ input: { paused } }, { inMemoryIfUnsaved: true });
    },
    applyRetention,
    startMaintenance: (say) => maintenance.start(say),
    async close() {
      if (closed) return;
      closed = true;
      await maintenance.close();
      await frames.settle();
      await sources.dispose();
      await ocr.dispose();
      catalog.close();
    },
  };
}

/**
 * The data directory holds screenshots, the catalog and the access token: readable by this user
 * alone. An existing directory others can read (0755, say) is tightened to 0700 when it is ours.
 */
function ensurePrivateDir(dir: string, log: (line: string) => void): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const st = statSync(dir);
  if ((st.mode & 0o077) === 0) return;
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    log(`[sightline] warning: the data directory ${dir} is readable by other users and not ours to change (mode ${(st.mode & 0o777).toString(8)}).`);
    return;
  }
  chmodSync(dir, 0o700);
}
