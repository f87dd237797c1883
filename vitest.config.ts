import { resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Compiles runes in the renderer's `*.svelte.ts` modules (the timeline's FramePager) for unit tests.
  plugins: [svelte()],
  // `// @vitest-environment svelte-client` in a test file: runes compiled and resolved for the browser.
  resolve: { conditions: ['browser'], alias: { 'vitest-environment-svelte-client': resolve(import.meta.dirname, 'tests/unit/renderer/svelteClientEnv.ts') } },
  test: {
    include: ['tests/**/*.test.ts'],
    // Real Chromium, Xvfb, adb and SQLite: give integration tests room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['tests/globalSetup.ts'],
  },
});
