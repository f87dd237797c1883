/**
 * An in-memory live source for testing the core, the gate and the MCP tools: one
 * window whose size, position and existence the test controls, and a log of the
 * actions it received (in source space).
 */
import sharp from 'sharp';
import { settle } from '../../src/main/core/sources/aim.ts';
import { z } from 'zod';
import { SightlineError } from '../../src/shared/errors.ts';
import type { SourceHealth, TargetInfo } from '../../src/shared/frame.ts';
import type { ActionDetails, CaptureOptions, CapturedImage, FrameCheck, InputPort, ScreenPort, Source, SourceAction, SourceUiNode, StoredFrame, TextPort, TreePort } from '../../src/main/core/sources/source.ts';

export interface FakeWindow {
  id: string;
  app: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Device pixels per source unit (HiDPI = 2). */
  pixelRatio: number;
  gone?: boolean;
}

const fakeState = z.object({ width: z.number(), height: z.number(), x: z.number(), y: z.number() });
type FakeState = z.output<typeof fakeState>;

export class FakeSource implements Source {
  readonly name: string;
  readonly actions: SourceAction[] = [];
  readonly windows = new Map<string, FakeWindow>();
  available = true;
  /** Up, but with nothing to act on (a device source with no device attached). */
  idle = false;
  readonly screen: ScreenPort<FakeState>;
  readonly input: InputPort<FakeState>;
  readonly tree: TreePort<FakeState>;
  readonly text: TextPort;
  /** Extra nodes (source space) on top of the window and its OK button: a test adds labels, moves them, removes them. */
  readonly nodes: SourceUiNode[] = [];
  /** Held by "another call": an action waits for it before it is judged, as behind a target's lock. */
  busy: Promise<void> | undefined;
  /** A broken source that resolves an action without judging it first (the gate must refuse). */
  skipJudge = false;
  /** Screenshots taken, and how long each takes (ms): load tests make captures overlap. */
  captures = 0;
  captureDelayMs = 0;
  /** The most screenshots that were being taken at the same moment. */
  mostAtOnce = 0;
  #inCapture = 0;

  constructor(...windows: FakeWindow[]) {
    this.name = windows[0]?.id.slice(0, windows[0].id.indexOf(':')) || 'desktop';
    for (const w of windows) this.windows.set(w.id, w);
    this.screen = {
      state: fakeState,
      listTargets: async () => this.#targets(),
      capture: (target, options) => this.#capture(target, options),
      checkFrame: async (frame) => this.#check(frame),
    };
    this.input = {
      actions: ['click', 'type_text', 'press_key', 'scroll', 'focus_window', 'hover', 'drag'],
      perform: async (pending) => {
        await this.busy;
        if (this.skipJudge) return this.#perform(pending.resolve({}));
        return this.#perform(
          await settle(
            pending,
            () => ({ kind: 'app', app: this.#window(pending.target).app, label: `Fake ${pending.target}` }),
            async (frame) => this.#check(frame as StoredFrame<FakeState>),
          ),
        );
      },
    };
    this.tree = { uiTree: async (target) => this.#tree(target) };
    this.text = { readText: async (target) => this.#tree(target).filter((n) => n.name && n.role !== 'window').map((n) => ({ text: n.name, bounds: n.bounds, node: n.id })) };
  }

  async health(): Promise<SourceHealth> {
    return this.available
      ? { source: this.name, enabled: true, available: true, degraded: false, ...(this.idle ? { idle: true } : {}) }
      : { source: this.name, enabled: true, available: false, degraded: false, reason: 'fake outage', remediation: 'turn it back on' };
  }

  #targets(): TargetInfo[] {
    return [...this.windows.values()]
      .filter((w) => !w.gone)
      .map((w) => ({ id: w.id, source: this.name, kind: 'window', title: `Fake ${w.id}`, app: w.app, bounds: { x: w.x, y: w.y, width: w.width, height: w.height }, scale: w.pixelRatio }));
  }

  #window(id: string): FakeWindow {
    const w = this.windows.get(id);
    if (!w || w.gone) throw new SightlineError('TARGET_NOT_FOUND', `Window ${id} is gone.`, 'Call list_targets.');
    return w;
  }

  async #capture(target: string, _options: CaptureOptions): Promise<CapturedImage<FakeState>> {
    const w = this.#window(target);
    this.captures++;
    this.mostAtOnce = Math.max(this.mostAtOnce, ++this.#inCapture);
    try {
      if (this.captureDelayMs) await new Promise((r) => setTimeout(r, this.captureDelayMs));
    } finally {
      this.#inCapture--;
    }
    const width = Math.round(w.width * w.pixelRatio);
    const height = Math.round(w.height * w.pixelRatio);
    // A recognisable picture: a red square in the top-left quarter on white.
    const data = await sharp({ create: { width, height, channels: 4, background: '#ffffff' } })
      .composite([{ input: { create: { width: Math.floor(width / 4), height: Math.floor(height / 4), channels: 4, background: '#ff0000' } }, left: 0, top: 0 }])
      .raw()
      .toBuffer();
    return {
      target,
      pixels: { kind: 'raw', data, width, height, channels: 4 },
      sourceSize: { width: w.width, height: w.height },
      origin: { x: w.x, y: w.y },
      state: { width: w.width, height: w.height, x: w.x, y: w.y },
    };
  }

  #check(frame: StoredFrame<FakeState>): FrameCheck {
    const w = this.#window(frame.target);
    if (w.width !== frame.state.width || w.height !== frame.state.height) {
      throw new SightlineError('FRAME_STALE', `Window ${w.id} was resized since frame ${frame.ref}.`, 'Capture again.');
    }
    return { shift: { x: w.x - frame.state.x, y: w.y - frame.state.y } };
  }

  #perform(action: SourceAction): ActionDetails {
    if ('target' in action) this.#window(action.target);
    // A node is a handle: act at the centre of its box as it is now.
    const node = 'node' in action && action.kind !== 'scroll_into_view' ? action.node : undefined;
    if (node !== undefined) {
      const n = this.#tree(action.target).find((x) => x.id === node);
      if (!n) throw new SightlineError('NODE_NOT_FOUND', `Node ${node} is gone.`, 'Call get_ui_tree again.');
      const point = { x: n.bounds.x + n.bounds.width / 2, y: n.bounds.y + n.bounds.height / 2 };
      this.actions.push({ ...action, point } as SourceAction);
      return { note: 'fake', point, outcome: { hit: { role: n.role, name: n.name, node: n.id } } };
    }
    this.actions.push(action);
    return { note: 'fake', outcome: { changedUnknown: true } };
  }

  #tree(target: string): SourceUiNode[] {
    const w = this.#window(target);
    return [
      { id: 'root', role: 'window', name: `Fake ${w.id}`, bounds: { x: w.x, y: w.y, width: w.width, height: w.height } },
      { id: 'ok', parentId: 'root', role: 'button', name: 'OK', clickable: true, bounds: { x: w.x + 100, y: w.y + 200, width: 80, height: 40 } },
      ...this.nodes.map((n) => ({ ...n, bounds: { ...n.bounds, x: w.x + n.bounds.x, y: w.y + n.bounds.y } })),
    ];
  }
}
