/**
 * "Save as routine" offers exactly the actions the routine builder keeps, and numbers the steps
 * as it does: an input chosen on a ticked action lands on that action's step.
 */
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../../src/shared/activity.ts';
import { buildRoutine } from '../../../src/main/core/routines/build.ts';
import { STEP_KINDS } from '../../../src/main/core/routines/format.ts';
import { draftActions, inputName, saveRequest } from '../../../src/renderer/lib/routineDraft.ts';

let id = 100;
const entry = (e: Partial<ActivityEntry>): ActivityEntry => ({ id: ++id, at: '2026-01-01T00:00:00Z', tool: 'click', result: 'ok', durationMs: 1, source: 'browser', target: 'browser:T1', targetLabel: { document: 'https://shop.example/cart' }, ...e });

const log = [
  entry({ tool: 'capture' }),
  entry({ tool: 'type_text', params: { field: 'Search', text: 'lamps' }, outcome: { received: { role: 'textbox', name: 'Search' } } }),
  entry({ tool: 'click', result: 'NODE_NOT_FOUND', params: { text: 'Nope' } }),
  entry({ tool: 'scroll', params: { deltaY: 300 } }),
  entry({ tool: 'type_text', params: { node: 'n4', text: '[9 characters for a password field]' }, outcome: { received: { role: 'textbox', name: 'Password', password: true } } }),
  entry({ tool: 'type_text', params: { field: 'Note', text: `${'x'.repeat(200)}… (5000 chars)` }, outcome: { received: { role: 'textbox', name: 'Note' } } }),
  entry({ tool: 'type_text', params: { field: 'Delivery date', text: '2026-12-01' }, outcome: { received: { role: 'textbox', name: 'Delivery date' } } }),
  entry({ tool: 'click', params: { text: 'Buy' }, outcome: { hit: { role: 'button', name: 'Buy' } } }),
];

describe('the actions "Save as routine" offers', () => {
  const actions = draftActions([...log].reverse(), STEP_KINDS);

  it('are the done actions of a kind a routine replays, oldest first, each typed text told literal, secret or too long', () => {
    expect(actions.map((a) => a.tool)).toEqual(['type_text', 'type_text', 'type_text', 'type_text', 'click']);
    expect(actions.map((a) => a.typed)).toEqual(['literal', 'secret', 'long', 'literal', undefined]);
    expect(actions[0]!.what).toBe('type “lamps” into Search');
    expect(actions[1]!.what).toBe('type a secret into Password');
    expect(actions[3]!.inputName).toBe('delivery_date');
    expect(actions[4]!.what).toBe('click “Buy”');
  });

  it('make a request whose inputs name the steps the builder makes of the ticked actions', () => {
    const chosen = new Set(actions.filter((a) => a.tool !== 'type_text' || a.typed !== 'long').map((a) => a.id));
    chosen.delete(actions[0]!.id);
    const req = saveRequest({ name: 'buy', actions, chosen, inputs: new Map([[actions[3]!.id, 'when'], [actions[1]!.id, 'ignored']]) });
    expect(req).toEqual({ name: 'buy', actions: [actions[1]!.id, actions[3]!.id, actions[4]!.id], inputs: { when: 2 } });
    const picked = log.filter((e) => req.actions!.includes(e.id));
    const r = buildRoutine(picked, { name: 'buy', from: { actions: [picked[0]!.id, picked.at(-1)!.id] }, inputs: req.inputs! });
    expect(r.steps.map((s) => s.params.text)).toEqual([{ input: 'password' }, { input: 'when' }, undefined]);
    expect(r.inputs).toEqual([expect.objectContaining({ name: 'password', secret: true }), expect.objectContaining({ name: 'when', default: '2026-12-01' })]);
  });

  it('name an input after its field', () => {
    expect(inputName('Delivery date')).toBe('delivery_date');
    expect(inputName('2nd line')).toBe('v2nd_line');
    expect(inputName('—')).toBe('text');
  });
});
