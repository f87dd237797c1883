/** Source modules around ready-made source instances (fakes, or real sources built by a test). */
import { z } from 'zod';
import type { AnySourceModule, SourceModule } from '../../src/main/core/sources/module.ts';
import type { Source } from '../../src/main/core/sources/source.ts';
import { BUILTIN_SOURCES } from '../../src/main/core/sources/builtin.ts';

/**
 * A module whose `create` hands back `source` itself. It borrows the label and tools of the
 * built-in module of the same name, so a fake "desktop" offers focus_window.
 */
export function moduleFor(source: Source, over: Partial<SourceModule<unknown, Source>> = {}): AnySourceModule {
  const builtin = BUILTIN_SOURCES.find((m) => m.name === source.name);
  return {
    name: source.name,
    label: builtin?.label ?? source.name,
    icon: builtin?.icon ?? 'box',
    description: builtin?.description ?? `Test source ${source.name}.`,
    kind: source.history ? 'archive' : 'live',
    settings: builtin?.settings ?? z.strictObject({}).prefault({}),
    ...(builtin?.tools ? { tools: builtin.tools } : {}),
    ...over,
    create: () => source,
  };
}
