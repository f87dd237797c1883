/** The desktop source module: displays and application windows on macOS, Windows and X11. */
import { basename } from 'node:path';
import { z } from 'zod';
import { actionHints, runAction } from '../../mcp/action.ts';
import { actionOutput } from '../../mcp/schemas.ts';
import { defineTool } from '../../mcp/tool.ts';
import { defineSource } from '../module.ts';
import { desktopSettings } from './settings.ts';

const focusWindow = defineTool({
  name: 'focus_window',
  title: 'Focus a window (desktop)',
  description: 'Raise and focus a desktop window; falls back to clicking a safe point inside it and says which was done.',
  input: { target: z.string().min(1).max(512).describe('A desktop:window:… id from list_targets.') },
  output: actionOutput,
  annotations: { ...actionHints, destructiveHint: false },
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'focus_window', ...args }, res);
  },
});

export const desktopModule = defineSource({
  name: 'desktop',
  label: 'Desktop',
  icon: 'monitor',
  description: 'Displays and application windows.',
  kind: 'live',
  settings: desktopSettings,
  fields: [{ key: 'desktop.display', section: 'Connections', kind: 'text', label: 'X11 display', placeholder: ':0' }],
  tools: [focusWindow],
  osPermissions: true,
  // A window answers to its application (its class, or the OS's app name) and its executable, never its title.
  allowNames: (t) => {
    const exe = typeof t.details?.exe === 'string' ? t.details.exe : undefined;
    return [t.app, exe, exe ? basename(exe) : undefined];
  },
  ownTarget: async (target, source, own, signal) => {
    const pid = (await source.screen?.listTargets(signal))?.find((t) => t.id === target)?.details?.pid;
    return typeof pid === 'number' && own.pids.has(pid) ? `the Sightline app's own window (process ${pid})` : undefined;
  },
  async create(ctx) {
    const { createDesktopSource } = await import('./desktopSource.ts');
    return createDesktopSource({ settings: ctx.settings(), env: ctx.env, permissions: ctx.host.macPermissions });
  },
});
