/**
 * Why a ManicTime listing came back empty, and what to change in ManicTime. Pure.
 */
import type { EmptyReason } from '../../../../shared/frame.ts';

/** ManicTime deletes screenshots after this many days unless the user raises it. */
export const DEFAULT_RETENTION_DAYS = 3;
const DAY_MS = 86_400_000;

export const SETTINGS_PATH = 'ManicTime → Tools → Settings → Screenshots';
export const REMEDIATION_CAPTURE = `ManicTime takes no screenshots until they are turned on: ${SETTINGS_PATH} (and keep ManicTime running).`;
export const REMEDIATION_RETENTION = `ManicTime deletes screenshots older than its retention setting (${DEFAULT_RETENTION_DAYS} days by default): raise it in ${SETTINGS_PATH} to keep more history.`;

export interface ArchiveFacts {
  /** The screenshots folder exists. */
  folderFound: boolean;
  folder: string | undefined;
  /** Screenshots in the whole archive. */
  total: number;
  firstMs: number;
  lastMs: number;
  /** Screenshots in the window ignoring the target filter. */
  inWindowAnyTarget: number;
  target: string | undefined;
  /** Targets that do have screenshots in the window (for the NO_MATCH hint). */
  targetsInWindow: string[];
}

export interface EmptyExplanation {
  reason: EmptyReason;
  remediation: string;
}

/** `YYYY-MM-DD HH:mm` in UTC for messages (the entries themselves carry local wall clocks). */
function when(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function explainEmpty(facts: ArchiveFacts, window: { fromMs: number; toMs: number }, nowMs: number): EmptyExplanation {
  if (!facts.folderFound) {
    return {
      reason: 'SOURCE_UNAVAILABLE',
      remediation: `ManicTime's Screenshots folder was not found${facts.folder ? ` at ${facts.folder}` : ''}. Set manictime.dataDir (or MANICTIME_DATA_DIR), or manictime.screenshotsDir if the folder was moved. ${REMEDIATION_CAPTURE}`,
    };
  }
  if (facts.total === 0) {
    return { reason: 'CAPTURE_DISABLED', remediation: `The ManicTime Screenshots folder holds no screenshots. ${REMEDIATION_CAPTURE}` };
  }
  if (facts.inWindowAnyTarget > 0 && facts.target) {
    return {
      reason: 'NO_MATCH',
      remediation: `${facts.inWindowAnyTarget} screenshots exist in this window, none for ${facts.target}. Targets with screenshots here: ${facts.targetsInWindow.join(', ') || 'none'}; or leave target out.`,
    };
  }
  const range = `The archive holds ${facts.total} screenshots from ${when(facts.firstMs)} to ${when(facts.lastMs)}.`;
  // The window ends before the oldest screenshot ManicTime still keeps.
  if (window.toMs <= facts.firstMs) {
    return { reason: 'RETENTION_OR_PURGED', remediation: `${range} ${REMEDIATION_RETENTION}` };
  }
  // Nothing since the window began and the newest is old: capture stopped.
  if (window.fromMs > facts.lastMs && nowMs - facts.lastMs > DAY_MS) {
    return {
      reason: 'CAPTURE_DISABLED',
      remediation: `${range} Nothing was captured since: ${REMEDIATION_CAPTURE}`,
    };
  }
  return {
    reason: 'UNKNOWN',
    remediation: `${range} None fall in this window: ManicTime takes none while the computer is idle, locked or off, or they were deleted. Widen from/to. If screenshots are missing generally, check ${SETTINGS_PATH} (capture enabled, retention ${DEFAULT_RETENTION_DAYS} days by default).`,
  };
}
