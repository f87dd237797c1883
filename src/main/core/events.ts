/** What the core announces, to the dashboard's event stream, MCP sessions and the tray. */
import type { EventEmitter } from 'node:events';
import type { ProgressInfo } from '../../shared/api.ts';
import type { ActivityEntry } from '../../shared/activity.ts';
import type { SettingsValues } from '../../shared/settings.ts';
import type { FrameRecord } from './catalog/types.ts';

export interface CoreEvents {
  frame: [FrameRecord];
  'frame-updated': [FrameRecord];
  activity: [ActivityEntry];
  /** Something StatusInfo shows changed (pause, sources, clients). */
  status: [];
  progress: [ProgressInfo];
  settings: [SettingsValues];
  /** What tools are offered may have changed (a source came, went, or was switched). */
  'tools-changed': [];
  /** The resource list changed (a frame was pinned or unpinned). */
  'resources-changed': [];
}

export type CoreBus = EventEmitter<CoreEvents>;
