/**
 * The Sightline core: settings, catalog, sources, the action gate. Plain Node,
 * never imports electron; the CLI, the HTTP server and the Electron app all run it.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ActivityEntry, FrameSummary, ProgressInfo, StatusInfo, TargetsResult } from '../../shared/api.ts';
import { SightlineError, isSightlineError } from '../../shared/errors.ts';
import type { FrameDescriptor, ImageFormat, Rect, SourceName, UiNode } from '../../shared/frame.ts';
import { ActionGate, type ActionRequest, type ActionResult } from './actions/gate.ts';
import { UiTreeCache } from './actions/uiTreeCache.ts';
import { Catalog } from './catalog/catalog.ts';
import type { FrameRecord } from './catalog/types.ts';
import { DEFAULT_MAX_DIMENSION, MODEL_PROFILES, estimateVisionTokens } from './image/fit.ts';
import { cropMapping, fitMapping, planCrop, rectImageToSource, rectSourceToImage, resolveCropRect, type CropUnits } from './image/mapping.ts';
import { crop as cropImage, fitAndEncode, probe, sniffFormat } from './image/pipeline.ts';
import {
  SETTINGS_FILE,
  envOverrides,
  loadSettings,
  mergeSettings,
  parseSettings,
  type Settings,
  type SettingsInput,
} from './settings.ts';
import { createDefaultSources, type DefaultSourceDeps, type LiveSourceFactory } from './sources/defaults.ts';
import { SourceRegistry, sourceOfTarget } from './sources/registry.ts';
import type { ArchiveProvider, ImageInput, ProgressReport, Source } from './sources/source.ts';
import { toLocalIso } from './time.ts';

export const VERSION = '0.1.0';

export interface CoreOptions {
  dataDir: string;
  /** Flag-level overrides (win over env and the file). */
  settings?: SettingsInput;
  env?: NodeJS.ProcessEnv;
  /** Replace the built-in sources (tests). */
  sources?: Source[];
  archives?: ArchiveProvider[];
  /** macOS Screen Recording / Accessibility states from the Electron app, for the desktop source. */
  desktopPermissions?: DefaultSourceDeps['desktopPermissions'];
}

export interface CaptureParams {
  target: string;
  maxDimension?: number;
  format?: ImageFormat;
  quality?: number;
  raw?: boolean;
  fullPage?: boolean;
  scrollOffset?: { x: number; y: number };
  signal?: AbortSignal;
}

export interface CaptureOutcome {
  frame: FrameRecord;
  /** The model image as stored (already in memory: no re-read). */
  image: { data: Buffer; format: ImageFormat };
  warnings: string[];
}

export interface CropParams {
  ref: string;
  x: number;
  y: number;
  width: number;
  height: number;
  coordinateUnits?: CropUnits;
  maxDimension?: number;
  format?: ImageFormat;
  quality?: number;
}

interface CoreEvents {
  frame: [FrameRecord];
  'frame-updated': [FrameRecord];
  activity: [ActivityEntry];
  status: [];
  progress: [ProgressInfo];
  'settings': [Settings];
  'tools-changed': [];
  'resources-changed': [];
}

export class Core extends EventEmitter<CoreEvents> {
  readonly dataDir: string;
  readonly catalog: Catalog;
  readonly registry: SourceRegistry;
  readonly gate: ActionGate;
  readonly uiTrees = new UiTreeCache();
  readonly #env: NodeJS.ProcessEnv;
  readonly #overrides: SettingsInput;
  #settings: Settings;
  #file: SettingsInput;
  #clients = 0;
  /** How to rebuild each built-in live source when its settings change. */
  sourceFactories = new Map<SourceName, LiveSourceFactory>();
  /** Originals being written behind their capture, by frame ref. */
  readonly #originals = new Map<string, Promise<void>>();
  #closed = false;

