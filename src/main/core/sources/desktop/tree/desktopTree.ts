/**
 * The desktop's tree and text ports: a window's accessibility tree (the platform backend's
 * elements, given ids that survive a fresh read) as UI nodes, and its visible labels as text
 * items, so click, find_text, wait_for and type_text by text answer from the tree. A window whose
 * app exposes no tree (Tk, a game, a remote desktop) has no text here: the core reads it by OCR.
 */
import { SightlineError, isSightlineError } from '../../../../../shared/errors.ts';
import type { HealthCheck, Point, Rect } from '../../../../../shared/frame.ts';
import type { SourceUiNode, StoredFrame, TextItem, TextPort, TreePort, UiTreeOptions } from '../../source.ts';
import type { DesktopFrameState } from '../screen.ts';
import { boundsOf, get, parseDesktopTarget, type DesktopSession } from '../session.ts';
import { TreeHandles, type HandledRead } from './handles.ts';
import { ACTIONABLE, EDITABLE } from './roles.ts';
import type { AxElement, TreeBackend, WindowRef } from './types.ts';

/** Elements read per window at most: a window with more is cut (and says so in the log). */
const MAX_ELEMENTS = 3000;

export interface WindowTree {
  window: WindowRef;
  read: HandledRead;
}

export class DesktopTree implements TreePort<DesktopFrameState>, TextPort {
  readonly #s: DesktopSession;
  readonly #backend: TreeBackend;
  /** Handles per window id (ids of one window never name another's elements). */
  readonly #handles = new Map<number, TreeHandles>();

  constructor(session: DesktopSession, backend: TreeBackend) {
    this.#s = session;
    this.#backend = backend;
  }

  get backend(): string {
    return this.#backend.name;
  }

