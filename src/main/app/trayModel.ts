/**
 * The tray as data: its state (which icon), tooltip and menu, derived from the core's
 * status. `index.ts` only turns these descriptors into Electron objects, so every
 * decision here is unit-tested without Electron.
 */
import type { StatusInfo } from '../../shared/api.ts';
import type { SourceName, TargetInfo } from '../../shared/frame.ts';

export type TrayState = 'idle' | 'paused' | 'busy' | 'attention';

export type TrayAction =
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'capture'; target: string }
  | { kind: 'open-dashboard' }
  | { kind: 'open-setup' }
  | { kind: 'quit' };

export type TrayItem =
  | { type: 'separator' }
  | { type: 'label'; label: string }
  | { type: 'action'; label: string; action: TrayAction; enabled: boolean }
  | { type: 'submenu'; label: string; items: TrayItem[]; enabled: boolean };

export interface TrayInput {
  status: StatusInfo | null;
  /** Live targets (desktop, browser, android) to offer "Capture now" for. */
  targets: readonly TargetInfo[];
  /** A capture or other long work is running. */
  busy: boolean;
  /** Each source's label, from its module (default: the name, capitalised). */
  labels?: Readonly<Record<SourceName, string>>;
}

/** Menus longer than this are hard to use; the dashboard lists the rest. */
const MAX_TARGETS_PER_SOURCE = 12;

export function sourceCounts(status: StatusInfo | null): { enabled: number; available: number } {
  const enabled = (status?.sources ?? []).filter((s) => s.enabled);
  return { enabled: enabled.length, available: enabled.filter((s) => s.available).length };
}

/** Paused wins (the human must see the kill switch is on), then busy, then a problem. */
export function trayState(input: TrayInput): TrayState {
  if (input.status?.paused) return 'paused';
  if (input.busy) return 'busy';
  const { enabled, available } = sourceCounts(input.status);
  if (!input.status || available < enabled) return 'attention';
  return 'idle';
}

export function truncate(s: string, max = 48): string {
  const clean = s.replace(/\s+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

export function trayTooltip(input: TrayInput): string {
  const s = input.status;
  if (!s) return 'Sightline — starting…';
  const { enabled, available } = sourceCounts(s);
  const agents = `${s.clients} ${s.clients === 1 ? 'agent' : 'agents'} connected`;
  return `Sightline — ${available}/${enabled} sources · ${agents} · input ${s.paused ? 'PAUSED' : 'live'}`;
}

export function trayMenu(input: TrayInput): TrayItem[] {
  const s = input.status;
  const { enabled, available } = sourceCounts(s);
  const items: TrayItem[] = [];
  if (s) {
    items.push({ type: 'label', label: `Sources: ${available} of ${enabled} available` });
    items.push({ type: 'label', label: `Agents connected: ${s.clients}` });
    items.push({ type: 'label', label: s.paused ? 'Agent input: PAUSED' : s.readOnly ? 'Agent input: read-only' : 'Agent input: live' });
  } else {
    items.push({ type: 'label', label: 'Starting…' });
  }
  items.push({ type: 'separator' });
  items.push(
    s?.paused
      ? { type: 'action', label: 'Resume agent input', action: { kind: 'resume' }, enabled: true }
      : { type: 'action', label: 'Pause agent input', action: { kind: 'pause' }, enabled: !!s },
  );
  items.push(captureMenu(input.targets, input.busy, input.labels ?? {}));
  items.push({ type: 'separator' });
  items.push({ type: 'action', label: 'Open dashboard', action: { kind: 'open-dashboard' }, enabled: true });
  if (s && available < enabled) items.push({ type: 'action', label: 'Fix setup…', action: { kind: 'open-setup' }, enabled: true });
  items.push({ type: 'separator' });
  items.push({ type: 'action', label: 'Quit Sightline', action: { kind: 'quit' }, enabled: true });
  return items;
}

function captureMenu(targets: readonly TargetInfo[], busy: boolean, labels: Readonly<Record<SourceName, string>>): TrayItem {
  const bySource = new Map<SourceName, TargetInfo[]>();
  for (const t of targets) bySource.set(t.source, [...(bySource.get(t.source) ?? []), t]);
  const items: TrayItem[] = [];
  for (const [source, list] of bySource) {
    if (items.length > 0) items.push({ type: 'separator' });
    items.push({ type: 'label', label: labels[source] ?? source.charAt(0).toUpperCase() + source.slice(1) });
    for (const t of list.slice(0, MAX_TARGETS_PER_SOURCE)) {
      items.push({ type: 'action', label: truncate(t.title || t.id), action: { kind: 'capture', target: t.id }, enabled: !busy });
    }
    if (list.length > MAX_TARGETS_PER_SOURCE) items.push({ type: 'label', label: `${list.length - MAX_TARGETS_PER_SOURCE} more in the dashboard` });
  }
  if (items.length === 0) items.push({ type: 'label', label: 'No targets available' });
  return { type: 'submenu', label: busy ? 'Capture now (busy…)' : 'Capture now', items, enabled: true };
}

/** The icon file (under resources/) for a state; macOS uses template images. */
export function trayIconFile(state: TrayState, platform: string): string {
  const suffix = state === 'idle' || state === 'attention' ? '' : `-${state}`;
  return platform === 'darwin' ? `tray${suffix}Template.png` : `tray${suffix}.png`;
}
