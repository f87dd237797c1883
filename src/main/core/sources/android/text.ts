/**
 * Text on a device's screen without OCR: the UI dump's text (else content-desc) with its box in
 * device px and its node id, so the core can click or wait by text and then act on the node. One
 * dump per call (1–3 s on a phone). `findText` also offers textQuery's ranking (whole label before
 * whole word before substring, visible and enabled first, the clickable row around a label).
 */
import type { SourceUiNode, TextItem, TextPort } from '../source.ts';
import type { AndroidDevices } from './devices.ts';
import type { DeviceDumps } from './dumps.ts';
import { findByText, type TextSearch, type TextSearchOptions } from './textQuery.ts';

export class AndroidText implements TextPort {
  readonly #d: AndroidDevices;
  readonly #dumps: DeviceDumps;

  constructor(devices: AndroidDevices, dumps: DeviceDumps) {
    this.#d = devices;
    this.#dumps = dumps;
  }

  async readText(target: string, signal: AbortSignal): Promise<TextItem[]> {
    return textItems(await this.#nodes(target, signal));
  }

  /** Nodes whose text, content-desc or hint match `query`, ranked; `chosen` is what to tap. */
  async findText(target: string, query: string, options: TextSearchOptions & { signal: AbortSignal }): Promise<TextSearch> {
    return findByText(await this.#nodes(target, options.signal), query, options);
  }

  async #nodes(target: string, signal: AbortSignal): Promise<SourceUiNode[]> {
    const ref = this.#d.device(target);
    // What is read here is what a click by text acts on next: that action may use this dump.
    return this.#d.exclusive(ref, signal, async () => (await this.#dumps.dump(ref, signal, { forNextAction: true })).nodes);
  }
}

/** Classes of views that take typed text (EditText and its subclasses by name). */
const EDIT_CLASS = /(EditText|AutoCompleteTextView|SearchView\$SearchAutoComplete)$/;

/**
 * Labelled nodes on screen with a box, in dump order: text, else content-desc (uiautomator clips
 * boxes to what shows). A field's hint is its label, so a field is found by it when it holds a
 * value and when it is empty (then the hint is what it shows).
 */
export function textItems(nodes: readonly SourceUiNode[]): TextItem[] {
  const out: TextItem[] = [];
  for (const n of nodes) {
    if (n.inViewport === false || n.bounds.width <= 0 || n.bounds.height <= 0) continue;
    const editable = EDIT_CLASS.test(n.role);
    const hint = editable ? n.attributes?.hint?.trim() || undefined : undefined;
    // A password field's text is its value (dots, or the character just typed): never text to find; its hint is.
    const own = n.attributes?.password === 'true' ? undefined : n.attributes?.text || n.attributes?.['content-desc'];
    const text = own?.trim() ? own : hint;
    if (!text) continue;
    out.push({ text, ...(hint ? { label: hint } : {}), bounds: n.bounds, node: n.id, confidence: 1, role: n.role.slice(n.role.lastIndexOf('.') + 1), editable, actionable: !editable && (n.clickable === true || n.attributes?.checkable === 'true'), takesValue: editable || n.attributes?.checkable === 'true' });
  }
  return out;
}
