/** Action tools every live source may offer, made from the built-in action kinds. */
import { clickKind, dragKind, hoverKind, pressKeyKind, scrollKind, typeTextKind } from '../../actions/kinds.ts';
import { actionTool } from '../action.ts';

const click = actionTool(clickKind, {
  title: 'Click',
  description:
    'Click (tap on Android) at x, y, a node or visible text. Says what was hit, navigation, dialogs and what changed.',
});

const typeText = actionTool(typeTextKind, {
  title: 'Type text',
  description:
    'Type text into the focused field, or into the one at x, y, node or labelled field (clicked first). Says the value read back.',
});

const pressKey = actionTool(pressKeyKind, {
  title: 'Press a key',
  description: 'Press a key or combination: Enter, Escape, ArrowDown, Control+A; on Android BACK, HOME, ENTER.',
});

const scroll = actionTool(scrollKind, {
  title: 'Scroll',
  description:
    'Scroll by deltaX, deltaY image px (positive: right, down) with the pointer at x, y (default the middle), a node or text.',
});

const hover = actionTool(hoverKind, {
  title: 'Hover',
  description: 'Move the pointer over x, y, a node or text without clicking (tooltips, menus).',
});

const drag = actionTool(dragKind, {
  title: 'Drag',
  description:
    'Press at x, y, a node or text, move to toX, toY or toNode, release (reorder, slide).',
});

export default [click, typeText, pressKey, scroll, hover, drag];
