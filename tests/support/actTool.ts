/** Run a built-in action through a core's gate as the MCP server would: its arguments parsed by the kind's own schema first. */
import { z } from 'zod';
import { clickKind, dragKind, focusWindowKind, hoverKind, pressKeyKind, scrollIntoViewKind, scrollKind, swipeKind, typeTextKind } from '../../src/main/core/actions/kinds.ts';
import type { ActionResult, ActionsPort, ActOptions, AnyActionKind } from '../../src/main/core/ports.ts';

const KINDS: Record<string, AnyActionKind> = {
  click: clickKind,
  type_text: typeTextKind,
  press_key: pressKeyKind,
  scroll: scrollKind,
  hover: hoverKind,
  drag: dragKind,
  swipe: swipeKind,
  focus_window: focusWindowKind,
  scroll_into_view: scrollIntoViewKind,
};

export function actTool(core: { actions: ActionsPort }, tool: keyof typeof KINDS | string, args: Record<string, unknown>, opts: ActOptions): Promise<ActionResult> {
  const kind = KINDS[tool];
  if (!kind) throw new Error(`no built-in kind ${tool}`);
  return core.actions.act(kind, z.object(kind.input).parse(args), opts);
}
