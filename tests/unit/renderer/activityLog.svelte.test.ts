// @vitest-environment svelte-client
/**
 * The activity log's model: loads are asked for (a filter set, `reload()`, `loadOlder()`),
 * live actions are shown when they match, and each run's folder is asked for once and
 * again when the run writes more. Runes compiled for the client, effects flushed by hand.
 */
import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityEntry, ActivityQuery, RunView } from '../../../src/shared/activity.ts';
import { ActivityLog } from '../../../src/renderer/lib/activityLog.svelte.ts';

const entry = (id: number, over: Partial<ActivityEntry> = {}): ActivityEntry => ({
  id,
  at: new Date(Date.parse('2025-11-20T12:00:00Z') + id * 1000).toISOString(),
  tool: 'click',
  result: 'ok',
  durationMs: 5,
  ...over,
});

/** A server over `all` (newest first) that records the queries it was asked and answers when told. */
function heldServer(all: ActivityEntry[]) {
  const asked: ActivityQuery[] = [];
  const waiting: (() => void)[] = [];
  const runsAsked: string[] = [];
  const fetchPage = (q: ActivityQuery, signal: AbortSignal): Promise<{ entries: ActivityEntry[] }> => {
    asked.push(q);
    return new Promise((resolve, reject) => {
      signal.addEventListener('abort', () => reject(new Error('aborted')));
      waiting.push(() => {
        const from = q.before === undefined ? 0 : all.findIndex((e) => e.id === q.before) + 1;
        const match = all.slice(from).filter((e) => (!q.tool || e.tool === q.tool) && (!q.run || e.run?.id === q.run));
        resolve({ entries: match.slice(0, q.limit ?? 100) });
      });
    });
  };
  const fetchRun = async (id: string): Promise<RunView> => {
    runsAsked.push(id);
    if (id === 'gone') throw new Error('No artifacts for run gone');
    return { id, files: [], steps: [] } as unknown as RunView;
  };
  const answer = async (): Promise<void> => {
    for (const release of waiting.splice(0)) release();
    await new Promise((r) => setTimeout(r, 0));
    flushSync();
  };
  return { fetchPage, fetchRun, asked, runsAsked, answer };
}

let stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

function watch<T>(read: () => T): T[] {
  const seen: T[] = [];
  stops.push(
    $effect.root(() => {
      $effect(() => {
        seen.push(read());
      });
    }),
  );
  flushSync();
  return seen;
}

describe('ActivityLog', () => {
  it('loads only when asked: on reload, on a filter change (once), and for older pages', async () => {
    const all = [entry(5, { tool: 'scroll' }), entry(4), entry(3), entry(2), entry(1)];
    const s = heldServer(all);
    const log = new ActivityLog(s.fetchPage, s.fetchRun, { pageSize: 2 });
    const ids = watch(() => log.entries.map((e) => e.id).join(','));
    expect(s.asked).toEqual([]);
    log.reload();
    expect(log.loading).toBe(true);
    await s.answer();
    expect(ids.at(-1)).toBe('5,4');
    expect(log.loading).toBe(false);
    expect(log.exhausted).toBe(false);
    await Promise.all([log.loadOlder(), s.answer()]);
    expect(ids.at(-1)).toBe('5,4,3,2');
    expect(s.asked.at(-1)).toEqual({ before: 4, limit: 2 });
    log.tool = 'click';
    log.tool = 'click';
    expect(s.asked.length).toBe(3);
    expect(s.asked.at(-1)).toEqual({ tool: 'click', limit: 2 });
    await s.answer();
    expect(ids.at(-1)).toBe('4,3');
    expect(log.filtered).toBe(true);
    expect(log.toolOptions).toContain('scroll');
  });

  it('a reload cancels the page under way, whose answer is dropped', async () => {
    const s = heldServer([entry(2, { tool: 'scroll' }), entry(1)]);
    const log = new ActivityLog(s.fetchPage, s.fetchRun);
    log.reload();
    log.tool = 'scroll';
    await s.answer();
    expect(log.entries.map((e) => e.id)).toEqual([2]);
    expect(log.error).toBeNull();
    expect(log.loading).toBe(false);
  });

  it('shows live actions that match, once, and asks for their runs', async () => {
    const s = heldServer([entry(1, { run: { id: 'r1' } })]);
    const log = new ActivityLog(s.fetchPage, s.fetchRun);
    log.run = 'r1';
    await s.answer();
    expect(s.runsAsked).toEqual(['r1']);
    const items = watch(() => log.items.map((i) => i.key).join(','));
    expect(items.at(-1)).toBe('rr1,e1');
    log.add(entry(2));
    log.add(entry(3, { run: { id: 'r1' } }));
    log.add(entry(3, { run: { id: 'r1' } }));
    await new Promise((r) => setTimeout(r, 0));
    flushSync();
    expect(items.at(-1)).toBe('rr1,e3,e1');
    // The run is going on: its folder is read again for the new steps.
    expect(s.runsAsked).toEqual(['r1', 'r1']);
    expect(log.runInfo.has('r1')).toBe(true);
  });

  it('says why a run’s folder could not be read, and asks only once', async () => {
    const s = heldServer([entry(2, { run: { id: 'gone' } }), entry(1, { run: { id: 'gone' } })]);
    const log = new ActivityLog(s.fetchPage, s.fetchRun);
    log.reload();
    await s.answer();
    expect(log.runProblem.get('gone')).toMatch(/No artifacts/);
    log.reload();
    await s.answer();
    expect(s.runsAsked).toEqual(['gone']);
  });

  it('folds runs and sessions and shows one alone', async () => {
    const s = heldServer([entry(1, { run: { id: 'r1' } })]);
    const log = new ActivityLog(s.fetchPage, s.fetchRun);
    log.toggleCollapsed('rr1');
    expect(log.collapsed.has('rr1')).toBe(true);
    log.toggleCollapsed('rr1');
    expect(log.collapsed.has('rr1')).toBe(false);
    log.toggleOnly({ kind: 'run', id: 'r1' });
    expect(log.run).toBe('r1');
    log.toggleOnly({ kind: 'session', id: 'S1' });
    expect([log.run, log.session]).toEqual(['', 'S1']);
    log.toggleOnly({ kind: 'session', id: 'S1' });
    expect(log.only).toBeUndefined();
    expect(s.asked).toEqual([{ run: 'r1', limit: 100 }, { session: 'S1', limit: 100 }, { limit: 100 }]);
  });

  it('keeps what it shows and says why when a load fails', async () => {
    const log = new ActivityLog(
      () => Promise.reject(new Error('offline')),
      () => Promise.reject(new Error('offline')),
    );
    log.reload();
    await new Promise((r) => setTimeout(r, 0));
    expect(log.error).toBe('offline');
    expect(log.loading).toBe(false);
  });
});
