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
  return excludedApp(label, apps) ? 'excluded' : undefined;
}

/**
 * The entry of the list a frame's app belongs to, if any. A frame's app is an app name (macOS,
 * Windows, ManicTime), a window class (X11), an Android package or a macOS bundle id: an entry
 * matches its words in order ("KeePassXC", "com.x8bit.bitwarden" inside
 * "com.x8bit.bitwarden.beta"), and an entry ending in "*" matches every id it begins
 * ("com.agilebits.onepassword*" matches com.agilebits.onepassword7).
 */
export function excludedApp(label: FrameLabel | undefined, apps: readonly string[]): string | undefined {
  if (!label) return undefined;
  const byWords = excludedBy(label, apps.filter((a) => !a.endsWith('*')));
  if (byWords) return byWords;
  const fields = [label.app, label.title].filter((f): f is string => !!f).map((f) => f.toLowerCase());
  return apps.find((a) => {
    const prefix = a.slice(0, -1).trim().toLowerCase();
    return a.endsWith('*') && prefix.length > 0 && fields.some((f) => f.startsWith(prefix));
  });
}

/**
 * Make the index agree with the list: the text of frames of a name added since the list was last
 * applied is deleted, and when the list stops being empty so is the text of frames with no app
 * nor title. Returns how many frames lost their text.
 */
export function applyExclusions(store: TextIndexStore, apps: readonly string[]): number {
  // "com.agilebits.onepassword*" deletes by the prefix of its last word, as the index's own query does.
  const key = (name: string): string => `"${tokens(name).join(' ')}"${name.endsWith('*') ? '*' : ''}`;
  const applied = store.getState<string[]>(EXCLUDED_STATE);
  const before = new Set((applied ?? []).map(key));
  const now = apps.map(key).filter((k) => !k.startsWith('""'));
  if (applied && now.length === before.size && now.every((k) => before.has(k))) return 0;
  let n = 0;
  for (const k of new Set(now)) if (!before.has(k)) n += store.deleteMatching(`{app title} : ${k}`);
  if (now.length > 0 && before.size === 0) n += store.deleteUnlabeled();
  store.setState(EXCLUDED_STATE, apps);
  return n;
}
