/**
 * A source module is the one place a source is described: its name and label, its settings
 * section (schema, environment overrides, dashboard fields), how it is created from those
 * settings, the tools only it offers, and the actions it offers the human in Setup. (What the
 * input allowlist matches, a source says under its lock, as the facts it hands each pending
 * action's judge.) The core derives the source lists, the settings schema, tool filters and the
 * dashboard's source metadata from the registered
 * modules (sources/builtin.ts), so adding a source is one folder plus one line there.
 */
import type { z } from 'zod';
import type { SourceName } from '../../../shared/frame.ts';
import type { FieldDef, SourceAction as SetupAction } from '../../../shared/sources.ts';
import type { AnyTool } from '../mcp/tool.ts';
import type { ArchiveStore, Source } from './source.ts';

/** What the host (the Electron app, or nothing headless) can tell sources about the OS. */
export interface HostFacts {
  /** macOS Screen Recording / Accessibility states, when the app can tell (systemPreferences). */
  macPermissions?: () => { screenRecording?: PermissionState; accessibility?: PermissionState };
}
export type PermissionState = 'granted' | 'denied' | 'unknown';

export interface SourceContext<Config> {
  /** This source's settings section as it is now (a getter: the dashboard may change it). */
  settings(): Config;
  /**
   * Whether agent input may go out now (not paused, not read-only), for input a source makes on
   * its own outside an action (raising a covered window before a capture). An action is judged
   * through its pending action instead.
   */
  inputAllowed(): boolean;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** Where an archive writes its catalog rows. */
  archive: ArchiveStore;
  host: HostFacts;
  /**
   * The source's health may have changed now (its connection closed, a device went): the core
   * checks it again at once, so the dashboard and tool lists follow without waiting for the next
   * periodic check.
   */
  healthChanged(): void;
}

export interface SourceModule<Config = unknown, S extends Source = Source> {
  /** Lowercase; the prefix of the source's target ids (`browser:…`) and its settings key. */
  readonly name: SourceName;
  readonly label: string;
  /** An icon of the dashboard's sprite. */
  readonly icon: string;
  /** One line for the settings toggle. */
  readonly description: string;
  readonly kind: 'live' | 'archive';
  /** `settings.<name>`: a zod object whose every key has a default (or is optional). */
  readonly settings: z.ZodType<Config>;
  /** Environment variables that override keys of this section (they win over the file). */
  env?(env: NodeJS.ProcessEnv): Record<string, unknown> | undefined;
  /** Dashboard fields for this section (keys are full settings paths, e.g. `browser.endpoint`). */
  readonly fields?: readonly FieldDef[];
  /**
   * Whether new values of this section can take effect on this machine (a folder that exists, a
   * display that opens): asked before a change from the dashboard is saved, never when the file is
   * loaded (a folder on a drive not mounted yet must not stop Sightline from starting). The problem
   * of the first key that cannot, or undefined.
   */
  vet?(next: Config, previous: Config, env: NodeJS.ProcessEnv): Promise<SettingProblem | undefined>;
  /** Tools only this source offers: listed while it is enabled and not known to be unavailable. */
  readonly tools?: readonly AnyTool[];
  /** Actions the human can run from Setup. */
  readonly actions?: readonly (SetupAction & { run(source: S): Promise<{ target?: string; message?: string }> })[];
  /** The desktop app adds OS permission checks (macOS) to this source's Setup card. */
  readonly osPermissions?: boolean;
  /**
   * Build the source from its settings. Called on first use (heavy dependencies are imported
   * here, lazily, so start-up does not pay for them) and again after its settings changed.
   */
  create(ctx: SourceContext<Config>): S | Promise<S>;
}

/** Why a setting cannot take effect: its full key, what is wrong, and what to do. */
export interface SettingProblem {
  key: string;
  message: string;
  hint: string;
}

/** Declare a module with its config type inferred from its settings schema. */
export function defineSource<Config, S extends Source>(m: SourceModule<Config, S>): SourceModule<Config, S> {
  return m;
}

// Methods are bivariant, so a module of any config and source type fits here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySourceModule = SourceModule<any, any>;

export const SOURCE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
