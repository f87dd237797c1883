/** The browser source module: Chrome, Chromium, Edge and Brave tabs over the DevTools protocol. */
import { scrollIntoViewTool } from '../../mcp/sharedTools.ts';
import { defineSource } from '../module.ts';
import type { BrowserSource } from './browserSource.ts';
import { browserSettings } from './settings.ts';
import { browserTools } from './tools.ts';

export const browserModule = defineSource({
  name: 'browser',
  label: 'Browser',
  icon: 'globe',
  description: 'Chrome and Chromium tabs over the DevTools protocol.',
  kind: 'live',
  settings: browserSettings,
  env: (env) => (env.SIGHTLINE_BROWSER_URL ? { endpoint: env.SIGHTLINE_BROWSER_URL } : undefined),
  fields: [
    { key: 'browser.endpoint', section: 'Connections', kind: 'text', label: 'Browser debugging endpoint', placeholder: 'http://127.0.0.1:9222', env: 'SIGHTLINE_BROWSER_URL' },
    { key: 'browser.executablePath', section: 'Connections', kind: 'text', label: 'Browser to launch', placeholder: '/usr/bin/chromium' },
  ],
  tools: [scrollIntoViewTool, ...browserTools],
  actions: [
    {
      id: 'launch',
      label: 'Launch browser',
      help: 'Starts Chrome or Chromium with its own profile and a debugging port, so your everyday profile stays private.',
      primaryWhenUnavailable: true,
      run: async (source: BrowserSource) => ({ target: await source.launch(), message: 'Browser launched with its own profile. Its tabs are now targets.' }),
    },
  ],
  async create(ctx) {
    const { createBrowserSource } = await import('./browserSource.ts');
    return createBrowserSource({ settings: ctx.settings(), dataDir: ctx.dataDir, env: ctx.env, onLost: () => ctx.healthChanged() });
  },
});