  async uiTree(target: string, frame: StoredFrame<DesktopFrameState>, options: UiTreeOptions): Promise<SourceUiNode[]> {
    const tree = await this.read(target, options.signal);
    if (!tree) throw noTree(target, this.#backend.name);
    // Bounds in the frame's own space: a window that moved since the frame shows the same
    // pixels at the same place in its image.
    const shift = { x: tree.window.bounds.x - frame.state.x, y: tree.window.bounds.y - frame.state.y };
    let nodes = toNodes(tree, shift);
    const query = options.query?.trim().toLowerCase();
    if (query) nodes = nodes.filter((n) => n.name.toLowerCase().includes(query) || n.role.toLowerCase() === query || (n.value ?? '').toLowerCase().includes(query));
    return nodes.slice(0, options.maxNodes);
  }

  /** The window's visible labels and field texts (undefined: no tree, read it by OCR). */
  async readText(target: string, signal: AbortSignal): Promise<TextItem[] | undefined> {
    if (parseDesktopTarget(target).kind !== 'window') return undefined;
    let tree: WindowTree | undefined;
    try {
      tree = await this.read(target, signal);
    } catch (e) {
      // No accessibility bus here: OCR reads what the window shows.
      if (isSightlineError(e) && e.code === 'SOURCE_UNAVAILABLE') return undefined;
      throw e;
    }
    return tree ? textItems(tree) : undefined;
  }

  /** A fresh read of the window's tree with its ids, or undefined when its app exposes none. */
  async read(target: string, signal: AbortSignal): Promise<WindowTree | undefined> {
    const t = parseDesktopTarget(target);
    if (t.kind !== 'window') throw new SightlineError('UNSUPPORTED', `${target} is a display: only a window has an accessibility tree.`, 'Call list_targets and use a desktop:window:… id.');
    const w = await this.#s.window(t.id);
    const window: WindowRef = { id: t.id, title: get(() => w.title()) ?? '', bounds: boundsOf(w) };
    const app = get(() => w.appName());
    if (app) window.app = app;
    const pid = get(() => w.pid());
    if (pid) window.pid = pid;
    const snapshot = await this.#backend.read(window, { signal, maxElements: MAX_ELEMENTS });
    if (!snapshot) return undefined;
    let handles = this.#handles.get(t.id);
    if (!handles) {
      handles = new TreeHandles();
      this.#handles.set(t.id, handles);
    }
    return { window, read: handles.adopt(snapshot.elements) };
  }

  /** A checklist item: whether window trees can be read here. */
  async check(): Promise<HealthCheck | undefined> {
    const p = await this.#backend.probe?.();
    if (!p) return undefined;
    return p.ok
      ? { id: 'accessibility-tree', label: `Accessibility tree (${this.#backend.name})`, status: 'ok', detail: p.detail }
      : { id: 'accessibility-tree', label: `Accessibility tree (${this.#backend.name})`, status: 'warning', detail: `Unavailable (${p.detail}): windows are read by OCR.`, fix: 'Install at-spi2-core and run Sightline in the desktop session (it needs the session bus).' };
  }

  handles(windowId: number): TreeHandles | undefined {
    return this.#handles.get(windowId);
  }

  async dispose(): Promise<void> {
    await this.#backend.dispose?.();
  }
}

/** The tree as UI nodes, boxes in source space shifted by `shift` (the window's move since the frame). */
export function toNodes(tree: WindowTree, shift: Point = { x: 0, y: 0 }): SourceUiNode[] {
  const { read, window } = tree;
  return read.elements.map((e, i): SourceUiNode => {
    const attributes: Record<string, string> = { platformRole: e.platformRole };
    if (e.states.focused) attributes.focused = 'true';
    if (e.states.checked !== undefined) attributes.checked = String(e.states.checked);
    if (e.states.selected) attributes.selected = 'true';
    if (e.states.expanded) attributes.expanded = 'true';
    if (e.states.editable) attributes.editable = 'true';
    if (e.states.password) attributes.password = 'true';
    if (e.labelFor !== undefined) attributes.labelFor = read.ids[e.labelFor]!;
    const bounds = { x: e.bounds.x - shift.x, y: e.bounds.y - shift.y, width: e.bounds.width, height: e.bounds.height };
    return {
      id: read.ids[i]!,
      ...(e.parent !== undefined ? { parentId: read.ids[e.parent]! } : {}),
      role: e.role,
      name: e.name,
      // A password field's value is never read; the others' are what they show.
      ...(e.value !== undefined && !e.states.password ? { value: e.value } : {}),
      bounds,
      inViewport: visible(e, window.bounds),
      clickable: ACTIONABLE.has(e.role) && e.states.enabled,
      enabled: e.states.enabled,
      attributes,
    };
  });
}

/**
 * Text an agent can aim at: each shown element's name (a window's title is the frame's, not the
 * client area's, and is left out). A label that names a field counts as the field (clicking or
 * typing into "Email" means the entry), and the field's own name, when it repeats its label, is
 * the same hit. A field's text is its value (a password field's never).
 */
/** Controls whose value a form sets besides text fields. */
const VALUE_ROLES = new Set(['checkbox', 'radio', 'switch', 'slider', 'menuitemcheckbox', 'menuitemradio']);

export function textItems(tree: WindowTree): TextItem[] {
  const { read, window } = tree;
  const items: TextItem[] = [];
  read.elements.forEach((e, i) => {
    if (e.role === 'window' || !visible(e, window.bounds)) return;
    // A text leaf that repeats its parent's name (Chromium gives a heading, link or cell its text
    // as a child too) is the same words at the same place: one hit, the parent's.
    const parent = e.parent !== undefined ? read.elements[e.parent] : undefined;
    if (parent && (e.role === 'text' || e.role === 'label') && e.labelFor === undefined && sameWords(parent.name, e.name) && inside(e.bounds, parent.bounds)) return;
    // A label is one place with the control it labels: its words aim at the control.
    const ctl = e.labelFor !== undefined ? read.elements[e.labelFor]! : e;
    const node = e.labelFor !== undefined ? read.ids[e.labelFor]! : read.ids[i]!;
    const kind = { role: ctl.role, editable: EDITABLE.has(ctl.role), actionable: ACTIONABLE.has(ctl.role) && !EDITABLE.has(ctl.role), takesValue: EDITABLE.has(ctl.role) || VALUE_ROLES.has(ctl.role) };
    const bounds = clip(e.bounds, window.bounds);
    if (e.name.trim()) items.push({ text: e.name, bounds, node, confidence: 1, ...kind });
    if (e.value?.trim() && !e.states.password && EDITABLE.has(e.role)) items.push({ text: e.value, bounds, node: read.ids[i]!, confidence: 1, ...kind });
  });
  return items;
}

function sameWords(a: string, b: string): boolean {
  const norm = (s: string): string => s.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
  return norm(a) !== '' && norm(a) === norm(b);
}

/** `r` lies within `outer` (a pixel of rounding allowed). */
function inside(r: Rect, outer: Rect): boolean {
  return r.x >= outer.x - 1 && r.y >= outer.y - 1 && r.x + r.width <= outer.x + outer.width + 1 && r.y + r.height <= outer.y + outer.height + 1;
}

/** On screen: shown, with a box that meets the window's. */
function visible(e: AxElement, window: Rect): boolean {
  if (e.states.showing === false || e.bounds.width <= 0 || e.bounds.height <= 0) return false;
  return e.bounds.x < window.x + window.width && e.bounds.y < window.y + window.height && e.bounds.x + e.bounds.width > window.x && e.bounds.y + e.bounds.height > window.y;
}

function clip(r: Rect, to: Rect): Rect {
  const x = Math.max(r.x, to.x);
  const y = Math.max(r.y, to.y);
  return { x, y, width: Math.max(0, Math.min(r.x + r.width, to.x + to.width) - x), height: Math.max(0, Math.min(r.y + r.height, to.y + to.height) - y) };
}

export function noTree(target: string, backend: string): SightlineError {
  // On Linux the commonest cause is a Chromium, Electron or Qt 6 app started without accessibility.
  const linux = backend === 'AT-SPI' ? ' A Chromium, Electron or Qt 6 app shows its controls once the person turns on "Start these apps with accessibility on" in Sightline\'s Setup and reopens it.' : '';
  return new SightlineError(
    'UNSUPPORTED',
    `The app of ${target} exposes no accessibility tree (${backend}).`,
    `Capture it and give x, y in image pixels; click, find_text and wait_for by text read it by OCR.${linux}`,
  );
}
