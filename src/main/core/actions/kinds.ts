/**
 * Actions are typed definitions. A kind declares its input (a flat zod shape, the tool's
 * arguments), how it aims (a point, a UI-tree node or visible text — required, optional or not
 * at all), whom the allowlist judges it by, how it builds the typed action its source performs
 * once the frame is judged, and which port performs it (the kit to define one is actionDefs.ts).
 * The gate runs every kind the same way; the MCP tools are made from kinds (mcp/action.ts). Adding
 * a kind is one definition here (or in a source module) plus the sources that perform it.
 */
import { z } from 'zod';
import { SightlineError } from '../../../shared/errors.ts';
import { aimFields, aimOf, afterField, defineAction, indexField, nodeField, refField, shorten, targetField, targetFields, textAimField, viaInput, xField, yField } from '../actionDefs.ts';
import type { SourceAction } from '../sources/source.ts';

const modifiers = z.array(z.enum(['Shift', 'Control', 'Alt', 'Meta'])).max(4);
const durationMs = z.int().min(1).max(10_000);

export const clickKind = defineAction({
  name: 'click',
  aim: 'required',
  input: {
    ...aimFields,
    button: z.enum(['left', 'right', 'middle']).optional(),
    clicks: z.int().min(1).max(3).optional().describe('2: double click.'),
    modifiers: modifiers.optional(),
    holdMs: z.int().min(0).max(10_000).optional().describe('Hold ms (long press).'),
  },
  build: (a, at): SourceAction => ({ kind: 'click', target: at.target, ...aimOf(at), button: a.button ?? 'left', clicks: a.clicks ?? 1, modifiers: a.modifiers ?? [], ...(a.holdMs !== undefined ? { holdMs: a.holdMs } : {}) }),
  performer: viaInput('click'),
});

export const typeTextKind = defineAction({
  name: 'type_text',
  aim: 'optional',
  textAim: 'field',
  input: {
    text: z.string().min(1).max(10_000),
    x: xField.optional(),
    y: yField.optional(),
    node: nodeField.optional(),
    field: textAimField.optional().describe('Label or placeholder of the field, e.g. "Email".'),
    index: indexField.optional(),
    submit: z.boolean().optional().describe('Press Enter after.'),
    clear: z.boolean().optional().describe('Replace the value.'),
    target: targetField.optional(),
    ref: refField.optional(),
    after: afterField.optional(),
  },
  build: (a, at): SourceAction => ({ kind: 'type_text', target: at.target, ...aimOf(at), text: a.text, ...(a.submit ? { submit: true } : {}), ...(a.clear ? { clear: true } : {}) }),
  performer: viaInput('type_text'),
  logged: ({ text, ...rest }) => ({ ...rest, text: shorten(text) }),
});

export const pressKeyKind = defineAction({
  name: 'press_key',
  aim: 'none',
  input: { key: z.string().min(1).max(64).describe('e.g. Enter, Control+Shift+T.'), ...targetFields },
  build: (a, at): SourceAction => ({ kind: 'press_key', target: at.target, ...(at.frame ? { frame: at.frame } : {}), key: a.key }),
  performer: viaInput('press_key'),
});

export const scrollKind = defineAction({
  name: 'scroll',
  aim: 'optional',
  input: {
    deltaX: z.number().finite().min(-100_000).max(100_000).default(0).describe('Image px.'),
    deltaY: z.number().finite().min(-100_000).max(100_000).default(0).describe('Image px.'),
    ...aimFields,
  },
  check: (a) => {
    if (!a.deltaX && !a.deltaY) throw new SightlineError('INVALID_ARGUMENT', 'scroll needs a non-zero deltaX or deltaY.', 'Give deltaY: 300 to scroll down by 300 image pixels (negative scrolls up).');
  },
  // Deltas are image pixels of the frame, like x and y.
  usesFrame: () => true,
  build: (a, at): SourceAction => ({ kind: 'scroll', target: at.target, ...aimOf(at), deltaX: a.deltaX * at.scale, deltaY: a.deltaY * at.scale }),
  performer: viaInput('scroll'),
});

export const hoverKind = defineAction({
  name: 'hover',
  aim: 'required',
  input: aimFields,
  build: (_a, at): SourceAction => ({ kind: 'hover', target: at.target, ...aimOf(at) }),
  performer: viaInput('hover'),
});

export const dragKind = defineAction({
  name: 'drag',
  aim: 'required',
  input: {
    ...aimFields,
    toX: xField.optional().describe('Drop here, image px.'),
    toY: yField.optional().describe('Drop here, image px.'),
    toNode: nodeField.optional().describe('Drop on this node.'),
    durationMs: durationMs.optional().describe('Move time, ms (default 300).'),
    holdMs: z.int().min(0).max(10_000).optional().describe('Hold ms before moving (Android ~600).'),
  },
  check: (a) => {
    if ((a.toX === undefined) !== (a.toY === undefined)) throw new SightlineError('INVALID_ARGUMENT', 'Give both "toX" and "toY", or neither.', 'toX and toY are image pixels of the frame you saw.');
    if (a.toX === undefined && a.toNode === undefined) throw new SightlineError('INVALID_ARGUMENT', 'drag needs "toX" and "toY" or "toNode".', 'Give where to drop, in image pixels or as a node id.');
    if (a.toX !== undefined && a.toNode !== undefined) throw new SightlineError('INVALID_ARGUMENT', 'Give "toX", "toY" or "toNode", not both.', 'Each says where to drop; one is enough.');
  },
  usesFrame: (a) => a.toX !== undefined,
  build: (a, at): SourceAction => ({
    kind: 'drag',
    target: at.target,
    ...aimOf(at),
    ...(a.toX !== undefined && a.toY !== undefined ? { to: at.toSource({ x: a.toX, y: a.toY }) } : {}),
    ...(a.toNode !== undefined ? { toNode: a.toNode } : {}),
    durationMs: a.durationMs ?? 300,
    ...(a.holdMs ? { holdMs: a.holdMs } : {}),
  }),
  performer: viaInput('drag'),
});

export const swipeKind = defineAction({
  name: 'swipe',
  aim: 'required',
  input: {
    x: xField,
    y: yField,
    toX: xField.describe('End, image px.'),
    toY: yField.describe('End, image px.'),
    durationMs: durationMs.default(300).describe('ms.'),
    target: targetField.optional(),
    ref: refField.optional(),
  },
  usesFrame: () => true,
  build: (a, at): SourceAction => ({ kind: 'swipe', target: at.target, ...aimOf(at), to: at.toSource({ x: a.toX, y: a.toY }), durationMs: a.durationMs }),
  performer: viaInput('swipe'),
});

export const focusWindowKind = defineAction({
  name: 'focus_window',
  aim: 'none',
  input: { target: z.string().min(1).max(512).describe('A desktop:window:… id.') },
  build: (_a, at): SourceAction => ({ kind: 'focus_window', target: at.target }),
  performer: viaInput('focus_window'),
});

const align = z.enum(['start', 'center', 'end', 'nearest']);

export const scrollIntoViewKind = defineAction({
  name: 'scroll_into_view',
  aim: 'none',
  input: {
    target: z.string().min(1).max(512).describe('Target id.'),
    node: nodeField,
    block: align.optional().describe('Default center (browser).'),
    inline: align.optional().describe('Default nearest (browser).'),
  },
  build: (a, at): SourceAction => ({ kind: 'scroll_into_view', target: at.target, node: a.node, block: a.block ?? 'center', inline: a.inline ?? 'nearest' }),
  performer: viaInput('scroll_into_view'),
});
