/**
 * Pure formatting and time-grouping helpers for the dashboard (no DOM, no Svelte),
 * so they are unit-tested under Node.
 */

/** The hour bucket a timestamp falls in, in the viewer's local time: `YYYY-MM-DD HH`. */
export function hourKey(iso: string): string {
  const d = new Date(iso);
  return `${dayKeyOf(d)} ${pad(d.getHours())}`;
}

export function dayKey(iso: string): string {
  return dayKeyOf(new Date(iso));
}

function dayKeyOf(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Today", "Yesterday", or "Mon 17 Nov" (with the year when it is not this year). */
export function dayLabel(iso: string, now: Date = new Date()): string {
  const d = new Date(iso);
  const key = dayKeyOf(d);
  if (key === dayKeyOf(now)) return 'Today';
  const y = new Date(now);
  y.setDate(now.getDate() - 1);
  if (key === dayKeyOf(y)) return 'Yesterday';
  const base = `${WEEKDAYS[d.getDay()]} ${d.getDate()} ${MONTHS[d.getMonth()]}`;
  return d.getFullYear() === now.getFullYear() ? base : `${base} ${d.getFullYear()}`;
}

/** "14:00" — the start of the hour a timestamp falls in. */
export function hourLabel(iso: string): string {
  return `${pad(new Date(iso).getHours())}:00`;
}

/** "14:03:22" local time. */
export function timeOfDay(iso: string): string {
  const d = new Date(iso);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** "Today 14:03:22", "Yesterday 09:01:00", "Mon 17 Nov 09:01:00". */
export function dateTime(iso: string, now: Date = new Date()): string {
  return `${dayLabel(iso, now)} ${timeOfDay(iso)}`;
}

/** "just now", "5 s ago", "3 min ago", "2 h ago", else the date. */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const s = Math.round((now.getTime() - new Date(iso).getTime()) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return dateTime(iso, now);
}

export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function formatCount(n: number): string {
  // Written out rather than toLocaleString: its first call loads the locale's number formats,
  // about 90 ms on the main thread right when the timeline's first page arrives.
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  return `${n < 0 ? '-' : ''}${String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
}

/** Percent with at most two decimals, no trailing zeros: 12.5, 33.33, 0. */
export function formatPercent(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/** The part of a global target id after its source prefix (`desktop:window:0x1` → `window:0x1`). */
export function localTargetId(target: string): string {
  const i = target.indexOf(':');
  return i < 0 ? target : target.slice(i + 1);
}

/**
 * A target id said to a person, when nothing better names it: `manictime:monitor:0` → "Screen 1",
 * `desktop:display:1` → "Display 2", a window → "Window", a phone → "Device R58M…", a tab → "Tab".
 */
export function placeName(target: string): string {
  const local = localTargetId(target);
  const screen = /^(monitor|display|screen):(\d+)$/.exec(local);
  if (screen) return `${screen[1] === 'display' ? 'Display' : 'Screen'} ${Number(screen[2]) + 1}`;
  if (/^window:/.test(local)) return 'Window';
  if (target.startsWith('android:')) return `Device ${local.replace(/^.*\//, '')}`;
  if (target.startsWith('browser:')) return 'Tab';
  return local;
}

export interface FrameName {
  /** What it shows, first: the document, the page, the file; else the app; else where it was. */
  main: string;
  /** The app (or site, or device) it was in, when that is not already `main`. */
  context?: string;
}

/**
 * A window title split into what it shows and the app's own name at its end ("old.ts - Visual
 * Studio Code" of app `code` → "old.ts", "Visual Studio Code"), when that end names the app.
 */
function splitTitle(title: string, app: string | undefined): { main: string; app?: string } {
  if (!app) return { main: title };
  const m = /^(.*\S)\s+[-—–|·]\s+([^-—–|·]+)$/.exec(title);
  if (!m) return { main: title };
  const tail = m[2]!.trim();
  const t = tail.toLowerCase();
  const a = app.toLowerCase();
  return t === a || (a.length >= 3 && (t.includes(a) || a.includes(t))) ? { main: m[1]!, app: tail } : { main: title };
}

function hostOf(url: string | undefined): string | undefined {
  if (!url || !/^https?:/i.test(url)) return undefined;
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}

/**
 * What a frame shows, document first (rows of one app then read by what differs, not by a repeated
 * app name): the activity at that moment ("notes.md", in "Code"), else the title its source gave
 * when capturing (its app's name cut from the end), else the target's title, else the app, else
 * the place in words (never `monitor:0`).
 */
export function frameName(
  frame: { target: string; activity?: { app: string; document?: string } | undefined; label?: { title?: string; app?: string; document?: string } | undefined },
  targetTitles: Readonly<Record<string, string>>,
): FrameName {
  const a = frame.activity;
  if (a) {
    const app = a.app === 'unknown' ? undefined : a.app;
    if (a.document) return app ? { main: a.document, context: app } : { main: a.document };
    return { main: app ?? placeName(frame.target) };
  }
  const l = frame.label;
  // A device's frames name the app in front; the device is where it was.
  const where = targetTitles[frame.target];
  if (l?.title) {
    const split = splitTitle(l.title, l.app);
    const main = split.main;
    const context = split.app ?? l.app ?? hostOf(l.document);
    return context && context !== main ? { main, context } : { main };
  }
  if (l?.app) return where && where !== l.app ? { main: l.app, context: where } : { main: l.app };
  return { main: where ?? placeName(frame.target) };
}

/** `frameName` as one line: "notes.md — Code". */
export function frameTitle(frame: Parameters<typeof frameName>[0], targetTitles: Readonly<Record<string, string>>): string {
  const n = frameName(frame, targetTitles);
  return n.context ? `${n.main} — ${n.context}` : n.main;
}

/** A run of frames' span: "11:03–11:27", or "within a minute at 11:03" when it lies in one minute (never "11:03–11:03"). */
export function spanLabel(fromIso: string, toIso: string): string {
  const a = timeOfDay(fromIso).slice(0, 5);
  const b = timeOfDay(toIso).slice(0, 5);
  return a === b ? `within a minute at ${a}` : `${a}–${b}`;
}
