/**
 * Input to windows and displays: nut-js moves the mouse and presses keys; on X11, xdotool types
 * text exactly (nut-js' type() loses Shift on symbols and drops non-ASCII there) and raises
 * windows. Every input is serialised (there is one mouse) and preceded by the window checks of
 * window checks: it exists, its bounds are sane, it is focused, the point lies inside it.
 */
import { Mutex } from 'async-mutex';
import { SightlineError } from '../../../../shared/errors.ts';
import type { Point, Rect } from '../../../../shared/frame.ts';
import type { ActionDetails, ActionOutcome, InputPort, Modifier, PendingAction, SourceAction, StoredFrame } from '../source.ts';
import { MAC_ACCESSIBILITY } from './environment.ts';
import { keyName, parseCombo } from './keys.ts';
import type { DesktopFrameState, DesktopScreen } from './screen.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { allWindows, boundsOf, get, inside, parseDesktopTarget, saneBounds, windowInfo, type DesktopSession, type Nut } from './session.ts';
import { X11Typist, normaliseTypedText } from './x11Keymap.ts';
import { requirePoint, settle } from '../aim.ts';
import type { DesktopTree } from './tree/desktopTree.ts';
import { resolveAims } from './tree/locate.ts';

/** Input lands inside the target, or not at all (a drag's end too). */
function checkPoint(action: SourceAction, bounds: Rect): void {
  const points = ['point' in action ? action.point : undefined, action.kind === 'drag' ? action.to : undefined];
  for (const point of points) {
    if (point && !inside(bounds, point)) {
      throw new SightlineError('POINT_OUTSIDE_FRAME', `Point (${Math.round(point.x)}, ${Math.round(point.y)}) is outside ${action.target} (${bounds.x},${bounds.y} ${bounds.width}×${bounds.height}).`, 'Capture again and use a point inside the window.');
    }
  }
}

/** How long a field gets to take the click that focuses it before typing starts (ms). */
const FIELD_SETTLE_MS = 150;

export class DesktopInput implements InputPort<DesktopFrameState> {
  readonly actions = ['click', 'type_text', 'press_key', 'scroll', 'hover', 'drag', 'focus_window'] as const;
  readonly #s: DesktopSession;
  readonly #screen: DesktopScreen;
  readonly #tree: DesktopTree | undefined;
  readonly #input = new Mutex();
  #typist: X11Typist | undefined;

  constructor(session: DesktopSession, screen: DesktopScreen, tree?: DesktopTree) {
    this.#s = session;
    this.#screen = screen;
    this.#tree = tree;
  }

