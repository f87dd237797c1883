/**
 * The one gate every action of every source passes through. Sources supply only
 * the device-specific step (`perform`); the gate resolves the frame, enforces the
 * pause switch, read-only mode and the allowlist, checks target → staleness → point
 * (DESIGN.md order), maps image → source space, and logs every attempt.
 */
import type { ActivityEntry } from '../../../shared/api.ts';
import { SightlineError, isSightlineError, type ErrorCode } from '../../../shared/errors.ts';
import type { Point, SourceName } from '../../../shared/frame.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { FrameRecord } from '../catalog/types.ts';
import { assertInsideImage, imageToSource } from '../image/mapping.ts';
import type { Settings } from '../settings.ts';
import { sourceOfTarget, type SourceRegistry } from '../sources/registry.ts';
import type { ActionDetails, ActionKind, Modifier, MouseButton, ScrollAlign, SourceAction, StoredFrame } from '../sources/source.ts';
import type { UiTreeCache } from './uiTreeCache.ts';

/** What an action tool asks for, in the agent's (image) coordinates. */
export interface ActionRequest {
  tool: ActionKind;
  target?: string;
  ref?: string;
  x?: number;
  y?: number;
  node?: string;
  // click
  button?: MouseButton;
  clicks?: number;
  modifiers?: Modifier[];
  holdMs?: number;
  // type_text / press_key
  text?: string;
  key?: string;
  // scroll / swipe
  deltaX?: number;
  deltaY?: number;
  toX?: number;
  toY?: number;
  durationMs?: number;
  // scroll_into_view
  block?: ScrollAlign;
  inline?: ScrollAlign;
}

export interface ActionResult {
  ok: true;
  target: string;
  imagePoint?: Point;
  sourcePoint?: Point;
  frameRef?: string;
  note?: string;
}

export interface GateDeps {
  catalog: Catalog;
  registry: SourceRegistry;
  settings: () => Settings;
  uiTrees: UiTreeCache;
}

/** Actions that need a point (given as x, y or node) to do anything. */
const POINT_REQUIRED: ReadonlySet<ActionKind> = new Set(['click', 'swipe']);
/** Actions that may take an optional point. */
const POINT_OPTIONAL: ReadonlySet<ActionKind> = new Set(['type_text', 'scroll']);

