/** Action tools every live source may offer, made from the built-in action kinds. */
import { clickKind, dragKind, hoverKind, pressKeyKind, scrollKind, typeTextKind } from '../../actions/kinds.ts';
import { actionTool } from '../action.ts';

const click = actionTool(clickKind, {
  title: 'Click',
  description:
    "Click (tap on Android) at x, y in image pixels of the target's latest capture (or of the frame named by ref, a crop included), or on a UI-tree node, or on visible text. The result says what was hit, whether the page navigated or a dialog opened, and where the screen changed.",
});

const typeText = actionTool(typeTextKind, {
  title: 'Type text',
  description:
    'Type text exactly as given (up to 10,000 characters) into the focused field of the target, or into the field at x, y (image pixels), the node, or the field labelled `field` (clicked first). Refuses with NO_FOCUSED_INPUT when nothing editable has focus. The result names the field and its value read back.',
});

const pressKey = actionTool(pressKeyKind, {
  title: 'Press a key',
  description: 'Press a key or combination on the target: DOM names such as Enter, Escape, ArrowDown, Control+A; Android names such as BACK, HOME, ENTER.',
});

const scroll = actionTool(scrollKind, {
  title: 'Scroll',
  description:
    'Scroll by deltaX, deltaY in image pixels of the frame (like x and y; positive = right/down), with the pointer at x, y (default: the middle), on a node, or on visible text. A scroll of 300 moves the content by about 300 pixels of the image you saw.',
});

const hover = actionTool(hoverKind, {
  title: 'Hover',
  description: 'Move the pointer over x, y (image pixels of the frame), a node or visible text, without clicking: shows tooltips and hover menus.',
});

const drag = actionTool(dragKind, {
  title: 'Drag',
  description:
    'Press at x, y (image pixels of the frame), a node or visible text, move to toX, toY (image pixels of the same frame) or to toNode, and release. Reorders lists, moves sliders and windows; on Android a long-press drag.',
});

export default [click, typeText, pressKey, scroll, hover, drag];
