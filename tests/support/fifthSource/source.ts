/** The fake source itself: N generated 800×500 screens that record the clicks they receive. */
import sharp from 'sharp';
import { z } from 'zod';
import { settle } from '../../../src/main/core/sources/aim.ts';
import { SightlineError } from '../../../src/shared/errors.ts';
import type { TargetInfo } from '../../../src/shared/frame.ts';
import type { InputPort, ScreenPort, Source, SourceAction } from '../../../src/main/core/sources/source.ts';
import type { fakeSettings } from './module.ts';

const state = z.object({ screen: z.number() });

export interface FakeScreens extends Source {
  readonly screen: ScreenPort<z.output<typeof state>>;
  readonly input: InputPort<z.output<typeof state>>;
  readonly received: SourceAction[];
}

/**
 * A health probe that hangs, as a desktop accessibility bus that does not answer does: while
 * `hold()`'s promise is unresolved every health check waits for it; `pending` counts the checks
 * waiting now. Tests show what does not wait on a probe.
 */
export const slowHealth = {
  pending: 0,
  gate: undefined as Promise<void> | undefined,
  /** Hold every health check until the returned function is called. */
  hold(): () => void {
    let release!: () => void;
    this.gate = new Promise<void>((r) => (release = r));
    return () => {
      this.gate = undefined;
      release();
    };
  },
};

export function createFakeSource(settings: z.output<typeof fakeSettings>): FakeScreens {
  const received: SourceAction[] = [];
  const index = (target: string): number => {
    const m = /^fake:screen:(\d+)$/.exec(target);
    const n = m ? Number(m[1]) : -1;
    if (n < 1 || n > settings.screens) throw new SightlineError('TARGET_NOT_FOUND', `${target} is not a fake screen.`, 'Call list_targets.');
    return n;
  };
  return {
    name: 'fake',
    received,
    health: async () => {
      if (slowHealth.gate) {
        slowHealth.pending++;
        await slowHealth.gate.finally(() => slowHealth.pending--);
      }
      return { source: 'fake', enabled: true, available: true, degraded: false, checks: [{ id: 'fake.screens', label: 'Fake screens', status: 'ok', detail: `${settings.screens} screen(s)` }] };
    },
    screen: {
      state,
      listTargets: async (): Promise<TargetInfo[]> =>
        Array.from({ length: settings.screens }, (_, i) => ({ id: `fake:screen:${i + 1}`, source: 'fake', kind: 'screen', title: `${settings.label} ${i + 1}`, bounds: { x: 0, y: 0, width: 800, height: 500 } })),
      capture: async (target) => {
        const n = index(target);
        const data = await sharp({ create: { width: 800, height: 500, channels: 3, background: { r: 40 * n, g: 120, b: 200 } } }).png().toBuffer();
        return { target, pixels: { kind: 'encoded', data }, sourceSize: { width: 800, height: 500 }, origin: { x: 0, y: 0 }, state: { screen: n } };
      },
      checkFrame: async (frame) => {
        index(frame.target);
        return {};
      },
    },
    input: {
      actions: ['click'],
      perform: async (pending) => {
        const action = await settle(pending, () => ({ kind: 'app', app: 'fifth' }), async () => ({}));
        index(action.target);
        received.push(action);
        return { note: 'recorded by the fake source' };
      },
    },
  };
}
