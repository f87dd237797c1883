import { describe, expect, it } from 'vitest';
import { capabilitiesOf, describeAction, outOfFrame, parseAction, toToolCall, tooUnsure, unsupportedForm, type Action, type Capabilities } from '../../../src/cli/agent/action.ts';

const ok = (text: string): Action => {
  const r = parseAction(text);
  if (!r.ok) throw new Error(r.problem);
  return r.action;
};
const problem = (text: string): string => {
  const r = parseAction(text);
  if (r.ok) throw new Error(`parsed: ${JSON.stringify(r.action)}`);
  return r.problem;
};

describe('parseAction', () => {
  it('reads the strict action JSON, with the extensions', () => {
    expect(ok('{"action":"click","x":123,"y":456,"done":false,"why":"Click Continue","confidence":0.8}')).toEqual({ action: 'click', x: 123, y: 456, done: false, why: 'Click Continue', confidence: 0.8 });
    expect(ok('{"action":"type","text":"a b","why":"w","confidence":1}')).toMatchObject({ action: 'type', text: 'a b' });
    expect(ok('{"action":"key","key":"Control+A","why":"w","confidence":1}')).toMatchObject({ key: 'Control+A' });
    expect(ok('{"action":"scroll","deltaY":300,"why":"w","confidence":1}')).toMatchObject({ deltaY: 300 });
    expect(ok('{"action":"noop","why":"unsure","confidence":0.1}').action).toBe('noop');
    expect(ok('{"action":"done","why":"there","confidence":0.9}').action).toBe('done');
  });

  it('tolerates one json fence, nothing else around the object', () => {
    expect(ok('```json\n{"action":"noop","why":"w","confidence":0}\n```').action).toBe('noop');
    expect(problem('Here you go: {"action":"noop","why":"w","confidence":0}')).toMatch(/not a JSON object/);
    expect(problem('')).toBe('the reply is empty');
    expect(problem('{"action":')).toMatch(/not valid JSON/);
  });

  it('names what does not match the schema', () => {
    expect(problem('{"action":"click","x":1,"y":2,"why":"w"}')).toMatch(/"confidence"/);
    expect(problem('{"action":"click","x":1,"why":"w","confidence":1}')).toMatch(/"y": give both x and y/);
    expect(problem('{"action":"click","x":1,"y":2,"node":"n1","why":"w","confidence":1}')).toMatch(/exactly one of/);
    expect(problem('{"action":"click","why":"w","confidence":1}')).toMatch(/exactly one of/);
    expect(problem('{"action":"drag","why":"w","confidence":1}')).toMatch(/"action"/);
    expect(problem('{"action":"noop","why":"w","confidence":1,"extra":1}')).toMatch(/extra/);
    expect(problem('{"action":"click","x":1,"y":2,"why":"w","confidence":1.5}')).toMatch(/"confidence"/);
    expect(problem('{"action":"scroll","why":"w","confidence":1}')).toMatch(/non-zero/);
    expect(problem('{"action":"done","why":"","confidence":1}')).toMatch(/"why"/);
  });
});

describe('safety checks', () => {
  const click = (x: number, y: number, confidence = 1): Action => ({ action: 'click', x, y, why: 'w', confidence });
  it('a point is inside when 0 ≤ x < width and 0 ≤ y < height', () => {
    const size = { width: 1000, height: 625 };
    expect(outOfFrame(click(0, 0), size)).toBeUndefined();
    expect(outOfFrame(click(999.5, 624.9), size)).toBeUndefined();
    expect(outOfFrame(click(1000, 10), size)).toBe('(1000, 10) is outside the 1000×625 image');
    expect(outOfFrame(click(10, -1), size)).toMatch(/outside/);
    expect(outOfFrame({ action: 'key', key: 'Enter', why: 'w', confidence: 1 }, size)).toBeUndefined();
  });
  it('low confidence stops acting and "done", never a noop', () => {
    expect(tooUnsure(click(1, 1, 0.4), 0.5)).toBe('confidence 0.4 is below --min-confidence 0.5');
    expect(tooUnsure(click(1, 1, 0.5), 0.5)).toBeUndefined();
    expect(tooUnsure({ action: 'done', why: 'w', confidence: 0.1 }, 0.5)).toMatch(/below/);
    expect(tooUnsure({ action: 'noop', why: 'w', confidence: 0 }, 0.5)).toBeUndefined();
  });
});

