/**
 * E2E support: a seeded catalog, the real `sightline serve`, and headless Chromium
 * (the Debian package; never a downloaded browser) driven by playwright-core.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { Catalog } from '../../src/main/core/catalog/catalog.ts';
import type { FrameLabel, FrameRecord } from '../../src/main/core/catalog/types.ts';
import type { SourceName } from '../../src/shared/frame.ts';

export const CHROMIUM = process.env.SIGHTLINE_CHROMIUM ?? '/usr/bin/chromium';
/** Each run writes here (ignored by git); docs/screenshots holds the committed copies. */
export const SCREENSHOTS = resolve(import.meta.dirname, '../../test-results/screenshots');

/** Every source off: the e2e tests need no live machine parts unless they say so. */
export const ALL_SOURCES_OFF = { sources: { desktop: { enabled: false }, browser: { enabled: false }, android: { enabled: false }, manictime: { enabled: false } } };

export function writeSettings(dataDir: string, settings: object): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(settings, null, 2));
}

export type Look = 'editor' | 'browser' | 'terminal' | 'phone' | 'pattern';

const PALETTES: readonly (readonly [string, string, string, string, string])[] = [
  ['#1e1e2e', '#313244', '#89b4fa', '#a6e3a1', '#f9e2af'],
  ['#fafafa', '#e8e8ec', '#4b4fd8', '#1f8a4c', '#d0333b'],
  ['#0f172a', '#1e293b', '#38bdf8', '#f472b6', '#facc15'],
  ['#ffffff', '#f1f5f9', '#0ea5e9', '#16a34a', '#ea580c'],
];

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** A plausible screenshot (window chrome, text lines, panels), drawn as SVG. */
export function lookSvg(look: Look, width: number, height: number, seed: number, title = ''): string {
  const [bg, panel, accent, ok, warn] = PALETTES[seed % PALETTES.length]!;
  const dark = bg.startsWith('#0') || bg.startsWith('#1');
  const text = dark ? '#cdd6f4' : '#1f2937';
  const muted = dark ? '#6c7086' : '#9ca3af';
  const rnd = (i: number): number => ((Math.sin(seed * 97.13 + i * 12.9898) * 43758.5453) % 1 + 1) % 1;
  const lines = (x: number, y: number, w: number, n: number, step: number, color = muted): string =>
    Array.from({ length: n }, (_, i) => `<rect x="${x}" y="${y + i * step}" width="${Math.round(w * (0.35 + 0.6 * rnd(i)))}" height="${Math.max(4, step * 0.36)}" rx="3" fill="${i % 7 === 0 ? accent : color}" opacity="${i % 7 === 0 ? 0.9 : 0.55}"/>`).join('');
  let body: string;
  if (look === 'phone') {
    body = `<rect width="${width}" height="${height}" fill="${bg}"/>
      <rect x="0" y="0" width="${width}" height="${height * 0.04}" fill="${panel}"/>
      <rect x="${width * 0.06}" y="${height * 0.07}" width="${width * 0.88}" height="${height * 0.07}" rx="${width * 0.04}" fill="${panel}"/>
      ${Array.from({ length: 6 }, (_, i) => `<rect x="${width * 0.06}" y="${height * (0.18 + i * 0.12)}" width="${width * 0.88}" height="${height * 0.1}" rx="${width * 0.03}" fill="${panel}"/><circle cx="${width * 0.16}" cy="${height * (0.23 + i * 0.12)}" r="${width * 0.05}" fill="${[accent, ok, warn][i % 3]}"/>${lines(width * 0.26, height * (0.2 + i * 0.12), width * 0.6, 2, height * 0.035, text)}`).join('')}
      <rect x="${width * 0.3}" y="${height * 0.95}" width="${width * 0.4}" height="${height * 0.008}" rx="4" fill="${muted}"/>`;
  } else if (look === 'pattern') {
    // High-frequency content: a shifted crop cannot match it by accident.
    const cells: string[] = [];
    for (let y = 0; y < height; y += 20) {
      for (let x = 0; x < width; x += 20) {
        const c = `rgb(${(x * 7 + seed * 13) % 256},${(y * 5 + x * 3) % 256},${(x + y * 11) % 256})`;
        cells.push(`<rect x="${x}" y="${y}" width="20" height="20" fill="${c}"/>`);
      }
    }
    body = `${cells.join('')}<path d="${Array.from({ length: 60 }, (_, i) => `M${i * 23} 0 L${width - i * 17} ${height}`).join(' ')}" stroke="#fff" stroke-width="1.5" opacity="0.7"/>`;
  } else {
    const top = look === 'browser' ? 76 : 34;
    body = `<rect width="${width}" height="${height}" fill="${bg}"/>
      <rect width="${width}" height="${top}" fill="${panel}"/>
      <circle cx="18" cy="17" r="6" fill="#ff5f57"/><circle cx="38" cy="17" r="6" fill="#febc2e"/><circle cx="58" cy="17" r="6" fill="#28c840"/>
      <text x="${width / 2}" y="22" font-family="DejaVu Sans" font-size="13" fill="${text}" text-anchor="middle">${esc(title)}</text>
      ${look === 'browser' ? `<rect x="90" y="42" width="${width - 180}" height="26" rx="13" fill="${bg}"/><text x="108" y="60" font-family="DejaVu Sans" font-size="12" fill="${muted}">https://example.com/${seed}</text>` : ''}
      ${look === 'terminal' ? lines(20, top + 20, width - 40, Math.floor((height - top - 30) / 22), 22, ok) : ''}
      ${look === 'editor' ? `<rect x="0" y="${top}" width="${width * 0.2}" height="${height - top}" fill="${panel}" opacity="0.7"/>${lines(16, top + 18, width * 0.16, Math.floor((height - top - 30) / 26), 26)}${lines(width * 0.22, top + 20, width * 0.7, Math.floor((height - top - 30) / 22), 22, text)}` : ''}
      ${look === 'browser' ? `<rect x="${width * 0.08}" y="${top + 30}" width="${width * 0.84}" height="${height * 0.22}" rx="10" fill="${accent}" opacity="0.85"/><text x="${width * 0.12}" y="${top + 30 + height * 0.13}" font-family="DejaVu Sans" font-size="${Math.round(height * 0.05)}" font-weight="bold" fill="#fff">${esc(title)}</text>${Array.from({ length: 3 }, (_, i) => `<rect x="${width * (0.08 + i * 0.29)}" y="${top + 50 + height * 0.22}" width="${width * 0.26}" height="${height * 0.3}" rx="10" fill="${panel}"/>${lines(width * (0.1 + i * 0.29), top + 70 + height * 0.22, width * 0.2, 5, 18, text)}`).join('')}` : ''}`;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`;
}

export async function renderLook(look: Look, width: number, height: number, seed: number, title = '', format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const img = sharp(Buffer.from(lookSvg(look, width, height, seed, title)));
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 80 }).toBuffer();
}

