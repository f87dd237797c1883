/**
 * Secrets on an Android screen (the fake device behind the real adb server, through an MCP
 * client): a password node and a card number in the UI tree are one solid colour in the capture,
 * the stored image and its native original (so in a crop); get_ui_tree and find_text never give
 * them; a number failing the Luhn check stays readable; text typed into the password field reaches
 * the device exactly and no file under the data directory holds it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MASK_COLOUR } from '../../../src/main/core/image/pipeline.ts';
import { androidModule } from '../../../src/main/core/sources/android/module.ts';
import type { Rect } from '../../../src/shared/frame.ts';
import type { FakeAdbDevice } from '../../support/fakeAdbDevice.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { startAdb, type AdbHarness } from './harness.ts';

const CARD = '4111 1111 1111 1111';
const NOT_A_CARD = '4111 1111 1111 1112';
const TYPED = 'Typed-Secret-pw42';

let h: AdbHarness;
let mcp: Harness;

beforeEach(async () => {
  h = await startAdb();
  mcp = await startHarness({ env: h.env, modules: [androidModule] });
});
afterEach(async () => {
  await mcp.close();
  await h.stop();
});

/** Boxes in device px, all inside the fake screen's noisy band (so an unmasked box is never one colour). */
const PW: Rect = { x: 100, y: 900, width: 880, height: 100 };
const CARD_BOX: Rect = { x: 100, y: 1100, width: 880, height: 100 };
const ORDER_BOX: Rect = { x: 100, y: 1300, width: 880, height: 100 };

const node = (attrs: string, r: Rect): string =>
  `<node index="0" ${attrs} package="com.example.fake" checkable="false" checked="false" clickable="true" enabled="true" scrollable="false" long-clickable="false" selected="false" bounds="[${r.x},${r.y}][${r.x + r.width},${r.y + r.height}]" />`;

const screen = (d: FakeAdbDevice): string =>
  `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="${d.rotation}"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.fake" content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,2400]">` +
  node('text="•••••••" resource-id="com.example.fake:id/pin" class="android.widget.EditText" content-desc="" focusable="true" focused="true" password="true"', PW) +
  node(`text="${CARD}" resource-id="com.example.fake:id/card" class="android.widget.TextView" content-desc=""`, CARD_BOX) +
  node(`text="${NOT_A_CARD}" resource-id="com.example.fake:id/order" class="android.widget.TextView" content-desc=""`, ORDER_BOX) +
  `</node></hierarchy>`;

const data = (r: CallToolResult): Record<string, unknown> => {
  if (r.isError) throw new Error(textOf(r));
  return r.structuredContent as Record<string, unknown>;
};

/**
 * The largest difference from the mask colour inside `r` (device px) of an image `k` times smaller
 * than the screen, 8 image px in from its edges (JPEG blocks straddling an edge ring inside it).
 */
async function offMask(img: Buffer, r: Rect, k: number): Promise<number> {
  const { data: px, info } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let worst = 0;
  for (let y = Math.ceil(r.y / k) + 8; y < Math.floor((r.y + r.height) / k) - 8; y++) {
    for (let x = Math.ceil(r.x / k) + 8; x < Math.floor((r.x + r.width) / k) - 8; x++) {
      const i = (y * info.width + x) * info.channels;
      worst = Math.max(worst, Math.abs(px[i]! - MASK_COLOUR.r), Math.abs(px[i + 1]! - MASK_COLOUR.g), Math.abs(px[i + 2]! - MASK_COLOUR.b));
    }
  }
  return worst;
}

function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push({ path: p, bytes: readFileSync(p) });
  }
  return out;
}

it('masks the password node and the card number in the capture, the stored image, its original and a crop; the non-Luhn number stays', async () => {
  const d = await h.device({ uiXml: screen });
  const target = `android:${d.serial}`;
  const cap = await mcp.call('capture', { target });
  const frame = data(cap).frame as { ref: string; scale: number };
  const img = cap.content.find((c) => c.type === 'image');
  const shown = Buffer.from(img && img.type === 'image' ? img.data : '', 'base64');
  const stored = (await mcp.core.frames.read(frame.ref, 'image')).data;
  await mcp.core.frames.settle();
  const original = (await mcp.core.frames.read(frame.ref, 'full')).data;
  for (const [img, k] of [[shown, frame.scale], [stored, frame.scale], [original, 1]] as const) {
    expect(await offMask(img, PW, k)).toBeLessThanOrEqual(16);
    expect(await offMask(img, CARD_BOX, k)).toBeLessThanOrEqual(16);
    expect(await offMask(img, ORDER_BOX, k)).toBeGreaterThan(100);
  }
  // A crop is cut from the (masked) original at device resolution.
  const crop = await mcp.call('crop_screenshot', { ref: frame.ref, coordinateUnits: 'pixels', x: 0, y: Math.round(850 / frame.scale), width: Math.round(1080 / frame.scale), height: Math.round(400 / frame.scale), maxDimension: 2000 });
  const cropped = data(crop).frame as { ref: string; origin: { x: number; y: number }; scale: number };
  const cut = (await mcp.core.frames.read(cropped.ref, 'image')).data;
  const shift = (r: Rect): Rect => ({ x: r.x - cropped.origin.x, y: r.y - cropped.origin.y, width: r.width, height: r.height });
  expect(await offMask(cut, shift(PW), cropped.scale)).toBeLessThanOrEqual(16);
  expect(await offMask(cut, shift(CARD_BOX), cropped.scale)).toBeLessThanOrEqual(16);
});

it('get_ui_tree marks the password node with no value and blanks the card; find_text finds the readable number only', async () => {
  const d = await h.device({ uiXml: screen });
  const target = `android:${d.serial}`;
  const tree = await mcp.call('get_ui_tree', { target });
  const all = `${textOf(tree)}\n${JSON.stringify(tree.structuredContent)}`;
  expect(all).not.toContain(CARD);
  expect(all).not.toContain('•••••••');
  const nodes = data(tree).nodes as { name: string; password?: boolean; attributes?: Record<string, string> }[];
  expect(nodes.filter((n) => n.password)).toHaveLength(1);
  expect(nodes.some((n) => n.name === NOT_A_CARD)).toBe(true);
  expect(data(await mcp.call('find_text', { target, text: CARD })).matches).toEqual([]);
  expect(data(await mcp.call('find_text', { target, text: NOT_A_CARD })).matches).toHaveLength(1);
});

it('type_text into the password node types the exact text; nothing under the data directory holds it', async () => {
  const d = await h.device({ uiXml: screen });
  const target = `android:${d.serial}`;
  const nodes = data(await mcp.call('get_ui_tree', { target })).nodes as { id: string; password?: boolean }[];
  const pw = nodes.find((n) => n.password)!;
  const typed = await mcp.call('type_text', { target, node: pw.id, text: TYPED });
  expect(textOf(typed)).toContain(`typed ${TYPED.length} characters into a password field`);
  expect(JSON.stringify(typed)).not.toContain(TYPED);
  expect(d.inputs.filter((i) => i.kind === 'text').map((i) => (i as { text: string }).text).join('')).toBe(TYPED);
  await mcp.call('capture', { target });
  await mcp.core.frames.settle();
  for (const { path, bytes } of filesUnder(mcp.dataDir)) {
    for (const secret of [TYPED, CARD]) expect(bytes.includes(Buffer.from(secret)), `${secret} in ${path}`).toBe(false);
  }
});
