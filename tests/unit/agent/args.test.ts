import { describe, expect, it } from 'vitest';
import { baseUrlSecrets, isSecretEnv, parseAgentArgs, parseDuration, UsageError } from '../../../src/cli/agent/args.ts';
import { serverEnv, sightlineMcpCommand } from '../../../src/cli/agent/mcp.ts';

const base = ['--goal', 'Do it', '--target', 'x'];
const fails = (argv: string[], env: NodeJS.ProcessEnv, message: RegExp): void => {
  expect(() => parseAgentArgs(argv, env)).toThrow(UsageError);
  expect(() => parseAgentArgs(argv, env)).toThrow(message);
};

describe('parseAgentArgs', () => {
  it('defaults: Anthropic, 25 steps, 2 minutes, confidence 0.5, UI tree on', () => {
    expect(parseAgentArgs(base, { ANTHROPIC_API_KEY: 'k1' })).toEqual({
      goal: 'Do it', target: 'x', provider: 'anthropic', model: 'claude-sonnet-4-6', apiKey: 'k1', maxSteps: 25, maxTimeMs: 120_000, minConfidence: 0.5, maxTokens: 1024, uiTree: true, json: false, dryRun: false, allowOrigins: [], roam: false,
    });
  });
  it('picks OpenAI when only its key or a base URL is there; local servers need no key but a model', () => {
    expect(parseAgentArgs(base, { OPENAI_API_KEY: 'k2' })).toMatchObject({ provider: 'openai', model: 'gpt-4.1', apiKey: 'k2' });
    expect(parseAgentArgs([...base, '--base-url', 'http://127.0.0.1:11434/v1', '--model', 'llava'], {})).toMatchObject({ provider: 'openai', apiKey: 'no-key', baseUrl: 'http://127.0.0.1:11434/v1' });
    fails([...base, '--base-url', 'http://127.0.0.1:11434/v1'], {}, /--model is required/);
    expect(parseAgentArgs(base, { OPENAI_API_KEY: 'k2', OPENAI_BASE_URL: 'http://gw/v1', ANTHROPIC_API_KEY: 'k1' })).toMatchObject({ provider: 'anthropic' });
    expect(parseAgentArgs([...base, '--base-url', 'http://gw/v1', '--model', 'm'], { ANTHROPIC_API_KEY: 'k1' })).toMatchObject({ provider: 'openai', apiKey: 'no-key' });
    expect(parseAgentArgs([...base, '--base-url', 'http://gw', '--provider', 'anthropic'], { ANTHROPIC_API_KEY: 'k1' })).toMatchObject({ provider: 'anthropic', baseUrl: 'http://gw', model: 'claude-sonnet-4-6' });
    expect(parseAgentArgs([...base, '--provider', 'anthropic'], { ANTHROPIC_AUTH_TOKEN: 't' })).toMatchObject({ apiKey: 't', authToken: true });
  });
  it('refuses what it cannot run, saying which flag', () => {
    fails(['--target', 'x'], {}, /--goal is required/);
    fails(['--goal', 'g'], {}, /--target is required/);
    fails(base, {}, /No Anthropic key/);
    fails([...base, '--provider', 'openai'], {}, /No OpenAI key/);
    fails([...base, '--provider', 'gemini'], { ANTHROPIC_API_KEY: 'k' }, /--provider must be/);
    fails([...base, '--max-steps', '0'], { ANTHROPIC_API_KEY: 'k' }, /--max-steps/);
    fails([...base, '--min-confidence', '2'], { ANTHROPIC_API_KEY: 'k' }, /--min-confidence/);
    fails([...base, '--max-time', 'soon'], { ANTHROPIC_API_KEY: 'k' }, /--max-time/);
    fails([...base, '--bogus'], { ANTHROPIC_API_KEY: 'k' }, /bogus/);
    expect(parseAgentArgs(['--help'], {})).toBe('help');
  });
  it('reads every flag', () => {
    const o = parseAgentArgs([...base, '--max-steps', '5', '--max-time', '90s', '--min-confidence', '0', '--max-dimension', '800', '--no-ui-tree', '--out', '/tmp/o', '--data-dir', '/tmp/d', '--json', '--dry-run'], { ANTHROPIC_API_KEY: 'k' });
    expect(o).toMatchObject({ maxSteps: 5, maxTimeMs: 90_000, minConfidence: 0, maxDimension: 800, uiTree: false, out: '/tmp/o', dataDir: '/tmp/d', json: true, dryRun: true });
  });
});

describe('parseDuration', () => {
  it('reads seconds, s, m, ms', () => {
    expect(parseDuration('120')).toBe(120_000);
    expect(parseDuration('1.5')).toBe(1500);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('1500ms')).toBe(1500);
    expect(() => parseDuration('')).toThrow(UsageError);
    expect(() => parseDuration('2h')).toThrow(UsageError);
  });
});

describe('the MCP server process', () => {
  it('gets our environment less every secret', () => {
    expect(isSecretEnv('ANTHROPIC_API_KEY')).toBe(true);
    expect(isSecretEnv('OPENAI_API_KEY')).toBe(true);
    expect(isSecretEnv('GITHUB_TOKEN')).toBe(false);
    expect(isSecretEnv('AWS_SECRET')).toBe(true);
    expect(serverEnv({ PATH: '/bin', DISPLAY: ':1', ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k2', OPENAI_BASE_URL: 'u', SIGHTLINE_BROWSER_URL: 'b' })).toEqual({ PATH: '/bin', DISPLAY: ':1', SIGHTLINE_BROWSER_URL: 'b' });
  });
  it('is this same CLI with its loader flags, never a debugger port', () => {
    expect(sightlineMcpCommand('/d', '/app/bin/sightline.js', ['--import', 'x', '--inspect=9229'])).toEqual({ command: process.execPath, args: ['--import', 'x', '/app/bin/sightline.js', 'mcp', '--data-dir', '/d'] });
  });
});

describe('confinement flags and base URL credentials', () => {
  const env = { ANTHROPIC_API_KEY: 'k1' };
  it('--allow-origin takes web origins (repeatable); --roam lifts the confinement', () => {
    const o = parseAgentArgs(['--goal', 'g', '--target', 't', '--allow-origin', 'https://a.example/x', '--allow-origin', 'http://b.example:8080'], env);
    expect(o).toMatchObject({ allowOrigins: ['https://a.example', 'http://b.example:8080'], roam: false });
    expect(parseAgentArgs(['--goal', 'g', '--target', 't', '--roam'], env)).toMatchObject({ roam: true });
    expect(() => parseAgentArgs(['--goal', 'g', '--target', 't', '--allow-origin', 'file:///etc'], env)).toThrow(/not a web origin/);
  });

  it('a base URL shows without its user, password or query values, which count as secrets', () => {
    expect(baseUrlSecrets('https://u:p%40ss@gw.example/v1?api-key=abc&x=1')).toEqual({ shown: 'https://gw.example/v1?api-key=redacted&x=redacted', secrets: ['u', 'p@ss', 'abc', '1'] });
    expect(baseUrlSecrets(undefined)).toEqual({ secrets: [] });
  });
});
