/**
 * Input to live targets: the typed actions a source performs (points in source space), the
 * pending action the gate hands it (judged, mapped and performed under the target's lock), and
 * what the source reports back.
 */
import type { Point, Rect } from '../../../../shared/frame.ts';
import type { StoredFrame } from '../../catalog/types.ts';
import type { FrameCheck } from './screen.ts';


/** The pointer and keyboard actions an input port may perform (a module's own kinds are its own). */
export const ACTION_KINDS = ['click', 'type_text', 'press_key', 'scroll', 'swipe', 'focus_window', 'scroll_into_view', 'hover', 'drag'] as const;
export type BuiltinActionKind = (typeof ACTION_KINDS)[number];

export type MouseButton = 'left' | 'right' | 'middle';
export type Modifier = 'Shift' | 'Control' | 'Alt' | 'Meta';
export type ScrollAlign = 'start' | 'center' | 'end' | 'nearest';

/**
 * Where an action lands, in source space: a `point` (mapped from the image point the agent gave,
 * and re-mapped when the target only moved), or a `node`, a UI-tree node id the source finds
 * again itself and acts on at its current place (scrolled into view first when off screen).
 */
export interface Aim<State = unknown> {
  frame?: StoredFrame<State>;
  point?: Point;
  node?: string;
}

/** A pointer or keyboard action as its source performs it (points and deltas in source space). */
export type SourceAction<State = unknown> =
  | ({ kind: 'click'; target: string; button: MouseButton; clicks: number; modifiers: Modifier[]; holdMs?: number } & Aim<State>)
  | ({ kind: 'type_text'; target: string; text: string; /** Press Enter after typing. */ submit?: boolean; /** Replace the field's value. */ clear?: boolean } & Aim<State>)
  | { kind: 'press_key'; target: string; frame?: StoredFrame<State>; key: string }
  /** Deltas in source units (mapped from the agent's image pixels). */
  | ({ kind: 'scroll'; target: string; deltaX: number; deltaY: number } & Aim<State>)
  | ({ kind: 'swipe'; target: string; to: Point; durationMs: number } & Aim<State>)
  | ({ kind: 'hover'; target: string } & Aim<State>)
  /** From the aim to `to` (a point in source space) or `toNode`; `holdMs` before moving (Android long-press drag). */
  | ({ kind: 'drag'; target: string; to?: Point; toNode?: string; durationMs: number; holdMs?: number } & Aim<State>)
  | { kind: 'focus_window'; target: string }
  | { kind: 'scroll_into_view'; target: string; node: string; block: ScrollAlign; inline: ScrollAlign };

/** An action a source module defines itself (navigate, select_option, …), with its typed parameters. */
export interface ModuleAction<K extends string = string, P = unknown, State = unknown> extends Aim<State> {
  kind: K;
  target: string;
  params: P;
}

/** How a source judged an action's frame under its lock: fresh (maybe moved by `shift`), or stale. */
export interface FrameJudgement extends FrameCheck {
  /** The frame no longer shows the target; only allowed when it is not needed to aim. */
  stale?: true;
}

/**
 * What a target is, as its source reads it while holding the target's lock: what Sightline's
 * own-target rule and the input allowlist judge it by. Never a title (a page or an app chooses its
 * own); `label` only names the target in a refusal.
 */
export type TargetFacts =
  /** A tab: the URL it shows now. */
  | { kind: 'page'; url: string }
  /** A window: the process that owns it as the OS tells it, or why that cannot be told. */
  | { kind: 'window'; owner?: WindowOwner; unknown?: string; label?: string }
  /** A whole display: it shows many apps, none of which it is. */
  | { kind: 'display'; label?: string }
  /** A device: the package in front. */
  | { kind: 'device'; package: string | undefined; label?: string }
  /** Any other source's target: the app its source vouches for. */
  | { kind: 'app'; app: string | undefined; label?: string };

/** The process behind a window, as the OS (on X11, the X server) tells it: never as the window claims. */
export interface WindowOwner {
  pid: number;
  /** The executable's real path, when it can be read. */
  exe?: string;
  /** The app's name where the OS gives it (macOS, Windows); on X11 a window names its class itself, so none. */
  app?: string;
}

/** Where an action leads besides its target: a page (a navigation, a redirect, a link a click follows) or an app (the one a link opens in). */
export type Place = { kind: 'page'; url: string } | { kind: 'app'; name: string };

/** How a source reads its target's facts for the judge, now, under its lock. */
export type FactsReader = (need: { names: boolean }) => TargetFacts | Promise<TargetFacts>;

