/**
 * One MCP session's latest capture of each target. Two agents on one server each act in the
 * pixels of their own images: "the target's latest capture" is the latest this session made.
 * A ref named explicitly is valid in any session (it is looked up in the catalog).
 */
import { randomUUID } from 'node:crypto';
import type { Session } from '../ports.ts';

export class SessionFrames implements Session {
  readonly id: string;
  readonly #latest = new Map<string, string>();

  constructor(id: string = randomUUID()) {
    this.id = id;
  }

  latest(target: string): string | undefined {
    return this.#latest.get(target);
  }

  remember(target: string, ref: string): void {
    // Re-inserted so the map's order is recency; a session that watched many targets forgets the oldest.
    this.#latest.delete(target);
    this.#latest.set(target, ref);
    if (this.#latest.size > 512) this.#latest.delete(this.#latest.keys().next().value as string);
  }
}
