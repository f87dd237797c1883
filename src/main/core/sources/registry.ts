/**
 * The registered source modules and their instances. Routes target ids (`<source>:<local>`) to
 * sources, creates each source on first use (so start-up probes and imports nothing), rebuilds
 * one whose settings changed, and keeps each source's health, so a disabled or unavailable
 * source explains itself in one place.
 */
import { SightlineError, isSightlineError } from '../../../shared/errors.ts';
import type { SourceHealth, SourceName } from '../../../shared/frame.ts';
import type { SettingsValues } from '../../../shared/settings.ts';
import type { SourceInfo } from '../../../shared/sources.ts';
import { isDeepStrictEqual } from 'node:util';
import { SOURCE_NAME_PATTERN, type AnySourceModule, type SourceContext } from './module.ts';
import { portOf } from './aim.ts';
import type { Capabilities, CapabilityName, HistoryPort, Source } from './source.ts';

/** What the registry reads of the settings: which sources are on, their sections, and changes. */
export interface RegistrySettings {
  values(): SettingsValues;
  section<C>(name: string): C;
  isEnabled(source: string): boolean;
  on(event: 'change', listener: (next: SettingsValues, previous: SettingsValues) => void): unknown;
}

/** How long a failed health check is trusted before a call may try the source again. */
const HEALTH_TRUST_MS = 5000;


export class SourceRegistry {
  readonly #modules = new Map<string, AnySourceModule>();
  readonly #instances = new Map<string, Promise<Source>>();
  /** The last health of each enabled source, and when it was taken. */
  readonly #health = new Map<string, { health: SourceHealth; at: number }>();
  readonly #settings: RegistrySettings;
  readonly #context: Omit<SourceContext<unknown>, 'settings' | 'healthChanged'>;
  readonly #listeners: (() => void)[] = [];
  readonly #healthListeners: (() => void)[] = [];
  /** A check of a source under way: a second caller waits for it instead of probing again. */
  readonly #checking = new Map<string, Promise<SourceHealth>>();

