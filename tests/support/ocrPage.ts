/**
 * Screen-like pages with known text for OCR tests and benchmarks: panes, a menu, a list, prose,
 * code and a status bar in UI fonts at 11–16 px, light or dark. Every word's ink box is measured
 * by rendering that word alone at the same integer position, so tests know where each word is.
 */
import sharp from 'sharp';

export type Theme = 'light' | 'dark';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface DrawnWord {
  text: string;
  /** Ink box in page pixels. */
  box: Box;
  line: number;
  font: string;
  size: number;
}

export interface DrawnLine {
  text: string;
  box: Box;
}

export interface ScreenPage {
  png: Buffer;
  width: number;
  height: number;
  theme: Theme;
  words: DrawnWord[];
  lines: DrawnLine[];
}

interface Block {
  x: number;
  y: number;
  width: number;
  height: number;
  font: string;
  size: number;
  weight?: 'bold';
  lineHeight: number;
  fg: keyof Palette;
  bg: keyof Palette;
  /** Words per line at most (menus and lists are short). */
  maxWords?: number;
}

interface Palette {
  window: string;
  pane: string;
  bar: string;
  text: string;
  muted: string;
  accent: string;
}

const PALETTES: Record<Theme, Palette> = {
  light: { window: '#ffffff', pane: '#f3f3f3', bar: '#e8eaed', text: '#1f2328', muted: '#59636e', accent: '#0550ae' },
  dark: { window: '#1e1e1e', pane: '#252526', bar: '#333333', text: '#d4d4d4', muted: '#9da5b4', accent: '#4fc1ff' },
};

const VOCABULARY = (
  'File Edit View Window Help Settings Preferences Open Save Cancel Search Downloads Documents Pictures Music ' +
  'Terminal Desktop Network Display Keyboard Privacy Accounts Updates Backup Storage Battery Sharing Sound ' +
  'invoice report budget meeting agenda project status review release notes draft final summary quarterly ' +
  'customer order shipping address payment receipt total amount balance account password username email ' +
  'Monday Tuesday Friday January March October 2024 2025 12:45 09:30 3.2MB 128KB 42% v1.4.2 #1187 ' +
  'the quick brown fox jumps over lazy dog while every window shows another message about this screen ' +
  'error warning failed connected offline syncing complete pending approved rejected deleted archived ' +
  'Zürich café naïve résumé Ångström'
).split(' ');

/** Deterministic words so that every run draws the same pages. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s >>> 8) / 0x1000000;
  };
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function textSvg(word: string, x: number, y: number, b: Pick<Block, 'font' | 'size' | 'weight'>, fill: string): string {
  return `<text x="${x}" y="${y}" font-family="${b.font}" font-size="${b.size}"${b.weight ? ` font-weight="${b.weight}"` : ''} fill="${fill}" xml:space="preserve">${esc(word)}</text>`;
}

interface Ink {
  /** Ink box relative to the pen position (x at the origin, y at the baseline). */
  dx: number;
  dy: number;
  width: number;
  height: number;
}

const inkCache = new Map<string, Ink>();

/** Renders one word alone, black on white, and finds its ink relative to the pen position. */
async function measure(word: string, b: Pick<Block, 'font' | 'size' | 'weight'>): Promise<Ink> {
  const key = `${word}|${b.font}|${b.size}|${b.weight ?? ''}`;
  const hit = inkCache.get(key);
  if (hit) return hit;
  const pad = b.size * 2;
  const w = Math.ceil(word.length * b.size * 0.9) + pad * 2;
  const h = b.size * 4;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#fff"/>${textSvg(word, pad, pad * 1.5, b, '#000')}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).greyscale().raw().toBuffer({ resolveWithObject: true });
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      // Faint antialiasing fringes (< 25 % ink) are not part of what a reader calls the word.
      if ((data[y * info.width + x] ?? 255) < 192) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
  }
  if (x1 < 0) throw new Error(`no ink for ${word}`);
  const ink = { dx: x0 - pad, dy: y0 - pad * 1.5, width: x1 - x0 + 1, height: y1 - y0 + 1 };
  inkCache.set(key, ink);
  return ink;
}

/** The regions of a typical application window scaled to the page size. */
function layout(width: number, height: number): Block[] {
  const side = Math.round(Math.min(260, width * 0.22));
  const code = Math.round(height * 0.3);
  return [
    { x: 0, y: 0, width, height: 28, font: 'DejaVu Sans', size: 13, lineHeight: 28, fg: 'text', bg: 'bar', maxWords: 8 },
    { x: 0, y: 28, width: side, height: height - 28 - 22, font: 'Liberation Sans', size: 13, lineHeight: 24, fg: 'text', bg: 'pane', maxWords: 2 },
    { x: side, y: 28, width: width - side, height: 34, font: 'DejaVu Sans', size: 16, weight: 'bold', lineHeight: 34, fg: 'text', bg: 'window', maxWords: 5 },
    { x: side, y: 62, width: width - side, height: height - 62 - 22 - code, font: 'Liberation Sans', size: 15, lineHeight: 24, fg: 'text', bg: 'window' },
    { x: side, y: height - 22 - code, width: Math.round((width - side) / 2), height: code, font: 'DejaVu Sans Mono', size: 12, lineHeight: 18, fg: 'accent', bg: 'pane' },
    { x: side + Math.round((width - side) / 2), y: height - 22 - code, width: width - side - Math.round((width - side) / 2), height: code, font: 'DejaVu Sans', size: 14, lineHeight: 22, fg: 'muted', bg: 'window' },
    { x: 0, y: height - 22, width, height: 22, font: 'DejaVu Sans', size: 11, lineHeight: 22, fg: 'muted', bg: 'bar', maxWords: 10 },
  ];
}

