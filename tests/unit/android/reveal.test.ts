import { describe, expect, it } from 'vitest';
import { NodeHandles, type HandledDump } from '../../../src/main/core/sources/android/handles.ts';
import { dumpForFrame, elementRef, hitAt, keyboardNote } from '../../../src/main/core/sources/android/outcome.ts';
import { contentShift, placeNode, scrollerOf, shiftToShow, swipeFor, viewport } from '../../../src/main/core/sources/android/reveal.ts';
import type { AndroidFrameState } from '../../../src/main/core/sources/android/screen.ts';
import type { StoredFrame } from '../../../src/main/core/sources/source.ts';
import { parseUiDump } from '../../../src/main/core/sources/android/uiDump.ts';
import { FakeUi, ROW_HEIGHT } from '../../support/fakeAdb/ui.ts';

const size = { width: 1080, height: 2400 };
const view = { x: 0, y: 240, width: 1080, height: 1920 }; // the fake list's box

function listDump(h: NodeHandles, scroll: number): HandledDump {
  const ui = new FakeUi({ size, rotation: 0, foreground: 'com.example.fake' });
  ui.screen = 'list';
  ui.scroll = scroll;
  return h.adopt(parseUiDump(ui.xml(), size).nodes, { screen: size, at: 1000, rotation: 0 });
}

describe('placing a node', () => {
  it('presses the centre of a node that shows enough, scrolls towards a clipped one, gives up without a scroller', () => {
    expect(placeNode({ x: 100, y: 300, width: 200, height: 100 }, { width: 200, height: 100 }, view, true)).toEqual({ press: { x: 200, y: 350 } });
    // Clipped at the top to 40 of 200 px: move the content down so its top shows with a margin.
    expect(placeNode({ x: 0, y: 240, width: 1080, height: 40 }, { width: 1080, height: 200 }, view, true)).toEqual({ shift: { x: 0, y: 208 } });
    // Clipped at the bottom.
    expect(placeNode({ x: 0, y: 2100, width: 1080, height: 60 }, { width: 1080, height: 200 }, view, true)).toEqual({ shift: { x: 0, y: -188 } });
    // Hidden and nothing to scroll.
    expect(placeNode({ x: 0, y: 2500, width: 100, height: 100 }, { width: 100, height: 100 }, { x: 0, y: 0, ...size }, false)).toEqual({ unreachable: true });
    // Partly visible, nothing to scroll: press what shows.
    expect(placeNode({ x: 1000, y: 100, width: 200, height: 100 }, { width: 200, height: 100 }, { x: 0, y: 0, ...size }, false)).toEqual({ press: { x: 1040, y: 150 } });
  });

  it('bounds a shift to 80 % of the view and to at least the touch slop; the swipe is centred in the view', () => {
    expect(shiftToShow({ x: 0, y: 9000, width: 1080, height: 200 }, view)).toEqual({ x: 0, y: -1536 });
    // Out by 15 px: in, with a 48 px margin.
    expect(shiftToShow({ x: 0, y: 1975, width: 1080, height: 200 }, view)).toEqual({ x: 0, y: -63 });
    // A small list (20 px margin), out by 5 px: at least 40 px, or the finger would not leave the touch slop.
    expect(shiftToShow({ x: 0, y: 105, width: 1080, height: 100 }, { x: 0, y: 0, width: 1080, height: 200 })).toEqual({ x: 0, y: -40 });
    expect(shiftToShow({ x: 0, y: 1000, width: 1080, height: 200 }, view)).toEqual({ x: 0, y: 0 });
    expect(shiftToShow({ x: 0, y: 0, width: 1080, height: 5000 }, view)).toEqual({ x: 0, y: 0 });
    expect(swipeFor({ x: 0, y: -600 }, view)).toEqual({ from: { x: 540, y: 1500 }, to: { x: 540, y: 900 } });
  });

  it('measures how a list moved between two dumps from the rows both show', () => {
    const h = new NodeHandles();
    const a = listDump(h, 0);
    const list = a.nodes.find((n) => n.attributes?.scrollable === 'true')!;
    expect(scrollerOf(a, a.nodes.find((n) => n.attributes?.text === 'Item 2')!.id)?.id).toBe(list.id);
    expect(viewport(size, list)).toEqual(view);
    const b = listDump(h, 3 * ROW_HEIGHT + 50);
    expect(contentShift(a, b, list.id)).toEqual({ x: 0, y: -(3 * ROW_HEIGHT + 50) });
    const c = listDump(h, 3 * ROW_HEIGHT + 50);
    expect(contentShift(b, c, list.id)).toEqual({ x: 0, y: 0 });
    // Nothing in common: unknown.
    expect(contentShift(a, listDump(new NodeHandles(), 20 * ROW_HEIGHT), list.id)).toBeUndefined();
  });
});

describe('outcomes', () => {
  it('a tap hits the deepest clickable node at the point; the latest dump counts only if not older than the frame', () => {
    const h = new NodeHandles();
    const d = listDump(h, 0);
    const hit = hitAt(d, { x: 500, y: 240 + 100 })!;
    expect(elementRef(hit)).toEqual({ role: 'android.widget.LinearLayout', node: hit.id, app: 'com.example.fake' });
    expect(d.nodes.find((n) => n.parentId === hit.id)?.attributes?.text).toBe('Item 1');
    expect(elementRef(hitAt(d, { x: 540, y: 2300 })!)).toMatchObject({ role: 'android.widget.Button', name: 'Done' });
    expect(hitAt(d, { x: 5000, y: 5000 })).toBeUndefined();

    const frame = (at: number, rotation: number | null = 0) => ({ capturedAt: new Date(at).toISOString(), state: { rotation } }) as unknown as StoredFrame<AndroidFrameState>;
    expect(dumpForFrame(d, frame(900))).toBe(d);
    expect(dumpForFrame(d, frame(1500))).toBeUndefined();
    expect(dumpForFrame(d, frame(900, 1))).toBeUndefined();
    expect(dumpForFrame(d, undefined)).toBeUndefined();
  });

  it('says when the keyboard came or went', () => {
    expect(keyboardNote({ shown: false }, { shown: true })).toBe('the keyboard appeared');
    expect(keyboardNote({ shown: true }, { shown: false })).toBe('the keyboard closed');
    expect(keyboardNote({ shown: true }, { shown: true })).toBeUndefined();
    expect(keyboardNote({}, { shown: true })).toBeUndefined();
  });
});
