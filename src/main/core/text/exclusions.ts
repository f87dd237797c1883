/**
 * `ocr.excludeApps` and the text index: which frames are never read, and deleting what a newly
 * excluded name already has in the index.
 */
import type { FrameLabel } from '../catalog/types.ts';
import { excludedBy } from './indexText.ts';
import type { TextIndexStore } from './indexerPorts.ts';
import { tokens } from './query.ts';

/** Where the excludeApps list last applied to the index is saved (names deleted already). */
const EXCLUDED_STATE = 'excludeApps';

export type Skip = 'excluded' | 'unlabeled';

/**
 * Why a frame with this label must not be indexed, if it must not. While the list is not empty a
 * frame with neither app nor title might belong to any app: it is skipped too, never guessed.
 */
export function skipReason(label: FrameLabel | undefined, apps: readonly string[]): Skip | undefined {
  if (apps.length === 0) return undefined;
  if (!label?.app && !label?.title) return 'unlabeled';
  return excludedBy(label, apps) ? 'excluded' : undefined;
}

/**
 * Make the index agree with the list: the text of frames of a name added since the list was last
 * applied is deleted, and when the list stops being empty so is the text of frames with no app
 * nor title. Returns how many frames lost their text.
 */
export function applyExclusions(store: TextIndexStore, apps: readonly string[]): number {
  const key = (name: string): string => tokens(name).join(' ');
  const applied = store.getState<string[]>(EXCLUDED_STATE);
  const before = new Set((applied ?? []).map(key));
  const now = apps.map(key).filter((k) => k.length > 0);
  if (applied && now.length === before.size && now.every((k) => before.has(k))) return 0;
  let n = 0;
  for (const k of new Set(now)) if (!before.has(k)) n += store.deleteMatching(`{app title} : "${k}"`);
  if (now.length > 0 && before.size === 0) n += store.deleteUnlabeled();
  store.setState(EXCLUDED_STATE, apps);
  return n;
}
