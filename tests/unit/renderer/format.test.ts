import { describe, expect, it } from 'vitest';
import { groupByRun, paramSummary, matchesActivity, shownEntries, targetLabel, targetOf } from '../../../src/renderer/lib/activity.ts';
import { dayLabel, formatBytes, formatDuration, formatPercent, frameName, frameTitle, hourKey, localTargetId, relativeTime, spanLabel } from '../../../src/renderer/lib/format.ts';
import type { ActivityEntry } from '../../../src/shared/activity.ts';

describe('format', () => {
  const now = new Date(2025, 10, 20, 15, 30, 0);

  it('labels days relative to now', () => {
    expect(dayLabel(new Date(2025, 10, 20, 1).toISOString(), now)).toBe('Today');
    expect(dayLabel(new Date(2025, 10, 19, 23).toISOString(), now)).toBe('Yesterday');
    expect(dayLabel(new Date(2025, 10, 17, 9).toISOString(), now)).toBe('Mon 17 Nov');
    expect(dayLabel(new Date(2024, 0, 2, 9).toISOString(), now)).toBe('Tue 2 Jan 2024');
  });

  it('groups by local hour', () => {
    expect(hourKey(new Date(2025, 10, 20, 14, 59, 59).toISOString())).toBe('2025-11-20 14');
    expect(hourKey(new Date(2025, 10, 20, 15, 0, 0).toISOString())).toBe('2025-11-20 15');
  });

  it('formats sizes, durations, percents and ids', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(119 * 1024)).toBe('119 KB');
    expect(formatBytes(2.5 * 1024 ** 3)).toBe('2.5 GB');
    expect(formatDuration(0.2)).toBe('<1 ms');
    expect(formatDuration(62.4)).toBe('62 ms');
    expect(formatDuration(1234)).toBe('1.23 s');
    expect(formatPercent(33.33333)).toBe('33.33');
    expect(formatPercent(12.5)).toBe('12.5');
    expect(localTargetId('desktop:window:0x1e00003')).toBe('window:0x1e00003');
    expect(relativeTime(new Date(now.getTime() - 125_000).toISOString(), now)).toBe('2 min ago');
  });

  it('titles a frame by the activity at its moment, else by its target', () => {
    const titles = { 'desktop:window:0x1': 'main.ts — sightline' };
    // Document first, the app after it: rows of one app read by what differs.
    expect(frameTitle({ target: 'manictime:monitor:0', activity: { app: 'Google Chrome', document: 'https://example.com/a' } }, titles)).toBe('https://example.com/a — Google Chrome');
    expect(frameName({ target: 'manictime:monitor:0', activity: { app: 'Google Chrome', document: 'Report.xlsx' } }, titles)).toEqual({ main: 'Report.xlsx', context: 'Google Chrome' });
    expect(frameTitle({ target: 'manictime:monitor:1', activity: { app: 'Outlook' } }, titles)).toBe('Outlook');
    expect(frameTitle({ target: 'manictime:monitor:0', activity: { app: 'unknown', document: 'notes.md' } }, titles)).toBe('notes.md');
    // No "monitor:0": the place in words.
    expect(frameTitle({ target: 'manictime:monitor:0' }, titles)).toBe('Screen 1');
    expect(frameTitle({ target: 'desktop:display:1' }, {})).toBe('Display 2');
    expect(frameTitle({ target: 'desktop:window:0x1' }, titles)).toBe('main.ts — sightline');
    // The title the source gave at capture wins over the target's title now, its app's name cut from its end.
    expect(frameTitle({ target: 'desktop:window:0x1', label: { title: 'old.ts — sightline' } }, titles)).toBe('old.ts — sightline');
    expect(frameName({ target: 'desktop:window:0x2', label: { title: 'old.ts - Visual Studio Code', app: 'code' } }, titles)).toEqual({ main: 'old.ts', context: 'Visual Studio Code' });
    expect(frameName({ target: 'desktop:window:0x2', label: { title: 'Plan — Notes', app: 'Notes' } }, titles)).toEqual({ main: 'Plan', context: 'Notes' });
    expect(frameName({ target: 'browser:T', label: { title: 'Checkout', document: 'https://www.shop.example/cart' } }, titles)).toEqual({ main: 'Checkout', context: 'shop.example' });
    // A phone's frames name the app in front; the device (its listed name, kept after it is unplugged) is where.
    expect(frameTitle({ target: 'android:emulator-5554', label: { app: 'com.example.notes' } }, titles)).toBe('com.example.notes');
    expect(frameTitle({ target: 'android:emulator-5554', label: { app: 'com.example.notes' } }, { 'android:emulator-5554': 'Pixel 7' })).toBe('com.example.notes — Pixel 7');
    expect(frameTitle({ target: 'android:emulator-5554' }, {})).toBe('Device emulator-5554');
    expect(spanLabel('2025-01-01T11:03:05Z', '2025-01-01T11:03:55Z')).toMatch(/^within a minute at \d\d:03$/);
    expect(spanLabel('2025-01-01T11:03:05Z', '2025-01-01T11:27:05Z')).toMatch(/^\d\d:03–\d\d:27$/);
  });
});

