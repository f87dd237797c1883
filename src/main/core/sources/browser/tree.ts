/**
 * A tab's compact UI tree and its visible text: one call of UI_TREE_FN in Sightline's isolated
 * world each. Node ids are handles to elements (see pageScripts.ts): the input port finds the
 * element again by its id and acts on its current box.
 */
import { SightlineError } from '../../../../shared/errors.ts';
import type { SourceUiNode, StoredFrame, TextItem, TextPort, TreePort, UiTreeOptions } from '../source.ts';
import type { BrowserFleet } from './fleet.ts';
import type { BrowserFrameState } from './frameState.ts';
import { UI_TREE_FN, type PageTree } from './pageTree.ts';

/** Enough for a screenful of text; the walk stops there. */
const MAX_TEXT_ITEMS = 2_000;

export class BrowserTree implements TreePort<BrowserFrameState>, TextPort {
  readonly #fleet: BrowserFleet;

  constructor(fleet: BrowserFleet) {
    this.#fleet = fleet;
  }

  async uiTree(target: string, frame: StoredFrame<BrowserFrameState>, options: UiTreeOptions): Promise<SourceUiNode[]> {
    const maxNodes = Math.floor(options.maxNodes);
    if (!(maxNodes >= 1)) throw new SightlineError('INVALID_ARGUMENT', `maxNodes must be at least 1 (got ${options.maxNodes}).`, 'Use e.g. maxNodes: 200.');
    const query = options.query?.trim() || undefined;
    const fullPage = frame.state.fullPage;
    const tabs = this.#fleet.forTarget(target);
    return tabs.withTab(target, options.signal, 'action', async (tab) => {
      const tree = await tabs.call<PageTree>(tab, UI_TREE_FN, [maxNodes, query ?? null, 'tree']);
      // A full-page frame is in document coordinates: shift the viewport boxes by the scroll.
      const dx = fullPage ? tree.sx : 0;
      const dy = fullPage ? tree.sy : 0;
      return tree.nodes.map((n) => {
        const out: SourceUiNode = {
          id: n.id,
          role: n.role,
          name: n.name,
          bounds: { x: n.x + dx, y: n.y + dy, width: n.w, height: n.h },
          inViewport: n.inView,
          clickable: n.clickable,
        };
        const parent = n.p >= 0 ? tree.nodes[n.p] : undefined;
        if (parent) out.parentId = parent.id;
        if (n.value !== undefined) out.value = n.value;
        if (n.enabled !== undefined) out.enabled = n.enabled;
        if (n.attrs) out.attributes = n.attrs;
        return out;
      });
    });
  }

  /** The text on screen now: one item per element a reader sees text on, boxes in viewport CSS px, with node ids. */
  async readText(target: string, signal: AbortSignal, options?: { words?: boolean }): Promise<TextItem[]> {
    const tabs = this.#fleet.forTarget(target);
    return tabs.withTab(target, signal, 'action', async (tab) => {
      const tree = await tabs.call<PageTree>(tab, UI_TREE_FN, [MAX_TEXT_ITEMS, null, options?.words ? 'words' : 'text']);
      return tree.nodes.map((n) => ({
        text: n.text ?? n.name,
        bounds: { x: n.x, y: n.y, width: n.w, height: n.h },
        node: n.id,
        confidence: 1,
        role: n.role,
        editable: n.ed === true,
        actionable: n.act === true,
        takesValue: n.val === true,
        ...(n.lb ? { label: n.lb } : {}),
        ...(n.words?.length ? { words: n.words.map((w) => ({ text: w.t, bounds: { x: w.x, y: w.y, width: w.w, height: w.h } })) } : {}),
      }));
    });
  }
}
