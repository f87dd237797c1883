/** Pure helpers for the activity log (tested under Node). */
import type { ActivityEntry, ActivityQuery } from '../../shared/api.ts';

/** Tools an agent can call, for the filter (entries may name others; they are added as seen). */
export const KNOWN_TOOLS = [
  'click',
  'type_text',
  'press_key',
  'scroll',
  'swipe',
  'focus_window',
  'scroll_into_view',
  'capture',
  'crop_screenshot',
  'get_ui_tree',
  'list_targets',
  'list_screenshots',
  'get_screenshot',
] as const;

export function matchesActivity(e: ActivityEntry, q: ActivityQuery): boolean {
  if (q.tool && e.tool !== q.tool) return false;
  if (q.target && e.target !== q.target) return false;
  if (q.result === 'ok' && e.result !== 'ok') return false;
  if (q.result === 'error' && e.result === 'ok') return false;
  return true;
}

const short = (s: string, n = 40): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** What the action did, in a few words: `"hello"`, `Control+A`, `↓ 300`, `right ×2`. */
export function paramSummary(e: ActivityEntry): string {
  const p = e.params ?? {};
  const parts: string[] = [];
  if (typeof p.text === 'string') parts.push(`“${short(p.text)}”`);
  if (typeof p.key === 'string') parts.push(p.key);
  if (typeof p.deltaY === 'number' && p.deltaY !== 0) parts.push(`${p.deltaY > 0 ? '↓' : '↑'} ${Math.abs(p.deltaY)}`);
  if (typeof p.deltaX === 'number' && p.deltaX !== 0) parts.push(`${p.deltaX > 0 ? '→' : '←'} ${Math.abs(p.deltaX)}`);
  if (typeof p.button === 'string' && p.button !== 'left') parts.push(p.button);
  if (typeof p.clicks === 'number' && p.clicks > 1) parts.push(`×${p.clicks}`);
  if (typeof p.node === 'string') parts.push(`node ${short(p.node, 16)}`);
  if (typeof p.query === 'string') parts.push(`“${short(p.query)}”`);
  if (typeof p.toX === 'number' && typeof p.toY === 'number') parts.push(`to ${Math.round(p.toX)}, ${Math.round(p.toY)}`);
  return parts.join(' ');
}

export function pointText(p: { x: number; y: number } | undefined): string {
  return p ? `${Math.round(p.x * 10) / 10}, ${Math.round(p.y * 10) / 10}` : '';
}