describe('activity helpers', () => {
  const entry = (over: Partial<ActivityEntry>): ActivityEntry => ({ id: 1, at: '2025-11-20T10:00:00Z', tool: 'click', result: 'ok', durationMs: 5, ...over });

  it('summarises what an action did', () => {
    expect(paramSummary(entry({ tool: 'type_text', params: { text: 'hello' } }))).toBe('“hello”');
    expect(paramSummary(entry({ tool: 'press_key', params: { key: 'Control+A' } }))).toBe('Control+A');
    expect(paramSummary(entry({ tool: 'scroll', params: { deltaY: -300 } }))).toBe('↑ 300');
    expect(paramSummary(entry({ params: { button: 'right', clicks: 2 } }))).toBe('right ×2');
    expect(paramSummary(entry({}))).toBe('');
  });

  it('filters live entries like the server', () => {
    const e = entry({ tool: 'click', target: 'desktop:window:1', result: 'INPUT_PAUSED' });
    expect(matchesActivity(e, { result: 'error' })).toBe(true);
    expect(matchesActivity(e, { result: 'ok' })).toBe(false);
    expect(matchesActivity(e, { tool: 'scroll' })).toBe(false);
    expect(matchesActivity(e, { target: 'desktop:window:1', tool: 'click' })).toBe(true);
    expect(matchesActivity(e, { run: 'r1' })).toBe(false);
    expect(matchesActivity({ ...e, run: { id: 'r1' } }, { run: 'r1' })).toBe(true);
  });

  it('names an action’s target, even one refused before it was resolved', () => {
    expect(targetOf(entry({ target: 'desktop:window:1', params: { target: 'x' } }))).toBe('desktop:window:1');
    expect(targetOf(entry({ params: { target: 'browser:tab:9' } }))).toBe('browser:tab:9');
    expect(targetOf(entry({}))).toBeUndefined();
    expect(targetLabel('desktop:window:1', { 'desktop:window:1': 'Settings' })).toBe('Settings');
    expect(targetLabel('browser:tab:9', {})).toBe('Tab');
    expect(targetLabel(undefined, {})).toBe('—');
  });

  it('gathers a run’s actions under one heading where its newest action is; others keep their place', () => {
    const r1 = { id: 'r1', artifacts: '/d/runs/r1' };
    // Newest first: r1 acts, someone else acts in between, r1 again, then r2.
    const log = [
      entry({ id: 6, at: '2025-11-20T10:06:00Z', run: r1 }),
      entry({ id: 5, at: '2025-11-20T10:05:00Z', client: 'claude' }),
      entry({ id: 4, at: '2025-11-20T10:04:00Z', run: r1, result: 'FRAME_STALE' }),
      entry({ id: 3, at: '2025-11-20T10:03:00Z', run: { id: 'r2' } }),
      entry({ id: 2, at: '2025-11-20T10:02:00Z' }),
    ];
    const items = groupByRun(log);
    const said = (list: typeof items): string[] => list.map((i) => (i.kind === 'run' ? `run ${i.run.id}` : i.kind === 'session' ? `session ${i.session.id}` : `${i.entry.id}${i.group ? ` in ${i.group}` : ''}`));
    expect(said(items)).toEqual(['run r1', '6 in rr1', '4 in rr1', '5', 'run r2', '3 in rr2', '2']);
    expect(items[0]).toEqual({ kind: 'run', key: 'rr1', run: r1, count: 2, failed: 1, first: '2025-11-20T10:04:00Z', last: '2025-11-20T10:06:00Z' });
    expect(new Set(items.map((i) => i.key)).size).toBe(items.length);
    expect(groupByRun([])).toEqual([]);
  });

  it("gathers an MCP client's session like a run (from its second action), the run winning for an agent run's actions", () => {
    const log = [
      entry({ id: 7, at: '2025-11-20T10:07:00Z', session: 'A', client: 'claude-code' }),
      entry({ id: 6, at: '2025-11-20T10:06:00Z', session: 'B', client: 'cursor' }),
      entry({ id: 5, at: '2025-11-20T10:05:00Z', session: 'A', client: 'claude-code', result: 'NODE_NOT_FOUND' }),
      entry({ id: 4, at: '2025-11-20T10:04:00Z', session: 'C', run: { id: 'r9' } }),
      entry({ id: 3, at: '2025-11-20T10:03:00Z', session: 'A', client: 'claude-code' }),
    ];
    const items = groupByRun(log);
    const said = items.map((i) => (i.kind === 'run' ? `run ${i.run.id}` : i.kind === 'session' ? `session ${i.session.id}` : `${i.entry.id}${i.group ? ` in ${i.group}` : ''}`));
    expect(said).toEqual(['session A', '7 in sA', '5 in sA', '3 in sA', '6', 'run r9', '4 in rr9']);
    expect(items[0]).toEqual({ kind: 'session', key: 'sA', session: { id: 'A', client: 'claude-code' }, count: 3, failed: 1, first: '2025-11-20T10:03:00Z', last: '2025-11-20T10:07:00Z' });
    // Folding a group hides its actions from what the viewer steps through.
    expect(shownEntries(items, new Set(['sA'])).map((e) => e.id)).toEqual([6, 4]);
    expect(shownEntries(items, new Set()).map((e) => e.id)).toEqual([7, 5, 3, 6, 4]);
  });
});
