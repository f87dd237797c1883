/**
 * One reading of the sources' health for every screen: the header's count, the Setup badge and
 * cards, and the Targets group heads all come from here, so they cannot disagree.
 */
import type { StatusInfo } from '../../shared/api.ts';
import type { HealthCheck, SourceHealth } from '../../shared/frame.ts';
import type { IconName } from '../components/icons.ts';

export type SourceStateKind = 'off' | 'checking' | 'ready' | 'degraded' | 'unavailable';

export interface SourceState {
  kind: SourceStateKind;
  /** What a person reads. */
  label: string;
  /** The pill's and card's colour class. */
  cls: '' | 'ok' | 'warn' | 'error';
  icon: IconName;
}

const STATES: Record<SourceStateKind, SourceState> = {
  off: { kind: 'off', label: 'Off', cls: '', icon: 'x' },
  checking: { kind: 'checking', label: 'Checking…', cls: '', icon: 'refresh' },
  ready: { kind: 'ready', label: 'Ready', cls: 'ok', icon: 'checkCircle' },
  degraded: { kind: 'degraded', label: 'Partly working', cls: 'warn', icon: 'alert' },
  unavailable: { kind: 'unavailable', label: 'Needs attention', cls: 'error', icon: 'alertCircle' },
};

/**
 * A source's state. `refused` is newer evidence than the last health check: a call to the source
 * that just came back unavailable (Targets' listing) outranks a health that still says ready.
 */
export function sourceState(h: SourceHealth | undefined, refused = false): SourceState {
  if (!h || !h.enabled) return STATES.off;
  if (refused) return STATES.unavailable;
  if (h.checking) return STATES.checking;
  if (!h.available) return STATES.unavailable;
  if (h.degraded) return STATES.degraded;
  return STATES.ready;
}

export interface StatusSummary {
  enabled: number;
  ready: number;
  /** Enabled sources not ready (those not checked yet aside), plus failed OS permission checks: Setup's badge. */
  attention: number;
}

export function summarize(status: StatusInfo | null, permissions: readonly HealthCheck[]): StatusSummary {
  const enabled = (status?.sources ?? []).filter((s) => s.enabled);
  const kinds = enabled.map((s) => sourceState(s).kind);
  const ready = kinds.filter((k) => k === 'ready').length;
  const checking = kinds.filter((k) => k === 'checking').length;
  return { enabled: enabled.length, ready, attention: enabled.length - ready - checking + permissions.filter((c) => c.status === 'error').length };
}
