/**
 * Routes target ids (`<source>:<local>`) to sources and keeps each source's
 * health, so a disabled or unavailable source explains itself in one place.
 */
import { SightlineError } from '../../../shared/errors.ts';
import { SOURCE_NAMES, type SourceHealth, type SourceName } from '../../../shared/frame.ts';
import type { ActionKind, ArchiveProvider, Source } from './source.ts';

/** How long a failed health check is trusted before a call may try the source again. */
const HEALTH_TRUST_MS = 5000;

export function sourceOfTarget(target: string): SourceName {
  const prefix = target.slice(0, target.indexOf(':'));
  if (!(SOURCE_NAMES as readonly string[]).includes(prefix)) {
    throw new SightlineError(
      'TARGET_NOT_FOUND',
      `"${target}" is not a Sightline target id.`,
      'Target ids look like desktop:window:…, browser:…, android:<serial>; call list_targets.',
    );
  }
  return prefix as SourceName;
}

export class SourceRegistry {
  readonly #live = new Map<SourceName, Source>();
  readonly #archives = new Map<SourceName, ArchiveProvider>();
  readonly #enabled: (name: SourceName) => boolean;
  /** The last health of each enabled source, and when it was taken. */
  readonly #health = new Map<SourceName, { health: SourceHealth; at: number }>();

  constructor(enabled: (name: SourceName) => boolean) {
    this.#enabled = enabled;
  }

  /** Add a live source, or replace one (its settings changed); the replaced one is disposed. */
  addLive(source: Source): void {
    const old = this.#live.get(source.name);
    this.#live.set(source.name, source);
    this.#health.delete(source.name);
    if (old && old !== source) void old.dispose?.().catch(() => undefined);
  }
  addArchive(archive: ArchiveProvider): void {
    this.#archives.set(archive.name, archive);
  }

  isEnabled(name: SourceName): boolean {
    return this.#enabled(name);
  }

  liveSources(): Source[] {
    return [...this.#live.values()].filter((s) => this.#enabled(s.name));
  }
  archives(): ArchiveProvider[] {
    return [...this.#archives.values()].filter((a) => this.#enabled(a.name));
  }
  archive(name: SourceName): ArchiveProvider | undefined {
    return this.#enabled(name) ? this.#archives.get(name) : undefined;
  }

  /** The live source for a target, or an error that says why it is unreachable. */
  forTarget(target: string, action?: ActionKind | 'capture' | 'ui_tree'): Source {
    const name = sourceOfTarget(target);
    if (this.#archives.has(name) && !this.#live.has(name)) {
      throw new SightlineError('UNSUPPORTED', `${name} is a read-only archive: it has no live targets.`, 'Use list_screenshots, get_screenshot and crop_screenshot for archive frames.');
    }
    if (!this.#enabled(name)) {
      throw new SightlineError('SOURCE_DISABLED', `The ${name} source is disabled in settings.`, `Set sources.${name}.enabled to true in settings.json or the dashboard.`);
    }
    const source = this.#live.get(name);
    if (!source) {
      throw new SightlineError('SOURCE_UNAVAILABLE', `The ${name} source is not available in this build or on this platform.`, 'Check sightline://health.');
    }
    // A refusal on health trusts a recent check only: the source may have come back since.
    const known = this.#health.get(name);
    const health = known && Date.now() - known.at < HEALTH_TRUST_MS ? known.health : undefined;
    if (health && !health.available) {
      throw new SightlineError('SOURCE_UNAVAILABLE', `The ${name} source is unavailable: ${health.reason ?? 'unknown reason'}.`, health.remediation ?? 'Check sightline://health.');
    }
    if (action === 'capture' && !source.capabilities.capture) {
      throw new SightlineError('UNSUPPORTED', `The ${name} source cannot capture.`);
    }
    if (action === 'ui_tree' && !source.capabilities.uiTree) {
      throw new SightlineError('UNSUPPORTED', `The ${name} source has no UI tree.`);
    }
    if (action && action !== 'capture' && action !== 'ui_tree' && !source.capabilities.actions.includes(action)) {
      throw new SightlineError('UNSUPPORTED', `${action} is not supported by the ${name} source.`, `Supported: ${source.capabilities.actions.join(', ') || 'none'}.`);
    }
    return source;
  }

  /** Health of every known source (disabled ones included, marked so). Never throws. */
  async health(): Promise<SourceHealth[]> {
    const out = await Promise.all(
      SOURCE_NAMES.map(async (name): Promise<SourceHealth> => {
        const provider = this.#live.get(name) ?? this.#archives.get(name);
        if (!provider) {
          return { source: name, enabled: this.#enabled(name), available: false, degraded: false, reason: 'not built into this Sightline', remediation: 'Update Sightline.' };
        }
        if (!this.#enabled(name)) {
          return { source: name, enabled: false, available: false, degraded: false, reason: 'disabled in settings', remediation: `Enable sources.${name}.enabled.` };
        }
        try {
          const h = await provider.health();
          return { ...h, enabled: true };
        } catch (e) {
          return { source: name, enabled: true, available: false, degraded: true, reason: `health check failed: ${(e as Error).message}`, remediation: 'See the Sightline log.' };
        }
      }),
    );
    let flipped = false;
    const now = Date.now();
    for (const h of out) {
      const before = this.#health.get(h.source)?.health.available;
      // A disabled source keeps no health: turned back on, it is judged afresh.
      if (!h.enabled) this.#health.delete(h.source);
      else this.#health.set(h.source, { health: h, at: now });
      if (before !== undefined && before !== (h.enabled && h.available)) flipped = true;
    }
    if (flipped) this.#onAvailabilityChange?.();
    return out;
  }

  lastHealth(name: SourceName): SourceHealth | undefined {
    return this.#health.get(name)?.health;
  }

  /** Called when a source became available or unavailable (tool lists change). */
  onAvailabilityChange(f: () => void): void {
    this.#onAvailabilityChange = f;
  }
  #onAvailabilityChange: (() => void) | undefined;

  async dispose(): Promise<void> {
    await Promise.allSettled([...this.#live.values()].map((s) => s.dispose?.()));
    await Promise.allSettled([...this.#archives.values()].map((a) => a.dispose?.()));
  }
}