describe('tools', () => {
  const tool = (name: string, ...props: string[]): { name: string; inputSchema: { properties: Record<string, unknown> } } => ({ name, inputSchema: { properties: Object.fromEntries(props.map((p) => [p, {}])) } });
  it('offers click by node only with a UI tree, by text only when click takes text', () => {
    const today = capabilitiesOf([tool('click', 'x', 'y', 'node'), tool('type_text', 'text'), tool('press_key', 'key'), tool('scroll', 'deltaY'), tool('get_ui_tree', 'target')]);
    expect(today).toEqual({ type: true, key: true, scroll: true, clickNode: true, clickText: false, typeNode: false, uiTree: true });
    const later = capabilitiesOf([tool('click', 'x', 'y', 'node', 'text'), tool('type_text', 'text', 'node'), tool('get_ui_tree')]);
    expect(later).toMatchObject({ clickText: true, typeNode: true, key: false, scroll: false });
    expect(capabilitiesOf([tool('click', 'x', 'y', 'node')]).clickNode).toBe(false);
  });
  it('an action in a form the tools do not take is unusable (repaired, not sent)', () => {
    const caps: Capabilities = { type: true, key: false, scroll: true, clickNode: false, clickText: false, typeNode: false, uiTree: false };
    expect(unsupportedForm({ action: 'click', text: 'Go', why: 'w', confidence: 1 }, caps)).toMatch(/by "text" is not available/);
    expect(unsupportedForm({ action: 'click', node: 'n1', why: 'w', confidence: 1 }, caps)).toMatch(/by "node"/);
    expect(unsupportedForm({ action: 'key', key: 'Enter', why: 'w', confidence: 1 }, caps)).toMatch(/"key"/);
    expect(unsupportedForm({ action: 'click', x: 1, y: 1, why: 'w', confidence: 1 }, caps)).toBeUndefined();
  });
  it('maps actions to tool calls; image points carry the frame ref', () => {
    const t = 'browser:T';
    expect(toToolCall({ action: 'click', x: 5, y: 6, why: 'w', confidence: 1 }, t, 'F1')).toEqual({ name: 'click', arguments: { target: t, ref: 'F1', x: 5, y: 6 } });
    expect(toToolCall({ action: 'click', node: 'n3', why: 'w', confidence: 1 }, t, 'F1')).toEqual({ name: 'click', arguments: { target: t, node: 'n3' } });
    expect(toToolCall({ action: 'type', text: 'hi', why: 'w', confidence: 1 }, t, 'F1')).toEqual({ name: 'type_text', arguments: { target: t, text: 'hi' } });
    expect(toToolCall({ action: 'type', text: 'hi', x: 1, y: 2, why: 'w', confidence: 1 }, t, 'F1')).toEqual({ name: 'type_text', arguments: { target: t, text: 'hi', ref: 'F1', x: 1, y: 2 } });
    expect(toToolCall({ action: 'key', key: 'Enter', why: 'w', confidence: 1 }, t, 'F1')).toEqual({ name: 'press_key', arguments: { target: t, key: 'Enter' } });
    expect(toToolCall({ action: 'scroll', deltaY: 300, why: 'w', confidence: 1 }, t, 'F1')).toEqual({ name: 'scroll', arguments: { target: t, deltaX: 0, deltaY: 300 } });
    expect(toToolCall({ action: 'noop', why: 'w', confidence: 1 }, t, 'F1')).toBeUndefined();
  });
  it('describes actions in one short line', () => {
    expect(describeAction({ action: 'click', x: 1.234, y: 5, why: 'w', confidence: 1 })).toBe('click (1.2, 5)');
    expect(describeAction({ action: 'type', text: 'x'.repeat(60), why: 'w', confidence: 1 })).toBe(`type "${'x'.repeat(39)}…"`);
    expect(describeAction({ action: 'scroll', deltaY: -200, x: 3, y: 4, why: 'w', confidence: 1 })).toBe('scroll 0,-200 at (3, 4)');
  });
});
