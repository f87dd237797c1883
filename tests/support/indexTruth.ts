/**
 * How true a text index is, against bare tesseract on each whole screenshot: recall of the
 * (screenshot, word) pairs bare tesseract reads (as the screenshot is, and inverted when it is
 * dark), per theme and per place, and wrong attributions (a word found on a screenshot that does
 * not show it but another screenshot of the archive does). Words are compared as search_screenshots
 * compares them: the tokens FTS5 makes of them, case and accents folded.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { tokens } from '../../src/main/core/text/query.ts';
import type { Place, Theme } from './appScreens.ts';

export interface TruthShot {
  jpeg: Buffer;
  theme: Theme;
  /** The words drawn, with their places. */
  words: readonly { text: string; place: Place }[];
}

function tesseract(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn('tesseract', [file, 'stdout', '-l', 'eng', '--psm', '3'], { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.once('error', reject);
    p.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`tesseract exited ${code}`))));
  });
}

const floors = new Map<string, Promise<Set<string>>>();

/** The tokens bare tesseract reads on the whole screenshot (and on its inverse, when the screen is dark); cached per image. */
export function bareTokens(shot: Pick<TruthShot, 'jpeg' | 'theme'>): Promise<Set<string>> {
  const key = `${createHash('sha1').update(shot.jpeg).digest('hex')}/${shot.theme}`;
  let hit = floors.get(key);
  if (!hit) {
    hit = (async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sightline-floor-'));
      try {
        writeFileSync(join(dir, 'shot.jpg'), shot.jpeg);
        const out = new Set(tokens(await tesseract(join(dir, 'shot.jpg'))));
        if (shot.theme === 'dark') {
          await sharp(shot.jpeg).negate({ alpha: false }).png().toFile(join(dir, 'inverse.png'));
          for (const t of tokens(await tesseract(join(dir, 'inverse.png')))) out.add(t);
        }
        return out;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    })();
    floors.set(key, hit);
  }
  return hit;
}

export interface Tally {
  floor: number;
  found: number;
}

export interface TruthScore {
  /** Keyed `all`, the theme (`light`, `dark`), the place (`title`, …) and `theme/place`. */
  recall: Map<string, Tally>;
  /** Per screenshot (in the order given): the floor's pairs and those found. */
  perShot: Tally[];
  /** Words found on a screenshot that does not show them while another screenshot does. */
  wrong: { shot: number; token: string }[];
  /** Floor pairs not found: screenshot and `place:token`. */
  missed: { shot: number; word: string }[];
}

/** Scores the indexed text of each screenshot (`indexed[i]` for `shots[i]`) against bare tesseract. */
export async function scoreIndex(shots: readonly TruthShot[], indexed: readonly string[]): Promise<TruthScore> {
  const truth = shots.map((s) => {
    const place = new Map<string, Place>();
    for (const w of s.words) for (const t of tokens(w.text)) if (!place.has(t)) place.set(t, w.place);
    return place;
  });
  const recall = new Map<string, Tally>();
  const perShot: Tally[] = [];
  const wrong: TruthScore['wrong'] = [];
  const missed: TruthScore['missed'] = [];
  for (const [i, shot] of shots.entries()) {
    const bare = await bareTokens(shot);
    const got = new Set(tokens(indexed[i] ?? ''));
    const mine: Tally = { floor: 0, found: 0 };
    for (const t of bare) {
      const place = truth[i]?.get(t);
      // Only words the screenshot shows: bare tesseract's misreads are no one's words.
      if (!place) continue;
      const found = got.has(t);
      for (const key of ['all', shot.theme, place, `${shot.theme}/${place}`]) {
        const tally = recall.get(key) ?? { floor: 0, found: 0 };
        tally.floor++;
        if (found) tally.found++;
        recall.set(key, tally);
      }
      mine.floor++;
      if (found) mine.found++;
      else missed.push({ shot: i, word: `${place}:${t}` });
    }
    perShot.push(mine);
    const shown = [...(truth[i]?.keys() ?? [])];
    for (const t of got) {
      if (truth[i]?.has(t) || bare.has(t) || misread(t, shown)) continue;
      if (truth.some((other, j) => j !== i && other.has(t))) wrong.push({ shot: i, token: t });
    }
  }
  return { recall, perShot, wrong, missed };
}

/**
 * A token OCR can make of what the screenshot shows, three characters or more: part of a longer
 * word it cut, or a word it read with one character wrong, added or lost ("29" read "290"). Such a
 * token matching another screenshot's word is a coincidence of the made-up vocabulary, not a word
 * lent by a neighbour; a two-character token (a clock's minutes, "48") is never excused.
 */
function misread(t: string, shown: readonly string[]): boolean {
  return shown.some((w) => t.length >= 3 && ((w.length > t.length && w.includes(t)) || oneEdit(t, w)));
}

function oneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  let j = 0;
  while (j < a.length - i && j < b.length - i && a[a.length - 1 - j] === b[b.length - 1 - j]) j++;
  return Math.max(a.length, b.length) - i - j <= 1;
}

export const share = (t: Tally | undefined): number => (t && t.floor ? t.found / t.floor : 1);
