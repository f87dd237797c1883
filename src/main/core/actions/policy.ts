/**
 * The input allowlist: when the user lists applications, input goes only to targets whose
 * names (as each source module says: an app name, a browser host, an Android package) are on it.
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
  if (allow.length === 0 || (by && 'none' in by)) return;
  const allowed = (names: readonly string[]): boolean => names.some((n) => allow.some((a) => a.toLowerCase() === n.toLowerCase()));
  const refuse = (app: string): never => {
    throw new SightlineError('NOT_ALLOWED', `Input to ${app} (${source.name}) is not in the input allowlist.`, `The user can add "${app}" to input.allowlist in settings.`);
  };
  // An action aimed at a named app (launching it, a new tab at a host) is judged by that app alone.
  if (by && 'as' in by) {
    if (!allowed([by.as])) refuse(by.as);
    return;
  }
  const targets = await portOf(source, 'screen').listTargets(signal);
  const info = targets.find((t) => t.id === target);
  if (!info) throw new SightlineError('TARGET_NOT_FOUND', `${target} is gone.`, 'Call list_targets.');
  const names = allowNames(sources, info);
  if (names !== 'any' && !allowed(names)) refuse(info.app ?? info.title ?? target);
  // Where the action leads (a page navigated to) must be allowed too.
  if (by && 'also' in by && !allowed([by.also])) refuse(by.also);
}

/** The names a target answers to in the allowlist: its module's choice, else its app and title. */
export function allowNames(sources: SourceRegistry, info: TargetInfo): string[] | 'any' {
  const m = sources.module(info.source);
  const names = m?.allowNames ? m.allowNames(info) : [info.app, info.title];
  if (names === 'any') return names;
  return names.filter((n): n is string => typeof n === 'string' && n.length > 0);
}
