/**
 * What a live target holds besides its pixels: its UI tree, the text it shows (read without
 * OCR), and its network activity.
 */
import type { Rect, UiNode } from '../../../../shared/frame.ts';
import type { StoredFrame } from '../../catalog/types.ts';


/** A UI node as a source reports it: bounds in SOURCE space; the core maps them to image space. */
export interface SourceUiNode extends Omit<UiNode, 'bounds'> {
  bounds: Rect;
}

export interface UiTreeOptions {
  maxNodes: number;
  query?: string;
  signal: AbortSignal;
}

export interface TreePort<State = unknown> {
  /**
   * The UI tree; `frame` is the target's latest frame (bounds come back in source space). Node ids
   * are handles: valid across captures for as long as their element exists (the input port acts
   * on them by finding the element again).
   */
  uiTree(target: string, frame: StoredFrame<State>, options: UiTreeOptions): Promise<SourceUiNode[]>;
}

// ── text ───────────────────────────────────────────────────────────────────────────────────

/** Text a source reads without OCR (a DOM, a UI tree), with its boxes in source space. */
export interface TextItem {
  text: string;
  bounds: Rect;
  /** The UI-tree node it belongs to, when there is one (actions can then aim at the node). */
  node?: string;
  /** 1 for text a tree knows; OCR reports its own confidence. */
  confidence?: number;
  /** Its words with their own boxes, when known (OCR): a hit inside a line gets its word's box. */
  words?: { text: string; bounds: Rect; confidence?: number }[];
  /** The node's role, when a tree knows it, in ARIA's words (button, link, textbox, heading, text…). */
  role?: string;
  /** The node takes typed text (a text field, a text area, an editable element). */
  editable?: boolean;
  /** Acting on the node does something (a button, link, menu item, tab, checkbox, option), unlike static text or a heading. */
  actionable?: boolean;
  /** The node holds a value a form sets: a text field, a drop-down, a checkbox, radio or switch, a file input. */
  takesValue?: boolean;
  /** A control's accessible name where no text on screen says it (aria-label, a hint): a text aim may name it; find_text does not show it. */
  label?: string;
}

export interface TextPort {
  /**
   * The visible text of a target now, as items with source-space boxes (viewport only);
   * undefined when this target has no text of its own (a desktop app exposing no accessibility
   * tree): the core then reads it by OCR. `words`: give each item's words with their own boxes
   * where the source can (a DOM's text ranges), so a word found inside a line has its own box.
   */
  readText(target: string, signal: AbortSignal, options?: { words?: boolean }): Promise<TextItem[] | undefined>;
}

// ── network ────────────────────────────────────────────────────────────────────────────────

export interface NetworkPort {
  /**
   * Resolve once no request of the target has been in flight for `idleMs`; reject with TIMEOUT
   * (saying how many requests were still in flight) after `timeoutMs`.
   */
  networkIdle(target: string, options: { idleMs: number; timeoutMs: number; signal: AbortSignal }): Promise<{ waitedMs: number }>;
}
