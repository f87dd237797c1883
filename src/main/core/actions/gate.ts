/**
 * The one gate every action of every source passes through, the same way for every kind: pause
 * and read-only (nothing is touched, not even the target) → the frame the agent's coordinates are
 * read in (the session's latest capture, or a named ref) → a text aim found on screen → one call
 * into the source, which, holding the target's lock, judges the policy on the target as it is
 * then (pause, read-only, Sightline's own, the allowlist), judges the frame, maps and acts → what
 * happened, reported and logged. Every attempt, refused ones included, is an activity-log row.
 */
import type { ActivityEntry, ActivityOutcome, ElementDescription } from '../../../shared/activity.ts';
import { SightlineError, isSightlineError, type ErrorCode } from '../../../shared/errors.ts';
import type { Point, SourceName } from '../../../shared/frame.ts';
import type { FrameRecord } from '../catalog/types.ts';
import { decodeFrame } from '../frames/state.ts';
import { assertInsideImage, imageToSource, sourceToImage } from '../image/mapping.ts';
import type { ActionKind, ActionResult, ActionsPort, ActOptions, AnyActionKind, ArgsOf, FramesPort, Mapped, ScreenTextPort, Session } from '../ports.ts';
import type { ActionDetails, AfterMode, FrameJudgement, PendingAction, Source, StoredFrame } from '../sources/source.ts';
import type { BusySignal } from '../util/busy.ts';
import { readAim, type Aimed } from './aim.ts';
import { describeOutcome } from './describe.ts';
import { shorten } from '../actionDefs.ts';
import type { Redactor, TypedArgs } from './redact.ts';
import { reportOutcome } from './outcome.ts';
import { allowByPlaces, type InputPolicy } from './policy.ts';
import { findTextAim, type AimPurpose } from './textAim.ts';
import type { z } from 'zod';

/** The sources as the gate sees them: routing a target id to its source. */
export interface GateSources {
  sourceOf(target: string): SourceName;
  forTarget(target: string): Promise<Source>;
}

export interface GateFrames extends Pick<FramesPort, 'find' | 'capture' | 'crop' | 'read'> {
  /** The frame "the target's latest capture" means for this session. */
  latest(target: string, session: Session | undefined): FrameRecord | undefined;
}

export interface GateDeps {
  sources: GateSources;
  frames: GateFrames;
  policy: InputPolicy;
  /** A target's visible text (its tree's, else OCR), for text aims. */
  text: ScreenTextPort;
  /** Where every attempt is recorded. */
  activity: { append(entry: Omit<ActivityEntry, 'id'>): void };
  /** Marks actions as agent work (background work waits for a quiet moment). */
  busy?: BusySignal;
  /** Problems worth a line in the server's log that must not change an answer. */
  warn(message: string): void;
  /** Keeps secrets out of the log and the answer (text typed into a password field, masked patterns). */
  redact?: Redactor;
}

type LogEntry = Partial<ActivityEntry> & { tool: string };

export class ActionGate implements ActionsPort {
  readonly #d: GateDeps;
  constructor(deps: GateDeps) {
    this.#d = deps;
  }

  async act<S extends z.ZodRawShape, A>(kind: ActionKind<S, A>, args: ArgsOf<S>, opts: ActOptions): Promise<ActionResult> {
    const end = this.#d.busy?.begin();
    const started = performance.now();
    const typed = args as TypedArgs;
    const redact = this.#d.redact;
    const params = logged(kind as AnyActionKind, args);
    const log: LogEntry = { tool: kind.name, params: redact ? redact.params(params, typed) : params, client: opts.client, ...(opts.run ? { run: opts.run } : {}), ...(opts.session ? { session: opts.session.id } : {}) };
    try {
      let result: ActionResult;
      try {
        result = await this.#act(kind, args, opts, log);
        if (redact) result = redact.result(result, typed, log);
        const outcome = loggedOutcome(result);
        if (outcome) log.outcome = outcome;
      } catch (e) {
        const code: ErrorCode = isSightlineError(e) ? e.code : 'INTERNAL';
        // A log that cannot be written never replaces the real answer.
        this.#log({ ...log, ...(redact && log.params ? { params: redact.failed(kind.name, log.params, typed) } : {}), result: code, message: (e as Error).message }, started);
        throw e;
      }
      const said = describeOutcome(result);
      // The picture taken right after this action is its own "after", never a later one's.
      const unlogged = this.#log({ ...log, result: 'ok', message: [result.note, said].filter(Boolean).join('; ') || undefined, ...(result.afterRef ? { afterRef: result.afterRef } : {}) }, started);
      // The action happened: say so, and that its log entry is missing, so an agent does not repeat it.
      return unlogged ? { ...result, warnings: [...(result.warnings ?? []), unlogged] } : result;
    } finally {
      end?.();
    }
  }

