/**
 * What agents read between their actions (a text found, a tree query, a wait), kept beside the
 * activity log for the routines saved from a run: each read is tied to the action it followed.
 */
import type { CatalogContext } from './context.ts';
import { wrap } from './rows.ts';

export interface ReadEntry {
  id: number;
  at: string;
  tool: string;
  target: string;
  params: Record<string, unknown>;
  client?: string;
  session?: string;
  run?: string;
  /** The newest activity-log entry when it was read (0: none yet). */
  afterAction: number;
}

interface ReadRow {
  id: number;
  at: string;
  tool: string;
  target: string;
  params: string;
  client: string | null;
  session: string | null;
  run_id: string | null;
  after_action: number;
}

export class ReadsLog {
  readonly #c: CatalogContext;

  constructor(context: CatalogContext) {
    this.#c = context;
  }

  add(r: Omit<ReadEntry, 'id' | 'afterAction'>): void {
    try {
      this.#c
        .query('INSERT INTO reads (at, tool, target, params, client, session, run_id, after_action) VALUES (@at, @tool, @target, @params, @client, @session, @run, (SELECT coalesce(max(id), 0) FROM activity))')
        .run({ at: r.at, tool: r.tool, target: r.target, params: JSON.stringify(r.params), client: r.client ?? null, session: r.session ?? null, run: r.run ?? null });
    } catch (err) {
      throw wrap(err, 'INTERNAL', 'The read could not be recorded', this.#c.dataDir);
    }
  }

  /** The reads made after each of `actions` (activity-log ids) and before the next entry, oldest first. */
  following(actions: readonly number[]): ReadEntry[] {
    if (!actions.length) return [];
    const rows = this.#c.query('SELECT * FROM reads WHERE after_action IN (SELECT value FROM json_each(@ids)) ORDER BY id').all({ ids: JSON.stringify(actions) }) as ReadRow[];
    return rows.map((r) => ({
      id: r.id,
      at: r.at,
      tool: r.tool,
      target: r.target,
      params: JSON.parse(r.params) as Record<string, unknown>,
      ...(r.client ? { client: r.client } : {}),
      ...(r.session ? { session: r.session } : {}),
      ...(r.run_id ? { run: r.run_id } : {}),
      afterAction: r.after_action,
    }));
  }
}
