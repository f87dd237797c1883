/**
 * Who an action may reach, judged once, by the source holding the target's lock, on what it reads
 * there (the gate hands this judgement to the source inside the pending action). A paused or
 * read-only Sightline sends nothing. Sightline's own targets (its dashboard in a tab, the app's
 * window) are refused whatever the settings say. Then the input allowlist: when the user lists
 * applications, input goes only to targets whose names are on it — what a target cannot forge (a
 * tab's host or origin, a window's process as the OS tells it, an Android package), never a title,
 * which the page or app controls — and actions lead only to places on it.
 */
import { basename } from 'node:path';
import { SightlineError } from '../../../shared/errors.ts';
import type { SourceName } from '../../../shared/frame.ts';
import type { AllowBy } from '../ports.ts';
import type { Place, TargetFacts } from '../sources/source.ts';
import { allowedFile } from '../util/allowedFile.ts';
import { ownUrl, type OwnFacts } from '../util/self.ts';

/** What the policy reads, now, at each judgement: the input settings and what is Sightline's own. */
export interface PolicyDeps {
  input(): { paused: boolean; readOnly: boolean; allowlist: readonly string[] };
  uploadRoots(): readonly string[];
  own(): OwnFacts;
}

/** Whether agent input may go anywhere now, and to this target. */
export interface InputPolicy {
  /** INPUT_PAUSED or READ_ONLY when no input may go out at all. */
  admit(): void;
  /** NOT_ALLOWED unless the target, as its source read it, may take input (`blankOk`: the action leads somewhere judged on its own). */
  target(facts: TargetFacts, at: { source: SourceName; target: string; blankOk: boolean }): void;
  /** NOT_ALLOWED unless an action may lead to `place`. */
  place(place: Place, source: SourceName): void;
  /** Whether the allowlist is set. */
  confined(): boolean;
  /** The real path of a file an action hands to a target, inside files.uploadRoots. */
  file(path: string, what: string): Promise<string>;
}

export function inputPolicy(d: PolicyDeps): InputPolicy {
  return {
    admit: () => admitInput(d.input()),
    target: (facts, at) => judgeTarget(facts, at, d.input().allowlist, d.own()),
    place: (place, source) => judgePlace(place, source, d.input().allowlist, d.own()),
    confined: () => d.input().allowlist.length > 0,
    file: (path, what) => allowedFile(path, d.uploadRoots(), what),
  };
}

/** A paused or read-only Sightline sends no input at all (checked before anything is touched). */
export function admitInput(input: { paused: boolean; readOnly: boolean }): void {
  if (input.paused) {
    throw new SightlineError('INPUT_PAUSED', 'Agent input is paused by the user.', 'Wait for the user to resume input (tray menu or dashboard); do not retry in a loop.');
  }
  if (input.readOnly) {
    throw new SightlineError('READ_ONLY', 'Sightline is in read-only mode: no input is sent.', 'The user can turn off input.readOnly in settings.');
  }
}

export function judgeTarget(facts: TargetFacts, at: { source: SourceName; target: string; blankOk: boolean }, allow: readonly string[], own: OwnFacts): void {
  if (facts.kind === 'window' && !facts.owner) {
    throw new SightlineError(
      'NOT_ALLOWED',
      `${at.target}: the program that owns this window cannot be told (${facts.unknown ?? 'the system does not say'}), so it may be Sightline itself or an app off the allowlist.`,
      'Act on windows of programs running on this computer; the X server must offer the X-Resource extension (Xorg, Xwayland and Xvfb do).',
    );
  }
  const why = ownTarget(facts, own);
  if (why) throw new SightlineError('NOT_ALLOWED', `${at.target} is Sightline itself: ${why}. Agents never operate Sightline.`, 'Work in another tab or window; the person changes Sightline through its own dashboard.');
  if (allow.length === 0) return;
  const names = namesOf(facts);
  if (names === 'blank') {
    // A blank tab shows nothing of anyone's: it may only be sent to an allowed place.
    if (at.blankOk) return;
    throw new SightlineError('NOT_ALLOWED', `${at.target} is blank: it takes no input while input.allowlist is set.`, 'Navigate it to a site on the allowlist first.');
  }
  if (!allowed(allow, names)) refuse(names[0] ?? ('label' in facts ? facts.label : undefined) ?? at.target, at.source);
}