export interface SeedFrame {
  source: SourceName;
  target: string;
  capturedAt: string;
  look: Look;
  width: number;
  height: number;
  title?: string;
  pinned?: boolean;
  /** PNG keeps pixels exact (the crop test); JPEG is what captures usually are. */
  format?: 'png' | 'jpeg';
  ref?: string;
  /** What the source named the target when capturing (stored with the frame). */
  label?: FrameLabel;
}

/** Store frames directly in the catalog of `dataDir` (before `serve` opens it). */
export async function seedFrames(dataDir: string, frames: readonly SeedFrame[]): Promise<FrameRecord[]> {
  const catalog = Catalog.open(dataDir);
  const out: FrameRecord[] = [];
  try {
    let i = 0;
    for (const f of frames) {
      const format = f.format ?? 'jpeg';
      const data = await renderLook(f.look, f.width, f.height, i++, f.title ?? '', format);
      const rec = await catalog.frames.insert({
        source: f.source,
        target: f.target,
        capturedAt: f.capturedAt,
        image: { width: f.width, height: f.height },
        sourceSize: { width: f.width, height: f.height },
        origin: { x: 0, y: 0 },
        scale: 1,
        format,
        data,
        ...(f.ref ? { ref: f.ref } : {}),
        ...(f.label ? { label: f.label } : {}),
      });
      out.push(f.pinned ? catalog.frames.setPinned(rec.ref, true) : rec);
    }
  } finally {
    catalog.close();
  }
  return out;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-gpu'],
  });
}

