/**
 * Screenshots of ordinary application screens with known words, for the text index's tests and
 * benchmark: a title bar (document, app and a clock), a tab strip, a side bar of channels or
 * folders, a body of mail, code or prose, and a status bar, in a light or a dark theme, with text
 * of 12–16 px. Every drawn word is returned with the place it was drawn in, so recall can be
 * measured per theme and per place, and a screen can be changed in one place only (a title, one
 * side-bar word, a clock, a scroll) to test what a reader reuses from a neighbour.
 */
import sharp from 'sharp';

export type Theme = 'light' | 'dark';
export type Place = 'title' | 'tabs' | 'side' | 'body' | 'status';
export const PLACES: readonly Place[] = ['title', 'tabs', 'side', 'body', 'status'];

/** What a screen shows; change a field to make a neighbour that differs only there. */
export interface AppScreen {
  theme: Theme;
  app: string;
  document: string;
  /** The clock in the title bar ("10:41"). */
  clock: string;
  tabs: string[];
  side: string[];
  /** The body's lines, from the first shown (a scroll drops lines off the top). */
  body: string[];
  /** Body text size in px (12–16) and face. */
  bodySize: number;
  mono?: boolean;
  status: string[];
  /** A text caret in the body: line and x (px from the body's left edge). */
  caret?: { line: number; x: number };
}

export interface DrawnScreen {
  jpeg: Buffer;
  /** Each word drawn, with its place and the band of rows its line takes (image px). */
  words: { text: string; place: Place; top: number; bottom: number }[];
}

export const SCREEN = { width: 1280, height: 720 };
const TITLE_H = 30;
const TABS_H = 32;
const STATUS_H = 22;
const SIDE_W = 220;
const BODY_TOP = TITLE_H + TABS_H;

const PALETTE = {
  light: { title: '#dddddd', titleText: '#333333', tabs: '#ececec', tab: '#ffffff', tabText: '#444444', side: '#f3f3f3', sideText: '#3b3b3b', body: '#ffffff', bodyText: '#1f1f1f', status: '#e8e8e8', statusText: '#333333', caret: '#000000' },
  dark: { title: '#3c3c3c', titleText: '#cccccc', tabs: '#252526', tab: '#1e1e1e', tabText: '#cfcfcf', side: '#252526', sideText: '#cccccc', body: '#1e1e1e', bodyText: '#d4d4d4', status: '#007acc', statusText: '#ffffff', caret: '#aeafad' },
} as const;

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export const lineHeightOf = (size: number): number => Math.round(size * 1.7);

/** How many body lines fit. */
export function bodyLines(size: number): number {
  return Math.floor((SCREEN.height - BODY_TOP - STATUS_H - 16) / lineHeightOf(size));
}

/** Renders a screen as a JPEG (the archive's format; `quality` varies its noise). */
export async function drawScreen(s: AppScreen, quality = 82): Promise<DrawnScreen> {
  const c = PALETTE[s.theme];
  const parts: string[] = [`<rect width="${SCREEN.width}" height="${SCREEN.height}" fill="${c.body}"/>`];
  const words: DrawnScreen['words'] = [];
  const text = (t: string, x: number, baseline: number, size: number, fill: string, place: Place, face = 'DejaVu Sans', anchor = 'start', bold = false): void => {
    parts.push(`<text x="${x}" y="${baseline}" font-family="${face}" font-size="${size}"${bold ? ' font-weight="bold"' : ''} fill="${fill}" text-anchor="${anchor}" xml:space="preserve">${esc(t)}</text>`);
    const top = Math.round(baseline - size);
    for (const w of t.split(/\s+/).filter(Boolean)) words.push({ text: w, place, top, bottom: Math.round(baseline + size * 0.3) });
  };
  // Title bar: document and app in the middle, the clock at the right.
  parts.push(`<rect width="${SCREEN.width}" height="${TITLE_H}" fill="${c.title}"/>`);
  text(`${s.document} - ${s.app}`, SCREEN.width / 2, 20, 14, c.titleText, 'title', 'DejaVu Sans', 'middle');
  text(s.clock, SCREEN.width - 16, 20, 14, c.titleText, 'title', 'DejaVu Sans', 'end');
  // Tab strip: the first tab is the active one.
  parts.push(`<rect y="${TITLE_H}" width="${SCREEN.width}" height="${TABS_H}" fill="${c.tabs}"/>`);
  let x = SIDE_W;
  s.tabs.forEach((t, i) => {
    const w = 40 + t.length * 8;
    if (i === 0) parts.push(`<rect x="${x}" y="${TITLE_H}" width="${w}" height="${TABS_H}" fill="${c.tab}"/>`);
    text(t, x + 16, TITLE_H + 21, 13, c.tabText, 'tabs', 'DejaVu Sans', 'start', i === 0);
    x += w + 4;
  });
  // Side bar.
  parts.push(`<rect y="${BODY_TOP}" width="${SIDE_W}" height="${SCREEN.height - BODY_TOP - STATUS_H}" fill="${c.side}"/>`);
  s.side.forEach((t, i) => text(t, 20, BODY_TOP + 28 + i * 26, 13, c.sideText, 'side', 'Liberation Sans'));
  // Body.
  const lh = lineHeightOf(s.bodySize);
  const face = s.mono ? 'DejaVu Sans Mono' : 'Liberation Sans';
  // The first line shown is a heading, in bold.
  s.body.slice(0, bodyLines(s.bodySize)).forEach((t, i) => text(t, SIDE_W + 32, BODY_TOP + 16 + i * lh + Math.round(s.bodySize * 1.1), s.bodySize, c.bodyText, 'body', face, 'start', i === 0));
  if (s.caret) parts.push(`<rect x="${SIDE_W + 32 + s.caret.x}" y="${BODY_TOP + 16 + s.caret.line * lh + 2}" width="1" height="${s.bodySize + 4}" fill="${c.caret}"/>`);
  // Status bar.
  parts.push(`<rect y="${SCREEN.height - STATUS_H}" width="${SCREEN.width}" height="${STATUS_H}" fill="${c.status}"/>`);
  let sx = 12;
  for (const t of s.status) {
    text(t, sx, SCREEN.height - 6, 12, c.statusText, 'status');
    sx += 28 + t.length * 7;
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SCREEN.width}" height="${SCREEN.height}">${parts.join('')}</svg>`;
  const jpeg = await sharp(Buffer.from(svg)).removeAlpha().jpeg({ quality }).toBuffer();
  return { jpeg, words };
}

