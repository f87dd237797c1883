/**
 * UI-tree node ids that stay valid across dumps. `uiautomator dump` has no stable
 * handles, so each device keeps a map id → fingerprint (nodeIdentity.ts, computed on the whole
 * dump). Every new dump is adopted: each element that was in the previous dump keeps its id
 * (found again by its fingerprint: unchanged at its place first, then by relocate()), every other
 * node gets a new one, and the records follow their elements (their fingerprint is updated). An
 * id from an older dump still resolves through its last fingerprint (see `find`). Ids carry a
 * random prefix per source instance, so an id from before a restart never names another element.
 * Pure; the oldest records are dropped past a cap.
 */
import { randomBytes } from 'node:crypto';
import type { Size } from '../../../../shared/frame.ts';
import type { SourceUiNode } from '../source.ts';
import { contentsOf, fingerprintAll, hierarchyPlaces, relocate, type NodeFingerprint, type Place } from './nodeIdentity.ts';

export interface HandleRecord {
  /** As last seen. */
  fp: NodeFingerprint;
  /** The dump it was last seen in. */
  seen: number;
}

/** A dump whose nodes carry handle ids (ids and parentIds). */
export interface HandledDump {
  seq: number;
  /** When it was read (ms since the epoch). */
  at: number;
  /** The `<hierarchy rotation>` (quarter turns), when given. */
  rotation?: number;
  /** The screen in device px, in the current orientation. */
  screen: Size;
  nodes: SourceUiNode[];
  byId: Map<string, SourceUiNode>;
  places: Map<string, Place>;
  /** What each label-less node shows inside it (nodeIdentity's `content`). */
  contents: Map<string, string>;
}

export type Found = { node: SourceUiNode; how: 'tracked' | 'relocated' } | { ambiguous: SourceUiNode[] } | undefined;

const RANK: Record<string, number> = { 'id-path': 0, id: 1, label: 2, path: 3 };

export class NodeHandles {
  readonly #prefix: string;
  readonly #cap: number;
  #next = 1;
  #seq = 0;
  /** Insertion order is recency: a record seen again moves to the end. */
  readonly #records = new Map<string, HandleRecord>();
  #last: HandledDump | undefined;

  constructor(options: { prefix?: string; cap?: number } = {}) {
    this.#prefix = options.prefix ?? randomPrefix();
    // ~0.5 KB a record: 2,000 is ten dumps of a busy screen, ~1 MB per device.
    this.#cap = options.cap ?? 2000;
  }

  get size(): number {
    return this.#records.size;
  }

  /** The latest dump adopted. */
  last(): HandledDump | undefined {
    return this.#last;
  }

  record(id: string): HandleRecord | undefined {
    return this.#records.get(id);
  }

