/**
 * A fifth source, to show what adding one takes: this folder, plus one line where the sources
 * are listed (src/main/core/sources/builtin.ts for a built-in one; here, the test's own list).
 * Nothing in the core names it, yet it appears in list_targets, the dashboard and settings.
 */
import { z } from 'zod';
import { defineSource } from '../../../src/main/core/sources/module.ts';
import { createFakeSource } from './source.ts';

export const fakeSettings = z
  .strictObject({
    /** How many screens the fake source offers. */
    screens: z.int().min(0).max(8).default(1),
    /** A label shown in each screen's title. */
    label: z.string().min(1).max(40).default('Fake'),
  })
  .prefault({});

export const fakeModule = defineSource({
  name: 'fake',
  label: 'Fake screens',
  icon: 'bot',
  description: 'Generated screens for tests.',
  kind: 'live',
  settings: fakeSettings,
  fields: [
    { key: 'fake.screens', section: 'Connections', kind: 'number', label: 'Fake screens', min: 0, max: 8, step: 1 },
    { key: 'fake.label', section: 'Connections', kind: 'text', label: 'Fake screen label', placeholder: 'Fake' },
  ],
  create: (ctx) => createFakeSource(ctx.settings()),
});
