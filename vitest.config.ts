import { defineConfig } from 'vitest/config';

export default defineConfig({
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
