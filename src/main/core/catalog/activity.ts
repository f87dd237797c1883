/** The activity log: every agent action, refused ones included, with its before and after frames. */
import type { ActivityEntry, ActivityQuery, TargetLabel } from '../../../shared/activity.ts';
import type { CatalogContext } from './context.ts';
import { labelJson, toActivity, wrap, type ActivityRow, type Params } from './rows.ts';

export class ActivityLog {
  readonly #c: CatalogContext;

  constructor(context: CatalogContext) {
    this.#c = context;
  }

  append(e: Omit<ActivityEntry, 'id'>): ActivityEntry {
    let info;
    let named = e;
    try {
      const before = e.frameRef ? this.#c.stmt.frameLabel.get(e.frameRef) : undefined;
      if (before) named = { ...named, frameImage: { width: before.image_w, height: before.image_h } };
      const label = e.targetLabel ? labelJson(e.targetLabel) : (before?.label ?? this.#newestLabel(e.target));
      if (label) named = { ...named, targetLabel: JSON.parse(label) as TargetLabel };
      info = this.#insert(named, label);
    } catch (err) {
      throw wrap(err, 'INTERNAL', 'The activity log entry could not be written', this.#c.dataDir);
    }
    const entry: ActivityEntry = { ...named, id: Number(info.lastInsertRowid) };
    this.#c.events.emit('activity', entry);
    return entry;
  }

  #insert(e: Omit<ActivityEntry, 'id'>, label: string | null): { lastInsertRowid: number | bigint } {
    return this.#c.stmt.insertActivity.run({
      at: e.at,
      tool: e.tool,
      source: e.source ?? null,
      target: e.target ?? null,
      result: e.result,
      message: e.message ?? null,
      image_x: e.imagePoint?.x ?? null,
      image_y: e.imagePoint?.y ?? null,
      source_x: e.sourcePoint?.x ?? null,
      source_y: e.sourcePoint?.y ?? null,
      frame_ref: e.frameRef ?? null,
      after_ref: e.afterRef ?? null,
      duration_ms: e.durationMs,
      params: e.params ? JSON.stringify(e.params) : null,
      client: e.client ?? null,
      run_id: e.run?.id ?? null,
      run_dir: e.run?.artifacts ?? null,
      target_label: label,
      outcome: e.outcome ? JSON.stringify(e.outcome) : null,
      session: e.session ?? null,
    });
  }

  /**
   * What the target was called when the action was made (when the frame it aimed at has no
   * label): its newest frame's label. Kept in the row, so the log still names a closed tab.
   */
  #newestLabel(target: string | undefined): string | null {
    return target ? (this.#c.stmt.targetLabel.get(target)?.label ?? null) : null;
  }

  /**
   * The newest name each target went by, for naming targets that are gone: id → title, else app.
   * Its newest labelled frame says; the log's own names cover targets whose frames were deleted.
   */
  targetNames(): Record<string, string> {
    const titles: Record<string, string> = {};
    const apps: Record<string, string> = {};
    const put = (target: string, json: string): void => {
      const l = JSON.parse(json) as TargetLabel;
      if (l.title && !(target in titles)) titles[target] = l.title;
      if (l.app && !(target in apps)) apps[target] = l.app;
    };
    for (const r of this.#c.stmt.frameTargetNames.all()) put(r.target, r.label);
    for (const r of this.#c.stmt.activityTargetNames.all()) put(r.target, r.label);
    // A title names a target best; a device (its frames labelled by the app in front only) by the
    // name it was listed under; else the app.
    const listed = Object.fromEntries(this.#c.stmt.listedTargetNames.all().map((r) => [r.target, r.name]));
    return { ...apps, ...listed, ...titles };
  }

  /**
   * Keep the names targets were listed under (a device's model, a window's title): a target that
   * is gone, with no labelled frame to name it, still reads by name. Only changed names are written.
   */
  rememberNames(targets: readonly { id: string; title: string }[], at = new Date().toISOString()): void {
    const put = this.#c.stmt.rememberTargetName;
    this.#c.db.transaction(() => {
      for (const t of targets) if (t.title) put.run(t.id, t.title, at);
    })();
  }

  /** Entries matching `q` (its limit and paging ignored). */
  count(q: ActivityQuery = {}): number {
    const { where, params } = activityWhere({ ...q, before: undefined });
    return (this.#c.query(`SELECT count(*) AS n FROM activity a ${where}`).get(params) as { n: number }).n;
  }

  /** Newest first; `before` is an entry id (paging). Default limit 100, at most 1000. */
  list(q: ActivityQuery = {}): ActivityEntry[] {
    const { where, params } = activityWhere(q);
    params.limit = Math.min(Math.max(1, Math.floor(q.limit ?? 100)), 1000);
    // The before-frame's size goes with each entry, so a point can be marked on its thumbnail.
    const rows = this.#c
      .query(`SELECT a.*, f.image_w AS frame_w, f.image_h AS frame_h FROM activity a LEFT JOIN frames f ON f.ref = a.frame_ref ${where} ORDER BY a.id DESC LIMIT @limit`)
      .all(params) as ActivityRow[];
    return rows.map(toActivity);
  }
}

/** The WHERE clause of a log query over `activity a`. */
function activityWhere(q: ActivityQuery): { where: string; params: Params } {
  const conds: string[] = [];
  const params: Params = {};
  if (q.tool !== undefined) {
    conds.push('a.tool = @tool');
    params.tool = q.tool;
  }
  if (q.target !== undefined) {
    conds.push('a.target = @target');
    params.target = q.target;
  }
  if (q.run !== undefined) {
    conds.push('a.run_id = @run');
    params.run = q.run;
  }
  if (q.session !== undefined) {
    conds.push('a.session = @session');
    params.session = q.session;
  }
  if (q.frame !== undefined) {
    conds.push('(a.frame_ref = @frame OR a.after_ref = @frame)');
    params.frame = q.frame;
  }
  if (q.result === 'ok') conds.push("a.result = 'ok'");
  else if (q.result === 'error') conds.push("a.result <> 'ok'");
  if (q.before !== undefined) {
    conds.push('a.id < @before');
    params.before = q.before;
  }
  return { where: conds.length ? `WHERE ${conds.join(' AND ')}` : '', params };
}
