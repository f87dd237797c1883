/** The browser source module: Chrome, Chromium, Edge and Brave tabs over the DevTools protocol. */
import { z } from 'zod';
import { actionHints, runAction } from '../../mcp/action.ts';
import { actionOutput } from '../../mcp/schemas.ts';
import { defineTool } from '../../mcp/tool.ts';
import { defineSource } from '../module.ts';
import type { BrowserSource } from './browserSource.ts';
import { browserSettings } from './settings.ts';
import { browserTools } from './tools.ts';

const scrollIntoView = defineTool({
  name: 'scroll_into_view',
  title: 'Scroll an element into view (browser)',
  description: 'Scroll a node from get_ui_tree into view (block/inline alignment); capture again afterwards. Returns the node\'s box in CSS px of the viewport.',
  input: {
    target: z.string().min(1).max(512).describe('A browser tab id from list_targets.'),
    node: z.string().min(1).max(128).describe('A node id from get_ui_tree.'),
    block: z.enum(['start', 'center', 'end', 'nearest']).optional().describe('Vertical alignment (default center).'),
    inline: z.enum(['start', 'center', 'end', 'nearest']).optional().describe('Horizontal alignment (default nearest).'),
  },
  output: actionOutput,
  annotations: { ...actionHints, destructiveHint: false },
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'scroll_into_view', ...args }, res);
  },
});

export const browserModule = defineSource({
  name: 'browser',
  label: 'Browser',
  icon: 'globe',
  description: 'Chrome and Chromium tabs over the DevTools protocol.',
  kind: 'live',
  settings: browserSettings,
  env: (env) => (env.SIGHTLINE_BROWSER_URL ? { endpoint: env.SIGHTLINE_BROWSER_URL } : undefined),
  fields: [
    { key: 'browser.endpoint', section: 'Connections', kind: 'text', label: 'Browser debugging endpoint', placeholder: 'http://127.0.0.1:9222' },
    { key: 'browser.executablePath', section: 'Connections', kind: 'text', label: 'Browser to launch', placeholder: '/usr/bin/chromium' },
  ],
  tools: [scrollIntoView, ...browserTools],
  actions: [
    {
      id: 'launch',
      label: 'Launch browser',
      help: 'Starts Chrome or Chromium with its own profile and a debugging port, so your everyday profile stays private.',
      primaryWhenUnavailable: true,
      run: async (source: BrowserSource) => ({ target: await source.launch(), message: 'Browser launched with its own profile. Its tabs are now targets.' }),
    },
  ],
  allowNames: (t) => [t.app, t.title, typeof t.details?.url === 'string' ? hostOf(t.details.url) : undefined],
  async create(ctx) {
    const { createBrowserSource } = await import('./browserSource.ts');
    return createBrowserSource({ settings: ctx.settings(), dataDir: ctx.dataDir, env: ctx.env, uploadRoots: () => ctx.core().files.uploadRoots });
  },
});

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
