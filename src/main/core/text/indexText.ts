/**
 * What the text index keeps of a frame, pure: OCR lines as text whose i-th word owns the i-th
 * box (image px of the frame), and the rule that keeps excluded apps out.
 */
import type { Rect } from '../../../shared/frame.ts';
import type { FrameLabel, FrameRecord } from '../catalog/types.ts';
import { rectSourceToImage } from '../image/mapping.ts';
import type { TextItem } from '../sources/source.ts';
import { tokens } from './query.ts';

export interface IndexedText {
  text: string;
  /** x, y, width, height per word of `text`. */
  boxes: number[];
}

/**
 * OCR items (source space, as ScreenText reads them) → text and boxes in the frame's image px.
 * A word with spaces inside becomes several words sharing its box; a line without word boxes
 * gives each of its words the line's box.
 */
export function indexedText(items: readonly TextItem[], frame: Pick<FrameRecord, 'image' | 'origin' | 'scale'>): IndexedText {
  const lines: string[] = [];
  const boxes: number[] = [];
  const map = { image: frame.image, origin: frame.origin, scale: frame.scale };
  for (const item of items) {
    const words = item.words?.length ? item.words : item.text.split(/\s+/).map((text) => ({ text, bounds: item.bounds }));
    const out: string[] = [];
    for (const w of words) {
      const parts = w.text.split(/\s+/).filter((p) => p.length > 0);
      if (parts.length === 0) continue;
      const r = clampRect(rectSourceToImage(map, w.bounds), frame.image);
      for (const p of parts) {
        out.push(p);
        boxes.push(r.x, r.y, r.width, r.height);
      }
    }
    if (out.length) lines.push(out.join(' '));
  }
  return { text: lines.join('\n'), boxes };
}

function clampRect(r: Rect, size: { width: number; height: number }): Rect {
  const x = Math.max(0, Math.min(size.width, Math.round(r.x)));
  const y = Math.max(0, Math.min(size.height, Math.round(r.y)));
  const x1 = Math.max(x, Math.min(size.width, Math.round(r.x + r.width)));
  const y1 = Math.max(y, Math.min(size.height, Math.round(r.y + r.height)));
  return { x, y, width: x1 - x, height: y1 - y };
}

/**
 * The excluded app a frame belongs to, if any: an entry of `ocr.excludeApps` whose words appear,
 * in order and as whole words, in the app name or the window title, case- and accent-insensitively
 * ("1Password" excludes "1Password 7 - Vault"; "Keeper" does not exclude "Housekeeper").
 */
export function excludedBy(label: FrameLabel | undefined, excludeApps: readonly string[]): string | undefined {
  if (!label) return undefined;
  const fields = [label.app, label.title].filter((s): s is string => !!s).map(tokens);
  if (fields.length === 0) return undefined;
  for (const name of excludeApps) {
    const want = tokens(name);
    if (want.length && fields.some((have) => containsRun(have, want))) return name;
  }
  return undefined;
}

function containsRun(have: readonly string[], want: readonly string[]): boolean {
  for (let i = 0; i + want.length <= have.length; i++) {
    let ok = true;
    for (let k = 0; k < want.length && ok; k++) ok = have[i + k] === want[k];
    if (ok) return true;
  }
  return false;
}