  constructor(modules: readonly AnySourceModule[], settings: RegistrySettings, context: Omit<SourceContext<unknown>, 'settings' | 'healthChanged'>) {
    for (const m of modules) {
      if (!SOURCE_NAME_PATTERN.test(m.name)) throw new Error(`Source name "${m.name}" must be lowercase letters, digits and "-".`);
      if (this.#modules.has(m.name)) throw new Error(`Two sources are named "${m.name}".`);
      this.#modules.set(m.name, m);
    }
    this.#settings = settings;
    this.#context = context;
    settings.on('change', (next, previous) => this.#settingsChanged(next, previous));
  }

  // ── what is registered ──────────────────────────────────────────────────────────────────

  module(name: SourceName): AnySourceModule | undefined {
    return this.#modules.get(name);
  }

  modules(): AnySourceModule[] {
    return [...this.#modules.values()];
  }

  names(kind?: 'live' | 'archive'): string[] {
    return this.modules()
      .filter((m) => !kind || m.kind === kind)
      .map((m) => m.name);
  }

  info(): SourceInfo[] {
    return this.modules().map(sourceInfoOf);
  }

  isEnabled(name: SourceName): boolean {
    return this.#modules.has(name) && this.#settings.isEnabled(name);
  }

  /** Whether a source's own tools are listed: it is enabled and not known to be unavailable. */
  /** Its tools are listed: enabled, available, and with something to act on (a device attached). */
  isOffered(name: SourceName): boolean {
    return this.isUsable(name) && this.lastHealth(name)?.idle !== true;
  }

  /**
   * Its tools may be called: enabled and available. An idle source's tools still answer, so a
   * device plugged in between two health checks is used at once (its list follows at the next).
   */
  isUsable(name: SourceName): boolean {
    return this.isEnabled(name) && this.lastHealth(name)?.available !== false;
  }

  /** The source name of a target id, or TARGET_NOT_FOUND for an id no source owns. */
  sourceOf(target: string): SourceName {
    const name = target.slice(0, target.indexOf(':'));
    if (!this.#modules.has(name)) {
      const examples = this.names('live')
        .map((n) => `${n}:…`)
        .join(', ');
      throw new SightlineError('TARGET_NOT_FOUND', `"${target}" is not a Sightline target id.`, `Target ids look like ${examples || '<source>:…'}; call list_targets.`);
    }
    return name;
  }

  // ── instances ───────────────────────────────────────────────────────────────────────────

  /** The source (created on first use), or SOURCE_DISABLED / SOURCE_UNAVAILABLE. */
  async get(name: SourceName): Promise<Source> {
    const m = this.#modules.get(name);
    if (!m) throw new SightlineError('SOURCE_UNAVAILABLE', `There is no "${name}" source in this Sightline.`, `Known sources: ${this.names().join(', ')}.`);
    if (!this.isEnabled(name)) {
      throw new SightlineError('SOURCE_DISABLED', `The ${name} source is disabled in settings.`, `Set sources.${name}.enabled to true in settings.json or the dashboard.`);
    }
    let p = this.#instances.get(name);
    if (!p) {
      p = Promise.resolve().then(
        () =>
          m.create({
            ...this.#context,
            settings: () => this.#settings.section(name),
            healthChanged: () => void this.check(name),
          }) as Source | Promise<Source>,
      );
      this.#instances.set(name, p);
      p.catch(() => {
        if (this.#instances.get(name) === p) this.#instances.delete(name);
      });
    }
    try {
      return await p;
    } catch (e) {
      throw new SightlineError('SOURCE_UNAVAILABLE', `The ${name} source could not start: ${(e as Error).message}`, 'Check sightline://health.', undefined, { cause: e });
    }
  }

  /** The source behind a target, or an error that says why it is unreachable (archive, disabled, down). */
  async forTarget(target: string, need?: CapabilityName): Promise<Source> {
    const name = this.sourceOf(target);
    const m = this.#modules.get(name)!;
    if (m.kind === 'archive') {
      throw new SightlineError('UNSUPPORTED', `${name} is a read-only archive: it has no live targets.`, 'Use list_screenshots, get_screenshot and crop_screenshot for archive frames.');
    }
    const source = await this.get(name);
    // A refusal on health trusts a recent check only: the source may have come back since.
    const known = this.#health.get(name);
    const health = known && Date.now() - known.at < HEALTH_TRUST_MS ? known.health : undefined;
    if (health && !health.available) {
      throw new SightlineError('SOURCE_UNAVAILABLE', `The ${name} source is unavailable: ${health.reason ?? 'unknown reason'}.`, health.remediation ?? 'Check sightline://health.');
    }
    if (need) portOf(source, need);
    return source;
  }

  /** A port of the source behind a target, or why it has none. */
  async port<K extends CapabilityName>(target: string, name: K): Promise<Capabilities[K]> {
    return portOf(await this.forTarget(target), name);
  }

  /** The history of an enabled archive, or undefined when `name` is not one. */
  async history(name: SourceName): Promise<HistoryPort | undefined> {
    const m = this.#modules.get(name);
    if (!m || m.kind !== 'archive' || !this.isEnabled(name)) return undefined;
    return portOf(await this.get(name), 'history');
  }

  /** Run an action a source offers the human in Setup. */
  async runAction(name: SourceName, action: string): Promise<{ target?: string; message?: string }> {
    const m = this.#modules.get(name);
    const a = m?.actions?.find((x) => x.id === action);
    if (!m || !a) throw new SightlineError('INVALID_ARGUMENT', `The ${name} source has no action "${action}".`, 'Reload the dashboard.');
    return a.run(await this.get(name));
  }

  // ── health ──────────────────────────────────────────────────────────────────────────────

  /**
   * Check every registered source's health now (disabled ones included, marked so). Never throws.
   * A source whose check is already under way is not probed twice: its caller waits for that one.
   */
  async health(): Promise<SourceHealth[]> {
    return Promise.all(this.modules().map(({ name }) => this.check(name)));
  }

  /** Check one source's health now (a source that lost its connection asks for this). Never throws. */
  check(name: SourceName): Promise<SourceHealth> {
    const running = this.#checking.get(name);
    if (running) return running;
    const p = this.#probe(name).then((h) => {
      this.#record(h);
      return h;
    });
    this.#checking.set(name, p);
    void p.finally(() => this.#checking.delete(name));
    return p;
  }

  /**
   * Every source's health as last checked, without probing anything: what the status shows
   * (the pause switch and the header never wait on a probe). A source never checked yet says so
   * (`checking`); `unchecked()` names those.
   */
  snapshot(): SourceHealth[] {
    return this.modules().map(({ name }) => {
      if (!this.isEnabled(name)) return disabledHealth(name);
      return this.#health.get(name)?.health ?? { source: name, enabled: true, available: false, degraded: false, checking: true };
    });
  }

  /** Enabled sources whose health has never been checked (or was forgotten when their settings changed). */
  unchecked(): SourceName[] {
    return this.modules()
      .map((m) => m.name)
      .filter((name) => this.isEnabled(name) && !this.#health.has(name));
  }

  /** Called whenever a source's health as shown changes (a check came back different, a call saw it down). */
  onHealth(f: () => void): () => void {
    this.#healthListeners.push(f);
    return () => {
      const i = this.#healthListeners.indexOf(f);
      if (i >= 0) this.#healthListeners.splice(i, 1);
    };
  }

  async #probe(name: SourceName): Promise<SourceHealth> {
    if (!this.isEnabled(name)) return disabledHealth(name);
    try {
      const h = await (await this.get(name)).health();
      return { ...h, source: name, enabled: true };
    } catch (e) {
      return { source: name, enabled: true, available: false, degraded: true, reason: `health check failed: ${(e as Error).message}`, remediation: 'See the Sightline log.' };
    }
  }

  /** Keep a check's result; tell the listeners when what is offered or what is shown changed. */
  #record(h: SourceHealth): void {
    const last = this.#health.get(h.source)?.health;
    const serves = (x: SourceHealth): boolean => x.enabled && x.available && x.idle !== true;
    // A disabled source keeps no health: turned back on, it is judged afresh.
    if (!h.enabled) this.#health.delete(h.source);
    // A source turned off (or rebuilt) while its check ran keeps no answer of its old self.
    else if (this.isEnabled(h.source)) this.#health.set(h.source, { health: h, at: Date.now() });
    if (last !== undefined ? serves(last) !== serves(h) : h.enabled && !serves(h)) this.#changed();
    if (!isDeepStrictEqual(last, h.enabled ? h : undefined)) this.#healthChanged();
  }

  /**
   * What a call just learnt of a live source: it answered, or it refused as unavailable. A source
   * found down between health checks is marked so at once (the status, Setup and Targets agree
   * with what an agent is told); one that answers while marked down is checked again.
   */
  observed(name: SourceName, error?: unknown): void {
    if (!this.isEnabled(name)) return;
    const known = this.#health.get(name)?.health;
    if (error === undefined) {
      if (known && !known.available) void this.health();
      return;
    }
    if (!isSightlineError(error) || error.code !== 'SOURCE_UNAVAILABLE') return;
    const was = known?.available;
    this.#health.set(name, {
      health: { ...(known?.checks ? { checks: known.checks } : {}), source: name, enabled: true, available: false, degraded: false, reason: error.message.replace(/\.$/, ''), ...(error.hint ? { remediation: error.hint } : {}) },
      at: Date.now(),
    });
    if (was !== false) {
      this.#changed();
      this.#healthChanged();
    }
  }

