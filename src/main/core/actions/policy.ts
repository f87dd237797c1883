/**
 * The input allowlist: when the user lists applications, input goes only to targets whose
 * names (as each source module says: an app name, a browser host, an Android package) are on it.
 */
import { SightlineError } from '../../../shared/errors.ts';
import type { TargetInfo } from '../../../shared/frame.ts';
import type { SourceRegistry } from '../sources/registry.ts';
import { screenOf } from '../sources/registry.ts';
import type { Source } from '../sources/source.ts';

export async function checkAllowlist(sources: SourceRegistry, allow: readonly string[], source: Source, target: string, signal: AbortSignal, allowAs?: string): Promise<void> {
  if (allow.length === 0) return;
  const targets = await screenOf(source).listTargets(signal);
  const info = targets.find((t) => t.id === target);
  if (!info) throw new SightlineError('TARGET_NOT_FOUND', `${target} is gone.`, 'Call list_targets.');
  // An action aimed at a named app (launching it) is judged by that app, not the one in front.
  const names = (allowAs !== undefined ? [allowAs] : allowNames(sources, info)).map((n) => n.toLowerCase());
  if (!allow.some((a) => names.includes(a.toLowerCase()))) {
    const app = allowAs ?? info.app ?? target;
    throw new SightlineError('NOT_ALLOWED', `Input to ${app} (${source.name}) is not in the input allowlist.`, `The user can add "${app}" to input.allowlist in settings.`);
  }
}

/** The names a target answers to in the allowlist: its module's choice, else its app and title. */
export function allowNames(sources: SourceRegistry, info: TargetInfo): string[] {
  const m = sources.module(info.source);
  const names = m?.allowNames ? m.allowNames(info) : [info.app, info.title];
  return names.filter((n): n is string => typeof n === 'string' && n.length > 0);
}
