/**
 * `sightline agent` flags → options. Pure (argv and env in, options or a usage error out),
 * so every default and refusal is tested without spawning anything.
 */
import { parseArgs } from 'node:util';
import { EXIT_TABLE } from './stops.ts';

export type ProviderName = 'anthropic' | 'openai';

export interface AgentOptions {
  goal: string;
  target: string;
  provider: ProviderName;
  model: string;
  /** The provider's endpoint (OpenAI-compatible servers: Ollama, vLLM, LM Studio, a gateway). */
  baseUrl?: string;
  /** Read from the environment; never written anywhere. */
  apiKey: string;
  /** Anthropic only: ANTHROPIC_AUTH_TOKEN is sent as a bearer token instead of an API key. */
  authToken?: boolean;
  maxSteps: number;
  maxTimeMs: number;
  minConfidence: number;
  maxDimension?: number;
  /** Send the target's UI tree with each step when get_ui_tree can give one (click by node). */
  uiTree: boolean;
  dataDir?: string;
  out?: string;
  json: boolean;
  dryRun: boolean;
  maxTokens: number;
  /** Origins besides the tab's own the run may act on (--allow-origin). */
  allowOrigins: string[];
  /** --roam: act on the tab wherever it goes. */
  roam: boolean;
}

export const DEFAULT_MODELS: Record<ProviderName, string> = { anthropic: 'claude-sonnet-4-6', openai: 'gpt-4.1' };

