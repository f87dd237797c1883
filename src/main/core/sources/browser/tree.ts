/** A tab's compact UI tree: one call of UI_TREE_FN in Sightline's isolated world. */
import { SightlineError } from '../../../../shared/errors.ts';
import type { SourceUiNode, StoredFrame, TreePort, UiTreeOptions } from '../source.ts';
import type { BrowserFrameState } from './frameState.ts';
import { UI_TREE_FN, type PageTree } from './pageScripts.ts';
import type { TabSessions } from './tabs.ts';

export class BrowserTree implements TreePort<BrowserFrameState> {
  readonly #tabs: TabSessions;

  constructor(tabs: TabSessions) {
    this.#tabs = tabs;
  }

  async uiTree(target: string, frame: StoredFrame<BrowserFrameState>, options: UiTreeOptions): Promise<SourceUiNode[]> {
    const maxNodes = Math.floor(options.maxNodes);
    if (!(maxNodes >= 1)) throw new SightlineError('INVALID_ARGUMENT', `maxNodes must be at least 1 (got ${options.maxNodes}).`, 'Use e.g. maxNodes: 200.');
    const query = options.query?.trim() || undefined;
    const fullPage = frame.state.fullPage;
    return this.#tabs.withTab(target, options.signal, 'action', async (tab) => {
      const tree = await this.#tabs.call<PageTree>(tab, UI_TREE_FN, [maxNodes, query ?? null]);
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
}
