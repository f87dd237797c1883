/**
 * The one gate every action of every source passes through. Sources supply only the
 * device-specific step (`input.perform`); the gate resolves the frame, enforces the pause
 * switch, read-only mode and the allowlist, checks target → staleness → point (DESIGN.md
 * order), maps image → source space, and logs every attempt.
 */
import type { ActivityEntry } from '../../../shared/api.ts';
import { SightlineError, isSightlineError, type ErrorCode } from '../../../shared/errors.ts';
import type { Point } from '../../../shared/frame.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { FrameRecord } from '../catalog/types.ts';
import { decodeFrame } from '../frames/state.ts';
import type { UiTrees } from '../frames/uiTrees.ts';
import { assertInsideImage, imageToSource, sourceToImage } from '../image/mapping.ts';
import type { ActionRequest, ActionResult, ActionsPort } from '../ports.ts';
import type { SettingsStore } from '../settings/store.ts';
import { inputFor, screenOf, type SourceRegistry } from '../sources/registry.ts';
import { ACTION_KINDS, type ActionDetails, type BuiltinActionKind, type InputPort, type Source, type SourceAction, type StoredFrame } from '../sources/source.ts';
import { checkAllowlist } from './policy.ts';

export interface GateDeps {
  catalog: Catalog;
  sources: SourceRegistry;
  settings: SettingsStore;
  uiTrees: UiTrees;
}

/** Actions that need a point (given as x, y or node) to do anything. */
const POINT_REQUIRED: ReadonlySet<string> = new Set(['click', 'swipe']);
/** Actions that may take an optional point. */
const POINT_OPTIONAL: ReadonlySet<string> = new Set(['type_text', 'scroll']);

function isBuiltin(kind: string): kind is BuiltinActionKind {
  return (ACTION_KINDS as readonly string[]).includes(kind);
}

/** Where an action will land, once the frame and the point are resolved. */
interface Resolved {
  frame?: FrameRecord;
  imagePoint?: Point;
  /** A point already known in source space (a UI-tree node's centre). */
  sourceCentre?: Point;
}

export class ActionGate implements ActionsPort {
  readonly #d: GateDeps;
  constructor(deps: GateDeps) {
    this.#d = deps;
  }

  async act(req: ActionRequest, opts: { client?: string; signal: AbortSignal }): Promise<ActionResult> {
    const started = performance.now();
    const log: Partial<ActivityEntry> & { tool: string } = { tool: req.tool, params: summariseParams(req), client: opts.client };
    try {
      const result = await this.#act(req, opts.signal, log);
      this.#log({ ...log, result: 'ok', message: result.note }, started);
      return result;
    } catch (e) {
      const code: ErrorCode = isSightlineError(e) ? e.code : 'INTERNAL';
      this.#log({ ...log, result: code, message: (e as Error).message }, started);
      throw e;
    }
  }

