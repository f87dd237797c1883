/** Which reads of a run become routine steps, and where; what a replayed read hands back. */
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../../src/shared/activity.ts';
import type { ReadEntry } from '../../../src/main/core/catalog/reads.ts';
import { buildRoutine } from '../../../src/main/core/routines/build.ts';
import { parseRoutine } from '../../../src/main/core/routines/format.ts';
import { readBack, readParams } from '../../../src/main/core/routines/reads.ts';

const act = (id: number, text: string): ActivityEntry => ({ id, at: '2026-01-01T00:00:00Z', tool: 'click', result: 'ok', durationMs: 1, source: 'browser', target: 'browser:T1', session: 'S', targetLabel: { document: 'https://shop.example/cart' }, params: { target: 'browser:T1', text } });
let n = 0;
const read = (afterAction: number, tool: string, params: Record<string, unknown>, o: Partial<ReadEntry> = {}): ReadEntry => ({ id: ++n, at: '2026-01-01T00:00:00Z', tool, target: 'browser:T1', params, session: 'S', afterAction, ...o });

describe('reads in a routine', () => {
  it('puts a wait after the action it followed, a find or a tree query only after the last action, and leaves out the rest', () => {
    const r = buildRoutine([act(10, 'Check'), act(12, 'Reserve')], {
      name: 'book',
      from: { actions: [10, 12] },
      reads: [
        read(9, 'get_ui_tree', { query: 'button' }), // before the first action: finding the way
        read(10, 'get_ui_tree', { query: 'button' }), // between actions: finding the way
        read(10, 'wait_for', { text: 'Reserve now', timeoutMs: 3000 }),
        read(11, 'wait_for', { text: 'Also kept' }), // after a refused entry (11), still after action 10
        read(12, 'wait_for', { text: 'Other tab' }, { target: 'browser:T2' }),
        read(12, 'find_text', { text: 'Other agent' }, { session: 'S2' }),
        read(12, 'find_text', { text: 'Reserved.' }),
        read(12, 'get_ui_tree', { query: 'heading' }),
      ],
    });
    expect(r.steps.map((s) => `${s.kind} ${JSON.stringify(s.aim?.name ?? s.params.text ?? s.params.query)}`)).toEqual([
      'click "Check"',
      'wait_for "Reserve now"',
      'wait_for "Also kept"',
      'click "Reserve"',
      'find_text "Reserved."',
      'get_ui_tree "heading"',
    ]);
    expect(parseRoutine(JSON.stringify(r), 'book.json')).toEqual(r);
  });

  it('numbers an input by the step the file shows, the waits before it counted', () => {
    const typed: ActivityEntry = { ...act(21, ''), tool: 'type_text', params: { target: 'browser:T1', field: 'Name', text: 'Ada' } };
    const r = buildRoutine([act(20, 'Open'), typed], { name: 'who', from: { actions: [20, 21] }, inputs: { who: 2 }, reads: [read(20, 'wait_for', { text: 'Name' })] });
    expect(r.steps.map((s) => s.kind)).toEqual(['click', 'wait_for', 'type_text']);
    expect(r.steps[2]!.params.text).toEqual({ input: 'who' });
    expect(r.inputs).toEqual([expect.objectContaining({ name: 'who', description: 'Typed at step 3.', default: 'Ada' })]);
  });

  it('keeps what names the read, never a node, a wait by time or a whole tree', () => {
    expect(readParams('wait_for', { target: 'browser:T1', text: 'Done', timeoutMs: 10_000, index: 2 })).toEqual({ text: 'Done', timeoutMs: 10_000 });
    expect(readParams('wait_for', { target: 'browser:T1', ms: 500 })).toBeUndefined();
    expect(readParams('wait_for', { target: 'browser:T1', node: 'n1', gone: true })).toBeUndefined();
    expect(readParams('get_ui_tree', { target: 'browser:T1', maxNodes: 100 })).toBeUndefined();
    expect(readParams('find_text', { ref: 'f_1', text: 'x' })).toBeUndefined();
    expect(readParams('capture', { target: 'browser:T1' })).toBeUndefined();
  });

  it('hands back what a read saw, and nothing when it saw none', () => {
    const find = { kind: 'find_text' as const, params: { text: 'Total' } };
    expect(readBack(find, { matches: [{ text: 'Total 12 €' }] })).toEqual(['Total 12 €']);
    expect(readBack(find, { matches: [] })).toBeUndefined();
    const tree = { kind: 'get_ui_tree' as const, params: { query: 'heading' } };
    expect(readBack(tree, { nodes: [{ id: 'n1', role: 'heading', name: 'Results', bounds: { x: 0, y: 0, width: 1, height: 1 } }] })).toEqual(['heading "Results"']);
    expect(readBack({ kind: 'wait_for', params: { text: 'x' } }, { met: true })).toEqual([]);
  });
});
