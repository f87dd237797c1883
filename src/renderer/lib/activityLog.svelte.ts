/**
 * The activity screen's data model: the newest page of the log under the current filters,
 * older pages on request, actions announced live, and the folders of the agent runs that
 * the loaded actions belong to. Its fields are Svelte state, so a component that reads
 * `items`, `loading` or `runInfo` re-renders when a page or a run's details arrive; it
 * needs no DOM and is unit-tested under Node.
 *
 * Every load is asked for: setting a filter reloads the first page, and so does `reload()`
 * (the screen calls it when mounted and after the event stream reconnects); `loadOlder()`
 * appends the next page. Nothing re-runs because an effect read a counter.
 */
import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import type { ActivityEntry, ActivityQuery, RunSummary, RunView } from '../../shared/activity.ts';
import { groupByRun, KNOWN_TOOLS, matchesActivity, shownEntries, type ActionGroup } from './activity.ts';

export type ActivityFetcher = (query: ActivityQuery, signal: AbortSignal) => Promise<{ entries: ActivityEntry[] }>;
export type RunFetcher = (id: string) => Promise<RunView>;
export type RunsFetcher = () => Promise<{ runs: RunSummary[] }>;
export type ResultFilter = '' | 'ok' | 'error';

export interface ActivityLogOptions {
  pageSize?: number;
  /** What the screen shows for a failed request (the dashboard passes `errorMessage` of api.ts). */
  describeError?: (e: unknown) => string;
  /** The list of run folders, so runs that never acted show too. */
  fetchRuns?: RunsFetcher;
}

function uniqueSorted(list: string[]): string[] {
  return list.sort().filter((x, i, sorted) => i === 0 || x !== sorted[i - 1]);
}

export class ActivityLog {
  readonly pageSize: number;
  readonly #fetchPage: ActivityFetcher;
  readonly #fetchRun: RunFetcher;
  readonly #describeError: (e: unknown) => string;
  readonly #fetchRuns: RunsFetcher | undefined;
  /** Runs whose folders exist but that have no action in the log. */
  quietRuns = $state.raw<RunSummary[]>([]);

  #tool = $state('');
  #target = $state('');
  #result = $state<ResultFilter>('');
  /** Only this agent run's actions ('' for all). */
  #run = $state('');
  /** Only this MCP session's actions ('' for all). */
  #session = $state('');

  /** The loaded actions, newest first; replaced on change (raw: entries are plain data). */
  entries = $state.raw<ActivityEntry[]>([]);
  loading = $state(false);
  /** The last page was shorter than a page: there is nothing older to load. */
  exhausted = $state(false);
  /** Why the last load failed. */
  error = $state<string | null>(null);

  /** Tools and targets of every action seen, so the filters offer them after the filter changes. */
  readonly #seenTools = new SvelteSet<string>();
  readonly #seenTargets = new SvelteSet<string>();
  /** Agent runs' folders as the API reads them, and why one could not be read. */
  readonly runInfo = new SvelteMap<string, RunView>();
  readonly runProblem = new SvelteMap<string, string>();
  /** Groups (by `groupKey`: runs and sessions) whose actions are folded under their heading. */
  readonly collapsed = new SvelteSet<string>();
  /** Requests under way: bookkeeping that nothing renders. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #runLoading = new Set<string>();
  /** The page request under way; a newer one (a reload) cancels it. */
  #request: AbortController | null = null;
  #disposed = false;