  /** Give every node of a fresh dump (ids as parseUiDump made them) its handle. */
  adopt(raw: readonly SourceUiNode[], meta: { screen: Size; rotation?: number; at?: number }): HandledDump {
    const places = hierarchyPlaces(raw);
    const contents = contentsOf(raw);
    const fps = fingerprintAll(raw, places, contents);
    const previous = this.#seq;
    const seq = ++this.#seq;
    const handleOf = new Map<string, string>();
    const claim = (rawId: string, handle: string): void => {
      handleOf.set(rawId, handle);
    };
    const live = [...this.#records].filter(([, r]) => r.seen === previous && previous > 0);
    // Unchanged at its place (same labels, class and index path): most nodes of most dumps.
    const byKey = new Map<string, string>();
    for (const [rawId, fp] of fps) byKey.set(exactKey(fp), rawId);
    const rest: [string, HandleRecord][] = [];
    for (const [handle, r] of live) {
      const rawId = byKey.get(exactKey(r.fp));
      if (rawId !== undefined && !handleOf.has(rawId) && sameBoxIfAnonymous(r.fp, fps.get(rawId)!)) claim(rawId, handle);
      else rest.push([handle, r]);
    }
    // Moved or changed: relocate, the surest matches first.
    const matches: { handle: string; rawId: string; rank: number }[] = [];
    for (const [handle, r] of rest) {
      const m = relocate(r.fp, raw, places, contents);
      if (m && 'node' in m) matches.push({ handle, rawId: m.node.id, rank: RANK[m.via] ?? 9 });
    }
    matches.sort((a, b) => a.rank - b.rank);
    for (const m of matches) if (!handleOf.has(m.rawId)) claim(m.rawId, m.handle);
    for (const n of raw) if (!handleOf.has(n.id)) claim(n.id, `${this.#prefix}${this.#next++}`);

    for (const [rawId, handle] of handleOf) {
      this.#records.delete(handle);
      this.#records.set(handle, { fp: fps.get(rawId)!, seen: seq });
    }
    this.#evict();
    const nodes = raw.map((n): SourceUiNode => {
      const out: SourceUiNode = { ...n, id: handleOf.get(n.id)! };
      if (n.parentId !== undefined) out.parentId = handleOf.get(n.parentId)!;
      return out;
    });
    const dump: HandledDump = {
      seq,
      at: meta.at ?? Date.now(),
      ...(meta.rotation !== undefined ? { rotation: meta.rotation } : {}),
      screen: meta.screen,
      nodes,
      byId: new Map(nodes.map((n) => [n.id, n])),
      places: new Map([...places].map(([rawId, p]) => [handleOf.get(rawId)!, p])),
      contents: new Map([...contents].map(([rawId, c]) => [handleOf.get(rawId)!, c])),
    };
    this.#last = dump;
    return dump;
  }

  /**
   * The element `id` names in `dump`: tracked into it by adopt(), else found by its last
   * fingerprint (an id from an older dump; its handle then moves onto the node). undefined: gone.
   */
  find(id: string, dump: HandledDump): Found {
    const tracked = dump.byId.get(id);
    if (tracked) return { node: tracked, how: 'tracked' };
    const r = this.#records.get(id);
    if (!r) return undefined;
    const m = relocate(r.fp, dump.nodes, dump.places, dump.contents);
    if (!m) return undefined;
    if ('ambiguous' in m) return m;
    this.#rename(dump, m.node.id, id);
    return { node: dump.byId.get(id)!, how: 'relocated' };
  }

  /** Whether `id` was ever handed out by this instance (and not dropped since). */
  knows(id: string): boolean {
    return this.#records.has(id);
  }

  /** Move handle `from` (a node of `dump`) to `to`, so the older id keeps naming the element. */
  #rename(dump: HandledDump, from: string, to: string): void {
    const node = dump.byId.get(from);
    if (!node || from === to) return;
    const index = dump.nodes.indexOf(node);
    const renamed: SourceUiNode = { ...node, id: to };
    dump.nodes[index] = renamed;
    dump.byId.delete(from);
    dump.byId.set(to, renamed);
    for (let i = 0; i < dump.nodes.length; i++) {
      const n = dump.nodes[i]!;
      if (n.parentId === from) {
        const child = { ...n, parentId: to };
        dump.nodes[i] = child;
        dump.byId.set(child.id, child);
      }
    }
    for (const map of [dump.places, dump.contents] as Map<string, unknown>[]) {
      if (!map.has(from)) continue;
      map.set(to, map.get(from));
      map.delete(from);
    }
    const r = this.#records.get(from);
    this.#records.delete(from);
    if (r) this.#records.set(to, r);
  }

  #evict(): void {
    for (const id of this.#records.keys()) {
      if (this.#records.size <= this.#cap) break;
      this.#records.delete(id);
    }
  }
}

function exactKey(fp: NodeFingerprint): string {
  return JSON.stringify([fp.className, fp.resourceId ?? '', fp.text ?? '', fp.desc ?? '', fp.content ?? '', fp.indexPath, fp.classPath]);
}

/** A node with neither id nor label is only "unchanged" in much the same box (relocate's rule too). */
function sameBoxIfAnonymous(a: NodeFingerprint, b: NodeFingerprint): boolean {
  if (a.resourceId || a.text || a.desc) return true;
  const w = Math.min(a.bounds.x + a.bounds.width, b.bounds.x + b.bounds.width) - Math.max(a.bounds.x, b.bounds.x);
  const h = Math.min(a.bounds.y + a.bounds.height, b.bounds.y + b.bounds.height) - Math.max(a.bounds.y, b.bounds.y);
  if (a.bounds.width === b.bounds.width && a.bounds.height === b.bounds.height && a.bounds.x === b.bounds.x && a.bounds.y === b.bounds.y) return true;
  if (w <= 0 || h <= 0) return false;
  return (w * h) / (a.bounds.width * a.bounds.height + b.bounds.width * b.bounds.height - w * h) >= 0.75;
}

/** Three letters: ids read `kqa7`, `kqa8`, … and (12,167 to 1) differ from those of an earlier run of the source. */
function randomPrefix(): string {
  const letters = 'abcdefghjkmnpqrstuvwxyz';
  return [...randomBytes(3)].map((b) => letters[b % letters.length]!).join('');
}
