/** Helpers every source uses to take an action from the gate: judge it and its frame, resolve it, name a stale frame once. */
import { SightlineError, isSightlineError } from '../../../shared/errors.ts';
import type { Point } from '../../../shared/frame.ts';
import { allowedFile } from '../util/allowedFile.ts';
import type { AfterMode, Capabilities, CapabilityName, FactsReader, FrameCheck, FrameJudgement, PendingAction, Source, StoredFrame } from './source.ts';

/**
 * Judge a pending action, holding the target's lock: first the policy on the target as it is now
 * (`facts`: pause, read-only, Sightline's own targets, the allowlist), then its frame with `check`
 * (the source's freshness rules), and resolve it into source space. That is the order of
 * refusals: policy, target, staleness, point. A frame that only places what changed (a node or
 * text aim) may be stale without refusing the action.
 */
export async function settle<A>(action: PendingAction<A>, facts: FactsReader, check: (frame: StoredFrame) => Promise<FrameCheck>): Promise<A> {
  await action.judge(facts);
  if (!action.frame) return action.resolve({});
  let judged: FrameJudgement;
  try {
    judged = await check(action.frame);
  } catch (e) {
    if (action.needsFreshFrame || !isSightlineError(e) || e.code !== 'FRAME_STALE') throw e;
    judged = { stale: true };
  }
  return action.resolve(judged);
}

/**
 * An action already in source space, as a pending one (a shift of a moved target is added to its
 * points): for a source's own callers and tests that act without the gate, so without its policy
 * (nothing is refused; files come from `uploadRoots`).
 */
export function ready<A extends { kind: string; target: string; frame?: StoredFrame; point?: Point; to?: Point }>(
  action: A,
  after: AfterMode = 'summary',
  o: { uploadRoots?: readonly string[] } = {},
): PendingAction<A> {
  return {
    kind: action.kind,
    target: action.target,
    ...(action.frame ? { frame: action.frame } : {}),
    after,
    needsFreshFrame: action.point !== undefined,
    judge: async () => ({ confined: false }),
    judgePlace: () => undefined,
    allowedFile: (path, what) => allowedFile(path, o.uploadRoots ?? [], what),
    resolve: (judged) => {
      const s = judged.shift;
      if (!s || (!s.x && !s.y)) return action;
      const move = (p: Point | undefined): Point | undefined => (p ? { x: p.x + s.x, y: p.y + s.y } : undefined);
      return { ...action, ...(action.point ? { point: move(action.point) } : {}), ...(action.to ? { to: move(action.to) } : {}) };
    },
  };
}

/** FRAME_STALE, said the same way by every source: what changed, and to capture again. */
export function frameStale(frame: { ref: string; target: string }, why: string): SightlineError {
  return new SightlineError('FRAME_STALE', `Frame ${frame.ref} is stale: ${why}.`, `Capture ${frame.target} again and use the new frame's coordinates.`, { ref: frame.ref });
}

/** A source's port by name, or UNSUPPORTED saying which source lacks it. */
export function portOf<K extends CapabilityName>(source: Source, name: K): Capabilities[K] {
  const port = (source as { readonly [P in CapabilityName]?: Capabilities[P] })[name];
  if (!port) throw new SightlineError('UNSUPPORTED', `The ${source.name} source has no ${CAPABILITY_WORDS[name]}.`, CAPABILITY_HINTS[name]);
  return port as Capabilities[K];
}

const CAPABILITY_WORDS: Record<CapabilityName, string> = {
  screen: 'screen to capture',
  input: 'input',
  tree: 'UI tree',
  text: 'screen text of its own',
  network: 'network activity to wait on',
  history: 'history',
  apps: 'apps to manage',
  orientation: 'screen orientation to set',
};

const CAPABILITY_HINTS: Record<CapabilityName, string> = {
  screen: 'Use list_targets to find a source that can.',
  input: 'Use list_targets to find a target that takes input.',
  tree: 'Capture the target and act in image pixels instead.',
  text: 'find_text reads it by OCR instead.',
  network: 'Wait for text or a UI-tree query instead.',
  history: 'Use list_screenshots without a source.',
  apps: 'App tools work on devices (list_targets shows them).',
  orientation: 'Orientation is set on devices (list_targets shows them).',
};

/** The point an action aims at, for a source that acts on points only (no UI tree). */
export function requirePoint(action: { kind: string; point?: Point; node?: string; target: string }): Point {
  if (action.point) return action.point;
  if (action.node !== undefined) {
    throw new SightlineError('UNSUPPORTED', `${action.target} has no UI tree: ${action.kind} needs x, y.`, 'Give x, y in image pixels of the frame you saw.');
  }
  throw new SightlineError('INVALID_ARGUMENT', `${action.kind} needs a point.`, 'Give x, y in image pixels of the frame you saw.');
}
