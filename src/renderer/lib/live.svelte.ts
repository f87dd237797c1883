/**
 * Live state shared by every screen: the server's status, the event stream, progress
 * of long work, and titles for target ids (frames carry only ids).
 */
import type { ProgressInfo, ServerEvent, StatusInfo } from '../../shared/api.ts';
import type { HealthCheck, TargetInfo } from '../../shared/frame.ts';
import type { SourceInfo } from '../../shared/sources.ts';
import type { AppInfo, SightlineBridge } from '../../shared/ipc.ts';
import { api, ApiRequestError, errorMessage, subscribe } from './api.ts';

declare global {
  interface Window {
    /** Present only in the Electron window (see src/preload/index.ts). */
    sightline?: SightlineBridge;
  }
}

export const live = $state<{
  status: StatusInfo | null;
  /** The sources the core has registered (labels, icons, settings fields, actions). */
  sources: SourceInfo[];
  /** The event stream is open. */
  connected: boolean;
  /** Set when the session is not authorised (the cookie is missing or stale). */
  unauthorized: boolean;
  /** Why the status could not be loaded. */
  error: string | null;
  progress: ProgressInfo[];
  /** id → title, for showing targets by name (live targets' titles now, gone ones' last known). */
  targetTitles: Record<string, string>;
  /** OS permission checks from the desktop app (empty in a browser). */
  permissions: HealthCheck[];
  app: AppInfo | null;
}>({
  status: null,
  sources: [],
  connected: false,
  unauthorized: false,
  error: null,
  progress: [],
  targetTitles: {},
  permissions: [],
  app: null,
});

type Listener = (e: ServerEvent) => void;
// Plain sets: subscribers, not state anything renders.
// eslint-disable-next-line svelte/prefer-svelte-reactivity
const listeners = new Set<Listener>();

/** Listen to server events; returns the unsubscribe function (use in `$effect`). */
export function onServerEvent(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Listeners told when the stream reconnects, to refetch what they may have missed. */
// eslint-disable-next-line svelte/prefer-svelte-reactivity
const reconnectListeners = new Set<() => void>();
export function onReconnect(fn: () => void): () => void {
  reconnectListeners.add(fn);
  return () => reconnectListeners.delete(fn);
}

/**
 * Ask for the status (and the sources' descriptions, once). `fresh` checks every source again
 * first (Setup's "Check again"); otherwise the server answers from its last checks. The status
 * also comes by itself: the event stream sends it as it opens and whenever it changes.
 */
export async function refreshStatus(fresh = false): Promise<void> {
  try {
    if (live.sources.length === 0) live.sources = (await api.sources()).sources;
    applyStatus(await api.status(fresh));
    live.error = null;
    live.unauthorized = false;
  } catch (e) {
    live.unauthorized = e instanceof ApiRequestError && e.status === 401;
    live.error = errorMessage(e);
  }
}

/** The pause state the person just asked for, while the server has not answered yet. */
let pendingPause: boolean | null = null;

/** A status from the server; a pause asked for and not yet answered keeps showing as asked. */
function applyStatus(s: StatusInfo): void {
  live.status = pendingPause === null ? s : { ...s, paused: pendingPause };
}

/** Names of every target the catalog has seen, gone ones included; live titles stay on top. */
export async function refreshTargetNames(): Promise<void> {
  try {
    const { names } = await api.targetNames();
    live.targetTitles = { ...names, ...live.targetTitles };
  } catch {
    // Names are a nicety: ids still show.
  }
}

/** A name seen in an event (a new frame's or action's label) for a target not yet named. */
function learnName(target: string | undefined, label: { title?: string; app?: string } | undefined): void {
  const name = label?.title ?? label?.app;
  if (!target || !name || live.targetTitles[target]) return;
  live.targetTitles = { ...live.targetTitles, [target]: name };
}

export function rememberTargets(targets: readonly TargetInfo[]): void {
  const next = { ...live.targetTitles };
  for (const t of targets) next[t.id] = t.title;
  live.targetTitles = next;
}

export async function refreshPermissions(): Promise<void> {
  const bridge = window.sightline;
  if (!bridge) return;
  try {
    live.permissions = await bridge.invoke('sightline:permissions');
    live.app = await bridge.invoke('sightline:app-info');
  } catch {
    live.permissions = [];
  }
}

function applyProgress(p: ProgressInfo): void {
  const others = live.progress.filter((x) => x.id !== p.id);
  live.progress = [...others, p];
  if (p.finished) {
    // Leave a finished bar visible for a moment so the user sees it complete.
    setTimeout(() => {
      live.progress = live.progress.filter((x) => x.id !== p.id || !x.finished);
    }, 1500);
  }
}

let stop: (() => void) | null = null;
let everOpened = false;

/**
 * Open the event stream once for the page's lifetime: its first message is the status (the pause
 * switch, the sources, the agents), so the header needs no request of its own. The sources'
 * descriptions and the names wait for `after` (the timeline's first page, when one is on its way):
 * the first screen is what a person looks at first, and each request ahead of it takes the
 * server's time and one of the browser's few connections to it.
 */
export function startLive(after?: Promise<unknown>): void {
  if (stop) return;
  const refresh = (): void => {
    void loadSources();
    void refreshPermissions();
    void refreshTargetNames();
  };
  if (after) void after.then(refresh, refresh);
  else refresh();
  stop = subscribe({
    onOpen: () => {
      live.connected = true;
      live.error = null;
      if (everOpened) {
        void refreshTargetNames();
        for (const fn of reconnectListeners) fn();
      }
      everOpened = true;
    },
    onError: () => {
      live.connected = false;
      // EventSource retries by itself; a status call tells us whether we lost auth.
      void refreshStatus();
    },
    onEvent: (e) => {
      if (e.type === 'status') applyStatus(e.status);
      else if (e.type === 'progress') applyProgress(e.progress);
      else if (e.type === 'frame') learnName(e.frame.target, e.frame.label);
      else if (e.type === 'activity') learnName(e.entry.target, e.entry.targetLabel);
      for (const fn of listeners) fn(e);
    },
  });
}

async function loadSources(): Promise<void> {
  if (live.sources.length > 0) return;
  try {
    live.sources = (await api.sources()).sources;
  } catch {
    // Labels fall back to the sources' names; the next status request tries again.
  }
}

/**
 * The kill switch: pause or resume all agent input. The switch shows the new state at once and
 * keeps showing it until the server answers (the server applies it at once too: it answers from
 * its last checks, never waiting on a probe); a refusal puts the switch back and is thrown.
 */
export async function setPaused(paused: boolean): Promise<void> {
  const before = live.status?.paused;
  pendingPause = paused;
  if (live.status) live.status = { ...live.status, paused };
  try {
    const s = await api.pause(paused);
    if (pendingPause === paused) pendingPause = null;
    applyStatus(s);
  } catch (e) {
    if (pendingPause === paused) {
      pendingPause = null;
      if (live.status && before !== undefined) live.status = { ...live.status, paused: before };
    }
    throw e;
  }
}