// ── words ────────────────────────────────────────────────────────────────────────────────

/** Deterministic draws, so every run makes the same screens. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

const SYL = ['ka', 'lo', 'mi', 'ren', 'tu', 'sa', 'vel', 'dor', 'pi', 'na', 'gre', 'on', 'bi', 'lux', 'me', 'tar', 'qui', 'zo', 'fen', 'ar', 'bel', 'cos', 'dun', 'pra'];
/** Made-up words (so a word found on a screen that did not draw it is a neighbour's, not a coincidence), capitalised now and then. */
export function word(r: () => number): string {
  const n = 2 + Math.floor(r() * 2);
  let w = '';
  for (let i = 0; i < n; i++) w += SYL[Math.floor(r() * SYL.length)];
  return r() < 0.2 ? w[0]!.toUpperCase() + w.slice(1) : w;
}
export const words = (r: () => number, n: number): string => Array.from({ length: n }, () => (r() < 0.05 ? String(100 + Math.floor(r() * 9900)) : word(r))).join(' ');

const APPS = ['Mailbox', 'Code', 'Browser', 'Chat', 'Notes'];

/** A new screen never seen before: its app, theme, side bar, tabs and body drawn from `r`. */
export function newScreen(r: () => number, theme: Theme = r() < 0.5 ? 'dark' : 'light'): AppScreen {
  const bodySize = 12 + Math.floor(r() * 5);
  const clock = `${String(8 + Math.floor(r() * 10)).padStart(2, '0')}:${String(Math.floor(r() * 60)).padStart(2, '0')}`;
  return {
    theme,
    app: APPS[Math.floor(r() * APPS.length)]!,
    document: words(r, 2),
    clock,
    tabs: Array.from({ length: 2 + Math.floor(r() * 3) }, () => word(r)),
    side: Array.from({ length: 10 + Math.floor(r() * 8) }, () => word(r)),
    body: Array.from({ length: bodyLines(bodySize) + 4 }, () => words(r, 5 + Math.floor(r() * 8))),
    bodySize,
    mono: r() < 0.3,
    status: [word(r), `Ln ${1 + Math.floor(r() * 300)}`, word(r)],
  };
}

/** The next minute on a clock ("09:59" → "10:00"). */
export function tick(clock: string): string {
  const [h, m] = clock.split(':').map(Number) as [number, number];
  const t = (h * 60 + m + 1) % (24 * 60);
  return `${String(Math.floor(t / 60)).padStart(2, '0')}:${String(t % 60).padStart(2, '0')}`;
}

/** What changes from one screenshot to the next. */
export type Step = 'same' | 'noise' | 'caret' | 'title' | 'side' | 'clock' | 'word' | 'scroll' | 'insert' | 'page';

export interface Shot {
  screen: AppScreen;
  /** JPEG quality: another one is the same screen with other noise. */
  quality: number;
  step: Step;
}

/** The screenshot after `prev` when `step` happens (a new page keeps the theme unless one is given). */
export function stepFrom(r: () => number, prev: AppScreen, step: Step, theme: Theme = prev.theme): Shot {
  const s: AppScreen = { ...prev };
  delete s.caret;
  let quality = 82;
  if (step === 'noise') quality = 60 + Math.floor(r() * 30);
  else if (step === 'caret') s.caret = { line: Math.floor(r() * 8), x: Math.floor(r() * 600) };
  else if (step === 'title') s.document = words(r, 2);
  else if (step === 'side') s.side = prev.side.map((w, i) => (i === Math.floor(r() * prev.side.length) ? word(r) : w));
  else if (step === 'clock') s.clock = tick(prev.clock);
  else if (step === 'word') {
    const n = Math.floor(r() * Math.min(prev.body.length, bodyLines(prev.bodySize)));
    const ws = (prev.body[n] as string).split(' ');
    ws[Math.floor(r() * ws.length)] = word(r);
    s.body = prev.body.map((l, i) => (i === n ? ws.join(' ') : l));
  } else if (step === 'scroll') {
    const k = 1 + Math.floor(r() * 4);
    s.body = [...prev.body.slice(k), ...Array.from({ length: k }, () => words(r, 5 + Math.floor(r() * 8)))];
  } else if (step === 'insert') {
    const at = Math.floor(r() * 8);
    const k = 1 + Math.floor(r() * 3);
    s.body = [...prev.body.slice(0, at), ...Array.from({ length: k }, () => words(r, 4 + Math.floor(r() * 6))), ...prev.body.slice(at)];
  } else if (step === 'page') return { screen: newScreen(r, theme), quality, step };
  return { screen: s, quality, step };
}
