/** What an action did, in a few plain sentences: the tool's answer and the activity log say the same. */
import type { ActionResult } from '../ports.ts';

export function describeOutcome(r: Partial<ActionResult>): string {
  const parts: string[] = [];
  const el = (e: { role?: string; name?: string }): string => [e.role, e.name ? `“${short(e.name)}”` : undefined].filter(Boolean).join(' ') || 'an element';
  if (r.hit) parts.push(`Hit ${el(r.hit)}${r.hit.node ? ` (node ${r.hit.node})` : ''}${r.hit.app ? ` in ${r.hit.app}` : ''}`);
  if (r.received) {
    const value = r.received.value !== undefined ? `, which now holds ${JSON.stringify(short(r.received.value))}` : '';
    parts.push(`Typed into ${el(r.received)}${value}${r.received.valueMatches === false ? ' — NOT the text sent: check the field' : ''}`);
  }
  if (r.navigated) parts.push(`The page navigated to ${r.navigated.url}: older frames are stale, capture again`);
  if (r.dialog) parts.push(`A ${r.dialog.type} dialog is open (${JSON.stringify(short(r.dialog.message))}): answer it with handle_dialog`);
  if (r.title) parts.push(`The title is now ${JSON.stringify(short(r.title.to))}`);
  if (r.keyboardShown !== undefined) parts.push(r.keyboardShown ? 'The on-screen keyboard is up' : 'No on-screen keyboard');
  if (r.remapped) parts.push(r.remapped.charAt(0).toUpperCase() + r.remapped.slice(1));
  if (r.changed) parts.push(`Changed: x ${r.changed.x}, y ${r.changed.y}, ${r.changed.width}×${r.changed.height} image px of frame ${r.changedRef}`);
  else if (r.afterRef) parts.push(`No visible change (frame ${r.afterRef} captured after)`);
  return parts.join('. ');
}

function short(s: string): string {
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
}
