/** The Android source module: devices and emulators over ADB. */
import { z } from 'zod';
import { actionHints, runAction } from '../../mcp/action.ts';
import { actionOutput, refField, targetField, xField, yField } from '../../mcp/schemas.ts';
import { defineTool } from '../../mcp/tool.ts';
import { defineSource } from '../module.ts';
import { androidSettings } from './settings.ts';

const swipe = defineTool({
  name: 'swipe',
  title: 'Swipe (Android)',
  description: 'Swipe from x, y to toX, toY (image pixels of the latest capture or of ref) over durationMs.',
  input: {
    x: xField,
    y: yField,
    toX: xField.describe('End X in image pixels.'),
    toY: yField.describe('End Y in image pixels.'),
    durationMs: z.int().min(1).max(10_000).default(300).describe('Swipe duration in ms (default 300).'),
    target: targetField.optional(),
    ref: refField.optional(),
  },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'swipe', ...args }, res);
  },
});

export const androidModule = defineSource({
  name: 'android',
  label: 'Android',
  icon: 'phone',
  description: 'Devices and emulators over adb.',
  kind: 'live',
  settings: androidSettings,
  fields: [{ key: 'android.adbPath', section: 'Connections', kind: 'text', label: 'adb path', placeholder: 'adb (from PATH)' }],
  tools: [swipe],
  // The app in front (`app`) and its package name are what the allowlist names for Android.
  allowNames: (t) => [t.app, t.title, typeof t.details?.package === 'string' ? t.details.package : undefined],
  async create(ctx) {
    const { createAndroidSource } = await import('./androidSource.ts');
    return createAndroidSource({ settings: ctx.settings(), env: ctx.env });
  },
});
