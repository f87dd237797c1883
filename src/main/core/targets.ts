/** list_targets across the live sources: one broken source does not hide the others. */
import type { TargetsResult } from '../../shared/api.ts';
import { SightlineError, isSightlineError } from '../../shared/errors.ts';
import type { SourceName, TargetInfo } from '../../shared/frame.ts';
import type { TargetsPort } from './ports.ts';
import { portOf } from './sources/aim.ts';
import type { SourceRegistry } from './sources/registry.ts';

export class TargetService implements TargetsPort {
  readonly #sources: SourceRegistry;
  readonly #listed: ((targets: readonly TargetInfo[]) => void) | undefined;

  /** `listed` hears every listing (the catalog keeps the names, so a device unplugged keeps its own). */
  constructor(sources: SourceRegistry, listed?: (targets: readonly TargetInfo[]) => void) {
    this.#sources = sources;
    this.#listed = listed;
  }

  async list(source?: SourceName, signal: AbortSignal = new AbortController().signal): Promise<TargetsResult> {
    const out: TargetsResult = { targets: [], errors: [] };
    const names = this.#sources.names('live').filter((n) => (!source || n === source) && this.#sources.isEnabled(n));
    if (source && names.length === 0) {
      // Let the registry explain (unknown, disabled, archive).
      await this.#sources.forTarget(`${source}:`);
    }
    await Promise.all(
      names.map(async (name) => {
        try {
          const s = await this.#sources.get(name);
          const targets = await portOf(s, 'screen').listTargets(signal);
          out.targets.push(...targets);
          this.#sources.observed(name);
          // A target listed but not usable (an offline phone) is named by its state, not its own name.
          this.#listed?.(targets.filter((t) => t.hint === undefined));
        } catch (e) {
          this.#sources.observed(name, e);
          const err = isSightlineError(e) ? e : new SightlineError('INTERNAL', (e as Error).message, 'This is a Sightline bug; the log has details.');
          out.errors.push({ source: name, code: err.code, message: err.message, hint: err.hint });
        }
      }),
    );
    return out;
  }
}
