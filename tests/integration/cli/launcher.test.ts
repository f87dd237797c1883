/**
 * The README's client config, run exactly as written through the SDK's StdioClientTransport (which
 * passes a client's bare environment: HOME, LOGNAME, PATH, SHELL, TERM, USER) with a PATH whose `node`
 * is the machine's older system Node; the launcher must re-execute on .node/'s Node 22. Also: what a
 * client sees when there is no Node 22, and the re-exec plumbing (stdio, exit codes, signals).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { accessSync, constants, cpSync, existsSync, mkdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isSupported } from '../../../bin/launcher.js';
import { tempDir } from '../../support/mcpHarness.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const DOT_NODE = join(REPO, '.node');
const LINUX_PROC = existsSync('/proc/self/exe');

interface ServerConfig {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** The `sightline` entry of the README's JSON config, with /path/to/sightline pointing here. */
function readmeConfig(): ServerConfig {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Connect an agent'));
  const json = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  if (!json) throw new Error('README: no JSON config under "Connect an agent"');
  const cfg = (JSON.parse(json) as { mcpServers: { sightline: ServerConfig } }).mcpServers.sightline;
  return { ...cfg, args: cfg.args.map((a) => a.replace('/path/to/sightline', REPO)) };
}

function nodeVersion(bin: string): string | undefined {
  const r = spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8', env: {}, timeout: 10_000 });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Every `node` on PATH (and the usual system places) outside the checkout's .node/, with its version. */
function systemNodes(): { path: string; version: string }[] {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin', '/bin'];
  const seen = new Set<string>();
  const out: { path: string; version: string }[] = [];
  for (const dir of dirs) {
    if (!dir || resolve(dir).startsWith(DOT_NODE)) continue;
    const bin = join(dir, process.platform === 'win32' ? 'node.exe' : 'node');
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      continue;
    }
    const real = realpathSync(bin);
    if (seen.has(real)) continue;
    seen.add(real);
    const version = nodeVersion(bin);
    if (version) out.push({ path: bin, version });
  }
  return out;
}

const nodes = systemNodes();
/** The machine's older Node (Debian 12: /usr/bin/node, v20): the case the launcher exists for. */
const oldNode = nodes.find((n) => !isSupported(n.version));
/** What `node` on a bare PATH is: the old one if there is one, else any system Node, else this one. */
const pathNode = oldNode ?? nodes[0] ?? { path: process.execPath, version: process.versions.node };

/** Run `fn` as an MCP client process would: its own environment is what the SDK passes on. */
async function withClientEnv<T>(env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  for (const k of Object.keys(env)) process.env[k] = env[k];
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(env)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

const children = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);

async function gone(pid: number, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!existsSync(`/proc/${pid}`) || /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));
function temp(prefix: string): string {
  const d = tempDir(prefix);
  temps.push(d);
  return d;
}

describe('the README client config, as an MCP client runs it', () => {
  it(`works with a bare environment whose node is ${pathNode.path} (v${pathNode.version})`, async () => {
    const cfg = readmeConfig();
    expect(cfg.command).toBe('node');
    expect(cfg.args).toEqual([join(REPO, 'bin', 'sightline.js'), 'mcp']);
    // A fresh HOME holds the default data dir; android off, so the check starts no adb server.
    const home = temp('sightline-launcher-home-');
    const dataDir = join(home, '.local', 'share', 'sightline');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ sources: { android: { enabled: false } } }));
    const path = [...new Set([dirname(pathNode.path), '/usr/bin', '/bin'])].join(delimiter);

    await withClientEnv({ PATH: path, HOME: home }, async () => {
      const transport = new StdioClientTransport({ command: cfg.command, args: cfg.args, env: cfg.env, stderr: 'pipe' });
      let stderr = '';
      transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: 'readme-config', version: '1.0.0' });
      try {
        await client.connect(transport);
        expect(client.getServerVersion()?.name).toBe('sightline');
        const launcher = transport.pid!;
        if (oldNode && LINUX_PROC) {
          // The client started the old Node; that one runs the server on .node/'s Node 22.
          expect(readlinkSync(`/proc/${launcher}/exe`)).toBe(realpathSync(oldNode.path));
          const kids = children(launcher);
          expect(kids).toHaveLength(1);
          expect(readlinkSync(`/proc/${kids[0]}/exe`)).toBe(realpathSync(join(DOT_NODE, 'bin', 'node')));
        }
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_targets', 'capture', 'click', 'list_screenshots', 'crop_screenshot']));
        const r = (await client.callTool({ name: 'list_screenshots', arguments: {} })) as CallToolResult;
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        expect(r.structuredContent).toMatchObject({ screenshots: [] });
        const targets = (await client.callTool({ name: 'list_targets', arguments: { source: 'browser' } })) as CallToolResult;
        expect(targets.structuredContent).toHaveProperty('targets');
        expect(stderr).toMatch(/MCP on stdio \(in-process core, data .*\.local\/share\/sightline\)/);
        await client.close();
        // The client closing stdin ends the server, and the launcher with it.
        if (LINUX_PROC) expect(await gone(launcher)).toBe(true);
      } finally {
        await client.close().catch(() => undefined);
      }
    });
  });
});