  async #act<S extends z.ZodRawShape, A>(kind: ActionKind<S, A>, args: ArgsOf<S>, opts: ActOptions, log: LogEntry): Promise<ActionResult> {
    const { frames } = this.#d;
    const { signal, session } = opts;
    const given = args as { ref?: string; target?: string };
    const named = given.ref !== undefined ? frames.find(given.ref) : undefined;
    this.#name(log, given.target ?? named?.target ?? kind.defaultTarget?.(args));
    // A paused or read-only Sightline touches nothing, not even the target (and the source asks again, under the target's lock).
    this.#d.policy.admit();
    kind.check?.(args);
    const aim = readAim(kind, args, named);
    this.#name(log, aim.target);
    const source = await this.#d.sources.forTarget(aim.target);
    const perform = kind.performer(source);

    const frame = aim.frame ?? frames.latest(aim.target, session);
    const needsFrame = aim.imagePoint !== undefined || kind.usesFrame?.(args) === true;
    if (needsFrame && !frame) {
      throw new SightlineError('FRAME_NOT_FOUND', `No capture of ${aim.target}${session ? ' in this session' : ''} yet: coordinates are read in the pixels of a frame.`, `Call capture with target "${aim.target}" first.`);
    }
    log.frameRef = frame?.ref;
    const stored: StoredFrame | undefined = frame && source.screen ? decodeFrame(source.screen, frame) : frame;

    const via = aim.text ? await this.#aimByText(aim, kind.textAim === 'field' ? 'field' : 'control', session, signal) : undefined;
    const labelled = await this.#labelled(aim, kind.labels?.(args) ?? [], session, signal);
    const pending = pendingAction(kind, args, { ...aim, ...(via?.aim ?? {}) }, frame, stored, needsFrame, labelled, { policy: this.#d.policy, source: source.name });
    const details = await perform(pending.action as PendingAction<A>, signal);
    return this.#report(pending, details, log, via?.said, opts);
  }

  /** Where a text is on the target now: a node, or a point read by OCR (source space). */
  async #aimByText(aim: Aimed, purpose: AimPurpose, session: Session | undefined, signal: AbortSignal): Promise<{ aim: { node?: string; sourcePoint?: Point }; said: string | undefined }> {
    const read = await this.#d.text.read(aim.target, { signal, ...(session ? { session } : {}) });
    const hit = findTextAim(read, aim.text!, aim.frame ?? this.#d.frames.latest(aim.target, session), purpose);
    // A hit in the tree is named by what the action hit; one read by OCR says so (it may misread).
    const said = hit.via === 'ocr' ? `found “${hit.text}” by OCR` : undefined;
    return { aim: hit.node !== undefined ? { node: hit.node } : { sourcePoint: hit.point }, said };
  }

  /** The node of each control a kind names by its label, from one read of the target's text; nothing is touched until all are found. */
  async #labelled(aim: Aimed, labels: readonly string[], session: Session | undefined, signal: AbortSignal): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (!labels.length) return out;
    const read = await this.#d.text.read(aim.target, { signal, ...(session ? { session } : {}) });
    const frame = aim.frame ?? this.#d.frames.latest(aim.target, session);
    for (const label of new Set(labels)) {
      let hit;
      try {
        hit = findTextAim(read, { query: label }, frame, 'value');
      } catch (e) {
        // Say which field the refusal is about: a form names several.
        if (isSightlineError(e)) throw new SightlineError(e.code, `Field "${label}": ${e.message}`, e.hint, e.details);
        throw e;
      }
      if (hit.node === undefined) {
        throw new SightlineError('UNSUPPORTED', `Field "${label}" was read by OCR: ${aim.target} names no control there to set.`, 'Fill a form on a target with a UI tree (a browser tab), or type into each field with type_text.');
      }
      out.set(label, hit.node);
    }
    return out;
  }

