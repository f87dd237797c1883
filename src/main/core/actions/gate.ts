/**
 * The one gate every action of every source passes through. Sources supply only the
 * device-specific step (`input.perform`); the gate resolves the frame (the session's own latest
 * capture, or a named ref), enforces the pause switch, read-only mode and the allowlist, checks
 * target → staleness → point (DESIGN.md order), maps image → source space, hands node and text
 * aims to the source, reports what happened, and logs every attempt.
 */
import type { ActivityEntry } from '../../../shared/api.ts';
import { SightlineError, isSightlineError, type ErrorCode } from '../../../shared/errors.ts';
import type { Point } from '../../../shared/frame.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { FrameRecord } from '../catalog/types.ts';
import type { FrameService } from '../frames/frameService.ts';
import { decodeFrame } from '../frames/state.ts';
import { assertInsideImage, imageToSource, sourceToImage } from '../image/mapping.ts';
import type { ActionRequest, ActionResult, ActionsPort, ActOptions, ScreenTextPort } from '../ports.ts';
import type { SettingsStore } from '../settings/store.ts';
import { inputFor, type SourceRegistry } from '../sources/registry.ts';
import type { BusySignal } from '../util/busy.ts';
import { ACTION_KINDS, type Aim, type BuiltinActionKind, type InputPort, type Source, type SourceAction, type StoredFrame } from '../sources/source.ts';
import { aimKind, readAim } from './aim.ts';
import { describeOutcome } from './describe.ts';
import { redactAction, redactParams } from './redact.ts';
import { reportOutcome } from './outcome.ts';
import { checkAllowlist } from './policy.ts';
import { findTextAim } from './textAim.ts';

export interface GateDeps {
  catalog: Catalog;
  sources: SourceRegistry;
  settings: SettingsStore;
  frames: FrameService;
  /** A target's visible text (its tree's, else OCR), for text aims. */
  text: ScreenTextPort;
  /** Marks actions as agent work (background work waits for a quiet moment). */
  busy?: BusySignal;
}

/** An action's result, and with `after: "image"` the small picture of what changed. */
export type GateResult = ActionResult;

function isBuiltin(kind: string): kind is BuiltinActionKind {
  return (ACTION_KINDS as readonly string[]).includes(kind);
}

export class ActionGate implements ActionsPort {
  readonly #d: GateDeps;
  constructor(deps: GateDeps) {
    this.#d = deps;
  }

  async act(req: ActionRequest, opts: ActOptions): Promise<GateResult> {
    const end = this.#d.busy?.begin();
    try {
      return await this.#actLogged(req, opts);
    } finally {
      end?.();
    }
  }

