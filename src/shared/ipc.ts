/**
 * The typed IPC contract between the Electron window and the app's main process.
 * Pure types and constants (no electron, no node:*).
 *
 * The dashboard reaches the core over the local HTTP API (see src/renderer/lib/api.ts);
 * IPC carries only what the app alone knows: OS permissions and app facts. The preload
 * exposes `window.sightline.invoke(channel, ...args)` for the channels listed here and
 * nothing else; the main process checks every sender (see src/main/app/ipcGuard.ts).
 */
import type { HealthCheck } from './frame.ts';

export interface AppInfo {
  /** The app's version (package.json). */
  version: string;
  platform: string;
  /** Whether the app was asked to start at login (OS setting, not only ours). */
  openAtLogin: boolean;
}

export type PermissionPane = 'screen' | 'accessibility';

/** channel → [arguments, result]. */
export interface IpcContract {
  /** OS permission checks (macOS Screen Recording, Accessibility) for onboarding. */
  'sightline:permissions': { args: []; result: HealthCheck[] };
  /** Open the OS settings pane where a permission is granted (macOS). */
  'sightline:open-permission-pane': { args: [pane: PermissionPane]; result: boolean };
  /** Ask macOS to show its Accessibility prompt (adds the app to the list). */
  'sightline:request-accessibility': { args: []; result: boolean };
  'sightline:app-info': { args: []; result: AppInfo };
}

export type IpcChannel = keyof IpcContract;
export type IpcArgs<C extends IpcChannel> = IpcContract[C]['args'];
export type IpcResult<C extends IpcChannel> = IpcContract[C]['result'];

export const IPC_CHANNELS = [
  'sightline:permissions',
  'sightline:open-permission-pane',
  'sightline:request-accessibility',
  'sightline:app-info',
] as const satisfies readonly IpcChannel[];

export function isIpcChannel(v: unknown): v is IpcChannel {
  return typeof v === 'string' && (IPC_CHANNELS as readonly string[]).includes(v);
}

/** What the preload puts on `window.sightline` (transport only). */
export interface SightlineBridge {
  invoke<C extends IpcChannel>(channel: C, ...args: IpcArgs<C>): Promise<IpcResult<C>>;
}

/** The global name the preload exposes the bridge under. */
export const BRIDGE_GLOBAL = 'sightline';
