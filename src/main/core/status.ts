/** What the header, the tray and `sightline://health` show: input state, connected agents, sources, the text index. */
import type { StatusInfo, TextIndexStatus } from '../../shared/api.ts';
import type { SettingsValues } from '../../shared/settings.ts';
import type { SourceHealth } from '../../shared/frame.ts';
import type { StatusPort } from './ports.ts';
import { VERSION } from './version.ts';

export interface StatusDeps {
  dataDir: string;
  settings(): SettingsValues;
  health(): Promise<SourceHealth[]>;
  textIndex(): TextIndexStatus | undefined;
  /** Called when what the status shows changed (the dashboard re-reads it). */
  changed(): void;
}

export class StatusService implements StatusPort {
  readonly #d: StatusDeps;
  #clients = 0;

  constructor(deps: StatusDeps) {
    this.#d = deps;
  }

  async status(): Promise<StatusInfo> {
    const v = this.#d.settings();
    const textIndex = this.#d.textIndex();
    return { version: VERSION, paused: v.input.paused, readOnly: v.input.readOnly, clients: this.#clients, platform: process.platform, dataDir: this.#d.dataDir, sources: await this.#d.health(), ...(textIndex ? { textIndex } : {}) };
  }

  /** An MCP session opened (+1) or closed (−1). */
  clientConnected(delta: 1 | -1): void {
    this.#clients = Math.max(0, this.#clients + delta);
    this.#d.changed();
  }
}