  lastHealth(name: SourceName): SourceHealth | undefined {
    return this.#health.get(name)?.health;
  }

  /** Called when what is offered changed: a source came, went, or was turned on or off. */
  onChange(f: () => void): () => void {
    this.#listeners.push(f);
    return () => {
      const i = this.#listeners.indexOf(f);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  async dispose(): Promise<void> {
    const all = [...this.#instances.values()];
    this.#instances.clear();
    await Promise.allSettled(all.map(async (p) => (await p).dispose?.()));
  }

  #changed(): void {
    for (const f of this.#listeners) f();
  }

  #healthChanged(): void {
    for (const f of this.#healthListeners) f();
  }

  /** A source whose own settings changed is rebuilt on next use; one turned off is let go. */
  #settingsChanged(next: SettingsValues, previous: SettingsValues): void {
    let toggled = false;
    for (const { name } of this.modules()) {
      const was = previous.sources[name]?.enabled ?? false;
      const now = next.sources[name]?.enabled ?? false;
      if (was !== now) {
        toggled = true;
        this.#health.delete(name);
      }
      if (!now || !isDeepStrictEqual(previous[name], next[name])) this.#drop(name);
    }
    if (toggled) {
      this.#changed();
      this.#healthChanged();
    }
  }

  #drop(name: SourceName): void {
    const p = this.#instances.get(name);
    if (!p) return;
    this.#instances.delete(name);
    this.#health.delete(name);
    void p.then((s) => s.dispose?.()).catch(() => undefined);
  }
}

function disabledHealth(name: SourceName): SourceHealth {
  return { source: name, enabled: false, available: false, degraded: false, reason: 'disabled in settings', remediation: `Enable sources.${name}.enabled.` };
}

/** What the dashboard learns about a module. */
export function sourceInfoOf(m: AnySourceModule): SourceInfo {
  return {
    name: m.name,
    label: m.label,
    icon: m.icon,
    kind: m.kind,
    description: m.description,
    fields: [...(m.fields ?? [])],
    actions: (m.actions ?? []).map(({ run: _run, ...a }) => a),
    ...(m.osPermissions ? { osPermissions: true } : {}),
  };
}