  async #actLogged(req: ActionRequest, opts: ActOptions): Promise<GateResult> {
    const started = performance.now();
    const log: Partial<ActivityEntry> & { tool: string } = { tool: req.tool, params: redactParams(summariseParams(req), req, this.#d.settings.values()), client: opts.client, ...(opts.run ? { run: opts.run } : {}) };
    let result: GateResult;
    try {
      result = redactAction(await this.#act(req, opts, log), req, log, this.#d.settings.values());
    } catch (e) {
      const code: ErrorCode = isSightlineError(e) ? e.code : 'INTERNAL';
      // A log that cannot be written never replaces the real answer.
      this.#log({ ...log, result: code, message: (e as Error).message }, started);
      throw e;
    }
    const said = describeOutcome(result);
    const unlogged = this.#log({ ...log, result: 'ok', message: [result.note, said].filter(Boolean).join('; ') || undefined }, started);
    // The action happened: say so, and that its log entry is missing, so an agent does not repeat it.
    return unlogged ? { ...result, warnings: [...(result.warnings ?? []), unlogged] } : result;
  }

  /** Append to the activity log; on failure (a full disk) say why instead of failing the action. */
  #log(entry: Partial<ActivityEntry> & { tool: string; result: ActivityEntry['result'] }, started: number): string | undefined {
    try {
      this.#d.catalog.activity.append({
        at: new Date().toISOString(),
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ...entry,
      } as Omit<ActivityEntry, 'id'>);
      return undefined;
    } catch (e) {
      const err = isSightlineError(e) ? `${e.code}: ${e.message.replace(/\.$/, '')}` : String(e);
      process.stderr.write(`[sightline] activity log: ${err}\n`);
      return `The action was done, but its activity-log entry could not be written (${err}).`;
    }
  }

  async #act(req: ActionRequest, opts: ActOptions, log: Partial<ActivityEntry>): Promise<GateResult> {
    const { catalog, sources, frames } = this.#d;
    const { signal, session } = opts;
    const settings = this.#d.settings.values();
    const named = req.ref ? catalog.frames.get(req.ref) : undefined;
    // Name the target in the log even when policy refuses before it is resolved.
    const logged = req.target ?? named?.target;
    if (logged) {
      log.target = logged;
      try {
        log.source = sources.sourceOf(logged);
      } catch {
        // Not a Sightline id: resolved (and refused) below.
      }
    }
    // Policy first: a paused or read-only Sightline touches nothing, not even the target.
    if (settings.input.paused) {
      throw new SightlineError('INPUT_PAUSED', 'Agent input is paused by the user.', 'Wait for the user to resume input (tray menu or dashboard); do not retry in a loop.');
    }
    if (settings.input.readOnly) {
      throw new SightlineError('READ_ONLY', 'Sightline is in read-only mode: no input is sent.', 'The user can turn off input.readOnly in settings.');
    }
    if (req.tool === 'scroll' && !req.deltaX && !req.deltaY) {
      throw new SightlineError('INVALID_ARGUMENT', 'scroll needs a non-zero deltaX or deltaY.', 'Give deltaY: 300 to scroll down by 300 image pixels (negative scrolls up).');
    }

    const aim = readAim(req, named);
    const { target } = aim;
    log.target = target;
    log.source = sources.sourceOf(target);
    const source = await sources.forTarget(target);
    const input = this.#inputFor(source, req.tool);

    // The frame x, y (and scroll deltas, and a drag's end) are read in.
    const frame = aim.frame ?? frames.latest(target, session);
    const needsFrame = aim.imagePoint !== undefined || req.toX !== undefined || (req.tool === 'scroll' && (req.deltaX || req.deltaY));
    if (needsFrame && !frame) {
      throw new SightlineError('FRAME_NOT_FOUND', `No capture of ${target}${session ? ' in this session' : ''} yet: coordinates are read in the pixels of a frame.`, `Call capture with target "${target}" first.`);
    }
    log.frameRef = frame?.ref;

    // Target, staleness, then the point (DESIGN.md). A frame only read for mapping what changed
    // (a node or text aim) may be stale without failing the action.
    const stored: StoredFrame | undefined = frame && source.screen ? decodeFrame(source.screen, frame) : frame;
    let shift: Point = { x: 0, y: 0 };
    let fresh: FrameRecord | undefined;
    if (stored && source.screen) {
      try {
        shift = (await source.screen.checkFrame(stored, signal)).shift ?? shift;
        fresh = frame;
      } catch (e) {
        if (needsFrame || !isSightlineError(e) || e.code !== 'FRAME_STALE') throw e;
      }
    } else fresh = frame;
    await checkAllowlist(sources, settings.input.allowlist, source, target, signal, req.allow);
    const toSource = (p: Point): Point => {
      if (!frame) throw new SightlineError('FRAME_NOT_FOUND', `No frame to read (${p.x}, ${p.y}) in.`, `Call capture with target "${target}" first.`);
      assertInsideImage(frame.image, p);
      const s = imageToSource(frame, p);
      return { x: s.x + shift.x, y: s.y + shift.y };
    };

    let imagePoint = aim.imagePoint;
    let sourcePoint: Point | undefined = imagePoint ? toSource(imagePoint) : undefined;
    let node = aim.node;
    let via: string | undefined;
    if (aim.text) {
      const hit = findTextAim(await this.#d.text.read(target, { signal, session }), target, aim.text, fresh);
      via = `found “${hit.text}” ${hit.via === 'tree' ? "in the page's text" : 'by OCR'}`;
      if (hit.node !== undefined) node = hit.node;
      else sourcePoint = hit.point;
      if (fresh) imagePoint = round(sourceToImage(fresh, hit.point));
    }
    const aimAt: Aim = { frame: stored, ...(sourcePoint ? { point: sourcePoint } : {}), ...(node !== undefined ? { node } : {}) };
    const action = this.#buildAction(req, target, aimAt, stored, toSource);
    const after = req.after ?? 'summary';
    const details = await input.perform(action, signal, { after });
    if (details.point) {
      sourcePoint = details.point;
      if (fresh && !imagePoint) imagePoint = round(sourceToImage(fresh, details.point));
    }
    if (imagePoint) log.imagePoint = imagePoint;
    if (sourcePoint) log.sourcePoint = sourcePoint;

    const { note, outcome, point: _point, ...rest } = details;
    const reported = await reportOutcome({ outcome, after, target, fresh, frames, session, signal });
    return {
      ok: true,
      target,
      ...(imagePoint ? { imagePoint } : {}),
      ...(sourcePoint ? { sourcePoint } : {}),
      ...(frame ? { frameRef: frame.ref } : {}),
      ...(note || via ? { note: [via, note].filter(Boolean).join('; ') } : {}),
      ...reported.fields,
      ...(Object.keys(rest).length ? { details: rest } : {}),
      ...(reported.image ? { afterImage: reported.image } : {}),
    };
  }

  #inputFor(source: Source, tool: string): InputPort {
    if (isBuiltin(tool)) return inputFor(source, tool);
    // A source's own action: only that source performs it.
    if (!tool.startsWith(`${source.name}:`) || !source.input) {
      throw new SightlineError('UNSUPPORTED', `${tool} is not supported by the ${source.name} source.`, `Supported: ${source.input?.actions.join(', ') || 'none'}.`);
    }
    return source.input;
  }

  #buildAction(req: ActionRequest, target: string, aim: Aim, frame: StoredFrame | undefined, toSource: (p: Point) => Point): SourceAction {
    const scale = frame?.scale ?? 1;
    switch (req.tool) {
      case 'click':
        return { kind: 'click', target, ...aim, button: req.button ?? 'left', clicks: req.clicks ?? 1, modifiers: req.modifiers ?? [], holdMs: req.holdMs };
      case 'type_text':
        return { kind: 'type_text', target, ...aim, text: req.text ?? '', ...(req.submit ? { submit: true } : {}), ...(req.clear ? { clear: true } : {}) };
      case 'press_key':
        return { kind: 'press_key', target, frame, key: req.key ?? '' };
      case 'scroll':
        // Deltas are image pixels of the frame, like x and y.
        return { kind: 'scroll', target, ...aim, deltaX: (req.deltaX ?? 0) * scale, deltaY: (req.deltaY ?? 0) * scale };
      case 'swipe':
        if (req.toX === undefined || req.toY === undefined) throw new SightlineError('INVALID_ARGUMENT', 'swipe needs "toX" and "toY".', 'Give the end point in image pixels.');
        return { kind: 'swipe', target, ...aim, to: toSource({ x: req.toX, y: req.toY }), durationMs: req.durationMs ?? 300 };
      case 'hover':
        return { kind: 'hover', target, ...aim };
      case 'drag': {
        const to = req.toX !== undefined && req.toY !== undefined ? toSource({ x: req.toX, y: req.toY }) : undefined;
        if (!to && req.toNode === undefined) throw new SightlineError('INVALID_ARGUMENT', 'drag needs "toX" and "toY" or "toNode".', 'Give where to drop, in image pixels or as a node id.');
        return { kind: 'drag', target, ...aim, ...(to ? { to } : {}), ...(req.toNode !== undefined ? { toNode: req.toNode } : {}), durationMs: req.durationMs ?? 300, ...(req.holdMs ? { holdMs: req.holdMs } : {}) };
      }
      case 'focus_window':
        return { kind: 'focus_window', target };
      case 'scroll_into_view':
        if (req.node === undefined) throw new SightlineError('INVALID_ARGUMENT', 'scroll_into_view needs "node" (an id from get_ui_tree).', 'Call get_ui_tree first.');
        return { kind: 'scroll_into_view', target, node: req.node, block: req.block ?? 'center', inline: req.inline ?? 'nearest' };
      default:
        if (aimKind(req.tool) !== 'none') throw new SightlineError('INTERNAL', `No action is built for ${req.tool}.`, 'This is a Sightline bug; the log has details.');
        return { kind: req.tool as `${string}:${string}`, target, frame, ...(aim.point ? { point: aim.point } : {}), ...(aim.node !== undefined ? { node: aim.node } : {}), params: req.params ?? {} };
    }
  }
}

function round(p: Point): Point {
  return { x: Math.round(p.x * 10) / 10, y: Math.round(p.y * 10) / 10 };
}

/** Tool arguments for the activity log, with long text shortened. */
function summariseParams(req: ActionRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req)) {
    if (v === undefined || k === 'tool') continue;
    out[k] = typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}… (${v.length} chars)` : v;
  }
  return out;
}
