/** Frame summaries as the dashboard's API lists them, for the renderer's unit tests. */
import type { FrameSummary } from '../../src/shared/api.ts';

/** The capture time of frame 0; frame i is i seconds older. */
export const T0 = Date.parse('2025-11-20T12:00:00Z');

/** Frame `i` of a list: a 100×50 desktop JPEG, unpinned, with its original; `over` changes any field. */
export function frameSummary(i: number, over: Partial<FrameSummary> = {}): FrameSummary {
  return {
    ref: `f${i}`,
    source: 'desktop',
    target: 'desktop:window:1',
    capturedAt: new Date(T0 - i * 1000).toISOString(),
    image: { width: 100, height: 50 },
    sourceSize: { width: 100, height: 50 },
    origin: { x: 0, y: 0 },
    scale: 1,
    format: 'jpeg',
    bytes: 1000,
    pinned: false,
    hasFull: true,
    ...over,
  };
}
