/**
 * What a source is to the core: a name, its health, and the capabilities it has, each an
 * optional port. A live source has `screen` (targets, capture, staleness) and usually `input`
 * and `tree`; an archive has `history`. The core owns frames (fit, encode, store), the
 * coordinate mapping, the action gate and the activity log; a port supplies only the
 * device-specific step. Nothing here names a particular source.
 */
import type { SourceHealth, SourceName } from '../../../shared/frame.ts';
import type { NetworkPort, TextPort, TreePort } from './ports/content.ts';
import type { AppsPort, OrientationPort } from './ports/devices.ts';
import type { HistoryPort } from './ports/history.ts';
import type { InputPort } from './ports/input.ts';
import type { ScreenPort } from './ports/screen.ts';

export type { StoredFrame } from '../catalog/types.ts';
export type * from './ports/screen.ts';
export type * from './ports/input.ts';
export type * from './ports/content.ts';
export type * from './ports/devices.ts';
export type * from './ports/history.ts';
export { ACTION_KINDS } from './ports/input.ts';
export { ORIENTATION_VALUES } from './ports/devices.ts';

export interface Source {
  readonly name: SourceName;
  /** Never throws: an unavailable source says why and what to do. */
  health(): Promise<SourceHealth>;
  /** Live targets: list, capture, judge a frame's staleness. */
  readonly screen?: ScreenPort;
  /** Input actions on live targets (a module's own kinds besides the built-in ones). */
  readonly input?: InputPort<unknown, unknown>;
  /** A UI tree (DOM, uiautomator) of live targets. */
  readonly tree?: TreePort;
  /** Text on screen a source knows without OCR (DOM, UI tree): click and wait by text use it first. */
  readonly text?: TextPort;
  /** Network activity of a target (the browser): wait_for networkIdle. */
  readonly network?: NetworkPort;
  /** Installed apps of a device: list, launch, stop, open a link, install. */
  readonly apps?: AppsPort;
  /** A device's screen orientation. */
  readonly orientation?: OrientationPort;
  /** A read-only history of screenshots (an archive). */
  readonly history?: HistoryPort;
  dispose?(): Promise<void>;
}


/** The optional ports by name, so a tool can ask a target's source for one without knowing which source it is. */
export interface Capabilities {
  screen: ScreenPort;
  input: InputPort<unknown, unknown>;
  tree: TreePort;
  text: TextPort;
  network: NetworkPort;
  history: HistoryPort;
  apps: AppsPort;
  orientation: OrientationPort;
}
export type CapabilityName = keyof Capabilities;