  #log(entry: Partial<ActivityEntry> & { tool: string; result: ActivityEntry['result'] }, started: number): void {
    this.#d.catalog.activity.append({
      at: new Date().toISOString(),
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      ...entry,
    } as Omit<ActivityEntry, 'id'>);
  }

  async #act(req: ActionRequest, signal: AbortSignal, log: Partial<ActivityEntry>): Promise<ActionResult> {
    const { catalog, sources } = this.#d;
    const settings = this.#d.settings.values();
    // Name the target in the log even when policy refuses before it is resolved.
    const named = req.target ?? (req.ref ? catalog.frames.get(req.ref)?.target : undefined);
    if (named) {
      log.target = named;
      try {
        log.source = sources.sourceOf(named);
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

    const { target, resolved } = this.#resolve(req);
    log.target = target;
    log.source = sources.sourceOf(target);
    const source = await sources.forTarget(target);
    const input = this.#inputFor(source, req.tool);
    let { frame } = resolved;
    const { imagePoint, sourceCentre } = resolved;
    if (!frame && (imagePoint || POINT_REQUIRED.has(req.tool))) {
      frame = catalog.frames.latest(source.name, target, { rootOnly: true });
      if (!frame) {
        throw new SightlineError('FRAME_NOT_FOUND', `No capture of ${target} yet: coordinates are read in the pixels of a frame.`, `Call capture with target "${target}" first.`);
      }
    }
    if (POINT_REQUIRED.has(req.tool) && !imagePoint) {
      throw new SightlineError('INVALID_ARGUMENT', `${req.tool} needs "x" and "y" (or "node").`, 'Give image coordinates of the frame you saw.');
    }
    if (imagePoint && !POINT_REQUIRED.has(req.tool) && !POINT_OPTIONAL.has(req.tool) && isBuiltin(req.tool)) {
      throw new SightlineError('INVALID_ARGUMENT', `${req.tool} takes no "x"/"y".`, `Call ${req.tool} with the target only.`);
    }
    log.frameRef = frame?.ref;

    // Target, staleness, then the point (DESIGN.md); the allowlist needs the live target.
    const stored: StoredFrame | undefined = frame && source.screen ? decodeFrame(screenOf(source), frame) : frame;
    const shift = stored && source.screen ? ((await source.screen.checkFrame(stored, signal)).shift ?? { x: 0, y: 0 }) : { x: 0, y: 0 };
    await checkAllowlist(sources, settings.input.allowlist, source, target, signal);
    const toSource = (p: Point): Point => {
      if (!frame) throw new SightlineError('FRAME_NOT_FOUND', `No frame to read (${p.x}, ${p.y}) in.`, `Call capture with target "${target}" first.`);
      assertInsideImage(frame.image, p);
      const s = imageToSource(frame, p);
      return { x: s.x + shift.x, y: s.y + shift.y };
    };
    let sourcePoint: Point | undefined;
    if (imagePoint) {
      // A node's centre is known in source space: it is checked against the frame, never rounded through it.
      if (sourceCentre) {
        if (frame) assertInsideImage(frame.image, imagePoint);
        sourcePoint = { x: sourceCentre.x + shift.x, y: sourceCentre.y + shift.y };
      } else sourcePoint = toSource(imagePoint);
      log.imagePoint = imagePoint;
      log.sourcePoint = sourcePoint;
    }

    const action = this.#buildAction(req, target, stored, sourcePoint, toSource);
    const details: ActionDetails = await input.perform(action, signal);
    const { note, ...rest } = details;
    return { ok: true, target, imagePoint, sourcePoint, frameRef: frame?.ref, note, ...(Object.keys(rest).length ? { details: rest } : {}) };
  }

  /** The target, and the frame and point the request names (x, y in a frame; or a UI-tree node). */
  #resolve(req: ActionRequest): { target: string; resolved: Resolved } {
    const { catalog } = this.#d;
    let frame: FrameRecord | undefined;
    if ((req.x === undefined) !== (req.y === undefined)) {
      throw new SightlineError('INVALID_ARGUMENT', 'Give both "x" and "y", or neither.', 'x and y are image pixels of the frame you saw.');
    }
    let imagePoint: Point | undefined = req.x !== undefined && req.y !== undefined ? { x: req.x, y: req.y } : undefined;
    if (req.ref) {
      frame = catalog.frames.get(req.ref);
      if (!frame) throw new SightlineError('FRAME_NOT_FOUND', `No frame "${req.ref}".`, 'Use a ref returned by capture, crop_screenshot or list_screenshots.');
      if (req.target && req.target !== frame.target) {
        throw new SightlineError('INVALID_ARGUMENT', `Frame ${frame.ref} belongs to ${frame.target}, not ${req.target}.`, 'Omit "target" when giving "ref".');
      }
    }
    const target = req.target ?? frame?.target;
    if (!target) throw new SightlineError('INVALID_ARGUMENT', '"target" or "ref" is required.', 'Call list_targets, then capture the target.');
    let sourceCentre: Point | undefined;
    if (req.node !== undefined && req.tool !== 'scroll_into_view') {
      if (imagePoint) throw new SightlineError('INVALID_ARGUMENT', 'Give "node" or "x"/"y", not both.', 'A node id from get_ui_tree already says where to act.');
      const hit = this.#d.uiTrees.nodeCentre(target, req.node);
      frame = catalog.frames.get(hit.frameRef);
      if (!frame) throw new SightlineError('NODE_NOT_FOUND', `The frame of ${target}'s UI tree is gone.`, 'Call get_ui_tree again.');
      sourceCentre = hit.source;
      imagePoint = sourceToImage(frame, hit.source);
    } else if (req.node !== undefined && imagePoint) {
      throw new SightlineError('INVALID_ARGUMENT', 'Give "node" or "x"/"y", not both.', 'A node id from get_ui_tree already says where to act.');
    }
    return { target, resolved: { frame, imagePoint, sourceCentre } };
  }

  #inputFor(source: Source, tool: string): InputPort {
    if (isBuiltin(tool)) return inputFor(source, tool);
    // A source's own action: only that source performs it.
    if (!tool.startsWith(`${source.name}:`) || !source.input) {
      throw new SightlineError('UNSUPPORTED', `${tool} is not supported by the ${source.name} source.`, `Supported: ${source.input?.actions.join(', ') || 'none'}.`);
    }
    return source.input;
  }

  #buildAction(req: ActionRequest, target: string, frame: StoredFrame | undefined, point: Point | undefined, toSource: (p: Point) => Point): SourceAction {
    switch (req.tool) {
      case 'click':
        if (!point) throw new SightlineError('INVALID_ARGUMENT', 'click needs "x" and "y" (or "node").', 'Give image coordinates of the frame you saw.');
        return { kind: 'click', target, frame, point, button: req.button ?? 'left', clicks: req.clicks ?? 1, modifiers: req.modifiers ?? [], holdMs: req.holdMs };
      case 'type_text':
        return { kind: 'type_text', target, frame, point, text: req.text ?? '' };
      case 'press_key':
        return { kind: 'press_key', target, frame, key: req.key ?? '' };
      case 'scroll':
        return { kind: 'scroll', target, frame, point, deltaX: req.deltaX ?? 0, deltaY: req.deltaY ?? 0 };
      case 'swipe': {
        if (!point) throw new SightlineError('INVALID_ARGUMENT', 'swipe needs "x" and "y".', 'Give image coordinates of the frame you saw.');
        if (req.toX === undefined || req.toY === undefined) throw new SightlineError('INVALID_ARGUMENT', 'swipe needs "toX" and "toY".', 'Give the end point in image pixels.');
        return { kind: 'swipe', target, frame, point, to: toSource({ x: req.toX, y: req.toY }), durationMs: req.durationMs ?? 300 };
      }
      case 'focus_window':
        return { kind: 'focus_window', target };
      case 'scroll_into_view':
        if (req.node === undefined) throw new SightlineError('INVALID_ARGUMENT', 'scroll_into_view needs "node" (an id from get_ui_tree).', 'Call get_ui_tree first.');
        return { kind: 'scroll_into_view', target, node: req.node, block: req.block ?? 'center', inline: req.inline ?? 'nearest' };
      default:
        return { kind: req.tool as `${string}:${string}`, target, frame, point, params: req.params ?? {} };
    }
  }
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
