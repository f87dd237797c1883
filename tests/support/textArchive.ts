/**
 * A ManicTime archive whose screenshots carry rendered text, for the text index's tests and
 * benchmark: each screenshot is a light window with a few lines of text (DejaVu Sans, 18 px),
 * and ManicTimeReports.db says which app, window title and document were active when it was
 * taken. Every line's band (top and bottom in image px) is returned, so a test can check that a
 * matching word's box lies on the line it was drawn on.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { createReportsDb, screenshotName, utcOf, type FixtureActivity } from './manictimeFixture.ts';

export interface TextShotSpec {
  date: string;
  time: string;
  /** Lines of text drawn on the screenshot. */
  lines: string[];
  /** The active application (Ar_Group of the Applications timeline) and its window title. */
  app: string;
  title: string;
  document?: string;
  monitor?: number;
  /** JPEG quality (default 85): another quality gives the same screen with other JPEG noise. */
  quality?: number;
  /** A 1 px text caret drawn at x on the line's band. */
  caret?: { line: number; x: number };
  /** The screenshot itself (JPEG, of `size`), instead of `lines` drawn on a plain window. */
  jpeg?: Buffer;
  size?: { width: number; height: number };
}

export interface TextShot extends TextShotSpec {
  id: number;
  utcMs: number;
  full: string;
  /** Each line's vertical band in image px. */
  bands: { top: number; bottom: number }[];
}

export interface TextArchive {
  dataDir: string;
  screenshotsDir: string;
  shots: TextShot[];
}

export const TEXT_SHOT_SIZE = { width: 900, height: 300 };
const LINE_HEIGHT = 40;
const FONT_SIZE = 18;
const TOP = 30;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A screenshot with `lines` drawn on it, as JPEG (ManicTime's format), and each line's band. */
export async function textScreenshot(
  lines: readonly string[],
  size = TEXT_SHOT_SIZE,
  o: Pick<TextShotSpec, 'quality' | 'caret'> = {},
): Promise<{ jpeg: Buffer; bands: { top: number; bottom: number }[] }> {
  const parts = [`<rect width="${size.width}" height="${size.height}" fill="#f7f7f7"/>`, `<rect width="${size.width}" height="24" fill="#dcdcdc"/>`];
  const bands: { top: number; bottom: number }[] = [];
  lines.forEach((line, i) => {
    const baseline = TOP + i * LINE_HEIGHT + LINE_HEIGHT / 2 + FONT_SIZE * 0.35;
    parts.push(`<text x="24" y="${baseline}" font-family="DejaVu Sans" font-size="${FONT_SIZE}" fill="#1a1a1a" xml:space="preserve">${esc(line)}</text>`);
    bands.push({ top: TOP + i * LINE_HEIGHT, bottom: TOP + (i + 1) * LINE_HEIGHT });
  });
  if (o.caret) parts.push(`<rect x="${o.caret.x}" y="${TOP + o.caret.line * LINE_HEIGHT + 8}" width="1" height="${LINE_HEIGHT - 16}" fill="#1a1a1a"/>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}">${parts.join('')}</svg>`;
  const jpeg = await sharp(Buffer.from(svg)).removeAlpha().jpeg({ quality: o.quality ?? 85 }).toBuffer();
  return { jpeg, bands };
}

/**
 * Writes the archive under `base/ManicTime`: day folders, screenshots with thumbnails, and
 * ManicTimeReports.db with one application activity per screenshot (from its time to the next
 * screenshot's, or a minute). Times are local wall clocks at `offsetMinutes`.
 */
export async function createTextArchive(base: string, specs: readonly TextShotSpec[], offsetMinutes = 120): Promise<TextArchive> {
  const dataDir = join(base, 'ManicTime');
  const screenshotsDir = join(dataDir, 'Screenshots');
  mkdirSync(screenshotsDir, { recursive: true });
  const shots: TextShot[] = [];
  let id = 5000;
  for (const s of specs) {
    const dayDir = join(screenshotsDir, s.date);
    mkdirSync(dayDir, { recursive: true });
    const size = s.size ?? TEXT_SHOT_SIZE;
    const { jpeg, bands } = s.jpeg ? { jpeg: s.jpeg, bands: [] } : await textScreenshot(s.lines, TEXT_SHOT_SIZE, s);
    const spec = { date: s.date, time: s.time, offsetMinutes, ...size, id: ++id, monitor: s.monitor ?? 0 };
    const full = join(dayDir, screenshotName(spec));
    writeFileSync(full, jpeg);
    const thumb = await sharp(jpeg).resize(size.width / 2).jpeg({ quality: 70 }).toBuffer();
    writeFileSync(join(dayDir, screenshotName({ ...spec, width: size.width / 2, height: size.height / 2, thumbnail: true })), thumb);
    shots.push({ ...s, id, utcMs: utcOf(s.date, s.time, offsetMinutes), full, bands });
  }
  const sorted = [...shots].sort((a, b) => a.utcMs - b.utcMs);
  const activities: FixtureActivity[] = [];
  sorted.forEach((s, i) => {
    const next = sorted[i + 1];
    const end = next && next.utcMs - s.utcMs < 3600_000 ? next.utcMs : s.utcMs + 60_000;
    activities.push({ timeline: 'applications', group: s.app, name: s.title, startUtcMs: s.utcMs, endUtcMs: end, offsetMinutes });
    if (s.document) activities.push({ timeline: 'documents', group: 'docs', name: s.document, startUtcMs: s.utcMs, endUtcMs: end, offsetMinutes });
  });
  createReportsDb(join(dataDir, 'ManicTimeReports.db'), activities);
  // Old day folders were last modified when their last screenshot was written.
  const lastPerDay = new Map<string, number>();
  for (const s of shots) lastPerDay.set(s.date, Math.max(lastPerDay.get(s.date) ?? 0, s.utcMs));
  for (const [day, ms] of lastPerDay) utimesSync(join(screenshotsDir, day), new Date(ms + 60_000), new Date(ms + 60_000));
  return { dataDir, screenshotsDir, shots };
}
