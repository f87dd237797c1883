/**
 * How the dashboard's timeline folds runs of near-identical frames into one row, shared by the
 * page that draws the rows and the server that sends the first screen's thumbnails with them.
 */
import type { FrameSummary } from './api.ts';

/** Runs shorter than this stay as they are: folding two rows into one saves little and hides one. */
export const MIN_FOLD = 3;

/** Consecutive frames within one page: a run of near-identical ones (fold) or a single frame. */
export interface Segment {
  start: number;
  len: number;
  fold: boolean;
}

/**
 * A page's frames in runs: a run goes on while the next frame has the same target and the same
 * screen key (the text index's: they show the same screen up to noise). A frame with no key yet
 * stands alone. Runs do not cross pages (a long run at a page's edge shows as two rows).
 */
export function pageSegments(frames: readonly Pick<FrameSummary, 'screen' | 'target'>[]): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  while (i < frames.length) {
    const f = frames[i]!;
    let j = i + 1;
    if (f.screen !== undefined) while (j < frames.length && frames[j]!.screen === f.screen && frames[j]!.target === f.target) j++;
    const len = j - i;
    out.push({ start: i, len, fold: len >= MIN_FOLD });
    i = j;
  }
  return out;
}

/** The frames the first `rows` rows show with every run folded (a run shows its newest frame). */
export function firstRowFrames<F extends Pick<FrameSummary, 'screen' | 'target'>>(frames: readonly F[], rows: number): F[] {
  const out: F[] = [];
  for (const seg of pageSegments(frames)) {
    for (let k = 0; k < (seg.fold ? 1 : seg.len) && out.length < rows; k++) out.push(frames[seg.start + k]!);
    if (out.length >= rows) break;
  }
  return out;
}

/**
 * The app a frame shows, for colouring the time strip: what the user was doing then (an archive's
 * activity), else the app its source named, else the site a page was on, else the source's kind.
 */
export function appOf(f: Pick<FrameSummary, 'activity' | 'label' | 'source'>): string {
  if (f.activity?.app && f.activity.app !== 'unknown') return f.activity.app;
  if (f.label?.app) return f.label.app;
  const doc = f.label?.document;
  if (doc && /^https?:/i.test(doc)) {
    try {
      return new URL(doc).hostname.replace(/^www\./, '');
    } catch {
      // Not a URL after all: fall through to the source.
    }
  }
  return f.source;
}
