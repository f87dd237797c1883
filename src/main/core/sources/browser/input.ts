/**
 * Input to tabs through puppeteer's mouse and keyboard: clicks (full-page points are scrolled
 * into view first), exact typing, key combinations, wheel scrolling that waits until the page
 * stops moving, and scrolling a UI-tree node into view.
 */
import type { Page } from 'puppeteer-core';
import { SightlineError } from '../../../../shared/errors.ts';
import type { Point } from '../../../../shared/frame.ts';
import type { ActionDetails, InputPort, SourceAction } from '../source.ts';
import type { BrowserFrameState } from './frameState.ts';
import { parseKeyCombo } from './keys.ts';
import { SCROLL_INTO_VIEW_FN } from './pageScripts.ts';
import type { TabSessions } from './tabs.ts';
import { requirePoint } from '../aim.ts';

/** The seed's limit: longer text is refused, not truncated. */
export const MAX_TEXT_LENGTH = 10_000;
/** Up to this many characters are typed key by key (pages see keydown/keyup); longer text is inserted. */
const KEYED_TYPING_LIMIT = 200;
const INSERT_CHUNK = 2_000;

type CdpCall = (method: string, params?: Record<string, unknown>) => Promise<unknown>;

export class BrowserInput implements InputPort<BrowserFrameState> {
  readonly actions = ['click', 'type_text', 'press_key', 'scroll', 'scroll_into_view'] as const;
  readonly #tabs: TabSessions;

  constructor(tabs: TabSessions) {
    this.#tabs = tabs;
  }

  async perform(action: SourceAction<BrowserFrameState>, signal: AbortSignal): Promise<ActionDetails> {
    switch (action.kind) {
      case 'click':
      case 'type_text':
      case 'press_key':
      case 'scroll':
      case 'scroll_into_view':
        break;
      default:
        throw new SightlineError('UNSUPPORTED', `${action.kind} is not supported by the browser source.`, 'Use click, type_text, press_key, scroll or scroll_into_view.');
    }
    // Bad input is refused before anything is touched.
    if (action.kind === 'type_text') checkText(action.text);
    const combo = action.kind === 'press_key' ? parseKeyCombo(action.key) : undefined;
    if (action.kind === 'click') checkClick(action.clicks, action.button, action.modifiers);

    const tabs = this.#tabs;
    return tabs.withTab(action.target, signal, 'action', async (tab) => {
      const page = await tabs.page(tab);
      switch (action.kind) {
        case 'click': {
          const { point, note } = await tabs.toViewport(tab, action.frame?.state, requirePoint(action));
          await holding(page, action.modifiers, () => page.mouse.click(point.x, point.y, { button: action.button, count: action.clicks, delay: action.holdMs }));
          return withNote({ viewportPoint: point }, note);
        }
        case 'type_text': {
          let note: string | undefined;
          if (action.point) {
            const v = await tabs.toViewport(tab, action.frame?.state, action.point);
            note = v.note;
            await page.mouse.click(v.point.x, v.point.y);
          }
          const how = await typeText(page, (method, params) => tab.session.send(method as 'Input.insertText', params as { text: string }), action.text, signal);
          return withNote({ characters: [...action.text].length, method: how }, note);
        }
        case 'press_key': {
          const { modifiers, key } = combo as NonNullable<typeof combo>;
          await holding(page, modifiers, () => page.keyboard.press(key));
          return { key: [...modifiers, key].join('+') };
        }
        case 'scroll': {
          if (!Number.isFinite(action.deltaX) || !Number.isFinite(action.deltaY)) throw new SightlineError('INVALID_ARGUMENT', 'deltaX and deltaY must be numbers.', 'Give deltas in image pixels of the frame, e.g. deltaY: 300.');
          let point: Point | undefined;
          let note: string | undefined;
          if (action.point) ({ point, note } = await tabs.toViewport(tab, action.frame?.state, action.point));
          const before = (await tabs.metrics(tab)).m;
          // No point: the wheel turns over the middle of the viewport (deltas are CSS px).
          point ??= { x: before.w / 2, y: before.h / 2 };
          await page.mouse.move(point.x, point.y);
          await page.mouse.wheel({ deltaX: action.deltaX, deltaY: action.deltaY });
          const after = await tabs.settledScroll(tab, { x: before.sx, y: before.sy }, signal);
          return withNote({ viewportPoint: point, scroll: after }, note);
        }
        case 'scroll_into_view': {
          const r = await tabs.call<{ x: number; y: number; w: number; h: number; sx: number; sy: number } | null>(tab, SCROLL_INTO_VIEW_FN, [action.node, action.block, action.inline]);
          if (!r) {
            throw new SightlineError('NODE_NOT_FOUND', `Node "${action.node}" is not on the page any more (or is not a node id from get_ui_tree).`, 'Call get_ui_tree again and use an id from it.', { node: action.node });
          }
          return { bounds: { x: r.x, y: r.y, width: r.w, height: r.h }, scroll: { x: r.sx, y: r.sy } };
        }
        default:
          throw new SightlineError('UNSUPPORTED', 'Unsupported action.', 'Use click, type_text, press_key, scroll or scroll_into_view.');
      }
    });
  }
}

