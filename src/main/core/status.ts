/** What the header, the tray and `sightline://health` show: input state, connected agents, sources, the text index. */
import type { StatusInfo, TextIndexStatus } from '../../shared/api.ts';
import type { SettingsValues } from '../../shared/settings.ts';
import type { SourceHealth, SourceName } from '../../shared/frame.ts';
import { VERSION } from './version.ts';

/** The sources' health as the status reads it: the last checks, and checks on request. */
export interface StatusHealth {
  /** Every source as last checked, probing nothing. */
  snapshot(): SourceHealth[];
  /** Enabled sources never checked yet. */
  unchecked(): SourceName[];
  /** Check every source now. */
  health(): Promise<SourceHealth[]>;
  /** Check one source now. */
  check(name: SourceName): Promise<SourceHealth>;
}

export interface StatusDeps {
  dataDir: string;
  settings(): SettingsValues;
  health: StatusHealth;
  textIndex(): TextIndexStatus | undefined;
  /** Called when what the status shows changed (the dashboard is sent the new status). */
  changed(): void;
}

export class StatusService {
  readonly #d: StatusDeps;
  #clients = 0;

  constructor(deps: StatusDeps) {
    this.#d = deps;
  }

  /**
   * The status now, from the sources' last checks: nothing is probed, so it answers at once
   * (the pause switch and the dashboard's pushed status never wait on a slow probe, such as a
   * desktop accessibility bus that takes seconds to time out). Sources never checked are marked
   * `checking`, and their first check is started; its result is pushed when it comes.
   */
  snapshot(): StatusInfo {
    for (const name of this.#d.health.unchecked()) void this.#d.health.check(name);
    return this.#make(this.#d.health.snapshot());
  }

  /** The status once every enabled source has been checked at least once (at most one check's wait, at start). */
  async status(): Promise<StatusInfo> {
    const unchecked = this.#d.health.unchecked();
    if (unchecked.length > 0) await Promise.all(unchecked.map((name) => this.#d.health.check(name)));
    return this.#make(this.#d.health.snapshot());
  }

  /** The status after checking every source again now ("Check again" in Setup). */
  async checked(): Promise<StatusInfo> {
    await this.#d.health.health();
    return this.#make(this.#d.health.snapshot());
  }

  #make(sources: SourceHealth[]): StatusInfo {
    const v = this.#d.settings();
    const textIndex = this.#d.textIndex();
    return { version: VERSION, paused: v.input.paused, readOnly: v.input.readOnly, clients: this.#clients, platform: process.platform, dataDir: this.#d.dataDir, sources, ...(textIndex ? { textIndex } : {}) };
  }

  /** An MCP session opened (+1) or closed (−1). */
  clientConnected(delta: 1 | -1): void {
    this.#clients = Math.max(0, this.#clients + delta);
    this.#d.changed();
  }
}
