/** The source registry on its own: routing, lazy creation, rebuilds on its own settings, health, ports. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SourceRegistry, type RegistrySettings } from '../../../src/main/core/sources/registry.ts';
import { defineSource, type AnySourceModule } from '../../../src/main/core/sources/module.ts';
import type { Source } from '../../../src/main/core/sources/source.ts';
import { SightlineError } from '../../../src/shared/errors.ts';
import type { SettingsValues } from '../../../src/shared/settings.ts';

class FakeSettings extends EventEmitter implements RegistrySettings {
  #v: Record<string, unknown>;
  constructor(v: Record<string, unknown>) {
    super();
    this.#v = v;
  }
  values(): SettingsValues {
    return this.#v as unknown as SettingsValues;
  }
  section<C>(name: string): C {
    return this.#v[name] as C;
  }
  isEnabled(source: string): boolean {
    return (this.#v.sources as Record<string, { enabled: boolean }>)[source]?.enabled ?? false;
  }
  set(next: Record<string, unknown>): void {
    const previous = this.#v;
    this.#v = next;
    this.emit('change', next, previous);
  }
}

function moduleCounting(created: string[], available = () => true): AnySourceModule {
  return defineSource({
    name: 'probe',
    label: 'Probe',
    icon: 'monitor',
    description: 'a test source',
    kind: 'live',
    settings: z.object({ level: z.number().default(1) }),
    create: (ctx): Source => {
      created.push(`level ${ctx.settings().level}`);
      return {
        name: 'probe',
        health: async () => ({ source: 'probe', enabled: true, available: available(), degraded: false, ...(available() ? {} : { reason: 'unplugged', remediation: 'plug it in' }) }),
        network: { networkIdle: async () => ({ waitedMs: 0 }) },
      };
    },
  });
}

const context = { dataDir: '/nonexistent', env: {}, archive: {} as never, host: {}, inputAllowed: () => true };
const on = (level = 1): Record<string, unknown> => ({ sources: { probe: { enabled: true } }, probe: { level } });

describe('the source registry', () => {
  it('creates a source on first use only, once, and again after its own settings change', async () => {
    const created: string[] = [];
    const settings = new FakeSettings(on());
    const r = new SourceRegistry([moduleCounting(created)], settings, context);
    expect(created).toEqual([]);
    await Promise.all([r.get('probe'), r.get('probe')]);
    expect(created).toEqual(['level 1']);
    settings.set({ ...on(), unrelated: { x: 1 } });
    await r.get('probe');
    expect(created).toEqual(['level 1']);
    settings.set(on(2));
    await r.get('probe');
    expect(created).toEqual(['level 1', 'level 2']);
  });

  it('routes target ids, and says why a target is unreachable', async () => {
    const settings = new FakeSettings(on());
    const r = new SourceRegistry([moduleCounting([])], settings, context);
    expect(r.sourceOf('probe:thing')).toBe('probe');
    expect(() => r.sourceOf('nope:thing')).toThrow(expect.objectContaining({ code: 'TARGET_NOT_FOUND' }));
    settings.set({ sources: { probe: { enabled: false } }, probe: { level: 1 } });
    await expect(r.forTarget('probe:thing')).rejects.toMatchObject({ code: 'SOURCE_DISABLED' });
  });

  it('refuses a source whose last health check failed, and tells listeners when it comes and goes', async () => {
    let up = false;
    const r = new SourceRegistry([moduleCounting([], () => up)], new FakeSettings(on()), context);
    let changes = 0;
    r.onChange(() => changes++);
    await r.health();
    expect(changes).toBe(1);
    await expect(r.forTarget('probe:x')).rejects.toMatchObject({ code: 'SOURCE_UNAVAILABLE', hint: 'plug it in' });
    up = true;
    await r.health();
    expect(changes).toBe(2);
    await expect(r.forTarget('probe:x')).resolves.toMatchObject({ name: 'probe' });
  });

  it('hands out a port by name, or UNSUPPORTED naming what the source lacks', async () => {
    const r = new SourceRegistry([moduleCounting([])], new FakeSettings(on()), context);
    await expect(r.port('probe:x', 'network')).resolves.toHaveProperty('networkIdle');
    await expect(r.port('probe:x', 'apps')).rejects.toMatchObject({ code: 'UNSUPPORTED', message: expect.stringMatching(/no apps to manage/) });
  });

  it('marks a source down at once when a call finds it unavailable, and checks again when it answers', async () => {
    let up = true;
    const r = new SourceRegistry([moduleCounting([], () => up)], new FakeSettings(on()), context);
    await r.health();
    let changes = 0;
    r.onChange(() => changes++);
    up = false;
    // A listing refused: the health says so before any timer runs, and the change is announced once.
    r.observed('probe', new SightlineError('SOURCE_UNAVAILABLE', 'The probe is unplugged.', 'Plug it in.'));
    r.observed('probe', new SightlineError('SOURCE_UNAVAILABLE', 'The probe is unplugged.', 'Plug it in.'));
    expect(r.lastHealth('probe')).toMatchObject({ available: false, reason: 'The probe is unplugged', remediation: 'Plug it in.' });
    expect(changes).toBe(1);
    // Another failure (a bad argument) says nothing of the source's health.
    up = true;
    r.observed('probe', new SightlineError('INVALID_ARGUMENT', 'bad', 'fix it'));
    expect(r.lastHealth('probe')?.available).toBe(false);
    // It answered: checked again, and back.
    r.observed('probe');
    await expect.poll(() => r.lastHealth('probe')?.available).toBe(true);
    expect(changes).toBe(2);
  });
});
