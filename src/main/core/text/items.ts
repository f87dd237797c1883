/** Text a screen shows (sources/source.ts TextItem, source space) in the matcher's shape. */
import type { TextItem } from '../sources/source.ts';
import type { TextItem as MatchItem } from './match.ts';

/** A text item in the matcher's shape (boxes stay in source space). */
export function matchItem(i: TextItem): MatchItem {
  return {
    text: i.text,
    box: i.bounds,
    ...(i.node !== undefined ? { id: i.node } : {}),
    ...(i.confidence !== undefined ? { confidence: i.confidence } : {}),
    ...(i.words ? { words: i.words.map((w) => ({ text: w.text, box: w.bounds, ...(w.confidence !== undefined ? { confidence: w.confidence } : {}) })) } : {}),
  };
}

