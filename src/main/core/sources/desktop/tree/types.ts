/**
 * The desktop accessibility tree as every platform backend reports it (AT-SPI on Linux, AX on
 * macOS, UI Automation on Windows): one flat pre-order list of elements of one window, bounds in
 * screen points (the desktop's input space). The ports above turn it into UI nodes with handles.
 */
import type { Rect } from '../../../../../shared/frame.ts';

/** The window whose tree is read, as list_targets knows it. */
export interface WindowRef {
  /** The platform's window id (X11 window, CGWindowID, HWND). */
  id: number;
  title: string;
  app?: string;
  pid?: number;
  /** Screen points. */
  bounds: Rect;
}

export interface AxElement {
  /**
   * The backend's own handle for the element where it has one that lasts as long as the element
   * (AT-SPI: bus name and object path; UIA: the runtime id); matched before any fingerprint.
   */
  key?: string;
  /** Index of the parent in the list (pre-order: always earlier), none for the window itself. */
  parent?: number;
  /** A role of the shared vocabulary (roles.ts). */
  role: string;
  /** The platform's own role name ("push button", "AXButton", "Button"). */
  platformRole: string;
  name: string;
  /** A field's text, a slider's number; never a password field's. */
  value?: string;
  /** Screen points; empty when the element has none (hidden, or not a component). */
  bounds: Rect;
  states: AxStates;
  /** Index of the element this one labels (a form label: clicking or typing into it means the field). */
  labelFor?: number;
}

export interface AxStates {
  enabled: boolean;
  focused?: boolean;
  focusable?: boolean;
  checked?: boolean;
  editable?: boolean;
  selected?: boolean;
  expanded?: boolean;
  /** Shown on screen (not scrolled away or in a hidden page). */
  showing?: boolean;
  /** A password field: its value is never read. */
  password?: boolean;
}

/** One reading of a window's tree. */
export interface AxSnapshot {
  elements: AxElement[];
  /** How the window was matched to the accessibility tree's application (for the log and the note). */
  app: string;
}

/**
 * A platform's route to the tree. `read` resolves undefined when the window's application
 * exposes no tree (an app without accessibility support, or none matches the window): the
 * callers then fall back to OCR and say so.
 */
export interface TreeBackend {
  readonly name: string;
  read(window: WindowRef, options: { signal: AbortSignal; maxElements: number }): Promise<AxSnapshot | undefined>;
  /** Whether the route answers at all (the health checklist); never throws. */
  probe?(): Promise<{ ok: boolean; detail: string }>;
  dispose?(): Promise<void>;
}
