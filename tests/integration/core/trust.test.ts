/**
 * Actions an agent can trust, through a real MCP client on an in-memory core with the fake
 * source: frames per session, nodes as handles, text aims, outcomes, units, and refusals.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../../src/main/core/mcp/server.ts';
import { FakeSource, type FakeWindow } from '../../support/fakeSource.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';

const WIN: FakeWindow = { id: 'desktop:window:1', app: 'Notes', x: 100, y: 50, width: 1600, height: 1000, pixelRatio: 2 };

interface Frame {
  ref: string;
  image: { width: number; height: number };
  scale: number;
}

describe('actions an agent can trust', () => {
  let h: Harness;
  let fake: FakeSource;
  beforeEach(async () => {
    fake = new FakeSource({ ...WIN });
    h = await startHarness({ sources: [fake] });
  });
  afterEach(async () => h.close());

  const capture = async (call = h.call, args: Record<string, unknown> = {}): Promise<Frame> => {
    const r = await call('capture', { target: WIN.id, ...args });
    expect(r.isError, textOf(r)).toBeFalsy();
    return (r.structuredContent as { frame: Frame }).frame;
  };

  it('keeps "the latest capture" per session: two clients at different sizes each click where their own image says', async () => {
    const server = createMcpServer(h.core, { log: () => undefined });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const other = new Client({ name: 'agent-b', version: '1' });
    await other.connect(a);
    const callB = (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> => other.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    try {
      const mine = await capture(h.call, { maxDimension: 1000 });
      const theirs = await capture(callB, { maxDimension: 500 });
      expect(mine.scale).toBeCloseTo(1.6, 6);
      expect(theirs.scale).toBeCloseTo(3.2, 6);
      // A clicks (350, 70) in its own 1000 px image, after B's capture.
      const r = await h.call('click', { target: WIN.id, x: 350, y: 70 });
      expect(r.isError, textOf(r)).toBeFalsy();
      expect(fake.actions.at(-1)).toMatchObject({ kind: 'click', point: { x: 100 + 350 * 1.6, y: 50 + 70 * 1.6 } });
      expect(r.structuredContent).toMatchObject({ frameRef: mine.ref });
      await callB('click', { target: WIN.id, x: 350, y: 70 });
      expect(fake.actions.at(-1)).toMatchObject({ point: { x: 100 + 350 * 3.2, y: 50 + 70 * 3.2 } });
      // A frame of the other session still works when named.
      await h.call('click', { ref: theirs.ref, x: 10, y: 10 });
      expect(fake.actions.at(-1)).toMatchObject({ point: { x: 100 + 10 * 3.2, y: 50 + 10 * 3.2 } });
    } finally {
      await other.close();
      await server.close();
    }
  });

  it('asks for a capture in this session before x, y are read', async () => {
    expect(textOf(await h.call('click', { target: WIN.id, x: 1, y: 1 }))).toMatch(/^FRAME_NOT_FOUND: No capture of desktop:window:1 in this session yet/);
  });

  it('acts on a node where its element is now: after a layout shift, after a capture; gone is NODE_NOT_FOUND', async () => {
    fake.nodes.push({ id: 'save', parentId: 'root', role: 'button', name: 'Save', clickable: true, bounds: { x: 400, y: 300, width: 100, height: 30 } });
    const tree = (await h.call('get_ui_tree', { target: WIN.id })).structuredContent as { frameRef: string; nodes: { id: string; center?: { x: number; y: number } }[] };
    // Its centre in image pixels of the frame (to a tenth of a pixel): (450, 315) points / 1.6.
    expect(tree.nodes.find((n) => n.id === 'save')?.center).toEqual({ x: 281.3, y: 196.9 });
    // A banner pushes everything down by 300 points; a capture comes in between.
    fake.nodes[0]!.bounds.y += 300;
    await capture();
    const r = await h.call('click', { target: WIN.id, node: 'save' });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(fake.actions.at(-1)).toMatchObject({ point: { x: 100 + 450, y: 50 + 615 } });
    expect(r.structuredContent).toMatchObject({ hit: { role: 'button', name: 'Save', node: 'save' } });
    expect(textOf(r)).toMatch(/Hit button “Save”/);
    fake.nodes.length = 0;
    expect(textOf(await h.call('click', { target: WIN.id, node: 'save' }))).toMatch(/^NODE_NOT_FOUND/);
  });

  it('a node click lands within half a source pixel of its true centre at any scale (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ ratio: fc.double({ min: 0.7, max: 3.3, noNaN: true }), x: fc.integer({ min: 0, max: 390 }), y: fc.integer({ min: 0, max: 250 }), w: fc.integer({ min: 3, max: 190 }), hgt: fc.integer({ min: 3, max: 40 }) }),
        async ({ ratio, x, y, w, hgt }) => {
          // A small window keeps each capture cheap; the scale is what matters.
          Object.assign(fake.windows.get(WIN.id)!, { pixelRatio: ratio, width: 600, height: 300 });
          fake.nodes.length = 0;
          fake.nodes.push({ id: 'n', role: 'button', name: 'N', bounds: { x, y, width: w, height: hgt } });
          const frame = await capture(h.call, { maxDimension: 457 });
          const tree = (await h.call('get_ui_tree', { target: WIN.id })).structuredContent as { nodes: { id: string; center: { x: number; y: number } }[] };
          const centre = { x: WIN.x + x + w / 2, y: WIN.y + y + hgt / 2 };
          expect(Number.isInteger(frame.scale)).toBe(false);
          await h.call('click', { target: WIN.id, node: 'n' });
          const byNode = fake.actions.at(-1) as { point: { x: number; y: number } };
          expect(Math.abs(byNode.point.x - centre.x)).toBeLessThanOrEqual(0.5);
          expect(Math.abs(byNode.point.y - centre.y)).toBeLessThanOrEqual(0.5);
          // Clicking the centre the tree reports, by x, y, lands there too.
          const c = tree.nodes.find((n) => n.id === 'n')!.center;
          await h.call('click', { target: WIN.id, ref: frame.ref, x: c.x, y: c.y });
          const byPoint = fake.actions.at(-1) as { point: { x: number; y: number } };
          expect(Math.abs(byPoint.point.x - centre.x)).toBeLessThanOrEqual(0.5);
          expect(Math.abs(byPoint.point.y - centre.y)).toBeLessThanOrEqual(0.5);
        },
      ),
      { numRuns: 10 },
    );
  });

  it('clicks by visible text; two equal labels are AMBIGUOUS_TEXT unless an index picks one', async () => {
    await capture();
    let r = await h.call('click', { target: WIN.id, text: 'ok' });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(fake.actions.at(-1)).toMatchObject({ point: { x: 240, y: 270 } });
    fake.nodes.push({ id: 'ok2', role: 'button', name: 'OK', bounds: { x: 600, y: 600, width: 80, height: 40 } });
    r = await h.call('click', { target: WIN.id, text: 'OK' });
    expect(textOf(r)).toMatch(/^AMBIGUOUS_TEXT: "OK" matches 2 places \(image pixels of your latest capture\): 1\. text "OK" node \S+ at \(88, 138\); 2\. text "OK" node ok2 at \(400, 388\)/);
    r = await h.call('click', { target: WIN.id, text: 'OK', index: 2 });
    expect(fake.actions.at(-1)).toMatchObject({ point: { x: 100 + 640, y: 50 + 620 } });
    expect(textOf(await h.call('click', { target: WIN.id, text: 'Nowhere' }))).toMatch(/^NODE_NOT_FOUND: No text "Nowhere"/);
  });

  it('reads scroll deltas in image pixels, refuses a scroll that moves nothing, and says what changed', async () => {
    const frame = await capture();
    const r = await h.call('scroll', { target: WIN.id, deltaY: 100 });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(fake.actions.at(-1)).toMatchObject({ kind: 'scroll', deltaX: 0, deltaY: 160 });
    // The fake cannot say what changed: the core captured after and compared.
    const out = r.structuredContent as { afterRef?: string; changed?: unknown; frameRef: string };
    expect(out.frameRef).toBe(frame.ref);
    expect(out.afterRef).toMatch(/^f_/);
    expect(textOf(await h.call('scroll', { target: WIN.id }))).toMatch(/^INVALID_ARGUMENT: scroll needs a non-zero deltaX or deltaY/);
    const fast = await h.call('click', { target: WIN.id, x: 10, y: 10, after: 'none' });
    expect((fast.structuredContent as { afterRef?: string }).afterRef).toBeUndefined();
    const pic = await h.call('click', { target: WIN.id, x: 10, y: 10, after: 'image' });
    expect(pic.content.some((c) => c.type === 'image')).toBe(true);
  });

  it('the picture taken after an action keeps the scale of the frame acted in, so the next x, y lands the same', async () => {
    const frame = await capture(h.call, { maxDimension: 400, format: 'png' });
    expect(frame.scale).toBe(4);
    const first = await h.call('click', { target: WIN.id, x: 100, y: 50 });
    const after = (first.structuredContent as { afterRef?: string }).afterRef;
    expect(after).toMatch(/^f_/);
    expect(h.core.frames.get(after!)).toMatchObject({ image: { width: 400, height: 250 }, format: 'png' });
    await h.call('click', { target: WIN.id, x: 100, y: 50 });
    const [a, b] = fake.actions.slice(-2);
    expect(a).toMatchObject({ point: { x: 100 + 400, y: 50 + 200 } });
    expect(b).toMatchObject({ point: { x: 100 + 400, y: 50 + 200 } });
  });

  it('hovers and drags, node to node', async () => {
    await capture();
    fake.nodes.push({ id: 'a', role: 'listitem', name: 'A', bounds: { x: 10, y: 10, width: 100, height: 20 } }, { id: 'b', role: 'listitem', name: 'B', bounds: { x: 10, y: 40, width: 100, height: 20 } });
    expect((await h.call('hover', { target: WIN.id, x: 5, y: 5 })).isError).toBeFalsy();
    expect(fake.actions.at(-1)).toMatchObject({ kind: 'hover', point: { x: 100 + 5 * 1.6, y: 50 + 5 * 1.6 } });
    expect((await h.call('drag', { target: WIN.id, node: 'a', toNode: 'b' })).isError).toBeFalsy();
    expect(fake.actions.at(-1)).toMatchObject({ kind: 'drag', node: 'a', toNode: 'b' });
    expect(textOf(await h.call('drag', { target: WIN.id, node: 'a' }))).toMatch(/^INVALID_ARGUMENT: drag needs "toX" and "toY" or "toNode"/);
  });

  it('waits for text to appear, and times out saying what it saw', async () => {
    setTimeout(() => fake.nodes.push({ id: 'done', role: 'text', name: 'Upload complete', bounds: { x: 0, y: 0, width: 200, height: 20 } }), 300);
    const r = await h.call('wait_for', { target: WIN.id, text: 'upload complete', timeoutMs: 5000 });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ met: true, matches: [{ text: 'Upload complete', node: 'done' }], via: 'tree' });
    const t = await h.call('wait_for', { target: WIN.id, text: 'never', timeoutMs: 400 });
    expect(textOf(t)).toMatch(/^TIMEOUT: Waited \d+ ms for text "never" to appear on desktop:window:1; last seen: no "never" among 2 text items \("OK", "Upload complete"\)/);
  });

  it('refuses crops that are too small, or whose numbers do not fit their units', async () => {
    const { ref } = await capture();
    expect(textOf(await h.call('crop_screenshot', { ref, x: 0, y: 0, width: 0.5, height: 0.5 }))).toMatch(/^INVALID_ARGUMENT: .*look like fractions.*Hint: Pass coordinateUnits: "normalized"/);
    expect(textOf(await h.call('crop_screenshot', { ref, x: 200, y: 100, width: 300, height: 200 }))).toMatch(/^INVALID_ARGUMENT: .*past 100% of the frame: these look like pixels.*coordinateUnits: "pixels"/);
    expect(textOf(await h.call('crop_screenshot', { ref, x: 10, y: 10, width: 5, height: 5, coordinateUnits: 'pixels' }))).toMatch(/^INVALID_ARGUMENT: .*5×5 image pixels; at least 8×8.*Hint:/);
    expect(textOf(await h.call('crop_screenshot', { ref, x: 0.1, y: 0.1, width: 2, height: 0.5, coordinateUnits: 'normalized' }))).toMatch(/^INVALID_ARGUMENT: .*past 1/);
  });
});