  constructor(options: CoreOptions, loaded: { settings: Settings; file: SettingsInput }, catalog: Catalog) {
    super();
    this.dataDir = options.dataDir;
    this.#env = options.env ?? process.env;
    this.#overrides = options.settings ?? {};
    this.#settings = loaded.settings;
    this.#file = loaded.file;
    this.catalog = catalog;
    this.registry = new SourceRegistry((name) => this.#settings.sources[name].enabled);
    this.gate = new ActionGate({ catalog, registry: this.registry, settings: () => this.#settings, uiTrees: this.uiTrees });
    catalog.on('frame', (f: FrameRecord) => this.emit('frame', f));
    catalog.on('frame-updated', (f: FrameRecord) => this.emit('frame-updated', f));
    catalog.on('activity', (a: ActivityEntry) => this.emit('activity', a));
    this.registry.onAvailabilityChange(() => this.emit('tools-changed'));
  }

  get settings(): Settings {
    return this.#settings;
  }
  get settingsFile(): SettingsInput {
    return this.#file;
  }
  get env(): NodeJS.ProcessEnv {
    return this.#env;
  }

  /** Fit limits for a capture: a call's maxDimension wins over the profile, which wins over settings. */
  fitOptions(maxDimension?: number): { maxDimension: number; maxPixels?: number } {
    if (maxDimension !== undefined) return { maxDimension };
    const c = this.#settings.capture;
    if (c.profile !== 'default') return { ...MODEL_PROFILES[c.profile] };
    return { maxDimension: c.maxDimension ?? DEFAULT_MAX_DIMENSION };
  }

  async capture(p: CaptureParams): Promise<CaptureOutcome> {
    const source = this.registry.forTarget(p.target, 'capture');
    const fit = this.fitOptions(p.maxDimension);
    const format = p.format ?? this.#settings.capture.format;
    const quality = p.quality ?? this.#settings.capture.quality;
    const raw = p.raw ?? false;
    const signal = p.signal ?? new AbortController().signal;
    const captured = await source.capture!(p.target, {
      maxDimension: fit.maxDimension,
      maxPixels: fit.maxPixels,
      format,
      quality,
      raw,
      fullPage: p.fullPage,
      scrollOffset: p.scrollOffset,
      signal,
    });
    const warnings = [...(captured.warnings ?? [])];
    let image: { data: Buffer; format: ImageFormat; width: number; height: number };
    let full: { data: Buffer; format: ImageFormat } | undefined;
    if (captured.encoded) {
      image = captured.encoded;
    } else if (captured.pixels) {
      image = await fitAndEncode(captured.pixels, { ...fit, raw }, { format, quality });
      // An encoded original (e.g. Android's PNG) is kept as is for native-resolution crops.
      const originalFormat = captured.pixels.kind === 'encoded' ? sniffFormat(captured.pixels.data) : undefined;
      if (originalFormat && !raw) full = { data: (captured.pixels as { data: Buffer }).data, format: originalFormat };
    } else {
      throw new SightlineError('SCREENSHOT_FAILED', `The ${source.name} source returned no image.`, 'Capture again.');
    }
    if (raw) warnings.push(`raw: this image is at native resolution (${image.width}×${image.height}, ~${estimateVisionTokens(image)} vision tokens); prefer the default scaled capture and crop_screenshot for detail.`);
    const previous = this.catalog.latestFrame(source.name, captured.target);
    const frame = await this.catalog.insertFrame({
      source: source.name,
      target: captured.target,
      capturedAt: toLocalIso(new Date()),
      image: { width: image.width, height: image.height },
      sourceSize: captured.sourceSize,
      origin: captured.origin,
      scale: fitMapping(image, captured.sourceSize, captured.origin).scale,
      dpi: captured.dpi,
      monitor: captured.monitor,
      format: image.format,
      data: image.data,
      full,
      state: captured.state,
    });
    this.uiTrees.clear(captured.target);
    // The first capture after an action is that action's "after" frame in the activity log.
    this.catalog.linkAfterFrame(captured.target, frame.ref, previous ? new Date(previous.capturedAt).toISOString() : '');
    if (captured.pixels?.kind === 'raw' && !raw) this.#writeOriginalBehind(frame.ref, captured.pixels);
    return { frame, image: { data: image.data, format: image.format }, warnings };
  }

  /** A crop is a new frame with its own mapping, cut from the native-resolution original when there is one. */
  async crop(p: CropParams): Promise<CaptureOutcome> {
    const parent = this.getFrame(p.ref);
    const rect = { x: p.x, y: p.y, width: p.width, height: p.height };
    const units = p.coordinateUnits ?? 'percent';
    // A crop of a crop is cut from the first frame's original, not from the smaller crop image.
    let base = parent;
    while (base.parentRef) {
      const up = this.catalog.getFrame(base.parentRef);
      if (!up) break;
      base = up;
    }
    await this.#originals.get(base.ref);
    const src = await this.catalog.readImage(base.ref, 'full');
    const input = { kind: 'encoded' as const, data: src.data };
    const inputSize = await probe(input);
    const plan =
      base === parent
        ? planCrop(parent, inputSize, rect, units)
        : planCrop(base, inputSize, rectSourceToImage(base, rectImageToSource(parent, resolveCropRect(parent.image, rect, units))), 'pixels');
    const format = p.format ?? this.#settings.capture.format;
    const quality = p.quality ?? this.#settings.capture.quality;
    const out = await cropImage(input, plan.inputRect, this.fitOptions(p.maxDimension), { format, quality });
    const m = cropMapping(base, plan.imageRect, { width: out.width, height: out.height });
    const frame = await this.catalog.insertFrame({
      source: parent.source,
      target: parent.target,
      // A crop is made now: retention ages it from now, not from its (possibly archived) parent.
      capturedAt: toLocalIso(new Date()),
      image: m.image,
      sourceSize: { width: plan.sourceRect.width, height: plan.sourceRect.height },
      origin: m.origin,
      scale: m.scale,
      dpi: parent.dpi,
      monitor: parent.monitor,
      parentRef: parent.ref,
      format: out.format,
      data: out.data,
      state: parent.state,
    });
    return { frame, image: { data: out.data, format: out.format }, warnings: [] };
  }

  /**
   * Raw captures keep their native-resolution original for crops and the human's view, but
   * encoding it must not delay the agent: it is written behind the response, and a crop of
   * the frame waits for it.
   */
  #writeOriginalBehind(ref: string, pixels: ImageInput): void {
    const job = fitAndEncode(pixels, { raw: true }, { format: 'jpeg', quality: 90 })
      .then((img) => this.catalog.attachFull(ref, { data: img.data, format: img.format }))
      .then(() => undefined)
      .catch((e: unknown) => void process.stderr.write(`[sightline] original of ${ref} not kept: ${(e as Error).message}\n`))
      .finally(() => this.#originals.delete(ref));
    this.#originals.set(ref, job);
  }

  getFrame(ref: string): FrameRecord {
    const f = this.catalog.getFrame(ref);
    if (!f) throw new SightlineError('FRAME_NOT_FOUND', `No frame "${ref}".`, 'Use a ref from capture, crop_screenshot or list_screenshots; old frames are removed by retention unless pinned.');
    return f;
  }

  /** Bring an archive's index up to date, reporting progress to the caller and to the dashboard. */
  async refreshArchive(name: SourceName, signal: AbortSignal, onProgress?: (p: ProgressReport) => void): Promise<void> {
    const archive = this.registry.archive(name);
    if (!archive) return;
    const id = `${name}-index`;
    let reported = false;
    await archive.refresh({
      signal,
      onProgress: (p) => {
        reported = true;
        onProgress?.(p);
        this.emit('progress', { id, label: p.label, done: p.done, total: p.total, finished: false });
      },
    });
    if (reported) this.emit('progress', { id, label: `${name} index up to date`, done: 1, total: 1, finished: true });
  }

  act(req: ActionRequest, opts: { client?: string; signal: AbortSignal }): Promise<ActionResult> {
    return this.gate.act(req, opts);
  }

  /** The target's UI tree, bounds in image pixels of its latest frame (captured now if there is none). */
  async uiTree(p: { target: string; maxNodes: number; query?: string; signal: AbortSignal }): Promise<{ frameRef: string; nodes: UiNode[] }> {
    const source = this.registry.forTarget(p.target, 'ui_tree');
    let frame = this.catalog.latestFrame(sourceOfTarget(p.target), p.target, { rootOnly: true });
    if (!frame) frame = (await this.capture({ target: p.target, signal: p.signal })).frame;
    const raw = await source.uiTree!(p.target, frame, { maxNodes: p.maxNodes, query: p.query, signal: p.signal });
    const nodes: UiNode[] = raw.map((n) => ({ ...n, bounds: roundRect(rectSourceToImage(frame, n.bounds)) }));
    this.uiTrees.set(p.target, frame.ref, nodes);
    return { frameRef: frame.ref, nodes };
  }

  async listTargets(source?: SourceName, signal: AbortSignal = new AbortController().signal): Promise<TargetsResult> {
    const out: TargetsResult = { targets: [], errors: [] };
    const sources = this.registry.liveSources().filter((s) => !source || s.name === source);
    if (source && sources.length === 0) {
      // Let the registry explain (disabled, unavailable, archive).
      this.registry.forTarget(`${source}:`);
    }
    await Promise.all(
      sources.map(async (s) => {
        try {
          out.targets.push(...(await s.listTargets(signal)));
        } catch (e) {
          const err = isSightlineError(e) ? e : new SightlineError('INTERNAL', (e as Error).message);
          out.errors.push({ source: s.name, code: err.code, message: err.message, hint: err.hint });
        }
      }),
    );
    return out;
  }

  async status(): Promise<StatusInfo> {
    return {
      version: VERSION,
      paused: this.#settings.input.paused,
      readOnly: this.#settings.input.readOnly,
      clients: this.#clients,
      platform: process.platform,
      dataDir: this.dataDir,
      sources: await this.registry.health(),
    };
  }

  clientConnected(delta: 1 | -1): void {
    this.#clients = Math.max(0, this.#clients + delta);
    this.emit('status');
  }

  /** Pin or unpin a frame for agents (listed by list_screenshots pinned:true and as resources). */
  setPinned(ref: string, pinned: boolean, annotation?: string | null): FrameRecord {
    let f = this.catalog.setPinned(ref, pinned);
    if (annotation !== undefined) f = this.catalog.setAnnotation(ref, annotation);
    this.emit('resources-changed');
    return f;
  }

  setPaused(paused: boolean): void {
    this.updateSettings({ input: { paused } });
  }

  /** Validate a partial settings object, write settings.json atomically, apply. Bad input changes nothing. */
  updateSettings(patch: SettingsInput): Settings {
    const file = mergeSettings(this.#file, patch);
    parseSettings(file, SETTINGS_FILE);
    const settings = parseSettings(mergeSettings(mergeSettings(file, envOverrides(this.#env)), this.#overrides));
    mkdirSync(this.dataDir, { recursive: true });
    const path = join(this.dataDir, SETTINGS_FILE);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, path);
    const toolsChanged = JSON.stringify(settings.sources) !== JSON.stringify(this.#settings.sources);
    const previous = this.#settings;
    this.#file = file;
    this.#settings = settings;
    // A source built from settings that changed (endpoint, adb path, display) is rebuilt.
    for (const [name, make] of this.sourceFactories) {
      const key = name as 'desktop' | 'browser' | 'android';
      if (JSON.stringify(previous[key]) !== JSON.stringify(settings[key])) this.registry.addLive(make(settings));
    }
    this.emit('settings', settings);
    this.emit('status');
    if (toolsChanged) this.emit('tools-changed');
    return settings;
  }

  /** Apply retention now (also run on start and periodically by servers). */
  applyRetention(): { deletedFrames: number; freedBytes: number } {
    return this.catalog.applyRetention(this.#settings.retention);
  }

  /**
   * Housekeeping for a long-running process: retention now and hourly, source health every
   * 30 s (tool lists follow sources that come and go). Returns a stop function.
   */
  startMaintenance(log: (line: string) => void): () => void {
    const retention = (): void => {
      try {
        this.applyRetention();
      } catch (e) {
        log(`[sightline] retention: ${(e as Error).message}`);
      }
    };
    const health = (): void => void this.registry.health().catch(() => undefined);
    retention();
    health();
    const timers = [setInterval(retention, 3600_000), setInterval(health, 30_000)];
    for (const t of timers) t.unref();
    return () => timers.forEach(clearInterval);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled(this.#originals.values());
    await this.registry.dispose();
    this.catalog.close();
  }
}

function roundRect(r: Rect): Rect {
  return { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
}

export function frameSummary(f: FrameRecord): FrameSummary {
  const { state: _state, external: _external, ...rest } = f as FrameRecord & { external?: boolean };
  return rest as unknown as FrameSummary;
}

export function frameDescriptor(f: FrameRecord): FrameDescriptor {
  const d: FrameDescriptor = {
    ref: f.ref,
    source: f.source,
    target: f.target,
    capturedAt: f.capturedAt,
    image: f.image,
    sourceSize: f.sourceSize,
    origin: f.origin,
    scale: f.scale,
  };
  if (f.dpi !== undefined && f.dpi !== null) d.dpi = f.dpi;
  if (f.monitor !== undefined && f.monitor !== null) d.monitor = f.monitor;
  if (f.parentRef) d.parentRef = f.parentRef;
  return d;
}

export async function createCore(options: CoreOptions): Promise<Core> {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const loaded = loadSettings(options.dataDir, { env: options.env, overrides: options.settings });
  const catalog = Catalog.open(options.dataDir);
  // Files an interrupted write left behind (a crash between rename and row).
  void catalog.sweep().catch(() => undefined);
  const core = new Core(options, loaded, catalog);
  if (options.sources || options.archives) {
    for (const s of options.sources ?? []) core.registry.addLive(s);
    for (const a of options.archives ?? []) core.registry.addArchive(a);
  } else {
    const defaults = await createDefaultSources({ core, catalog, settings: loaded.settings, dataDir: options.dataDir, env: options.env ?? process.env, desktopPermissions: options.desktopPermissions });
    for (const s of defaults.live) core.registry.addLive(s);
    for (const a of defaults.archives) core.registry.addArchive(a);
    core.sourceFactories = defaults.factories;
  }
  return core;
}