  async #report(p: Pending, details: ActionDetails, log: LogEntry, via: string | undefined, opts: ActOptions): Promise<ActionResult> {
    const fresh = p.fresh();
    let imagePoint = p.imagePoint();
    let sourcePoint = p.sourcePoint();
    if (details.point) {
      sourcePoint = details.point;
      if (fresh && !imagePoint) imagePoint = round(sourceToImage(fresh, details.point));
    }
    if (imagePoint) log.imagePoint = imagePoint;
    if (sourcePoint) log.sourcePoint = sourcePoint;
    const { note, outcome, point: _point, ...rest } = details;
    const reported = await reportOutcome({ outcome, after: p.action.after, target: p.action.target, fresh, frames: this.#d.frames, session: opts.session, signal: opts.signal });
    return {
      ok: true,
      target: p.action.target,
      ...(imagePoint ? { imagePoint } : {}),
      ...(sourcePoint ? { sourcePoint } : {}),
      ...(p.frame ? { frameRef: p.frame.ref } : {}),
      ...(note || via ? { note: [via, note].filter(Boolean).join('; ') } : {}),
      ...reported.fields,
      ...(Object.keys(rest).length ? { details: rest } : {}),
      ...(reported.image ? { afterImage: reported.image } : {}),
    };
  }

  /** Name the target (and its source) in the log, even when the action is refused before it is resolved. */
  #name(log: LogEntry, target: string | undefined): void {
    if (!target) return;
    log.target = target;
    try {
      log.source = this.#d.sources.sourceOf(target);
    } catch {
      // Not a Sightline id: readAim or the registry refuses it with TARGET_NOT_FOUND, which is logged.
    }
  }

  /** Append to the activity log; on failure (a full disk) say why instead of failing the action. */
  #log(entry: LogEntry & { result: ActivityEntry['result'] }, started: number): string | undefined {
    try {
      this.#d.activity.append({ at: new Date().toISOString(), durationMs: Math.round((performance.now() - started) * 10) / 10, ...entry } as Omit<ActivityEntry, 'id'>);
      return undefined;
    } catch (e) {
      const err = isSightlineError(e) ? `${e.code}: ${e.message.replace(/\.$/, '')}` : String(e);
      this.#d.warn(`activity log: ${err}`);
      return `The action was done, but its activity-log entry could not be written (${err}).`;
    }
  }
}

/** A pending action and what the gate learns when its source resolves it. */
interface Pending {
  action: PendingAction<unknown>;
  frame: FrameRecord | undefined;
  /** The frame, when the source judged it to still show the target. */
  fresh(): FrameRecord | undefined;
  imagePoint(): Point | undefined;
  sourcePoint(): Point | undefined;
}

/**
 * The action as its source receives it: `judge` asks the policy about the target as the source
 * reads it under its lock (or about the place the kind names instead); `resolve`, allowed only
 * after that, maps the aim (an image point of the frame, a node, or a point OCR found) and the
 * kind's other image points with the source's judgement of the frame, in the order target →
 * staleness → point.
 */
