/** A stored frame as agents see it (the frame descriptor of the MCP tools) and as the dashboard lists it. */
import type { FrameSummary } from '../../../shared/api.ts';
import type { FrameDescriptor, ScreenActivity } from '../../../shared/frame.ts';
import type { FrameRecord } from '../catalog/types.ts';

export function frameSummary(f: FrameRecord, activity?: ScreenActivity): FrameSummary {
  const { state: _state, external: _external, ...rest } = f;
  return activity ? { ...rest, activity } : rest;
}

export function frameDescriptor(f: FrameRecord): FrameDescriptor {
  const d: FrameDescriptor = {
    ref: f.ref,
    source: f.source,
    target: f.target,
    capturedAt: f.capturedAt,
    image: f.image,
    sourceSize: f.sourceSize,
    origin: f.origin,
    scale: f.scale,
  };
  if (f.dpi !== undefined && f.dpi !== null) d.dpi = f.dpi;
  if (f.monitor !== undefined && f.monitor !== null) d.monitor = f.monitor;
  if (f.parentRef) d.parentRef = f.parentRef;
  return d;
}