  readonly query = $derived<ActivityQuery>({
    ...(this.#tool ? { tool: this.#tool } : {}),
    ...(this.#target ? { target: this.#target } : {}),
    ...(this.#result ? { result: this.#result } : {}),
    ...(this.#run ? { run: this.#run } : {}),
    ...(this.#session ? { session: this.#session } : {}),
  });
  /** Some filter is set (the empty table says so). */
  readonly filtered = $derived(!!(this.#tool || this.#target || this.#result || this.#run || this.#session));
  /** Rows of the table: each group's heading (an agent run, a client's session) with its actions under it, and the other actions. */
  readonly items = $derived(groupByRun(this.entries, this.#shownQuietRuns()));
  /** The actions as the table shows them, folded groups left out: what the Activity viewer steps through. */
  readonly shown = $derived(shownEntries(this.items, this.collapsed));
  /** Tools for the filter: the known ones, those seen, and the one chosen; sorted. */
  readonly toolOptions = $derived(uniqueSorted([...KNOWN_TOOLS, ...this.#seenTools, ...(this.#tool ? [this.#tool] : [])]));
  /** Targets for the filter: those seen, and the one chosen; sorted. */
  readonly targetOptions = $derived(uniqueSorted([...this.#seenTargets, ...(this.#target ? [this.#target] : [])]));

  constructor(fetchPage: ActivityFetcher, fetchRun: RunFetcher, options: ActivityLogOptions = {}) {
    this.#fetchPage = fetchPage;
    this.#fetchRun = fetchRun;
    this.pageSize = options.pageSize ?? 100;
    this.#describeError = options.describeError ?? ((e) => (e instanceof Error ? e.message : String(e)));
    this.#fetchRuns = options.fetchRuns;
  }

  /**
   * Quiet runs the table shows: none under a tool, target or result filter (they have no
   * action to match), only the one shown alone, and none older than the loaded page while
   * older pages remain (they would jump when those load).
   */
  #shownQuietRuns(): RunSummary[] {
    if (this.#tool || this.#target || this.#result || this.#session) return [];
    const oldest = this.exhausted ? undefined : this.entries.at(-1);
    return this.quietRuns.filter((r) => (!this.#run || r.id === this.#run) && (!oldest || Date.parse(r.startedAt) >= Date.parse(oldest.at)));
  }

  get tool(): string {
    return this.#tool;
  }
  set tool(v: string) {
    if (v === this.#tool) return;
    this.#tool = v;
    this.reload();
  }
  get target(): string {
    return this.#target;
  }
  set target(v: string) {
    if (v === this.#target) return;
    this.#target = v;
    this.reload();
  }
  get result(): ResultFilter {
    return this.#result;
  }
  set result(v: ResultFilter) {
    if (v === this.#result) return;
    this.#result = v;
    this.reload();
  }
  get run(): string {
    return this.#run;
  }
  set run(v: string) {
    if (v === this.#run) return;
    this.#run = v;
    this.reload();
  }

  get session(): string {
    return this.#session;
  }
  set session(v: string) {
    if (v === this.#session) return;
    this.#session = v;
    this.reload();
  }

  /** The group shown alone, if one is. */
  get only(): ActionGroup | undefined {
    if (this.#run) return { kind: 'run', id: this.#run };
    if (this.#session) return { kind: 'session', id: this.#session };
    return undefined;
  }

  /** Show this group (an agent run, a session) alone, or every group again when it is the one shown. */
  toggleOnly(g: Pick<ActionGroup, 'kind' | 'id'>): void {
    const shown = this.only;
    const off = shown?.kind === g.kind && shown.id === g.id;
    this.#run = !off && g.kind === 'run' ? g.id : '';
    this.#session = !off && g.kind === 'session' ? g.id : '';
    this.reload();
  }

  /** Fold or unfold a group's actions under its heading (`groupKey`). */
  toggleCollapsed(key: string): void {
    if (this.collapsed.has(key)) this.collapsed.delete(key);
    else this.collapsed.add(key);
  }

  /**
   * Load the newest page under the current filters, cancelling any page under way. The
   * entries shown stay until it answers. Call it from an event handler or a callback (not
   * inside an effect, which would re-run on every filter change).
   */
  reload(): void {
    if (this.#disposed) return;
    this.exhausted = false;
    this.#loadQuietRuns();
    void this.#load({ ...this.query, limit: this.pageSize }, (entries) => {
      this.entries = entries;
      this.error = null;
    });
  }

  /** Append the page before the oldest loaded entry. */
  async loadOlder(): Promise<void> {
    const last = this.entries[this.entries.length - 1];
    if (!last || this.#disposed) return;
    await this.#load({ ...this.query, before: last.id, limit: this.pageSize }, (entries) => {
      this.entries = [...this.entries, ...entries];
    });
  }

  async #load(query: ActivityQuery, apply: (entries: ActivityEntry[]) => void): Promise<void> {
    this.#request?.abort();
    const ctrl = new AbortController();
    this.#request = ctrl;
    this.loading = true;
    try {
      const r = await this.#fetchPage(query, ctrl.signal);
      if (ctrl.signal.aborted) return;
      apply(r.entries);
      this.exhausted = r.entries.length < this.pageSize;
      this.#see(r.entries);
      this.#loadRunsOf(r.entries);
    } catch (e) {
      if (!ctrl.signal.aborted) this.error = this.#describeError(e);
    } finally {
      if (!ctrl.signal.aborted) this.loading = false;
      if (this.#request === ctrl) this.#request = null;
    }
  }

  /** An action announced by the server: shown first when it matches the filters. */
  add(entry: ActivityEntry): void {
    if (this.#disposed) return;
    this.#see([entry]);
    if (matchesActivity(entry, this.query) && !this.entries.some((x) => x.id === entry.id)) {
      this.entries = [entry, ...this.entries];
      this.#loadRunsOf([entry]);
    }
    // A run that is still going has written more steps.
    if (entry.run && this.runInfo.has(entry.run.id)) this.#loadRun(entry.run.id);
  }

  dispose(): void {
    this.#disposed = true;
    this.#request?.abort();
    this.#request = null;
  }

  #see(entries: readonly ActivityEntry[]): void {
    for (const e of entries) {
      if (!this.#seenTools.has(e.tool)) this.#seenTools.add(e.tool);
      if (e.target && !this.#seenTargets.has(e.target)) this.#seenTargets.add(e.target);
    }
  }

  #loadQuietRuns(): void {
    if (!this.#fetchRuns) return;
    this.#fetchRuns()
      .then(({ runs }) => {
        if (this.#disposed) return;
        this.quietRuns = runs.filter((r) => r.actions === 0);
        for (const r of this.quietRuns) if (!this.runInfo.has(r.id)) this.#loadRun(r.id);
      })
      .catch(() => {
        // The actions still show; a run list that cannot be read hides only the quiet runs.
      });
  }

  /** Ask for the folder of each run of these entries not asked for yet. */
  #loadRunsOf(entries: readonly ActivityEntry[]): void {
    for (const e of entries) if (e.run && !this.runInfo.has(e.run.id) && !this.runProblem.has(e.run.id)) this.#loadRun(e.run.id);
  }

  #loadRun(id: string): void {
    if (this.#runLoading.has(id) || this.#disposed) return;
    this.#runLoading.add(id);
    this.#fetchRun(id)
      .then((info) => {
        if (this.#disposed) return;
        this.runInfo.set(id, info);
        this.runProblem.delete(id);
      })
      .catch((e: unknown) => {
        if (!this.#disposed && !this.runInfo.has(id)) this.runProblem.set(id, this.#describeError(e));
      })
      .finally(() => this.#runLoading.delete(id));
  }
}
