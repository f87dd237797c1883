/**
 * The text-index benchmark's archive: a generated ManicTime archive of application screens
 * (tests/support/appScreens.ts), about half of them dark, with the repetition of a person at work:
 * an episode of EPISODE screenshots where REPEAT of the steps repeat or nearly repeat the screen
 * (the same; other JPEG noise; a caret; one word, title or side-bar item changed) and the others
 * show a new page, scroll, or get lines typed in the middle, in exact shares and a shuffled order.
 * Every screenshot's title bar shows its own capture time (the clock ticks). The newest `render`
 * screenshots (those the benchmark indexes) are drawn one by one; the older ones are hard links to
 * the episode's drawings (only their names and count matter: the walk never reaches them).
 */
import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { drawScreen, newScreen, rng, stepFrom, type AppScreen, type DrawnScreen, type Step } from '../tests/support/appScreens.ts';
import { createReportsDb, screenshotName, wallClock, type FixtureActivity } from '../tests/support/manictimeFixture.ts';

export const EPISODE = 50;
export const REPEAT = 0.7;
export const PER_DAY = 500;
const OFFSET = 60;
const SPACING_MS = 90_000;

export interface ArchiveShot {
  screen: AppScreen;
  quality: number;
  step: Step;
  /** A page never seen before (no reuse can spare reading it whole). */
  fresh: boolean;
}

export interface BenchArchive {
  dataDir: string;
  /** The newest `render` screenshots, newest first: their drawing (words and places) and capture time. */
  newest: { drawn: DrawnScreen; shot: ArchiveShot; utcMs: number }[];
  /** The episode's pages never seen before, drawn (their share of a day is what no reuse spares). */
  freshPages: Buffer[];
  freshShare: number;
  darkShare: number;
  newestDayCount: number;
  repeatShare: number;
}

/** The episode's steps in exact shares, shuffled. */
function episodeSteps(r: () => number): Step[] {
  const steps = EPISODE - 1;
  const changes = Math.round(steps * (1 - REPEAT));
  const newPages = Math.round(changes * 0.4);
  const scrolls = Math.round((changes - newPages) / 2);
  const repeats = steps - changes;
  const [same, noise, caret] = [Math.round(repeats * 0.55), Math.round(repeats * 0.15), Math.round(repeats * 0.15)];
  const edits = repeats - same - noise - caret;
  const kinds: Step[] = [
    ...Array<Step>(newPages).fill('page'),
    ...Array<Step>(scrolls).fill('scroll'),
    ...Array<Step>(changes - newPages - scrolls).fill('insert'),
    ...Array<Step>(same).fill('same'),
    ...Array<Step>(noise).fill('noise'),
    ...Array<Step>(caret).fill('caret'),
    // One word changed: in the body mostly, now and then the title or a side-bar item.
    ...Array.from({ length: edits }, (_, i): Step => (i % 3 === 1 ? 'title' : i % 3 === 2 ? 'side' : 'word')),
  ];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j] as Step, kinds[i] as Step];
  }
  return kinds;
}

/** One episode: the screens and their steps; a new page takes either theme (about half dark). */
function episode(seed: number): ArchiveShot[] {
  const r = rng(seed);
  const kinds = episodeSteps(r);
  let screen = newScreen(r);
  const out: ArchiveShot[] = [{ screen, quality: 82, step: 'page', fresh: true }];
  for (const step of kinds) {
    const next = stepFrom(r, screen, step, step === 'page' ? (r() < 0.5 ? 'dark' : 'light') : screen.theme);
    out.push({ ...next, fresh: step === 'page' });
    screen = next.screen;
  }
  return out;
}

const clockOf = (utcMs: number): string => wallClock(utcMs, OFFSET).time.slice(0, 5);

/** `count` screenshots, PER_DAY a day, 90 s apart, the episode over and over; the newest `render` drawn one by one. */
export async function writeBenchArchive(base: string, count: number, render: number): Promise<BenchArchive> {
  const dataDir = join(base, 'ManicTime');
  const shots = join(dataDir, 'Screenshots');
  mkdirSync(join(base, 'pages'), { recursive: true });
  const ep = episode(5);
  // The episode drawn once (for the older screenshots, hard-linked).
  const drawnEpisode: string[] = [];
  for (const [i, s] of ep.entries()) {
    const p = join(base, 'pages', `${i}.jpg`);
    writeFileSync(p, (await drawScreen(s.screen, s.quality)).jpeg);
    drawnEpisode.push(p);
  }
  const days = Math.ceil(count / PER_DAY);
  const start = Date.UTC(2024, 0, 1, 7, 0, 0);
  const activities: FixtureActivity[] = [];
  const newest: BenchArchive['newest'] = [];
  for (let n = 0; n < count; n++) {
    const day = Math.floor(n / PER_DAY);
    const utcMs = start + day * 86_400_000 + (n % PER_DAY) * SPACING_MS;
    const w = wallClock(utcMs, OFFSET);
    const dir = join(shots, w.date);
    if (n % PER_DAY === 0) mkdirSync(dir, { recursive: true });
    const name = join(dir, screenshotName({ date: w.date, time: w.time, offsetMinutes: OFFSET, width: 1280, height: 720, id: n + 1, monitor: 0 }));
    const shot = ep[n % ep.length] as ArchiveShot;
    if (n >= count - render) {
      const drawn = await drawScreen({ ...shot.screen, clock: clockOf(utcMs) }, shot.quality);
      writeFileSync(name, drawn.jpeg);
      newest.unshift({ drawn, shot, utcMs });
    } else linkSync(drawnEpisode[n % ep.length] as string, name);
    if (shot.step === 'page' || n % PER_DAY === 0) {
      activities.push({ timeline: 'applications', group: shot.screen.app, name: `${shot.screen.document} - ${shot.screen.app}`, startUtcMs: utcMs, endUtcMs: utcMs + SPACING_MS * 8, offsetMinutes: OFFSET });
    }
  }
  createReportsDb(join(dataDir, 'ManicTimeReports.db'), activities);
  const repeats = ep.filter((s) => ['same', 'noise', 'caret', 'word', 'title', 'side'].includes(s.step)).length;
  const freshPages: Buffer[] = [];
  for (const s of ep.filter((x) => x.fresh)) freshPages.push((await drawScreen(s.screen, s.quality)).jpeg);
  return {
    dataDir,
    newest,
    freshPages,
    freshShare: freshPages.length / ep.length,
    darkShare: ep.filter((s) => s.screen.theme === 'dark').length / ep.length,
    newestDayCount: count - (days - 1) * PER_DAY,
    repeatShare: repeats / (ep.length - 1),
  };
}