export const AGENT_USAGE = `sightline agent — let a vision model reach a goal on one target, through Sightline

Usage:
  sightline agent --goal "…" --target <id | title/app/package/url to match> [options]

Options:
  --provider anthropic|openai   default: openai with --base-url or when only OPENAI_API_KEY is set, else anthropic
  --model NAME                  default: ${DEFAULT_MODELS.anthropic} / ${DEFAULT_MODELS.openai}
  --base-url URL                the provider's endpoint (OpenAI-compatible: Ollama, vLLM, LM Studio, a gateway)
  --max-steps N                 default 25
  --max-time DURATION           wall time, e.g. 120, 90s, 2m (default 2m)
  --min-confidence X            stop when the model's confidence is below X, 0–1 (default 0.5)
  --max-dimension PX            long edge of the image the model sees (default: Sightline's, 1000)
  --max-tokens N                the model's answer limit (default 1024)
  --no-ui-tree                  do not send the target's UI elements (click by node) with each step
  --out DIR                     write the run's artifacts to DIR (default <data dir>/runs/<time>-<slug>/)
  --data-dir DIR                Sightline's data directory (as for sightline mcp)
  --json                        print one JSON summary on stdout instead of the live lines
  --dry-run                     capture and decide once, act never
  --allow-origin ORIGIN         a tab target may also be acted on at this origin (repeatable; default: its own origin only)
  --roam                        act on a tab wherever it goes (no origin confinement)

Keys come from ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) and OPENAI_API_KEY; they are never written out.

Exit codes:
${EXIT_TABLE.map(([code, what]) => `  ${String(code).padStart(3)}  ${what}`).join('\n')}
`;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** "120", "90s", "2m", "1m30s", "1500ms" → milliseconds. */
export function parseDuration(text: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const m = /^(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$|^(\d+)ms$/.exec(t);
  if (!m || t === '') throw new UsageError(`--max-time: "${text}" is not a duration (e.g. 120, 90s, 2m).`);
  if (m[3] !== undefined) return Number(m[3]);
  return Math.round((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 1000);
}

function intFlag(name: string, value: string | undefined, min: number, max: number, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be a whole number ${min}–${max}, not "${value}".`);
  return n;
}

export function parseAgentArgs(argv: string[], env: NodeJS.ProcessEnv): AgentOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      allowPositionals: false,
      allowNegative: true,
      options: {
        goal: { type: 'string' },
        target: { type: 'string' },
        provider: { type: 'string' },
        model: { type: 'string' },
        'base-url': { type: 'string' },
        'max-steps': { type: 'string' },
        'max-time': { type: 'string' },
        'min-confidence': { type: 'string' },
        'max-dimension': { type: 'string' },
        'max-tokens': { type: 'string' },
        'ui-tree': { type: 'boolean', default: true },
        out: { type: 'string' },
        'data-dir': { type: 'string' },
        json: { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        'allow-origin': { type: 'string', multiple: true },
        roam: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return 'help';
  const goal = values.goal?.trim();
  if (!goal) throw new UsageError('--goal is required: say what the model should achieve.');
  const target = values.target?.trim();
  if (!target) throw new UsageError('--target is required: a target id, or a title, app, package or URL to match (see `list_targets`).');

  if (values.provider !== undefined && values.provider !== 'anthropic' && values.provider !== 'openai') {
    throw new UsageError(`--provider must be anthropic or openai, not "${values.provider}".`);
  }
  const baseUrlFlag = values['base-url'];
  if (baseUrlFlag !== undefined && !URL.canParse(baseUrlFlag)) throw new UsageError(`--base-url: "${baseUrlFlag}" is not a URL.`);
  // --base-url alone means an OpenAI-compatible server (Ollama, vLLM, LM Studio): the common case.
  const provider: ProviderName = (values.provider as ProviderName | undefined) ?? (baseUrlFlag || (!env.ANTHROPIC_API_KEY && !env.ANTHROPIC_AUTH_TOKEN && env.OPENAI_API_KEY) ? 'openai' : 'anthropic');
  const baseUrl = baseUrlFlag ?? (provider === 'anthropic' ? env.ANTHROPIC_BASE_URL : env.OPENAI_BASE_URL) ?? undefined;

  let apiKey: string | undefined;
  let authToken = false;
  if (provider === 'anthropic') {
    apiKey = env.ANTHROPIC_API_KEY || undefined;
    if (!apiKey && env.ANTHROPIC_AUTH_TOKEN) {
      apiKey = env.ANTHROPIC_AUTH_TOKEN;
      authToken = true;
    }
    if (!apiKey) throw new UsageError('No Anthropic key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or use --provider openai.');
  } else {
    apiKey = env.OPENAI_API_KEY || undefined;
    // Local OpenAI-compatible servers (Ollama, LM Studio) take any key; the SDK insists on one.
    if (!apiKey && baseUrl) apiKey = 'no-key';
    if (!apiKey) throw new UsageError('No OpenAI key: set OPENAI_API_KEY, or give --base-url for a local OpenAI-compatible server.');
  }
  // A local server serves its own models: guessing a cloud model name would only fail later.
  if (!values.model && provider === 'openai' && baseUrl) throw new UsageError('--model is required with --base-url: name a vision model your server serves (e.g. llava, qwen2.5vl).');
  const model = values.model ?? DEFAULT_MODELS[provider];

  const maxTimeMs = values['max-time'] === undefined ? 120_000 : parseDuration(values['max-time']);
  if (maxTimeMs < 1000 || maxTimeMs > 24 * 3600_000) throw new UsageError('--max-time must be between 1 s and 24 h.');
  let minConfidence = 0.5;
  if (values['min-confidence'] !== undefined) {
    minConfidence = Number(values['min-confidence']);
    if (!Number.isFinite(minConfidence) || minConfidence < 0 || minConfidence > 1) throw new UsageError(`--min-confidence must be 0–1, not "${values['min-confidence']}".`);
  }
  const allowOrigins = (values['allow-origin'] ?? []).map((o) => {
    const u = URL.canParse(o) ? new URL(o) : undefined;
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) throw new UsageError(`--allow-origin: "${o}" is not a web origin (e.g. https://example.com).`);
    return u.origin;
  });
  return {
    goal,
    target,
    provider,
    model,
    ...(baseUrl ? { baseUrl } : {}),
    apiKey,
    ...(authToken ? { authToken } : {}),
    maxSteps: intFlag('max-steps', values['max-steps'], 1, 1000, 25)!,
    maxTimeMs,
    minConfidence,
    ...(values['max-dimension'] !== undefined ? { maxDimension: intFlag('max-dimension', values['max-dimension'], 64, 8192) } : {}),
    maxTokens: intFlag('max-tokens', values['max-tokens'], 64, 32_000, 1024)!,
    uiTree: values['ui-tree'] ?? true,
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    ...(values.out ? { out: values.out } : {}),
    json: values.json ?? false,
    dryRun: values['dry-run'] ?? false,
    allowOrigins,
    roam: values.roam ?? false,
  };
}

/**
 * The secrets a --base-url carries (a user name and password, query values such as api-key=…),
 * and the URL without them, fit to show and store.
 */
export function baseUrlSecrets(url: string | undefined): { shown?: string; secrets: string[] } {
  if (!url || !URL.canParse(url)) return { ...(url ? { shown: url } : {}), secrets: [] };
  const u = new URL(url);
  const secrets = [decodeURIComponent(u.username), decodeURIComponent(u.password), ...[...u.searchParams.values()]].filter((s) => s.length > 0);
  u.username = '';
  u.password = '';
  for (const k of [...u.searchParams.keys()]) u.searchParams.set(k, 'redacted');
  return { shown: u.toString(), secrets };
}

/** Names of environment variables that hold secrets: never passed on to the MCP server process. */
export function isSecretEnv(name: string): boolean {
  return /(^|_)(API_KEY|AUTH_TOKEN|SECRET|ACCESS_KEY)$/i.test(name) || /^(ANTHROPIC|OPENAI)_/i.test(name);
}
