import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_SOURCES, createCore } from '../../../src/main/core/index.ts';
import { resolveDataDir } from '../../../src/main/core/settings/dataDir.ts';
import { buildSettingsSchema, parseWith } from '../../../src/main/core/settings/schema.ts';
import { SettingsStore } from '../../../src/main/core/settings/store.ts';
import type { SettingsPatch } from '../../../src/shared/settings.ts';
import { tempDir } from '../../support/mcpHarness.ts';

const schema = buildSettingsSchema(BUILTIN_SOURCES);
const parseSettings = (input: unknown) => parseWith(schema, input) as ReturnType<typeof parseWith> & { browser: { endpoint?: string }; manictime: { dataDir?: string } };
const loadSettings = (dir: string, o: { env?: NodeJS.ProcessEnv; overrides?: SettingsPatch } = {}) => ({ settings: SettingsStore.load(dir, BUILTIN_SOURCES, o).values() as ReturnType<typeof parseSettings> });

describe('settings', () => {
  it('fills defaults and names the bad key', () => {
    expect(parseSettings({}).capture).toEqual({ maxDimension: 1000, profile: 'default', format: 'jpeg', quality: 70 });
    expect(() => parseSettings({ capture: { maxDimension: 5 } })).toThrow(/"capture\.maxDimension" is invalid/);
    expect(() => parseSettings({ input: { pasued: true } })).toThrow(/"input\.pasued" is not a known setting/);
    expect(() => parseSettings({ browser: { endpoint: 'file:///etc/passwd' } })).toThrow(/"browser\.endpoint"/);
  });

  it('lets env win over the file and flags over both', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ browser: { endpoint: 'http://127.0.0.1:1111' }, manictime: { dataDir: '/file' } }));
    const env = { SIGHTLINE_BROWSER_URL: 'http://127.0.0.1:2222', MANICTIME_DATA_DIR: '/env' };
    const { settings } = loadSettings(dir, { env, overrides: { manictime: { dataDir: '/flag' } } });
    expect(settings.browser.endpoint).toBe('http://127.0.0.1:2222');
    expect(settings.manictime.dataDir).toBe('/flag');
    expect(resolveDataDir('/x', { SIGHTLINE_DATA_DIR: '/y' })).toBe('/x');
    expect(resolveDataDir(undefined, { SIGHTLINE_DATA_DIR: '/y' })).toBe('/y');
  });

  it('names the environment variables that win over fields, and refuses a change that could not take effect', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ manictime: { dataDir: '/file' } }));
    const store = SettingsStore.load(dir, BUILTIN_SOURCES, { env: { MANICTIME_DATA_DIR: dir, SIGHTLINE_BROWSER_URL: 'http://127.0.0.1:2222', DISPLAY: '' } });
    expect(store.environment()).toEqual({ 'manictime.dataDir': { variable: 'MANICTIME_DATA_DIR', value: dir }, 'browser.endpoint': { variable: 'SIGHTLINE_BROWSER_URL', value: 'http://127.0.0.1:2222' } });
    // Judged on what the file would hold, not on the environment's folder (which exists).
    await expect(store.vet({ manictime: { dataDir: join(dir, 'missing') } })).rejects.toMatchObject({ code: 'SETTINGS_INVALID', details: { key: 'manictime.dataDir' }, message: expect.stringContaining('There is no folder') });
    await expect(store.vet({ manictime: { dataDir: 'relative/folder' } })).rejects.toMatchObject({ message: expect.stringContaining('is not a full path') });
    await expect(store.vet({ desktop: { display: 'banana' } })).rejects.toMatchObject({ details: { key: 'desktop.display' }, message: expect.stringContaining('is not an X11 display name') });
    // Every field that cannot take effect is named at once, not one per save.
    const both = await store.vet({ manictime: { dataDir: join(dir, 'missing') }, desktop: { display: 'banana' } }).then(
      () => undefined,
      (e: unknown) => e as { details?: { problems?: { key: string }[] } },
    );
    expect(both?.details?.problems?.map((p) => p.key).sort()).toEqual(['desktop.display', 'manictime.dataDir']);
    await expect(store.vet({ manictime: { dataDir: dir } })).resolves.toBeUndefined();
    // A section the change leaves as it was is not asked (the file's missing /file stays allowed).
    await expect(store.vet({ capture: { quality: 50 } })).resolves.toBeUndefined();
    expect(readFileSync(join(dir, 'settings.json'), 'utf8')).toContain('/file');
  });

  it('rejects invalid JSON with the file named', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'settings.json'), '{ nope');
    expect(() => loadSettings(dir)).toThrow(/settings\.json is not valid JSON/);
  });

  it('updates are validated first: a bad value changes neither the file nor the live settings', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const core = await createCore({ dataDir: dir, modules: [] });
    core.settings.update({ retention: { maxAgeDays: 3 } });
    const before = readFileSync(join(dir, 'settings.json'), 'utf8');
    expect(() => core.settings.update({ retention: { maxAgeDays: -1 } })).toThrow(/retention\.maxAgeDays/);
    expect(readFileSync(join(dir, 'settings.json'), 'utf8')).toBe(before);
    expect(core.settings.values().retention.maxAgeDays).toBe(3);
    // null removes a key: back to its default.
    core.settings.update({ retention: { maxAgeDays: null } } as never);
    expect(core.settings.values().retention.maxAgeDays).toBe(7);
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).retention).toEqual({});
    await core.close();
  });

  it('rebuilds a built-in source when its own settings change, and only then', async () => {
    const dir = tempDir();
    const core = await createCore({ dataDir: dir, env: { PATH: process.env.PATH } });
    const of = (name: string) => core.sources.get(name);
    const browser = await of('browser');
    const android = await of('android');
    core.settings.update({ browser: { endpoint: 'http://127.0.0.1:9' } });
    expect(await of('browser')).not.toBe(browser);
    expect(await of('android')).toBe(android);
    await core.close();
  });
});