function pendingAction<S extends z.ZodRawShape, A>(
  kind: ActionKind<S, A>,
  args: ArgsOf<S>,
  aim: Aimed & { sourcePoint?: Point },
  frame: FrameRecord | undefined,
  stored: StoredFrame | undefined,
  needsFresh: boolean,
  labelled: ReadonlyMap<string, string>,
  judging: { policy: InputPolicy; source: string },
): Pending {
  const { policy, source } = judging;
  let admitted = false;
  let judged: FrameJudgement | undefined;
  let sourcePoint: Point | undefined;
  const action: PendingAction<A> = {
    kind: kind.name,
    target: aim.target,
    ...(stored ? { frame: stored } : {}),
    after: (args as { after?: AfterMode }).after ?? 'summary',
    needsFreshFrame: needsFresh,
    async judge(facts) {
      policy.admit();
      const by = allowByPlaces(kind.allow?.(args));
      // An action aimed at a named place (launching an app, a new tab at an origin) is judged by that place alone.
      if (by.as) policy.place(by.as, source);
      else if (!by.none) policy.target(await facts({ names: policy.confined() }), { source, target: aim.target, blankOk: by.also !== undefined });
      // Where the action leads (a page navigated to) must be allowed too.
      if (by.also) policy.place(by.also, source);
      admitted = true;
      return { confined: policy.confined() };
    },
    judgePlace: (place) => policy.place(place, source),
    allowedFile: (path, what) => policy.file(path, what),
    resolve(j) {
      if (!admitted) throw new SightlineError('INTERNAL', `${kind.name} on ${aim.target} was about to be performed without being judged.`, 'This is a bug in the source: report it.');
      judged = j;
      const shift = j.shift ?? { x: 0, y: 0 };
      const toSource = (p: Point): Point => {
        if (!frame) throw new SightlineError('FRAME_NOT_FOUND', `No frame to read (${p.x}, ${p.y}) in.`, `Call capture with target "${aim.target}" first.`);
        assertInsideImage(frame.image, p);
        const s = imageToSource(frame, p);
        return { x: s.x + shift.x, y: s.y + shift.y };
      };
      sourcePoint = aim.imagePoint ? toSource(aim.imagePoint) : aim.sourcePoint;
      const at: Mapped = {
        target: aim.target,
        ...(stored ? { frame: stored } : {}),
        ...(sourcePoint ? { point: sourcePoint } : {}),
        ...(aim.node !== undefined && !aim.sourcePoint ? { node: aim.node } : {}),
        toSource,
        scale: frame?.scale ?? 1,
        labelled,
      };
      return kind.build(args, at);
    },
  };
  const fresh = (): FrameRecord | undefined => (judged && !judged.stale ? frame : undefined);
  return {
    action,
    frame,
    fresh,
    imagePoint: () => aim.imagePoint ?? (aim.sourcePoint && fresh() ? round(sourceToImage(fresh()!, aim.sourcePoint)) : undefined),
    sourcePoint: () => sourcePoint,
  };
}

function round(p: Point): Point {
  return { x: Math.round(p.x * 10) / 10, y: Math.round(p.y * 10) / 10 };
}

/** What the log keeps of an outcome: the elements by role and name, the page reached; never a value read back. */
function loggedOutcome(r: ActionResult): ActivityOutcome | undefined {
  const element = (e: { role?: string; name?: string } | undefined): ElementDescription | undefined =>
    e && (e.role || e.name) ? { ...(e.role ? { role: e.role } : {}), ...(e.name ? { name: e.name } : {}) } : undefined;
  const hit = element(r.hit);
  const received = r.received ? { ...element(r.received), ...(r.received.password ? { password: true } : {}) } : undefined;
  const drop = element(r.details?.drop as { role?: string; name?: string } | undefined);
  const out: ActivityOutcome = {
    ...(hit ? { hit } : {}),
    ...(drop ? { drop } : {}),
    ...(received && Object.keys(received).length ? { received } : {}),
    ...(r.navigated ? { navigated: { url: r.navigated.url } } : {}),
  };
  return Object.keys(out).length ? out : undefined;
}

/** Tool arguments for the activity log: the kind's own choice, else all with long text shortened. */
function logged(kind: AnyActionKind, args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(kind.logged ? kind.logged(args) : args)) {
    if (v === undefined) continue;
    out[k] = typeof v === 'string' ? shorten(v) : v;
  }
  return out;
}
