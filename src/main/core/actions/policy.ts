/**
 * Who an action may reach. Sightline's own targets (its dashboard in a tab, the app's window)
 * are refused whatever the settings say. Then the input allowlist: when the user lists
 * applications, input goes only to targets whose names (as each source module says: a tab's host
 * or origin, a window's process, an Android package — never a title, which the page or app
 * controls) are on it.
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { TargetInfo } from '../../../shared/frame.ts';
import type { AllowBy } from '../ports.ts';
import type { SourceRegistry } from '../sources/registry.ts';
import { portOf } from '../sources/aim.ts';
import type { Source } from '../sources/source.ts';

/** A paused or read-only Sightline sends no input at all (checked before anything is touched). */
export function admitInput(input: { paused: boolean; readOnly: boolean }): void {
  if (input.paused) {
    throw new SightlineError('INPUT_PAUSED', 'Agent input is paused by the user.', 'Wait for the user to resume input (tray menu or dashboard); do not retry in a loop.');
  }
  if (input.readOnly) {
    throw new SightlineError('READ_ONLY', 'Sightline is in read-only mode: no input is sent.', 'The user can turn off input.readOnly in settings.');
  }
}

export async function checkAllowlist(sources: SourceRegistry, allow: readonly string[], source: Source, target: string, signal: AbortSignal, by?: AllowBy): Promise<void> {
  // A new tab or an app launch names no existing target: what it reaches is judged below (and by the source).
  const judgesTarget = !(by && ('as' in by || 'none' in by));
  const why = judgesTarget ? await sources.module(source.name)?.ownTarget?.(target, source, sources.own(), signal) : undefined;
  if (why) throw new SightlineError('NOT_ALLOWED', `${target} is Sightline itself: ${why}. Agents never operate Sightline.`, 'Work in another tab or window; the person changes Sightline through its own dashboard.');
  if (allow.length === 0 || (by && 'none' in by)) return;
  const allowed = (names: readonly string[]): boolean => names.some((n) => allow.some((a) => a.toLowerCase() === n.toLowerCase()));
  const refuse = (app: string): never => {
    throw new SightlineError('NOT_ALLOWED', `Input to ${app} (${source.name}) is not in the input allowlist.`, `The user can add "${app}" to input.allowlist in settings.`);
  };
  // An action aimed at a named place (launching an app, a new tab at an origin) is judged by that place alone.
  if (by && 'as' in by) {
    if (!allowed(placeNames(by.as))) refuse(placeNames(by.as)[0]!);
    return;
  }
  const info = (await portOf(source, 'screen').listTargets(signal)).find((t) => t.id === target);
  if (!info) throw new SightlineError('TARGET_NOT_FOUND', `${target} is gone.`, 'Call list_targets.');
  const names = allowNames(sources, info);
  const also = by && 'also' in by ? placeNames(by.also) : undefined;
  if (names === 'blank') {
    // A blank tab shows nothing of anyone's: it may only be sent to an allowed place.
    if (!also) throw new SightlineError('NOT_ALLOWED', `${target} is blank: it takes no input while input.allowlist is set.`, 'Navigate it to a site on the allowlist first.');
  } else if (!allowed(names)) refuse(names[0] ?? info.title ?? target);
  // Where the action leads (a page navigated to) must be allowed too.
  if (also && !allowed(also)) refuse(also[0]!);
}

/** The names a target answers to in the allowlist: its module's choice, else its app (never its title). */
export function allowNames(sources: SourceRegistry, info: TargetInfo): string[] | 'blank' {
  const m = sources.module(info.source);
  const names = m?.allowNames ? m.allowNames(info) : [info.app];
  if (names === 'blank') return names;
  return names.filter((n): n is string => typeof n === 'string' && n.length > 0);
}

/**
 * The names of a place an action leads to: a web origin answers to its host (with a port that
 * is not the scheme's own) and to itself; anything else (a package name) to itself.
 */
export function placeNames(place: string): string[] {
  if (/^https?:\/\//i.test(place)) {
    try {
      const u = new URL(place);
      return [u.host, u.origin];
    } catch {
      // Not a URL after all: judged by its name.
    }
  }
  return [place];
}
