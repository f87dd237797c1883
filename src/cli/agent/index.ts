/**
 * `sightline agent`: flags → a run. Connects to Sightline as an MCP client, resolves the target,
 * loads the provider's SDK, runs the loop under the step and wall-time limits, and always leaves
 * run.json saying how it ended. Returns the exit code (stops.ts).
 */
import { resolve } from 'node:path';
import { resolveDataDir } from '../../main/core/settings/dataDir.ts';
import { capabilitiesOf, type Capabilities } from './action.ts';
import { AGENT_USAGE, baseUrlSecrets, isSecretEnv, parseAgentArgs, UsageError, type AgentOptions } from './args.ts';
import { RunArtifacts, redact } from './artifacts.ts';
import { runLoop, type RunSummary, type StepRecord } from './loop.ts';
import { connectSightline, errorCode, resultText, serverEnv, sightlineMcpCommand, type SightlineClient } from './mcp.ts';
import { createReporter } from './output.ts';
import { promptTemplate, systemPrompt } from './prompt.ts';
import { createProvider } from './providers/index.ts';
import { EXIT, stop, StopSignal, stopWith, type Stop } from './stops.ts';
import { matchTarget, type TargetEntry } from './target.ts';

export interface AgentIo {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  version: string;
  /** How to start `sightline mcp` (default: this same CLI); tests and benchmarks may name another. */
  mcpCommand?: (dataDir: string) => { command: string; args: string[] };
}

const MAX_SERVER_LOG = 1 << 20;

export async function runAgentCli(argv: string[], io: AgentIo): Promise<number> {
  let opts: AgentOptions | 'help';
  try {
    opts = parseAgentArgs(argv, io.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr.write(`sightline agent: ${e.message}\nRun \`sightline agent --help\` for the flags.\n`);
    return EXIT.usage;
  }
  if (opts === 'help') {
    io.stdout.write(AGENT_USAGE);
    return EXIT.done;
  }
  return run(opts, io);
}

async function run(opts: AgentOptions, io: AgentIo): Promise<number> {
  const started = new Date();
  const t0 = performance.now();
  const dataDir = resolve(resolveDataDir(opts.dataDir, io.env));
  const base = baseUrlSecrets(opts.baseUrl);
  const secrets = [opts.apiKey, ...base.secrets, ...Object.entries(io.env).flatMap(([k, v]) => (v && isSecretEnv(k) ? [v] : []))];
  let artifacts: RunArtifacts;
  try {
    artifacts = RunArtifacts.create({ dataDir, ...(opts.out ? { out: opts.out } : {}), goal: opts.goal, at: started, secrets });
  } catch (e) {
    io.stderr.write(`sightline agent: ${(e as Error).message}\n`);
    return EXIT.usage;
  }
  const reporter = createReporter(opts.json, io.stdout, secrets);
  const wall = new AbortController();
  const interrupt = new AbortController();
  const timer = setTimeout(() => wall.abort('wallTime'), opts.maxTimeMs);
  const onSigint = (): void => interrupt.abort('interrupted');
  process.once('SIGINT', onSigint);
  const signal = AbortSignal.any([wall.signal, interrupt.signal]);
  const remainingMs = (): number => Math.max(0, opts.maxTimeMs - (performance.now() - t0));

  let serverLog = '';
  let client: SightlineClient | undefined;
  let target: TargetEntry | undefined;
  let steps: StepRecord[] = [];
  const startup = { connectMs: 0, targetsMs: 0, providerMs: 0 };
  /** When the run stopped; closing the server afterwards is not the run's time. */
  let stoppedAt: number | undefined;
  let ended: Stop;
  const summary = (s: Stop): RunSummary => ({
    runId: artifacts.id,
    artifacts: artifacts.dir,
    goal: opts.goal,
    ...(target ? { target: { id: target.id, title: target.title, source: target.source, kind: target.kind } } : {}),
    provider: opts.provider,
    model: opts.model,
    ...(base.shown ? { baseUrl: base.shown } : {}),
    dryRun: opts.dryRun,
    limits: { maxSteps: opts.maxSteps, maxTimeMs: opts.maxTimeMs, minConfidence: opts.minConfidence },
    startedAt: started.toISOString(),
    endedAt: new Date(started.getTime() + (stoppedAt ?? performance.now()) - t0).toISOString(),
    durationMs: Math.round((stoppedAt ?? performance.now()) - t0),
    startup: { connectMs: Math.round(startup.connectMs), targetsMs: Math.round(startup.targetsMs), providerMs: Math.round(startup.providerMs) },
    stop: s,
    steps,
  });
  const { stop: _none, ...head } = summary(stop('done', ''));
  artifacts.write('run.json', { ...head, status: 'running' });

  try {
    let t = performance.now();
    const mcp = (io.mcpCommand ?? sightlineMcpCommand)(dataDir);
    try {
      client = await connectSightline({
        ...mcp,
        env: serverEnv(io.env),
        run: { id: artifacts.id, artifacts: artifacts.dir },
        version: io.version,
        onStderr: (chunk) => {
          if (serverLog.length < MAX_SERVER_LOG) serverLog += chunk;
        },
      });
    } catch (e) {
      throw stopWith('error', `could not start Sightline's MCP server: ${(e as Error)?.message ?? String(e)}`);
    }
    startup.connectMs = performance.now() - t;
    t = performance.now();
    target = await resolveTarget(client, opts.target, signal);
    startup.targetsMs = performance.now() - t;
    artifacts.write('target.json', target);
    const caps = await capabilities(client, target, opts.uiTree, signal);
    const system = systemPrompt(promptTemplate(), caps);
    artifacts.write('system-prompt.md', `${system}\n`);
    t = performance.now();
    const provider = await createProvider(opts.provider, { model: opts.model, apiKey: opts.apiKey, maxTokens: opts.maxTokens, ...(opts.authToken ? { authToken: true } : {}), ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}) });
    startup.providerMs = performance.now() - t;
    const result = await runLoop({
      goal: opts.goal,
      target,
      maxSteps: opts.maxSteps,
      minConfidence: opts.minConfidence,
      ...(opts.maxDimension ? { maxDimension: opts.maxDimension } : {}),
      dryRun: opts.dryRun,
      ...(opts.roam ? {} : { confine: confinement(target, opts.allowOrigins) }),
      system,
      caps,
      client,
      provider,
      artifacts,
      reporter,
      signal,
      remainingMs,
    });
    steps = result.steps;
    ended = result.stop;
  } catch (e) {
    ended = e instanceof StopSignal ? e.stop : signal.aborted ? stop(signal.reason === 'interrupted' ? 'interrupted' : 'wallTime', 'stopped before the first step') : stop('error', (e as Error)?.message ?? String(e));
  } finally {
    stoppedAt = performance.now();
    clearTimeout(timer);
    process.off('SIGINT', onSigint);
    await client?.close().catch(() => undefined);
  }
  ended = { ...ended, message: redact(ended.message, secrets) };
  const final = summary(ended);
  artifacts.write('run.json', { ...final, status: ended.reason === 'done' ? 'done' : 'stopped' });
  if (serverLog) artifacts.write('server.log', serverLog);
  const failed = await artifacts.flush();
  if (failed) io.stderr.write(`sightline agent: could not write every artifact: ${failed.message}\n`);
  reporter.summary(final);
  return ended.exitCode;
}

