/**
 * A Vitest environment (`// @vitest-environment svelte-client`, aliased in vitest.config.ts)
 * that compiles runes for the client, as the dashboard runs them: under the default Node
 * environment Svelte compiles for the server, where `$effect` never runs and state never
 * notifies anyone. Node's globals are enough; nothing here touches the DOM.
 */
import type { Environment } from 'vitest/runtime';

export default {
  name: 'svelte-client',
  viteEnvironment: 'client',
  setup: () => ({ teardown: () => undefined }),
} satisfies Environment;
