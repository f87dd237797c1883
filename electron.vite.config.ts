import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

export default defineConfig({
  main: {
    // The agent's prompt (src/cli/agent/prompt.md) is inlined into the bundle; sources read the file.
    define: { __SIGHTLINE_AGENT_PROMPT__: JSON.stringify(readFileSync(resolve('src/cli/agent/prompt.md'), 'utf8')) },
    build: {
      outDir: 'out/main',
      // Bundled, not loaded from node_modules at run time: date-fns' ESM index re-exports ~250 files
      // (1.3–1.8 s of the CLI's start-up), and the MCP SDK with zod is hundreds of small modules;
      // as chunks of ours they load in about half the time. What an MCP client waits for before
      // `initialize` is answered is mostly this.
      externalizeDeps: { exclude: ['date-fns', '@modelcontextprotocol/sdk', 'zod'] },
      rollupOptions: {
        input: {
          // The Electron app (imports electron) and the plain-Node CLI (never does).
          index: resolve('src/main/app/index.ts'),
          cli: resolve('src/cli/index.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // Sandboxed preloads run as classic scripts: CommonJS, named .cjs since the package is ESM.
      rollupOptions: { input: { index: resolve('src/preload/index.ts') }, output: { format: 'cjs', entryFileNames: '[name].cjs' } },
    },
  },
  renderer: {
    root: 'src/renderer',
    // Relative asset URLs: the same build is served by the local HTTP server and loaded by the app window.
    base: './',
    plugins: [svelte()],
    build: {
      outDir: 'out/renderer',
      // Also served over HTTP to browsers: ship it minified.
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
  },
});
