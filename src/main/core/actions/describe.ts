/** What an action did, in a few plain sentences: the tool's answer and the activity log say the same. */
import type { ActionResult } from '../ports.ts';

export function describeOutcome(r: Partial<ActionResult>): string {
  const parts: string[] = [];
  const el = (e: { role?: string; name?: string }): string => [e.role, e.name ? `“${short(e.name, 40)}”` : undefined].filter(Boolean).join(' ') || 'an element';
  // The element that took the value says what was hit; naming it twice says nothing more.
  const same = r.hit && r.received && (r.hit.node === undefined || r.hit.node === r.received.node);
  if (r.hit && !same) parts.push(`Hit ${el(r.hit)}${r.hit.app ? ` in ${r.hit.app}` : ''}`);
  if (r.received) {
    const value = r.received.value !== undefined ? ` now holds ${JSON.stringify(short(r.received.value))}` : ' took the input';
    parts.push(`${el(r.received)}${value}${r.received.valueMatches === false ? ' — NOT the text sent: check the field' : ''}`);
  }
  if (r.navigated) parts.push(`Navigated to ${r.navigated.url}`);
  if (r.dialog) parts.push(`A ${r.dialog.type} dialog is open (${JSON.stringify(short(r.dialog.message))}): answer it with handle_dialog`);
  if (r.title) parts.push(`Title now ${JSON.stringify(short(r.title.to))}`);
  if (r.keyboardShown !== undefined) parts.push(r.keyboardShown ? 'The on-screen keyboard is up' : 'No on-screen keyboard');
  if (r.remapped) parts.push(cap(r.remapped));
  if (r.changed) parts.push(`Changed ${r.changed.width}×${r.changed.height} at (${r.changed.x}, ${r.changed.y}), image px of ${r.changedRef}`);
  else if (r.afterRef) parts.push('No visible change');
  return parts.join('. ');
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function short(s: string, max = 80): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
