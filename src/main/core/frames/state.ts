/** A stored frame handed back to its source, its state read through the source's own codec. */
import { SightlineError } from '../../../shared/errors.ts';
import type { StoredFrame } from '../catalog/types.ts';
import type { ScreenPort } from '../sources/source.ts';

export function decodeFrame<S>(screen: ScreenPort<S>, frame: StoredFrame): StoredFrame<S> {
  const r = screen.state.safeParse(frame.state);
  if (!r.success) {
    throw new SightlineError(
      'FRAME_STALE',
      `Frame ${frame.ref} cannot be used to act on ${frame.target}: it does not carry what the ${frame.source} source records with a capture (made by an older Sightline?).`,
      `Capture ${frame.target} again and use the new frame.`,
      { ref: frame.ref },
    );
  }
  return { ...frame, state: r.data };
}
