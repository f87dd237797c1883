import { resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Compiles runes in the renderer's `*.svelte.ts` modules (the timeline's FramePager) for unit tests.
  plugins: [svelte()],
  // `// @vitest-environment svelte-client` in a test file: runes compiled and resolved for the browser.
  resolve: { conditions: ['browser'], alias: { 'vitest-environment-svelte-client': resolve(import.meta.dirname, 'tests/unit/renderer/svelteClientEnv.ts') } },
  test: {
    globalSetup: ['tests/globalSetup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          // Pure code: one worker per core, reused across files (each file paid ~1 s of imports
          // again when isolated, about half the unit suite's time).
          pool: 'threads',
          isolate: false,
          maxWorkers: 2,
          // Projects with different worker counts run one after the other: the unit tests first.
          sequence: { groupOrder: 0 },
          // A few property tests run a real sh a hundred times: generous on a loaded machine.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts', 'tests/e2e/**/*.test.ts'],
          // Real Chromium, Xvfb, adb and SQLite: mostly waiting on those processes, so three files
          // at a time keep a 2-core machine busy (two left it idle a third of the run: 186 s
          // against 161 s for the whole suite, measured on these machines).
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // A page, a server and a browser under the load of the whole suite: what a test polls for
          // (a row drawn, an event arrived) may take seconds to show, not the default one.
          expect: { poll: { timeout: 10_000 } },
          pool: 'forks',
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
