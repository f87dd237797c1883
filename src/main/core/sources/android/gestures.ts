/**
 * Touch gestures as `input` commands, in device pixels. Pure. Coordinates keep two decimals:
 * `input` parses floats (Float.parseFloat since Android 4), so a node's centre at x.5 is pressed
 * there, not rounded half a pixel away.
 *
 * A drag is chosen by what the device has:
 *  - Android 11+ (SDK 30): `input motionevent DOWN`, a pause of `holdMs`, MOVE steps, a short
 *    rest, UP. The finger stops before it lifts, so nothing flings, and the hold is the one asked
 *    for. (Where `motionevent` turns out to be missing, the caller falls back to the next line.)
 *  - Android 7–10 (SDK 24–29): with a hold, `input draganddrop` (it holds for the device's
 *    long-press timeout, ~400–500 ms, whatever `holdMs` says, then moves over `durationMs`);
 *    without, `input swipe` over `durationMs`.
 *  - older: `input swipe` without a hold; a long-press drag is refused (UNSUPPORTED).
 */
import type { Point } from '../../../../shared/frame.ts';

/** A device coordinate as `input` takes it: at most two decimals, no trailing zeros. */
export function coord(n: number): string {
  return String(Math.round(n * 100) / 100);
}

const xy = (p: Point): string => `${coord(p.x)} ${coord(p.y)}`;

export function tapCommand(p: Point, clicks = 1): string {
  return Array.from({ length: Math.max(1, clicks) }, () => `input tap ${xy(p)}`).join(' && ');
}

/** A long press: a swipe that does not move. */
export function longPressCommand(p: Point, holdMs: number): string {
  return `input swipe ${xy(p)} ${xy(p)} ${Math.max(1, Math.round(holdMs))}`;
}

export function swipeCommand(a: Point, b: Point, durationMs: number): string {
  return `input swipe ${xy(a)} ${xy(b)} ${Math.max(1, Math.round(durationMs))}`;
}

export type DragMethod = 'motionevent' | 'draganddrop' | 'swipe';

export const MOTIONEVENT_SDK = 30;
export const DRAGANDDROP_SDK = 24;

/** How to drag on a device of this SDK level, or why it cannot. */
export function dragMethod(sdk: number | undefined, holdMs: number | undefined, motionEventWorks = true): DragMethod | { unsupported: string } {
  const hold = (holdMs ?? 0) > 0;
  const level = sdk ?? DRAGANDDROP_SDK;
  if (level >= MOTIONEVENT_SDK && motionEventWorks) return 'motionevent';
  if (!hold) return 'swipe';
  if (level >= DRAGANDDROP_SDK) return 'draganddrop';
  return { unsupported: `A long-press drag needs Android 7 or newer (this device reports SDK ${sdk ?? 'unknown'}).` };
}

export interface DragOptions {
  durationMs: number;
  holdMs?: number;
}

/** One shell line performing the drag. */
export function dragCommand(method: DragMethod, a: Point, b: Point, o: DragOptions): string {
  const ms = Math.max(1, Math.round(o.durationMs));
  if (method === 'swipe') return swipeCommand(a, b, ms);
  if (method === 'draganddrop') return `input draganddrop ${xy(a)} ${xy(b)} ${ms}`;
  return motionCommand(a, b, ms, o.holdMs ?? 0);
}

/**
 * DOWN, hold, MOVE in steps of ~60 px (3–20 of them), rest 150 ms, UP. Each `input` call takes
 * tens of ms itself, so the steps carry no sleeps of their own beyond `durationMs` spread thinly.
 * The UP is sent even when a step failed, so no finger is left down.
 */
export function motionCommand(a: Point, b: Point, durationMs: number, holdMs: number): string {
  const dist = Math.hypot(b.x - a.x, b.y - a.y);
  const steps = Math.min(20, Math.max(3, Math.round(dist / 60)));
  const pause = (ms: number): string[] => (ms >= 10 ? [`sleep ${coord(ms / 1000)}`] : []);
  const moves: string[] = [];
  for (let i = 1; i <= steps; i++) {
    const t = i / steps;
    moves.push(`input motionevent MOVE ${xy({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t })}`, ...pause(durationMs / steps - 40));
  }
  const body = [`input motionevent DOWN ${xy(a)}`, ...pause(holdMs), ...moves, 'sleep 0.15'].join(' && ');
  return `${body}; input motionevent UP ${xy(b)}`;
}

/** What an `input` error says when the command itself is missing (an older Android). */
export function unknownInputCommand(output: string): boolean {
  return /Unknown command|Error: Unknown|unknown command|Usage: input/i.test(output);
}