  async perform(pending: PendingAction<SourceAction<DesktopFrameState>>, signal: AbortSignal): Promise<ActionDetails> {
    const facts = this.#s.assertReachable();
    if (facts.platform === 'darwin' && facts.accessibility === 'denied') {
      throw new SightlineError('PERMISSION_DENIED', 'Sightline may not send input: the Accessibility permission is not granted.', `Allow Sightline in ${MAC_ACCESSIBILITY}.`);
    }
    return this.#input.runExclusive(async () => {
      // The window's owner and place are judged, the points mapped and a node found where it is
      // now while no other input can move it (and a call that waited for the mouse is judged now).
      const settled = await settle(
        pending,
        () => this.#screen.facts(pending.target),
        (frame) => this.#screen.checkFrame(frame as StoredFrame<DesktopFrameState>),
      );
      const aimed = await resolveAims(this.#tree, settled, signal);
      const details = await this.#performAt(aimed.action, signal);
      if (!aimed.node) return details;
      const { element, password } = aimed.node;
      // The field typed into is named as received, so a password field's text is hidden from the log and the answer.
      const received = aimed.action.kind === 'type_text' ? { received: { ...element, ...(password ? { password: true } : {}) } } : {};
      return { ...details, point: aimed.node.point, outcome: { ...details.outcome, hit: element, ...received } };
    });
  }

  /** A point action on a window or display, with the input lock held. */
  async #performAt(action: SourceAction<DesktopFrameState>, signal: AbortSignal): Promise<ActionDetails> {
    if (action.kind === 'drag' && !action.to) throw new SightlineError('UNSUPPORTED', 'This window has no UI tree to drop on a node.', 'Give the end as toX, toY in image pixels of the same frame.');
    const t = parseDesktopTarget(action.target);
    let bounds: Rect | undefined;
    let note: string | undefined;
    let hit: NonNullable<ActionOutcome['hit']> | undefined;
    if (t.kind === 'window') {
      const w = await this.#s.window(t.id);
      bounds = boundsOf(w);
      if (!saneBounds(bounds)) throw new SightlineError('FRAME_STALE', `${action.target} has no usable bounds (${bounds.width}×${bounds.height}).`, 'Restore the window and capture again.');
      if (action.kind === 'focus_window') return { note: await this.#focus(t.id, bounds, signal) };
      checkPoint(action, bounds);
      const point = 'point' in action ? action.point : undefined;
      const end = action.kind === 'drag' ? action.to : undefined;
      if (end && !(await this.#s.onSomeDisplay(end))) {
        throw new SightlineError('POINT_OUTSIDE_FRAME', `The drag's end (${Math.round(end.x)}, ${Math.round(end.y)}) in ${action.target} is off-screen now.`, 'Move the window back on screen (or focus_window), capture again and drag to a visible point.');
      }
      if (point && !(await this.#s.onSomeDisplay(point))) {
        // The window moved partly off the desktop since the frame: that part cannot be clicked.
        throw new SightlineError('POINT_OUTSIDE_FRAME', `Point (${Math.round(point.x)}, ${Math.round(point.y)}) of ${action.target} is off-screen now.`, 'Move the window back on screen (or focus_window), capture again and use a visible point.');
      }
      // Focusing may click: only once the action is known to be allowed.
      if (!get(() => w.isFocused())) note = await this.#focus(t.id, bounds, signal);
      // What a pointer action hits is the window (the desktop has no tree to say more).
      if (point) hit = { role: 'window', name: get(() => w.title()) || undefined, app: get(() => w.appName()) || undefined };
    } else if (action.kind === 'focus_window') {
      throw new SightlineError('INVALID_ARGUMENT', 'focus_window takes a window, not a display.', 'Use a desktop:window:… id.');
    } else {
      bounds = boundsOf(await this.#s.monitor(t.id));
      checkPoint(action, bounds);
    }
    await this.#do(action, bounds, signal);
    // The core compares a capture after the action with the frame to say what changed.
    return { ...(note ? { note } : {}), outcome: { ...(hit ? { hit: dropUndefined(hit) } : {}), changedUnknown: true } };
  }

  async #do(action: SourceAction, bounds: Rect, signal: AbortSignal): Promise<void> {
    const nut = await this.#s.loadNut();
    const at = (p: Point): InstanceType<Nut['Point']> => new nut.Point(Math.round(p.x), Math.round(p.y));
    switch (action.kind) {
      case 'click': {
        await nut.mouse.setPosition(at(requirePoint(action)));
        const button = action.button === 'right' ? nut.Button.RIGHT : action.button === 'middle' ? nut.Button.MIDDLE : nut.Button.LEFT;
        const mods = this.#modifierKeys(nut, action.modifiers);
        if (mods.length) await nut.keyboard.pressKey(...mods);
        try {
          if (action.holdMs) {
            await nut.mouse.pressButton(button);
            await sleep(action.holdMs);
            await nut.mouse.releaseButton(button);
          } else if (action.clicks === 2) {
            await nut.mouse.doubleClick(button);
          } else {
            for (let i = 0; i < action.clicks; i++) await nut.mouse.click(button);
          }
        } finally {
          if (mods.length) await nut.keyboard.releaseKey(...mods.reverse());
        }
        return;
      }
      case 'type_text':
        if (action.point) {
          await nut.mouse.setPosition(at(action.point));
          await nut.mouse.click(nut.Button.LEFT);
          // The click and the keys go out on different connections to the display (nut-js's and
          // xdotool's): the app must have taken the click and moved its focus to the field before
          // the first key arrives, or that key goes to the field focused before (seen under load:
          // a GTK entry lost its first letter, a Tk one its first 14 characters).
          await sleep(FIELD_SETTLE_MS, undefined, { signal });
        }
        await this.#type(nut, action.text, signal);
        return;
      case 'press_key': {
        const keys = parseCombo(action.key, knownKeys(nut), this.#s.platform).map((k) => nut.Key[k as keyof typeof nut.Key]);
        try {
          await nut.keyboard.pressKey(...keys);
        } finally {
          await nut.keyboard.releaseKey(...keys.reverse());
        }
        return;
      }
      case 'scroll': {
        await nut.mouse.setPosition(at(action.point ?? { x: bounds.x + bounds.width / 2, y: bounds.y + bounds.height / 2 }));
        // Wheel notches: about 100 source units each (a line or three, as desktops scroll).
        const notches = (d: number): number => (d === 0 ? 0 : Math.max(1, Math.round(Math.abs(d) / 100)));
        if (action.deltaY > 0) await nut.mouse.scrollDown(notches(action.deltaY));
        if (action.deltaY < 0) await nut.mouse.scrollUp(notches(action.deltaY));
        if (action.deltaX > 0) await nut.mouse.scrollRight(notches(action.deltaX));
        if (action.deltaX < 0) await nut.mouse.scrollLeft(notches(action.deltaX));
        return;
      }
      case 'hover':
        await nut.mouse.setPosition(at(requirePoint(action)));
        return;
      case 'drag': {
        const from = requirePoint(action);
        const to = action.to!; // checked before anything was done
        const duration = Math.max(0, Math.min(10_000, action.durationMs));
        // Intermediate moves, so drag thresholds and drop targets see the pointer travel.
        const steps = Math.max(5, Math.min(40, Math.round(duration / 16)));
        await nut.mouse.setPosition(at(from));
        await nut.mouse.pressButton(nut.Button.LEFT);
        try {
          if (action.holdMs) await sleep(action.holdMs);
          // Once the button is down the drag is finished, even if cancelled: releasing half-way would drop it somewhere unasked.
          for (let i = 1; i <= steps; i++) {
            await nut.mouse.setPosition(at({ x: from.x + ((to.x - from.x) * i) / steps, y: from.y + ((to.y - from.y) * i) / steps }));
            if (duration) await sleep(duration / steps);
          }
        } finally {
          await nut.mouse.releaseButton(nut.Button.LEFT);
        }
        return;
      }
      default:
        throw new SightlineError('UNSUPPORTED', `${action.kind} is not supported by the desktop source.`, 'Use click, type_text, press_key, scroll, hover, drag or focus_window.');
    }
  }

  #modifierKeys(nut: Nut, modifiers: readonly Modifier[]): Nut['Key'][keyof Nut['Key']][] {
    return modifiers.map((m) => nut.Key[keyName(m, knownKeys(nut), this.#s.platform) as keyof typeof nut.Key]);
  }

  /**
   * Exact text. X11: xdotool with a UTF-8 locale, after binding every character missing
   * from the keymap to a spare keycode (x11Keymap.ts says why); without xmodmap, xdotool
   * binds them itself, slowly. Elsewhere nut-js, whose type() sends Unicode input there.
   */
  async #type(nut: Nut, text: string, signal: AbortSignal): Promise<void> {
    if (this.#s.platform === 'linux') {
      if (!this.#s.which('xdotool')) {
        if (/^[a-z0-9 \t\n.,\-=/;'[\]\\`]*$/.test(text)) return void (await nut.keyboard.type(text));
        throw new SightlineError('UNSUPPORTED', 'Typing symbols, capitals or non-ASCII text exactly needs xdotool on X11.', 'Install it (sudo apt install xdotool) or type simpler text.');
      }
      if (this.#s.which('xmodmap')) {
        this.#typist ??= new X11Typist((cmd, args, timeout, sig) => this.#s.run(cmd, args, sig, timeout));
        await this.#typist.type(text, signal);
        return;
      }
      for (const run of typingRuns(normaliseTypedText(text))) {
        await this.#s.xdotool(['type', '--clearmodifiers', '--delay', String(run.delayMs), '--', run.text], signal, 5_000 + run.text.length * (run.delayMs + 20));
      }
      return;
    }
    await nut.keyboard.type(normaliseTypedText(text));
  }

  async #focus(id: number, bounds: Rect, signal: AbortSignal): Promise<string> {
    const focused = async (): Promise<boolean> => {
      for (let i = 0; i < 10; i++) {
        const w = await this.#s.window(id).catch(() => undefined);
        if (w && get(() => w.isFocused())) return true;
        await sleep(30);
      }
      return false;
    };
    if (this.#s.platform === 'linux' && this.#s.which('xdotool')) {
      try {
        await this.#s.xdotool(['windowactivate', '--sync', String(id)], signal, 3000);
        if (await focused()) return 'raised and focused the window';
      } catch {
        // The window manager refused: fall back below.
      }
    }
    if (this.#s.platform === 'linux') {
      // libnut raises and focuses an X11 client window by the id node-screenshots gives (checked under openbox).
      const nut = await this.#s.loadNut();
      const raised = await nut.providerRegistry.getWindow().focusWindow(id).catch(() => false);
      if (raised && (await focused())) return 'raised and focused the window (nut-js)';
    } else {
      const nut = await this.#s.loadNut();
      for (const w of await nut.getWindows()) {
        const r = await w.getRegion().catch(() => undefined);
        if (r && Math.abs(r.left - bounds.x) <= 1 && Math.abs(r.top - bounds.y) <= 1 && r.width === bounds.width && r.height === bounds.height) {
          await w.focus().catch(() => undefined);
          if (await focused()) return 'raised and focused the window';
        }
      }
    }
    // Fallback: a click just inside the top edge, centred: the least likely place for a control.
    const nut = await this.#s.loadNut();
    const safe = { x: Math.round(bounds.x + bounds.width / 2), y: Math.round(bounds.y + Math.min(4, bounds.height / 2)) };
    const cover = await this.#coveredBy(id, safe);
    if (cover) {
      // Clicking there would land in another app.
      throw new SightlineError('FOCUS_FAILED', `Window ${id} could not be raised, and ${cover} covers it.`, 'Bring it to the front by hand (or close what covers it), then try again.');
    }
    await nut.mouse.setPosition(new nut.Point(safe.x, safe.y));
    await nut.mouse.click(nut.Button.LEFT);
    if (await focused()) return 'the platform would not raise the window: focused it by clicking inside its top edge';
    throw new SightlineError('FOCUS_FAILED', `Window ${id} could not be focused.`, 'Bring it to the front by hand (or close what covers it), then try again.');
  }

  /** The window (as "app “title”") stacked above window `id` at point p, if any. */
  async #coveredBy(id: number, p: Point): Promise<string | undefined> {
    const { Window } = await this.#s.loadShots();
    const all = allWindows(Window);
    const self = all.find((w) => get(() => w.id()) === id);
    const z = self ? (get(() => self.z()) ?? 0) : 0;
    for (const w of all) {
      if (w === self || (get(() => w.z()) ?? 0) <= z || get(() => w.isMinimized())) continue;
      // Only windows a user works in: shell overlays are filtered out as in list_targets.
      const info = windowInfo(w);
      if (info?.bounds && inside(info.bounds, p)) return `${info.app ?? 'another window'} “${info.title}”`;
    }
    return undefined;
  }

  async dispose(): Promise<void> {
    // node-screenshots and nut-js open the display per call; only key bindings made for typing are ours to undo.
    await this.#typist?.dispose();
  }
}

/**
 * xdotool types characters missing from the keymap by remapping a spare keycode for a
 * moment; an app that looks the key up after the remap is undone sees nothing (measured:
 * é and 世 dropped at 2 ms). Such runs go slowly; keymap characters go fast.
 */
export function typingRuns(text: string): { text: string; delayMs: number }[] {
  return (text.match(/[\x20-\x7e\t\n]+|[^\x20-\x7e\t\n]+/g) ?? []).map((run) => ({ text: run, delayMs: /^[\x20-\x7e\t\n]/.test(run) ? 2 : 40 }));
}

let keySet: Set<string> | undefined;
function knownKeys(nut: Nut): ReadonlySet<string> {
  keySet ??= new Set(Object.keys(nut.Key).filter((k) => Number.isNaN(Number(k))));
  return keySet;
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
