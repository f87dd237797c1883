/**
 * A real X11 desktop for tests and benchmarks: Xvfb on a free display number plus
 * openbox (node-screenshots lists windows only under a window manager), and the Tk
 * test app that reports what it observes as JSON lines.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';

export interface XDisplay {
  display: string;
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function kill(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((ok) => {
    p.once('exit', () => ok());
    p.kill('SIGTERM');
    setTimeout(() => p.kill('SIGKILL'), 2000).unref();
  });
}

export async function startXvfb(size = '1280x800', opts: { windowManager?: boolean } = {}): Promise<XDisplay> {
  // Xvfb picks a free display itself and tells us which (-displayfd): parallel test files never collide.
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${size}x24`, '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  const n = await new Promise<number>((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error('Xvfb did not start')), 10_000);
    xvfb.stdio[3]!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        ok(Number(out.trim()));
      }
    });
    xvfb.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`Xvfb exited (${code})`));
    });
  });
  const display = `:${n}`;
  const env = { ...process.env, DISPLAY: display, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
  if (opts.windowManager === false) return { display, env, stop: () => kill(xvfb) };
  const startWm = (): ChildProcess => spawn('openbox', ['--sm-disable'], { env, stdio: 'ignore' });
  let wm = startWm();
  let exited = false;
  const watch = (p: ChildProcess): void => void p.once('exit', () => (exited = true));
  watch(wm);
  // openbox is ready once it publishes the stacking list node-screenshots reads windows from. On a
  // loaded machine it can take a while, or die on start: wait up to 30 s, starting it again twice.
  let ready = false;
  let restarts = 0;
  const deadline = Date.now() + 30_000;
  while (!ready && Date.now() < deadline) {
    const r = spawnSync('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK', '_NET_CLIENT_LIST_STACKING'], { env, encoding: 'utf8', timeout: 5000 });
    ready = /window id/.test(r.stdout ?? '') && !/_NET_CLIENT_LIST_STACKING:\s+not found/.test(r.stdout ?? '');
    if (ready) break;
    if (exited && restarts < 2) {
      restarts++;
      exited = false;
      wm = startWm();
      watch(wm);
    }
    await sleep(50);
  }
  if (!ready) {
    await kill(wm);
    await kill(xvfb);
    throw new Error(`openbox did not come up on ${display}`);
  }
  return {
    display,
    env,
    async stop() {
      await kill(wm);
      await kill(xvfb);
    },
  };
}

export interface AppEvent {
  event: string;
  [k: string]: unknown;
}

export interface TestApp {
  /** X window id (decimal), as node-screenshots and xdotool name it. */
  windowId: number;
  events: AppEvent[];
  /** Resolves with the first event (from now on) matching `pred`. */
  next(pred: (e: AppEvent) => boolean, timeoutMs?: number): Promise<AppEvent>;
  send(cmd: string): void;
  close(): Promise<void>;
}

const APP = resolve(import.meta.dirname, '../fixtures/desktop/testApp.py');

export async function startTestApp(x: XDisplay, opts: { title?: string; geometry?: string; label?: string } = {}): Promise<TestApp> {
  const proc = spawn('python3', [APP, '--title', opts.title ?? 'Sightline Test App', '--geometry', opts.geometry ?? '400x300+100+100', ...(opts.label ? ['--label', opts.label] : [])], { env: x.env, stdio: ['pipe', 'pipe', 'inherit'] });
  const { events, next } = appEvents(proc, 'test app');
  const ready = await next((e) => e.event === 'ready', 15_000);
  // The client window xdotool and node-screenshots see (the Tk toplevel's wrapper is its parent).
  const found = spawnSync('xdotool', ['search', '--sync', '--name', `^${escapeRegex(opts.title ?? 'Sightline Test App')}$`], { env: x.env, encoding: 'utf8', timeout: 10_000 });
  const windowId = Number(found.stdout.trim().split('\n').pop());
  if (!windowId) throw new Error(`test app window not found (ready: ${JSON.stringify(ready)})`);
  return {
    windowId,
    events,
    next,
    send: (cmd) => void proc.stdin!.write(`${cmd}\n`),
    close: () => kill(proc),
  };
}

/** xdotool matches the Latin-1 WM_NAME, so non-ASCII characters match as wildcards. */
/** The JSON lines a test app writes about what it observes, and a wait for the next one that matches. */
export function appEvents(proc: ChildProcess, name: string): { events: AppEvent[]; next(pred: (e: AppEvent) => boolean, timeoutMs?: number): Promise<AppEvent> } {
  const events: AppEvent[] = [];
  const waiters: { pred: (e: AppEvent) => boolean; ok: (e: AppEvent) => void }[] = [];
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    let e: AppEvent;
    try {
      e = JSON.parse(line) as AppEvent;
    } catch {
      return;
    }
    events.push(e);
    for (const w of [...waiters]) {
      if (w.pred(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.ok(e);
      }
    }
  });
  const next = (pred: (e: AppEvent) => boolean, timeoutMs = 10_000): Promise<AppEvent> =>
    new Promise((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`${name}: no matching event in ${timeoutMs} ms; saw ${JSON.stringify(events.slice(-5))}`)), timeoutMs);
      waiters.push({ pred, ok: (e) => (clearTimeout(timer), ok(e)) });
    });
  return { events, next };
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[^\x20-\x7e]/g, '.+');
}

/** Run xdotool on the test display. */
export function xdotool(x: XDisplay, ...args: string[]): string {
  const r = spawnSync('xdotool', args, { env: x.env, encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0) throw new Error(`xdotool ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}