/** A tab stays on its own origin (and those of --allow-origin); a window or a device is one target id already. */
function confinement(target: TargetEntry, allowOrigins: readonly string[]): { origins: string[] } | undefined {
  const url = typeof target.details?.url === 'string' ? target.details.url : undefined;
  if (target.source !== 'browser' || !url) return undefined;
  const own = URL.canParse(url) ? new URL(url).origin : 'null';
  return { origins: [...new Set([own, ...allowOrigins])] };
}

async function resolveTarget(client: SightlineClient, query: string, signal: AbortSignal): Promise<TargetEntry> {
  const res = await client.call('list_targets', {}, { signal, timeoutMs: 30_000 });
  if (res.isError) throw stopWith('error', `list_targets failed: ${resultText(res)}`, errorCode(res));
  const sc = res.structuredContent as { targets?: TargetEntry[]; errors?: { source: string; code: string; message: string }[] } | undefined;
  const targets = sc?.targets ?? [];
  const m = matchTarget(query, targets);
  // A matched target that cannot be captured (an offline device) says so at the first capture, with its code.
  if (m.ok) return m.target;
  const unavailable = (sc?.errors ?? []).map((e) => `\n  (${e.source} unavailable: ${e.code}: ${e.message})`).join('');
  throw stopWith('usage', `${m.message}${unavailable}`);
}

/**
 * The tools' schemas say what the server can do; whether this target has a UI tree only asking
 * tells (a desktop window has none). Without a tree the model is offered no node ids.
 */
async function capabilities(client: SightlineClient, target: TargetEntry, wantTree: boolean, signal: AbortSignal): Promise<Capabilities> {
  const caps = capabilitiesOf(client.tools);
  const noTree = { ...caps, uiTree: false, clickNode: false, typeNode: false };
  if (!caps.uiTree || !wantTree) return noTree;
  const res = await client.call('get_ui_tree', { target: target.id, maxNodes: 1 }, { signal, timeoutMs: 30_000 });
  return res.isError ? noTree : caps;
}