/** A page that opened the printed Dashboard URL (which sets the session cookie). */
export async function openDashboard(browser: Browser, dashboardUrl: string, options: { colorScheme?: 'light' | 'dark'; width?: number; height?: number; /** Let a test inject a script (axe-core) past the dashboard's CSP. */ bypassCSP?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 800 }, colorScheme: options.colorScheme ?? 'light', bypassCSP: options.bypassCSP ?? false });
  const page = await context.newPage();
  await page.goto(dashboardUrl);
  await page.waitForSelector('[data-testid="pause-switch"]:not([disabled])');
  return page;
}

export async function screenshot(page: Page, name: string, options: { keepToasts?: boolean } = {}): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  // Old notices would hide the screen; a test that wants one on the picture says so.
  if (!options.keepToasts) {
    await page.evaluate(`document.querySelectorAll('[data-testid="toast"] button[aria-label="Dismiss"]').forEach((b) => b.click())`);
    await page.waitForTimeout(50);
  }
  // A palette PNG keeps committed screenshots small (UI colours quantise well).
  const png = await page.screenshot({ animations: 'disabled' });
  await sharp(png).png({ palette: true, quality: 90, compressionLevel: 9 }).toFile(path);
  return path;
}

/** ISO time `minutes` before now, with the local UTC offset written out as the catalog expects. */
export function minutesAgo(minutes: number, now = Date.now()): string {
  return new Date(now - minutes * 60_000).toISOString();
}

export interface DebugBrowser {
  /** Its DevTools endpoint, http://127.0.0.1:<port>. */
  endpoint: string;
  proc: ChildProcess;
  /** Kill it outright, as a crash would. */
  kill(): Promise<void>;
}

/** A headless Chromium with remote debugging on a port of its choosing: a browser the browser source can adopt. */
export async function startDebugBrowser(): Promise<DebugBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'sightline-e2e-chromium-'));
  const proc = spawn(CHROMIUM, ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const endpoint = await new Promise<string>((ok, fail) => {
    let err = '';
    const timer = setTimeout(() => fail(new Error(`chromium did not start: ${err}`)), 30_000);
    proc.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
      if (m) {
        clearTimeout(timer);
        ok(`http://127.0.0.1:${m[1]}`);
      }
    });
    proc.once('exit', (code) => fail(new Error(`chromium exited ${code}: ${err}`)));
  });
  return {
    endpoint,
    proc,
    async kill() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const gone = once(proc, 'exit');
        // The whole process group: its helper processes (renderers, the network service) would
        // otherwise outlive it and go on writing to the profile while it is removed.
        process.kill(-(proc.pid as number), 'SIGKILL');
        await gone;
      }
      rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    },
  };
}

const AXE = resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js');

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe-core's serious and critical findings on the page as it is now (the page needs `bypassCSP`). */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.addScriptTag({ path: AXE });
  const found = (await page.evaluate(`window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })))`)) as Violation[];
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Each finding with the elements it names and why. */
export const explainViolations = (vs: Violation[]): string => vs.map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `   ${n.target.join(' ')}: ${n.failureSummary ?? ''}`).join('\n')}`).join('\n');