function withNote(details: ActionDetails, note: string | undefined): ActionDetails {
  return note ? { ...details, note } : details;
}

function checkText(text: string): void {
  if (typeof text !== 'string' || text.length === 0) throw new SightlineError('INVALID_ARGUMENT', 'type_text needs a non-empty "text".', 'Give the text to type.');
  const n = [...text].length;
  if (n > MAX_TEXT_LENGTH) {
    throw new SightlineError('INVALID_ARGUMENT', `The text is ${n} characters long; at most ${MAX_TEXT_LENGTH} are typed in one call.`, `Split it into several type_text calls of at most ${MAX_TEXT_LENGTH} characters.`, { length: n });
  }
}

function checkClick(clicks: number, button: string, modifiers: readonly string[]): void {
  if (!Number.isInteger(clicks) || clicks < 1 || clicks > 3) throw new SightlineError('INVALID_ARGUMENT', `clicks must be 1, 2 or 3 (got ${clicks}).`, 'Use 2 for a double click.');
  if (!['left', 'right', 'middle'].includes(button)) throw new SightlineError('INVALID_ARGUMENT', `Unknown mouse button "${button}".`, 'Use left, right or middle.');
  for (const m of modifiers) {
    if (!['Shift', 'Control', 'Alt', 'Meta'].includes(m)) throw new SightlineError('INVALID_ARGUMENT', `Unknown modifier "${m}".`, 'Use Shift, Control, Alt or Meta.');
  }
}

/** Hold modifier keys around an input; they are released even when it fails. */
async function holding(page: Page, modifiers: readonly string[], act: () => Promise<void>): Promise<void> {
  const held: string[] = [];
  try {
    for (const m of modifiers) {
      await page.keyboard.down(m as 'Shift');
      held.push(m);
    }
    await act();
  } finally {
    for (const m of held.reverse()) await page.keyboard.up(m as 'Shift').catch(() => undefined);
  }
}

/**
 * Type exactly `text`. Short text goes key by key through puppeteer's keyboard (pages see
 * keydown/keypress/keyup; characters without a key are inserted). Long text would take ~3 ms
 * per character that way, so it is inserted in chunks, with Enter and Tab still pressed as keys.
 */
async function typeText(page: Page, send: CdpCall, text: string, signal: AbortSignal): Promise<'keys' | 'insert'> {
  const normalised = text.replace(/\r\n?/g, '\n');
  if ([...normalised].length <= KEYED_TYPING_LIMIT) {
    await page.keyboard.type(normalised);
    return 'keys';
  }
  for (const part of normalised.split(/([\n\t])/)) {
    if (signal.aborted) return 'insert';
    if (part === '\n') await page.keyboard.press('Enter');
    else if (part === '\t') await page.keyboard.press('Tab');
    else for (let i = 0; i < part.length; i += INSERT_CHUNK) await send('Input.insertText', { text: sliceCodePoints(part, i, INSERT_CHUNK) });
  }
  return 'insert';
}

/** `s.slice(i, i + n)` that does not split a surrogate pair at either end. */
function sliceCodePoints(s: string, i: number, n: number): string {
  let start = i;
  if (start > 0 && isLowSurrogate(s.charCodeAt(start))) start += 1;
  let end = Math.min(s.length, i + n);
  if (end < s.length && isLowSurrogate(s.charCodeAt(end))) end += 1;
  return s.slice(start, end);
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