/** bin/ alone in a temp dir: a checkout with no .node/ and no build. */
function bareCheckout(withDotNode = false): string {
  const root = temp('sightline-launcher-checkout-');
  cpSync(join(REPO, 'bin'), join(root, 'bin'), { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  if (withDotNode) symlinkSync(DOT_NODE, join(root, '.node'));
  return root;
}

/** An old Node: the machine's, else this Node told it is 20.0.0 (process.versions is what the launcher reads). */
const OLD = oldNode ? { command: oldNode.path, pre: [] as string[], shows: `v${oldNode.version}` } : {
  command: process.execPath,
  pre: ['--import', `data:text/javascript,${encodeURIComponent('Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.0.0" } })')}`],
  shows: 'v20.0.0',
};

async function connectError(command: string, args: string[]): Promise<{ error: Error; stderr: string }> {
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'no-node', version: '1.0.0' });
  const error = await client.connect(transport).then(
    () => new Error('connected'),
    (e: unknown) => e as Error,
  );
  const pid = transport.pid;
  await client.close().catch(() => undefined);
  if (pid && LINUX_PROC) await gone(pid);
  return { error, stderr };
}

describe('no Node 22 anywhere', () => {
  it('tells the MCP client what to run, in its answer to initialize, and stderr says the same in one line', async () => {
    const root = bareCheckout();
    const { error, stderr } = await connectError(OLD.command, [...OLD.pre, join(root, 'bin', 'sightline.js'), 'mcp']);
    expect(error.message).toMatch(/needs Node 22\.12 or newer/);
    expect(error.message).toContain(OLD.shows);
    expect(error.message).toContain(`run \`npm start\` once in ${root}`);
    expect(error.message).not.toMatch(/Connection closed/);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(error.message).toContain(lines[0]);
  });

  it('exits 1 with the same line for other commands, and at once when stdin is not a client', () => {
    const root = bareCheckout();
    const r = spawnSync(OLD.command, [...OLD.pre, join(root, 'bin', 'sightline.js'), 'serve'], { encoding: 'utf8', input: '', timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^sightline needs Node 22\.12 or newer; .*run `npm start` once in /)]);
    // mcp with stdin closed and no initialize: the same line, exit 1, no hang.
    const m = spawnSync(OLD.command, [...OLD.pre, join(root, 'bin', 'sightline.js'), 'mcp'], { encoding: 'utf8', input: '', timeout: 20_000 });
    expect(m.status).toBe(1);
    expect(m.stderr).toMatch(/needs Node 22\.12/);
  });

  it('a checkout that was never built says so to the client', async () => {
    const root = bareCheckout(true);
    const { error } = await connectError(process.execPath, [join(root, 'bin', 'sightline.js'), 'mcp']);
    expect(error.message).toContain(`sightline is not built yet: run \`npm start\` (or \`npm run build\`) once in ${root}`);
  });
});

describe('re-exec plumbing (bin/launcher.js reexec)', () => {
  // A parent that re-executes `child.mjs <mode>` on this Node exactly as the launcher does.
  const dir = temp('sightline-launcher-reexec-');
  const launcher = pathToFileURL(join(REPO, 'bin', 'launcher.js')).href;
  writeFileSync(join(dir, 'parent.mjs'), `import { reexec } from ${JSON.stringify(launcher)};\nreexec(process.execPath, ${JSON.stringify(join(dir, 'child.mjs'))}, process.argv.slice(2), (e) => { console.error('spawn failed', e.message); process.exit(99); });\n`);
  writeFileSync(
    join(dir, 'child.mjs'),
    `const mode = process.argv[2];
if (mode === 'echo') process.stdin.pipe(process.stdout);
if (mode === 'exit') process.exit(Number(process.argv[3]));
if (mode === 'die') process.kill(process.pid, 'SIGTERM');
if (mode === 'env') { console.log(process.env.SIGHTLINE_LAUNCHED_BY); }
if (mode === 'wait') {
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => { process.stdout.write('child got ' + s + '\\n'); process.exit(40); });
  process.stdout.write('ready\\n');
  setInterval(() => {}, 1000);
}
`,
  );
  const run = (args: string[], input?: Buffer) => spawnSync(process.execPath, [join(dir, 'parent.mjs'), ...args], { input, timeout: 20_000, maxBuffer: 16 << 20 });

  it('passes stdin and stdout through byte for byte (inherited, never read by the launcher)', () => {
    const bytes = Buffer.concat([randomBytes(1 << 20), Buffer.from('\r\n\0\xff{"jsonrpc":"2.0"}\n')]);
    const r = run(['echo'], bytes);
    expect(r.status).toBe(0);
    expect(createHash('sha256').update(r.stdout).digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('leaves with the child\'s exit code, or dies of the child\'s signal', () => {
    expect(run(['exit', '7']).status).toBe(7);
    expect(run(['exit', '0']).status).toBe(0);
    const d = run(['die']);
    expect(d.status).toBeNull();
    expect(d.signal).toBe('SIGTERM');
  });

  it('tells the child which Node launched it', () => {
    expect(run(['env']).stdout.toString().trim()).toBe(process.execPath);
  });

  it.runIf(process.platform !== 'win32').each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('forwards %s to the child', async (sig) => {
    const p = spawn(process.execPath, [join(dir, 'parent.mjs'), 'wait'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise<void>((ok) => p.stdout.on('data', () => out.includes('ready') && ok()));
    p.kill(sig);
    const [code] = (await once(p, 'exit')) as [number | null];
    expect(out).toContain(`child got ${sig}`);
    expect(code).toBe(40);
  });
});