export function judgePlace(place: Place, source: SourceName, allow: readonly string[], own: OwnFacts): void {
  if (place.kind === 'page') {
    const why = ownUrl(place.url, own);
    if (why) throw new SightlineError('NOT_ALLOWED', `Not opened: ${why}. Agents never operate Sightline.`, 'Open another site; the person changes Sightline through its own dashboard.');
  }
  if (allow.length === 0) return;
  const names = place.kind === 'page' ? allowNamesOfUrl(place.url) : [place.name];
  // A blank page is nobody's.
  if (names === 'blank') return;
  if (!allowed(allow, names)) refuse(names[0] ?? (place.kind === 'page' ? place.url : place.name), source);
}

/** A place a kind names (`AllowBy`): a web origin or URL is a page, anything else (a package) an app. */
export function placeOf(name: string): Place {
  return /^https?:\/\//i.test(name) ? { kind: 'page', url: name } : { kind: 'app', name };
}

/** The places an action is judged by besides (or instead of) its target, as its kind says. */
export function allowByPlaces(by: AllowBy | undefined): { as?: Place; also?: Place; none: boolean } {
  if (!by) return { none: false };
  if ('as' in by) return { as: placeOf(by.as), none: false };
  if ('also' in by) return { also: placeOf(by.also), none: false };
  return { none: true };
}

/** Why a target is Sightline's own, read as it is now, or undefined. */
function ownTarget(facts: TargetFacts, own: OwnFacts): string | undefined {
  if (facts.kind === 'page') return ownUrl(facts.url, own);
  if (facts.kind === 'window' && facts.owner && own.pids.has(facts.owner.pid)) return `the Sightline app's own window (process ${facts.owner.pid})`;
  return undefined;
}

/**
 * The names a target answers to in the allowlist: a tab its host (with a port that is not the
 * scheme's own) and origin ('blank' for about:blank); a window its process's app name (where the
 * OS gives one) and executable; a device the package in front; a display nothing.
 */
export function namesOf(facts: TargetFacts): string[] | 'blank' {
  const clean = (names: (string | undefined)[]): string[] => names.filter((n): n is string => typeof n === 'string' && n.length > 0);
  switch (facts.kind) {
    case 'page':
      return allowNamesOfUrl(facts.url);
    case 'window': {
      const o = facts.owner;
      return clean([o?.app, o?.exe ? basename(o.exe) : undefined, o?.exe]);
    }
    case 'display':
      return [];
    case 'device':
      return clean([facts.package]);
    case 'app':
      return clean([facts.app]);
  }
}

/** The names a tab showing `url` answers to in input.allowlist: its host (port included) and origin. */
export function allowNamesOfUrl(url: string | undefined): string[] | 'blank' {
  if (url === undefined) return [];
  // A tab that has not committed a document yet (just opened) reports no URL: it shows nothing either.
  if (url === 'about:blank' || url === '') return 'blank';
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:') return [u.host, u.origin];
    // Local files answer to "file://" as a whole: a file's name is not an application.
    if (u.protocol === 'file:') return ['file://'];
  } catch {
    // not a URL: no name
  }
  return [];
}

function allowed(allow: readonly string[], names: readonly string[]): boolean {
  return names.some((n) => allow.some((a) => a.toLowerCase() === n.toLowerCase()));
}

function refuse(app: string, source: SourceName): never {
  throw new SightlineError('NOT_ALLOWED', `Input to ${app} (${source}) is not in the input allowlist.`, `The user can add "${app}" to input.allowlist in settings.`);
}
