/**
 * A fifth source is one folder plus one line in a source list: the `fake` module under
 * tests/support/fifthSource registers itself beside the built-in ones, and without a change to
 * the core it is listed by list_targets (with its name in the tool's schema), captured and
 * clicked through the action gate, described by GET /api/sources, and configured through the
 * settings schema (its switch and its own section, validated, its instance rebuilt on change).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/main/core/http/server.ts';
import { BUILTIN_SOURCES } from '../../../src/main/core/index.ts';
import type { SourceInfo } from '../../../src/shared/sources.ts';
import { fakeModule } from '../../support/fifthSource/module.ts';
import type { FakeScreens } from '../../support/fifthSource/source.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';

const BUILTINS_OFF = Object.fromEntries(BUILTIN_SOURCES.map((m) => [m.name, { enabled: false }]));

describe('a fifth source registered as a module', () => {
  let h: Harness;
  let server: RunningServer;
  const api = async <T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${server.url}/api${path}`, { ...init, headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' } });
    return { status: res.status, body: (await res.json()) as T };
  };

  beforeAll(async () => {
    h = await startHarness({ modules: [...BUILTIN_SOURCES, fakeModule], settings: { sources: BUILTINS_OFF } });
    server = await startServer(h.core, { log: () => undefined });
  });
  afterAll(async () => {
    await server?.close();
    await h?.close();
  });

  it('is listed, captured and clicked through MCP', async () => {
    const { tools } = await h.client.listTools();
    const listTargets = tools.find((t) => t.name === 'list_targets')!;
    expect((listTargets.inputSchema.properties as { source: { enum: string[] } }).source.enum).toContain('fake');
    const listed = await h.call('list_targets', { source: 'fake' });
    expect(listed.isError, textOf(listed)).toBeFalsy();
    expect((listed.structuredContent as { targets: { id: string; title: string }[] }).targets).toEqual([expect.objectContaining({ id: 'fake:screen:1', title: 'Fake 1' })]);
    const cap = await h.call('capture', { target: 'fake:screen:1', maxDimension: 400 });
    expect(cap.isError, textOf(cap)).toBeFalsy();
    expect((cap.structuredContent as { frame: { image: { width: number }; scale: number } }).frame).toMatchObject({ image: { width: 400 }, scale: 2 });
    const click = await h.call('click', { target: 'fake:screen:1', x: 100, y: 50 });
    expect(click.isError, textOf(click)).toBeFalsy();
    const fake = (await h.core.sources.get('fake')) as FakeScreens;
    expect(fake.received.at(-1)).toMatchObject({ kind: 'click', point: { x: 200, y: 100 } });
    // What it cannot do, it refuses like any source.
    expect(textOf(await h.call('type_text', { target: 'fake:screen:1', text: 'x' }))).toMatch(/^UNSUPPORTED: type_text is not supported by the fake source/);
  });

  it('is described to the dashboard and configured through the settings schema', async () => {
    const { body } = await api<{ sources: SourceInfo[] }>('/sources');
    expect(body.sources.map((s) => s.name)).toEqual(['desktop', 'browser', 'android', 'manictime', 'fake']);
    expect(body.sources.at(-1)).toMatchObject({ name: 'fake', label: 'Fake screens', kind: 'live', fields: [{ key: 'fake.screens' }, { key: 'fake.label' }] });

    const settings = await api<{ settings: { sources: Record<string, { enabled: boolean }>; fake: { screens: number } } }>('/settings');
    expect(settings.body.settings.sources.fake).toEqual({ enabled: true });
    expect(settings.body.settings.fake).toEqual({ screens: 1, label: 'Fake' });

    const bad = await api<{ error: { code: string; key: string } }>('/settings', { method: 'PUT', body: JSON.stringify({ fake: { screens: 99 } }) });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'SETTINGS_INVALID', key: 'fake.screens' });

    const ok = await api('/settings', { method: 'PUT', body: JSON.stringify({ fake: { screens: 2, label: 'Lab' } }) });
    expect(ok.status).toBe(200);
    // Its own settings changed: the registry rebuilt it.
    const targets = await api<{ targets: { id: string; title: string }[] }>('/targets?source=fake');
    expect(targets.body.targets.map((t) => t.title)).toEqual(['Lab 1', 'Lab 2']);

    await api('/settings', { method: 'PUT', body: JSON.stringify({ sources: { fake: { enabled: false } } }) });
    expect(textOf(await h.call('capture', { target: 'fake:screen:1' }))).toMatch(/^SOURCE_DISABLED: The fake source is disabled/);
  });
});
