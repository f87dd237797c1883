/**
 * An in-memory live source for testing the core, the gate and the MCP tools: one
 * window whose size, position and existence the test controls, and a log of the
 * actions it received (in source space).
 */
import sharp from 'sharp';
import { SightlineError } from '../../src/shared/errors.ts';
import type { SourceHealth, TargetInfo } from '../../src/shared/frame.ts';
import type { ActionDetails, CaptureOptions, CapturedImage, FrameCheck, Source, SourceAction, SourceUiNode, StoredFrame } from '../../src/main/core/sources/source.ts';

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

export class FakeSource implements Source {
  readonly name = 'desktop' as const;
  readonly capabilities = { capture: true, actions: ['click', 'type_text', 'press_key', 'scroll', 'focus_window'] as const, uiTree: true };
  readonly actions: SourceAction[] = [];
  readonly windows = new Map<string, FakeWindow>();
  available = true;

  constructor(...windows: FakeWindow[]) {
    for (const w of windows) this.windows.set(w.id, w);
  }

  async health(): Promise<SourceHealth> {
    return this.available
      ? { source: 'desktop', enabled: true, available: true, degraded: false }
      : { source: 'desktop', enabled: true, available: false, degraded: false, reason: 'fake outage', remediation: 'turn it back on' };
  }

  async listTargets(): Promise<TargetInfo[]> {
    return [...this.windows.values()]
      .filter((w) => !w.gone)
      .map((w) => ({ id: w.id, source: 'desktop', kind: 'window', title: `Fake ${w.id}`, app: w.app, bounds: { x: w.x, y: w.y, width: w.width, height: w.height }, scale: w.pixelRatio }));
  }

  #window(id: string): FakeWindow {
    const w = this.windows.get(id);
    if (!w || w.gone) throw new SightlineError('TARGET_NOT_FOUND', `Window ${id} is gone.`, 'Call list_targets.');
    return w;
  }

  async capture(target: string, _options: CaptureOptions): Promise<CapturedImage> {
    const w = this.#window(target);
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

  async checkFrame(frame: StoredFrame): Promise<FrameCheck> {
    const w = this.#window(frame.target);
    if (w.width !== frame.state.width || w.height !== frame.state.height) {
      throw new SightlineError('FRAME_STALE', `Window ${w.id} was resized since frame ${frame.ref}.`, 'Capture again.');
    }
    return { shift: { x: w.x - (frame.state.x as number), y: w.y - (frame.state.y as number) } };
  }

  async perform(action: SourceAction): Promise<ActionDetails> {
    if ('target' in action) this.#window(action.target);
    this.actions.push(action);
    return { note: 'fake' };
  }

  async uiTree(target: string): Promise<SourceUiNode[]> {
    const w = this.#window(target);
    return [
      { id: 'root', role: 'window', name: `Fake ${w.id}`, bounds: { x: w.x, y: w.y, width: w.width, height: w.height } },
      { id: 'ok', parentId: 'root', role: 'button', name: 'OK', clickable: true, bounds: { x: w.x + 100, y: w.y + 200, width: 80, height: 40 } },
    ];
  }
}