export interface PageOptions {
  width: number;
  height: number;
  theme: Theme;
  seed?: number;
  /** Words to draw from; default a mix of UI words, numbers, versions and accented names. */
  vocabulary?: readonly string[];
}

/** Letters only: the words every engine should read exactly. */
export const PLAIN_VOCABULARY: readonly string[] = VOCABULARY.filter((w) => /^[A-Za-z]+$/.test(w));

/** Draws a page and returns it as PNG with every word's ink box. */
export async function renderScreen(opts: PageOptions): Promise<ScreenPage> {
  const palette = PALETTES[opts.theme];
  const next = rng(opts.seed ?? 1);
  const vocab = opts.vocabulary ?? VOCABULARY;
  const pick = (): string => vocab[Math.floor(next() * vocab.length)] ?? 'word';
  const parts: string[] = [`<rect width="${opts.width}" height="${opts.height}" fill="${palette.window}"/>`];
  const words: DrawnWord[] = [];
  const lines: DrawnLine[] = [];
  for (const b of layout(opts.width, opts.height)) {
    parts.push(`<rect x="${b.x}" y="${b.y}" width="${b.width}" height="${b.height}" fill="${palette[b.bg]}"/>`);
    const margin = 12;
    const space = Math.round(b.size * 0.55);
    for (let top = b.y; top + b.lineHeight <= b.y + b.height; top += b.lineHeight) {
      const baseline = top + Math.round((b.lineHeight + b.size * 0.7) / 2);
      // Menus and lists leave wide gaps; prose runs on.
      const gap = b.maxWords && b.maxWords > 2 ? space * 3 : space;
      let x = b.x + margin + Math.floor(next() * 3) * b.size;
      const drawn: DrawnWord[] = [];
      const count = b.maxWords ?? 1000;
      while (drawn.length < count) {
        const text = pick();
        const ink = await measure(text, b);
        if (x + ink.dx + ink.width > b.x + b.width - margin) break;
        parts.push(textSvg(text, x, baseline, b, palette[b.fg]));
        drawn.push({ text, box: { x: x + ink.dx, y: baseline + ink.dy, width: ink.width, height: ink.height }, line: lines.length, font: b.font, size: b.size });
        x += ink.dx + ink.width + gap;
      }
      if (drawn.length === 0) continue;
      words.push(...drawn);
      lines.push({ text: drawn.map((w) => w.text).join(' '), box: unionBox(drawn.map((w) => w.box)) });
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${opts.width}" height="${opts.height}">${parts.join('')}</svg>`;
  const png = await sharp(Buffer.from(svg)).removeAlpha().png({ compressionLevel: 1 }).toBuffer();
  return { png, width: opts.width, height: opts.height, theme: opts.theme, words, lines };
}

export function unionBox(boxes: Box[]): Box {
  const x0 = Math.min(...boxes.map((b) => b.x));
  const y0 = Math.min(...boxes.map((b) => b.y));
  const x1 = Math.max(...boxes.map((b) => b.x + b.width));
  const y1 = Math.max(...boxes.map((b) => b.y + b.height));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** The page shrunk so its long edge is `long` px (what the model sees by default), words scaled alike. */
export async function downscale(page: ScreenPage, long = 1000): Promise<ScreenPage> {
  const k = long / Math.max(page.width, page.height);
  const width = Math.round(page.width * k);
  const height = Math.round(page.height * k);
  const png = await sharp(page.png).resize(width, height, { fit: 'fill' }).png({ compressionLevel: 1 }).toBuffer();
  const scale = (b: Box): Box => ({ x: b.x * k, y: b.y * k, width: b.width * k, height: b.height * k });
  return { ...page, png, width, height, words: page.words.map((w) => ({ ...w, box: scale(w.box) })), lines: page.lines.map((l) => ({ ...l, box: scale(l.box) })) };
}

/** A native-resolution crop; keeps the words wholly inside it, in crop pixels. */
export async function crop(page: ScreenPage, region: Box): Promise<ScreenPage> {
  const png = await sharp(page.png).extract({ left: region.x, top: region.y, width: region.width, height: region.height }).png({ compressionLevel: 1 }).toBuffer();
  const inside = (b: Box): boolean => b.x >= region.x && b.y >= region.y && b.x + b.width <= region.x + region.width && b.y + b.height <= region.y + region.height;
  const move = (b: Box): Box => ({ ...b, x: b.x - region.x, y: b.y - region.y });
  const words = page.words.filter((w) => inside(w.box)).map((w) => ({ ...w, box: move(w.box) }));
  const byLine = new Map<number, DrawnWord[]>();
  for (const w of words) byLine.set(w.line, [...(byLine.get(w.line) ?? []), w]);
  const groups = [...byLine.values()];
  const lines = groups.map((ws) => ({ text: ws.map((w) => w.text).join(' '), box: unionBox(ws.map((w) => w.box)) }));
  const renumbered = groups.flatMap((ws, i) => ws.map((w) => ({ ...w, line: i })));
  return { ...page, png, width: region.width, height: region.height, words: renumbered, lines };
}
