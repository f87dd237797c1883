/**
 * What an action did, as the agent reads it: the source's own report (what was hit, what
 * received the text, a navigation, a dialog, a new title, the keyboard), the changed region in
 * image pixels of a frame the agent knows, and with `after: "image"` a small picture of it.
 * A source that cannot say cheaply what changed leaves it to a capture and a diff here.
 */
import { isSightlineError } from '../../../shared/errors.ts';
import type { Rect } from '../../../shared/frame.ts';
import type { FrameRecord } from '../catalog/types.ts';
import { changedRegion } from '../image/diff.ts';
import { rectSourceToImage } from '../image/mapping.ts';
import type { ActionResult, FramesPort, Session } from '../ports.ts';
import type { ActionOutcome, AfterMode } from '../sources/source.ts';

export interface AfterImage {
  ref: string;
  data: Buffer;
  format: 'jpeg' | 'png' | 'webp';
  width: number;
  height: number;
}

export interface OutcomeInput {
  outcome: ActionOutcome | undefined;
  after: AfterMode;
  target: string;
  /** The frame the action was read in, when it still describes the target. */
  fresh: FrameRecord | undefined;
  frames: Pick<FramesPort, 'capture' | 'crop' | 'read'>;
  session: Session | undefined;
  signal: AbortSignal;
}

export async function reportOutcome(o: OutcomeInput): Promise<{ fields: Partial<ActionResult>; image?: AfterImage }> {
  const out = o.outcome ?? {};
  const fields: Partial<ActionResult> = {};
  if (out.hit) fields.hit = out.hit;
  if (out.received) fields.received = out.received;
  if (out.navigated) fields.navigated = out.navigated;
  if (out.dialog) fields.dialog = out.dialog;
  if (out.title) fields.title = out.title;
  if (out.keyboardShown !== undefined) fields.keyboardShown = out.keyboardShown;
  if (out.remapped) fields.remapped = out.remapped;
  if (o.after === 'none') return { fields };

  // The source's own changed box, in image pixels of the frame the agent acted in.
  if (out.changed && o.fresh && !out.navigated) {
    fields.changed = roundRect(rectSourceToImage(o.fresh, out.changed));
    fields.changedRef = o.fresh.ref;
  }
  const needCapture = o.after === 'image' || (!fields.changed && out.changedUnknown === true && !out.dialog);
  if (!needCapture) return { fields };

  // The action is done: a picture after it that cannot be taken (a full disk) is a warning, not a failure.
  let next: Captured;
  try {
    // Taken as the agent's frame was (same size, same format): it becomes the frame later x, y are
    // read in, so it must keep their scale; and equal sizes let the two be compared.
    const like = o.fresh && !o.fresh.parentRef ? { maxDimension: Math.max(o.fresh.image.width, o.fresh.image.height), format: o.fresh.format } : {};
    next = await o.frames.capture({ target: o.target, session: o.session, signal: o.signal, ...like });
  } catch (e) {
    if (o.signal.aborted) throw e;
    return { fields: { ...fields, warnings: [`The action was done, but the screen after it could not be captured (${reason(e)}).`] } };
  }
  fields.afterRef = next.frame.ref;
  try {
    return await compare(o, fields, next);
  } catch (e) {
    if (o.signal.aborted) throw e;
    // The picture exists: hand it over whole rather than nothing.
    const warnings = [`The screen after the action was captured (${next.frame.ref}) but could not be compared or cut (${reason(e)}).`];
    return { fields: { ...fields, warnings }, ...(o.after === 'image' ? { image: whole(next) } : {}) };
  }
}

type Captured = Awaited<ReturnType<FramesPort['capture']>>;

function reason(e: unknown): string {
  return isSightlineError(e) ? `${e.code}: ${e.message.replace(/\.$/, '')}` : String(e);
}

function whole(next: Captured): AfterImage {
  return { ref: next.frame.ref, data: next.image.data, format: next.image.format, width: next.frame.image.width, height: next.frame.image.height };
}

/** The diff against the frame acted in says where the screen changed; with after "image", a crop of it. */
async function compare(o: OutcomeInput, fields: Partial<ActionResult>, next: Captured): Promise<{ fields: Partial<ActionResult>; image?: AfterImage }> {
  const size = next.frame.image;
  const sameSize = !!o.fresh && o.fresh.image.width === size.width && o.fresh.image.height === size.height;
  if (!fields.changed && o.fresh && sameSize) {
    const before = await o.frames.read(o.fresh.ref, 'image');
    const region = await changedRegion(before.data, next.image.data, size);
    if (region) {
      fields.changed = region;
      fields.changedRef = next.frame.ref;
    }
  }
  if (o.after !== 'image') return { fields };
  // A region the source reported (in the frame acted in) is the same place in an after-frame of that size.
  const region = fields.changed && (fields.changedRef === next.frame.ref || sameSize) ? fields.changed : undefined;
  if (!region) return { fields, image: whole(next) };
  // At least 8 px each way, kept inside the image.
  const width = Math.min(size.width, Math.max(region.width, 8));
  const height = Math.min(size.height, Math.max(region.height, 8));
  const x = Math.max(0, Math.min(region.x, size.width - width));
  const y = Math.max(0, Math.min(region.y, size.height - height));
  const crop = await o.frames.crop({ ref: next.frame.ref, x, y, width, height, coordinateUnits: 'pixels', maxDimension: 600 });
  return { fields, image: { ref: crop.frame.ref, data: crop.image.data, format: crop.image.format, width: crop.frame.image.width, height: crop.frame.image.height } };
}

function roundRect(r: Rect): Rect {
  const x = Math.floor(r.x);
  const y = Math.floor(r.y);
  return { x, y, width: Math.ceil(r.x + r.width) - x, height: Math.ceil(r.y + r.height) - y };
}