/** What the judgement says beyond "go on". */
export interface Verdict {
  /** The allowlist is set: only what was judged may start (an app a link opens in, picked by the source, not by a chooser). */
  confined: boolean;
}

/**
 * An action as the gate hands it to a source: typed by its kind, but still in the agent's image
 * space and not yet judged. The source, holding the target's lock, first calls `judge` with the
 * facts it reads there (pause, read-only, Sightline's own targets, the allowlist: nothing queued
 * behind a slow call acts after the person paused, or on a page no one judged), then judges the
 * frame (`ScreenPort.checkFrame`'s rules) and calls `resolve`, which maps every point into source
 * space (POINT_OUTSIDE_FRAME when one falls outside the image); then it acts, still under the lock,
 * so nothing can change the target between the checks and the act. `settle` (sources/aim.ts) does
 * the first two steps in that order.
 */
export interface PendingAction<A = SourceAction> {
  readonly kind: string;
  readonly target: string;
  /** The frame the agent's coordinates are read in (also where what changed is placed). */
  readonly frame?: StoredFrame;
  readonly after: AfterMode;
  /** False when the frame only places what changed (a node or text aim): a stale one is no refusal then. */
  readonly needsFreshFrame: boolean;
  /**
   * INPUT_PAUSED, READ_ONLY or NOT_ALLOWED, judged now: call it holding the target's lock, before
   * anything is touched. `facts` is read only when the judgement needs the target (not for an
   * action judged by the app it launches); `need.names` says whether the allowlist will match its
   * names (else only Sightline's own-target rule asks, which a device's package never meets). May
   * be called again before a later step (a long upload).
   */
  judge(facts: FactsReader): Promise<Verdict>;
  /** NOT_ALLOWED when the action may not lead to `place` (Sightline's own, off the allowlist): a redirect, a link a click followed, the app a link opens in. */
  judgePlace(place: Place): void;
  /** The real path of a file the action hands to the target (an upload, an APK): inside files.uploadRoots, else PATH_REFUSED. */
  allowedFile(path: string, what: string): Promise<string>;
  /** Map the action into source space with the source's judgement of the frame; INTERNAL when `judge` was not called first. */
  resolve(judged: FrameJudgement): A;
}

/** How much to report after an action: nothing, a summary (default), or a small image of what changed. */
export type AfterMode = 'none' | 'summary' | 'image';

/** An element as a source names it in an outcome. */
export interface ElementRef {
  role?: string;
  name?: string;
  /** Its UI-tree node id, when it has one. */
  node?: string;
}

/**
 * What an action did, as far as the source can tell cheaply (no image). Every field is optional:
 * a source reports what it knows.
 */
export interface ActionOutcome {
  /** What was under the point (browser: the element; Android: the node; desktop: the window). */
  hit?: ElementRef & { app?: string };
  /** type_text: the element that received the text, and its value read back where it can be. */
  received?: ElementRef & { value?: string; valueMatches?: boolean; /** A password field: its value is never read back, and the text typed is never logged. */ password?: boolean };
  navigated?: { url: string; title?: string };
  dialog?: PendingDialog;
  title?: { from: string; to: string };
  keyboardShown?: boolean;
  /** The region that changed, in source units of the action's frame (viewport CSS px, device px, …). */
  changed?: Rect;
  /** The region changed but the source cannot say where (the core may capture to find out). */
  changedUnknown?: boolean;
  /** What was re-mapped on the way (the page scrolled since the frame; the node was scrolled into view). */
  remapped?: string;
}

export interface PendingDialog {
  type: 'alert' | 'confirm' | 'prompt' | 'beforeunload';
  message: string;
  defaultPrompt?: string;
}

/** What a source reports back about an action it performed. */
export interface ActionDetails {
  /** Short human-readable note (e.g. "focused by raising" / "fell back to clicking"). */
  note?: string;
  outcome?: ActionOutcome;
  /** Where the action landed in source space, when the source resolved it (a node, a text). */
  point?: Point;
  /** Anything else worth logging. */
  [key: string]: unknown;
}

export interface InputPort<State = unknown, Own = never> {
  /** The built-in action kinds this source performs (a module's own kinds are in its tools). */
  readonly actions: readonly BuiltinActionKind[];
  /** Why a built-in kind it does not perform makes no sense here, and what to do instead (the error's message and hint). */
  readonly unsupported?: Partial<Record<BuiltinActionKind, { message: string; hint: string }>>;
  /** One entry per action: take the target's lock, judge the frame, resolve, act. */
  perform(action: PendingAction<SourceAction<State> | Own>, signal: AbortSignal): Promise<ActionDetails>;
}
