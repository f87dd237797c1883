import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../../src/shared/activity.ts';
import { closeCatalog, frame, openCatalog } from './helpers.ts';

describe('activity log', () => {
  it('appends entries with every field and lists them newest first with filters and paging', () => {
    const c = openCatalog();
    const seen: ActivityEntry[] = [];
    c.on('activity', (e) => seen.push(e));
    const full = c.activity.append({
      at: '2025-01-15T10:00:00.000+01:00',
      tool: 'click',
      source: 'desktop',
      target: 'desktop:window:0x1',
      result: 'ok',
      message: 'clicked',
      imagePoint: { x: 10.5, y: 20 },
      sourcePoint: { x: 21, y: 40 },
      frameRef: 'f_a',
      afterRef: 'f_b',
      durationMs: 12.5,
      params: { x: 10.5, y: 20, button: 'left' },
      client: 'claude-code',
    });
    expect(full.id).toBeGreaterThan(0);
    expect(seen).toEqual([full]);
    const refused = c.activity.append({ at: '2025-01-15T10:00:01.000+01:00', tool: 'click', target: 'android:emulator-5554', result: 'INPUT_PAUSED', durationMs: 0 });
    const typed = c.activity.append({ at: '2025-01-15T10:00:02.000+01:00', tool: 'type_text', target: 'desktop:window:0x1', result: 'ok', durationMs: 3 });

    expect(c.activity.list()).toEqual([typed, refused, full]);
    expect(c.activity.list({ tool: 'click' })).toEqual([refused, full]);
    expect(c.activity.list({ target: 'desktop:window:0x1' })).toEqual([typed, full]);
    expect(c.activity.list({ result: 'error' })).toEqual([refused]);
    expect(c.activity.list({ result: 'ok', limit: 1 })).toEqual([typed]);
    expect(c.activity.list({ before: typed.id })).toEqual([refused, full]);
    // Optional fields that were not given come back absent, not null.
    expect(Object.keys(c.activity.list({ before: full.id + 2, limit: 1 })[0]!).sort()).toEqual(['at', 'durationMs', 'id', 'result', 'target', 'tool']);
  });

  it("keeps the name of what an action aimed at (its frame, else the target's newest), and names gone targets", async () => {
    const c = openCatalog();
    const old = await c.frames.insert(frame({ target: 'browser:T1', source: 'browser', minutesAgo: 10, label: { title: 'Cart', document: 'https://shop.example/cart' } }));
    await c.frames.insert(frame({ target: 'browser:T1', source: 'browser', minutesAgo: 5, label: { title: 'Checkout' } }));
    const at = new Date().toISOString();
    const aimed = c.activity.append({ at, tool: 'click', target: 'browser:T1', frameRef: old.ref, result: 'ok', durationMs: 1 });
    const typed = c.activity.append({ at, tool: 'type_text', target: 'browser:T1', result: 'ok', durationMs: 1 });
    const given = c.activity.append({ at, tool: 'click', target: 'android:emulator-5554', result: 'ok', durationMs: 1, targetLabel: { app: 'com.example.notes' } });
    const unknown = c.activity.append({ at, tool: 'click', target: 'desktop:window:0x9', result: 'TARGET_NOT_FOUND', durationMs: 1 });
    expect(aimed.targetLabel).toEqual({ title: 'Cart', document: 'https://shop.example/cart' });
    expect(typed.targetLabel).toEqual({ title: 'Checkout' });
    expect(unknown.targetLabel).toBeUndefined();
    expect(c.activity.list().map((e) => e.targetLabel)).toEqual([undefined, { app: 'com.example.notes' }, { title: 'Checkout' }, { title: 'Cart', document: 'https://shop.example/cart' }]);
    expect(given.targetLabel).toEqual({ app: 'com.example.notes' });
    expect(c.activity.targetNames()).toEqual({ 'browser:T1': 'Checkout', 'android:emulator-5554': 'com.example.notes' });
    closeCatalog(c);
  });

  it('finds the actions of one MCP session, and those a frame belongs to (acted in, or taken after)', () => {
    const c = openCatalog();
    const at = '2025-01-15T10:00:00.000Z';
    const click = c.activity.append({ at, tool: 'click', target: 'browser:T1', result: 'ok', frameRef: 'f_1', afterRef: 'f_2', durationMs: 1, session: 's-one' });
    const typed = c.activity.append({ at, tool: 'type_text', target: 'browser:T1', result: 'ok', frameRef: 'f_2', afterRef: 'f_3', durationMs: 1, session: 's-one' });
    const other = c.activity.append({ at, tool: 'click', target: 'browser:T1', result: 'ok', frameRef: 'f_3', durationMs: 1, session: 's-two' });
    expect(click.session).toBe('s-one');
    expect(c.activity.list({ session: 's-one' })).toEqual([typed, click]);
    expect(c.activity.list({ session: 's-two' })).toEqual([other]);
    // f_2 was taken after the click and acted in by the typing.
    expect(c.activity.list({ frame: 'f_2' })).toEqual([typed, click]);
    expect(c.activity.list({ frame: 'f_3' })).toEqual([other, typed]);
    expect(c.activity.list({ frame: 'f_9' })).toEqual([]);
    closeCatalog(c);
  });

  it('names a device by the name it was listed under, after it is gone, over the app its frames show', async () => {
    const c = openCatalog();
    await c.frames.insert(frame({ target: 'android:emulator-5554', source: 'android', minutesAgo: 5, label: { app: 'com.example.weather' } }));
    await c.frames.insert(frame({ target: 'browser:T1', source: 'browser', minutesAgo: 5, label: { title: 'Checkout' } }));
    expect(c.activity.targetNames()).toEqual({ 'android:emulator-5554': 'com.example.weather', 'browser:T1': 'Checkout' });
    c.activity.rememberNames([
      { id: 'android:emulator-5554', title: 'Pixel 7' },
      { id: 'browser:T1', title: 'Checkout · Shop (listed)' },
      { id: 'android:R58M', title: 'Galaxy S21' },
    ]);
    // A title in a frame names a tab best; a device's frames hold only the app in front.
    expect(c.activity.targetNames()).toEqual({ 'android:emulator-5554': 'Pixel 7', 'browser:T1': 'Checkout', 'android:R58M': 'Galaxy S21' });
    c.activity.rememberNames([{ id: 'android:emulator-5554', title: 'Pixel 7a' }]);
    expect(c.activity.targetNames()['android:emulator-5554']).toBe('Pixel 7a');
    closeCatalog(c);
  });

  it('survives reopening the catalog', () => {
    const c = openCatalog();
    const e = c.activity.append({ at: '2025-01-15T10:00:00.000Z', tool: 'scroll', result: 'ok', durationMs: 1 });
    closeCatalog(c);
    expect(openCatalog(c.dataDir).activity.list()).toEqual([e]);
  });
});