export class ActionGate {
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
    this.#d.catalog.appendActivity({
      at: new Date().toISOString(),
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      ...entry,
    } as Omit<ActivityEntry, 'id'>);
  }

  async #act(req: ActionRequest, signal: AbortSignal, log: Partial<ActivityEntry>): Promise<ActionResult> {
    const settings = this.#d.settings();
    // Name the target in the log even when policy refuses before it is resolved.
    const named = req.target ?? (req.ref ? this.#d.catalog.getFrame(req.ref)?.target : undefined);
    if (named) {
      log.target = named;
      try {
        log.source = sourceOfTarget(named);
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

    // Resolve the frame (a node id resolves to its centre in the tree's frame).
    let frame: FrameRecord | undefined;
    let imagePoint: Point | undefined = req.x !== undefined && req.y !== undefined ? { x: req.x, y: req.y } : undefined;
    if ((req.x === undefined) !== (req.y === undefined)) {
      throw new SightlineError('INVALID_ARGUMENT', 'Give both "x" and "y", or neither.', 'x and y are image pixels of the frame you saw.');
    }
    if (req.ref) {
      frame = this.#d.catalog.getFrame(req.ref);
      if (!frame) throw new SightlineError('FRAME_NOT_FOUND', `No frame "${req.ref}".`, 'Use a ref returned by capture, crop_screenshot or list_screenshots.');
      if (req.target && req.target !== frame.target) {
        throw new SightlineError('INVALID_ARGUMENT', `Frame ${frame.ref} belongs to ${frame.target}, not ${req.target}.`, 'Omit "target" when giving "ref".');
      }
    }
    const target = req.target ?? frame?.target;
    if (!target) throw new SightlineError('INVALID_ARGUMENT', '"target" or "ref" is required.', 'Call list_targets, then capture the target.');
    log.target = target;
    log.source = sourceOfTarget(target);
    if (req.node !== undefined) {
      if (imagePoint) throw new SightlineError('INVALID_ARGUMENT', 'Give "node" or "x"/"y", not both.');
      if (req.tool !== 'scroll_into_view') {
        const hit = this.#d.uiTrees.nodeCentre(target, req.node);
        frame = this.#d.catalog.getFrame(hit.frameRef);
        if (!frame) throw new SightlineError('NODE_NOT_FOUND', `The frame of ${target}'s UI tree is gone.`, 'Call get_ui_tree again.');
        imagePoint = hit.point;
      }
    }
    const source = this.#d.registry.forTarget(target, req.tool);
    if (!frame && (imagePoint || POINT_REQUIRED.has(req.tool))) {
      frame = this.#d.catalog.latestFrame(log.source as SourceName, target, { rootOnly: true });
      if (!frame) {
        throw new SightlineError('FRAME_NOT_FOUND', `No capture of ${target} yet: coordinates are read in the pixels of a frame.`, `Call capture with target "${target}" first.`);
      }
    }
    if (POINT_REQUIRED.has(req.tool) && !imagePoint) {
      throw new SightlineError('INVALID_ARGUMENT', `${req.tool} needs "x" and "y" (or "node").`, 'Give image coordinates of the frame you saw.');
    }
    if (imagePoint && !POINT_REQUIRED.has(req.tool) && !POINT_OPTIONAL.has(req.tool)) {
      throw new SightlineError('INVALID_ARGUMENT', `${req.tool} takes no "x"/"y".`);
    }
    log.frameRef = frame?.ref;

    // Target, staleness, then the point (DESIGN.md); the allowlist needs the live target.
    const stored: StoredFrame | undefined = frame;
    const shift = stored && source.checkFrame ? ((await source.checkFrame(stored, signal)).shift ?? { x: 0, y: 0 }) : { x: 0, y: 0 };
    await this.#checkAllowlist(source.name, target, settings, signal);
    const toSource = (p: Point): Point => {
      assertInsideImage(frame!.image, p);
      const s = imageToSource(frame!, p);
      return { x: s.x + shift.x, y: s.y + shift.y };
    };
    let sourcePoint: Point | undefined;
    if (imagePoint) {
      sourcePoint = toSource(imagePoint);
      log.imagePoint = imagePoint;
      log.sourcePoint = sourcePoint;
    }

    const action = this.#buildAction(req, target, stored, sourcePoint, toSource);
    const details: ActionDetails = await source.perform!(action, signal);
    return { ok: true, target, imagePoint, sourcePoint, frameRef: frame?.ref, note: details.note };
  }

  #buildAction(req: ActionRequest, target: string, frame: StoredFrame | undefined, point: Point | undefined, toSource: (p: Point) => Point): SourceAction {
    switch (req.tool) {
      case 'click':
        return { kind: 'click', target, frame, point: point!, button: req.button ?? 'left', clicks: req.clicks ?? 1, modifiers: req.modifiers ?? [], holdMs: req.holdMs };
      case 'type_text':
        return { kind: 'type_text', target, frame, point, text: req.text ?? '' };
      case 'press_key':
        return { kind: 'press_key', target, frame, key: req.key ?? '' };
      case 'scroll':
        return { kind: 'scroll', target, frame, point, deltaX: req.deltaX ?? 0, deltaY: req.deltaY ?? 0 };
      case 'swipe': {
        if (req.toX === undefined || req.toY === undefined) throw new SightlineError('INVALID_ARGUMENT', 'swipe needs "toX" and "toY".');
        return { kind: 'swipe', target, frame, point: point!, to: toSource({ x: req.toX, y: req.toY }), durationMs: req.durationMs ?? 300 };
      }
      case 'focus_window':
        return { kind: 'focus_window', target };
      case 'scroll_into_view':
        if (req.node === undefined) throw new SightlineError('INVALID_ARGUMENT', 'scroll_into_view needs "node" (an id from get_ui_tree).');
        return { kind: 'scroll_into_view', target, node: req.node, block: req.block ?? 'center', inline: req.inline ?? 'nearest' };
    }
  }

  async #checkAllowlist(source: SourceName, target: string, settings: Settings, signal: AbortSignal): Promise<void> {
    const allow = settings.input.allowlist;
    if (allow.length === 0) return;
    const targets = await this.#d.registry.forTarget(target).listTargets(signal);
    const info = targets.find((t) => t.id === target);
    if (!info) throw new SightlineError('TARGET_NOT_FOUND', `${target} is gone.`, 'Call list_targets.');
    const names = [info.app, info.title, typeof info.details?.url === 'string' ? safeHost(info.details.url) : undefined, typeof info.details?.package === 'string' ? info.details.package : undefined]
      .filter((n): n is string => !!n)
      .map((n) => n.toLowerCase());
    if (!allow.some((a) => names.includes(a.toLowerCase()))) {
      throw new SightlineError('NOT_ALLOWED', `Input to ${info.app ?? target} (${source}) is not in the input allowlist.`, 'The user can add the application to input.allowlist in settings.');
    }
  }
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
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
