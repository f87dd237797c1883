/**
 * "Save as routine": a run's or a session's actions as the form offers them (those a routine can
 * replay: done, of a kind it knows), and the save request made of what the person chose.
 */
import type { ActivityEntry } from '../../shared/activity.ts';
import type { SaveRoutineRequest } from '../../shared/routines.ts';
import { HIDDEN_PASSWORD, INPUT_NAME, SHORTENED, inputNameOf } from '../../shared/routineNames.ts';


export interface DraftAction {
  id: number;
  tool: string;
  /** What it did, in a few words: `click “Place order”`, `type into Email: “ada@…”`. */
  what: string;
  /**
   * A type_text's text: `literal` can become an input; `secret` (a password field) and `long`
   * (the log kept only its start) always become required inputs.
   */
  typed?: 'literal' | 'secret' | 'long';
  /** The input name offered for it, after the field it typed into. */
  inputName?: string;
}

const short = (s: string, n = 48): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The actions a routine can be made of, oldest first: refused, failed and other kinds are not offered. */
export function draftActions(entries: readonly ActivityEntry[], stepKinds: readonly string[]): DraftAction[] {
  return [...entries]
    .filter((e) => e.result === 'ok' && stepKinds.includes(e.tool))
    .sort((a, b) => a.id - b.id)
    .map((e) => {
      const p = e.params ?? {};
      const o = e.outcome ?? {};
      if (e.tool === 'type_text') {
        const field = typeof p.field === 'string' ? p.field : o.received?.name;
        const text = typeof p.text === 'string' ? p.text : '';
        const typed = o.received?.password === true || HIDDEN_PASSWORD.test(text) ? 'secret' : SHORTENED.test(text) ? 'long' : 'literal';
        const shown = typed === 'secret' ? 'a secret' : `“${short(text)}”`;
        return { id: e.id, tool: e.tool, what: `type ${shown}${field ? ` into ${short(field, 40)}` : ''}`, typed, inputName: inputName(field ?? 'text') };
      }
      const aim = typeof p.text === 'string' ? p.text : (o.hit?.name ?? '');
      const detail = e.tool === 'navigate' ? String(p.url ?? p.action ?? '') : e.tool === 'press_key' ? String(p.key ?? '') : aim ? `“${short(aim)}”` : '';
      return { id: e.id, tool: e.tool, what: `${e.tool.replace('_', ' ')}${detail ? ` ${detail}` : ''}` };
    });
}

/** An input's name from a field's label: letters, digits and _, starting with a letter. */
export function inputName(label: string): string {
  return inputNameOf(label, 'text');
}

export { INPUT_NAME };

/**
 * The save request: the actions ticked (of the run, when it is one), and each literal text made
 * an input by the step it becomes (its place among the ticked actions, 1 the first).
 */
export function saveRequest(o: { name: string; runId?: string; actions: readonly DraftAction[]; chosen: ReadonlySet<number>; inputs: ReadonlyMap<number, string> }): SaveRoutineRequest {
  const ticked = o.actions.filter((a) => o.chosen.has(a.id));
  const inputs: Record<string, number> = {};
  ticked.forEach((a, i) => {
    const name = o.inputs.get(a.id);
    if (name !== undefined && a.typed === 'literal') inputs[name] = i + 1;
  });
  return {
    name: o.name,
    ...(o.runId ? { runId: o.runId } : {}),
    actions: ticked.map((a) => a.id),
    ...(Object.keys(inputs).length ? { inputs } : {}),
  };
}
