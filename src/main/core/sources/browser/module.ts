/** The browser source module: Chrome, Chromium, Edge and Brave tabs over the DevTools protocol. */
import { scrollIntoViewTool } from '../../mcp/sharedTools.ts';
import { defineSource } from '../module.ts';
import type { BrowserSource } from './browserSource.ts';
import { ownUrl } from '../../util/self.ts';
import { allowNamesOfUrl } from './urlPolicy.ts';
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
  // A tab answers to the origin of the page it shows (its title is the page's to choose).
  allowNames: (t) => allowNamesOfUrl(typeof t.details?.url === 'string' ? t.details.url : undefined),
  ownTarget: async (target, source, own, signal) => {
    const url = await source.screen.urlOf(target, signal);
    return url === undefined ? undefined : ownUrl(url, own);
  },
  async create(ctx) {
    const { createBrowserSource } = await import('./browserSource.ts');
    return createBrowserSource({ settings: ctx.settings(), dataDir: ctx.dataDir, env: ctx.env, uploadRoots: () => ctx.core().files.uploadRoots, allowlist: () => ctx.core().input.allowlist, onLost: () => ctx.healthChanged() });
  },
});
