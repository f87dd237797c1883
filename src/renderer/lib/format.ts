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
 * What a frame shows, for its title: the activity at that moment ("App — document"), else the
 * title its source gave when capturing, else its target's title, else the app, else its local id.
 */
export function frameTitle(
  frame: { target: string; activity?: { app: string; document?: string } | undefined; label?: { title?: string; app?: string } | undefined },
  targetTitles: Readonly<Record<string, string>>,
): string {
  const a = frame.activity;
  if (a) return a.document ? (a.app === 'unknown' ? a.document : `${a.app} — ${a.document}`) : a.app;
  return frame.label?.title ?? targetTitles[frame.target] ?? frame.label?.app ?? localTargetId(frame.target);
}
