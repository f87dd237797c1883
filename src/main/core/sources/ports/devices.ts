/** A device's apps (list, launch, stop, open a link, install) and its screen orientation. */
import type { ActionDetails, ModuleAction, PendingAction } from './input.ts';


export interface InstalledApp {
  package: string;
  system: boolean;
}

export interface LaunchParams {
  package: string;
  /** An activity of that package (".Main" or "package/full.Class"); default its launcher activity. */
  activity?: string;
  /** Wait until it has drawn its first frame. */
  wait: boolean;
}

export interface OpenUrlParams {
  url: string;
  /** Open it in this app only. */
  package?: string;
  wait: boolean;
}

export interface InstallParams {
  /** An absolute path on this computer (inside files.uploadRoots). */
  path: string;
  grantPermissions: boolean;
  allowDowngrade: boolean;
  allowTest: boolean;
}

/**
 * Apps on a device. Anything that changes the device arrives through the action gate (pause,
 * read-only, the allowlist, the log) as an action of the shared app tools; listing is read-only.
 */
export interface AppsPort {
  list(target: string, options: { system?: boolean; filter?: string }, signal: AbortSignal): Promise<InstalledApp[]>;
  launch(action: PendingAction<ModuleAction<'launch_app', LaunchParams>>, signal: AbortSignal): Promise<ActionDetails>;
  stop(action: PendingAction<ModuleAction<'stop_app', { package: string }>>, signal: AbortSignal): Promise<ActionDetails>;
  openUrl(action: PendingAction<ModuleAction<'open_url', OpenUrlParams>>, signal: AbortSignal): Promise<ActionDetails>;
  install(action: PendingAction<ModuleAction<'install_apk', InstallParams>>, signal: AbortSignal): Promise<ActionDetails>;
}

export const ORIENTATION_VALUES = ['portrait', 'landscape', 'reverse-portrait', 'reverse-landscape', 'auto'] as const;
export type OrientationValue = (typeof ORIENTATION_VALUES)[number];

export interface OrientationPort {
  setOrientation(action: PendingAction<ModuleAction<'set_orientation', { orientation: OrientationValue }>>, signal: AbortSignal): Promise<ActionDetails>;
}
