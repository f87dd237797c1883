/**
 * Routines: save a run's actions as a routine, list them, replay one without a model. A replay
 * calls the same tools a live agent does, so every step passes the same gate and log.
 */
import { z } from 'zod';
import { defineTool } from '../tool.ts';

const nameField = z.string().min(1).max(64);

const inputSummary = z.object({ name: z.string(), secret: z.boolean(), required: z.boolean(), description: z.string().optional() });
const summary = z.object({ name: z.string(), description: z.string().optional(), target: z.record(z.string(), z.string()), steps: z.number(), inputs: z.array(inputSummary) });

const saveRoutine = defineTool({
  name: 'save_routine',
  title: 'Save a routine',
  description: 'Save this session\'s actions (or a run\'s) as a routine; secrets as inputs.',
  input: {
    name: nameField,
    runId: z.string().min(1).max(100).optional(),
    fromAction: z.int().min(1).optional().describe('1 = your first action'),
    toAction: z.int().min(1).optional(),
    replace: z.boolean().optional(),
  },
  output: summary.extend({ path: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handle(ctx, args, res) {
    const { routine, path } = ctx.routines.save(args.runId === undefined ? { ...args, session: ctx.session.id } : args);
    const s = ctx.routines.store.list().find((x) => x.name === routine.name);
    const inputs = s?.inputs ?? [];
    res.text(
      `Saved routine "${routine.name}": ${routine.steps.length} step${routine.steps.length === 1 ? '' : 's'} on ${Object.values(routine.target).join(' ')}${inputs.length ? `; inputs: ${inputs.map((i) => `${i.name}${i.secret ? ' (secret)' : ''}${i.required ? '' : ' (has default)'}`).join(', ')}` : ''}. File: ${path}`,
    );
    res.structured({ ...(s ?? { name: routine.name, target: routine.target, steps: routine.steps.length, inputs }), path });
  },
});

const listRoutines = defineTool({
  name: 'list_routines',
  title: 'List routines',
  description: 'Saved routines and their inputs.',
  input: {},
  output: z.object({ routines: z.array(summary) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async handle(ctx, _args, res) {
    const list = ctx.routines.list();
    res.text(
      list.length
        ? list.map((r) => `${r.name}: ${r.steps} steps on ${Object.values(r.target).join(' ')}${r.inputs.length ? `; inputs ${r.inputs.map((i) => `${i.name}${i.required ? '' : '?'}${i.secret ? ' (secret)' : ''}`).join(', ')}` : ''}`).join('\n')
        : 'No routines yet: save one with save_routine.',
    );
    res.structured({ routines: list });
  },
});

const runRoutine = defineTool({
  name: 'run_routine',
  title: 'Run a routine',
  description: 'Replay a routine; stops (ROUTINE_DIVERGED) where the screen differs.',
  input: {
    name: nameField,
    inputs: z.record(z.string().max(64), z.string().max(10_000)).optional(),
    target: z.string().min(1).max(512).optional(),
  },
  output: z.object({
    routine: z.string(),
    runId: z.string(),
    target: z.string(),
    ms: z.number(),
    steps: z.array(z.object({ step: z.number(), kind: z.string(), aim: z.string().optional(), ok: z.boolean(), ms: z.number() })),
    outputs: z.array(z.object({ step: z.number(), what: z.string(), lines: z.array(z.string()) })).describe('What the routine read (its find_text and get_ui_tree steps).'),
  }),
  annotations: { destructiveHint: true, openWorldHint: true },
  async handle(ctx, args, res) {
    const routine = ctx.routines.load(args.name);
    const report = await ctx.routines.run(
      routine,
      (run) => ({ call: (tool, a) => ctx.call(tool, a, run), text: ctx.text, targets: ctx.targets, session: ctx.session, signal: ctx.signal, progress: ctx.progress }),
      { inputs: args.inputs ?? {}, ...(args.target ? { target: args.target } : {}) },
    );
    const read = report.outputs.map((o) => `\nStep ${o.step}, ${o.what}:\n${o.lines.map((l) => `- ${l}`).join('\n')}`).join('');
    res.text(`Routine "${routine.name}" done on ${report.target}: ${report.steps.length} steps in ${report.ms} ms (run ${report.runId}).${read}`);
    res.structured({ routine: report.routine, runId: report.runId, target: report.target, ms: report.ms, steps: report.steps.map(({ result: _r, ...s }) => s), outputs: report.outputs });
  },
});

export default [saveRoutine, listRoutines, runRoutine];
