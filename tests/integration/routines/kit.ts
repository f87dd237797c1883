/**
 * A routine replayed in process as `sightline replay` replays it (the core's tools called by name,
 * a session of its own), so a test can read what ROUTINE_DIVERGED carries in its details, which an
 * MCP error result only says in words.
 */
import { SessionFrames } from '../../../src/main/core/frames/session.ts';
import { ToolCaller } from '../../../src/main/core/mcp/server.ts';
import type { Divergence } from '../../../src/main/core/routines/replay.ts';
import { isSightlineError } from '../../../src/shared/errors.ts';
import type { Harness } from '../../support/mcpHarness.ts';

/** The divergence a replay stops with (its code and details), or a failure of the test when it does not stop so. */
export async function divergence(h: Harness, name: string, inputs: Record<string, string> = {}): Promise<Divergence & { runId: string }> {
  const signal = new AbortController().signal;
  const ctx = new ToolCaller(h.core).context({ session: new SessionFrames(), signal, client: 'test replay', progress: () => undefined });
  try {
    await h.core.routines.run(h.core.routines.load(name), (run) => ({ call: (tool, args) => ctx.call(tool, args, run), text: h.core.text, targets: h.core.targets, session: ctx.session, signal }), { inputs });
  } catch (e) {
    if (isSightlineError(e) && e.code === 'ROUTINE_DIVERGED') return e.details as unknown as Divergence & { runId: string };
    throw e;
  }
  throw new Error(`routine "${name}" did not diverge`);
}
