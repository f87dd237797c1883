/**
 * Draws the tray and app icons into resources/ with sharp (SVG → PNG), so the committed
 * PNGs can be regenerated: `node scripts/makeIcons.mjs`.
 *
 * Tray: a colour icon per state for Windows/Linux (`tray.png`, `tray-paused.png`,
 * `tray-busy.png`) and black-on-transparent template images for macOS
 * (`trayTemplate.png`, …), each with an @2x variant Electron picks up by name.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';

const OUT = resolve(import.meta.dirname, '../resources');
const ACCENT = '#4b4fd8';
const PAUSED = '#d0333b';
const BUSY = '#e39a1b';

/** The eye mark on a 32×32 grid. */
/** @param {string} stroke @param {number} [width] */
const eye = (stroke, width = 2.6) =>
  `<path d="M3.5 16s4.6-8.5 12.5-8.5S28.5 16 28.5 16s-4.6 8.5-12.5 8.5S3.5 16 3.5 16Z" fill="none" stroke="${stroke}" stroke-width="${width}" stroke-linejoin="round"/>` +
  `<circle cx="16" cy="16" r="4" fill="${stroke}"/>`;

/** @param {string} fill */
const pauseBars = (fill) => `<rect x="10" y="8" width="4.5" height="16" rx="1.2" fill="${fill}"/><rect x="17.5" y="8" width="4.5" height="16" rx="1.2" fill="${fill}"/>`;

/** @param {'idle' | 'paused' | 'busy'} state */
function colourTray(state) {
  const bg = state === 'paused' ? PAUSED : ACCENT;
  const body = state === 'paused' ? pauseBars('#fff') : eye('#fff');
  const badge = state === 'busy' ? `<circle cx="26" cy="6" r="5.5" fill="${BUSY}" stroke="#fff" stroke-width="1.5"/>` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="1" y="1" width="30" height="30" rx="8" fill="${bg}"/>${body}${badge}</svg>`;
}

/** @param {'idle' | 'paused' | 'busy'} state */
function templateTray(state) {
  // Template images: only alpha matters; macOS tints them for light and dark menu bars.
  const body =
    state === 'paused'
      ? `<g opacity="0.45">${eye('#000')}</g><rect x="19" y="17" width="12" height="14" rx="3" fill="#000"/><rect x="21.5" y="20" width="2.5" height="8" fill="#fff"/><rect x="26" y="20" width="2.5" height="8" fill="#fff"/>`
      : state === 'busy'
        ? `${eye('#000')}<circle cx="26.5" cy="6" r="4.5" fill="#000"/>`
        : eye('#000');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${body}</svg>`;
}

function appIcon() {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1024 1024">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#5a5ee8"/><stop offset="1" stop-color="#1aa69a"/></linearGradient></defs>
  <rect x="64" y="64" width="896" height="896" rx="200" fill="url(#g)"/>
  <g transform="translate(512 512) scale(24) translate(-16 -16)">${eye('#fff', 2.4)}</g>
</svg>`;
}

/** Render at 4× the target size (density scales the SVG's own viewBox units) for clean edges. */
/** @param {string} svg @param {number} size @param {string} file @param {number} [viewBox] */
async function png(svg, size, file, viewBox = 32) {
  await sharp(Buffer.from(svg), { density: Math.min(2400, 72 * (size / viewBox) * 4) })
    .resize(size, size)
    .png({ compressionLevel: 9 })
    .toFile(join(OUT, file));
}

mkdirSync(OUT, { recursive: true });
for (const state of /** @type {const} */ (['idle', 'paused', 'busy'])) {
  const suffix = state === 'idle' ? '' : `-${state}`;
  await png(colourTray(state), 16, `tray${suffix}.png`);
  await png(colourTray(state), 32, `tray${suffix}@2x.png`);
  await png(templateTray(state), 16, `tray${suffix}Template.png`);
  await png(templateTray(state), 32, `tray${suffix}Template@2x.png`);
}
await png(appIcon(), 1024, 'icon.png', 1024);
console.log(`icons written to ${OUT}`);
