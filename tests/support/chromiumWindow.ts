/**
 * Debian's Chromium in a real window (not headless) on a test display, showing a small mail page
 * served from 127.0.0.1 that reports what it observes (clicks, field text) back to the test, as
 * the GTK and Tk test apps do on stdout. It is started from a desktop entry's Exec line, as a
 * menu starts it, with only what a test needs added (no sandbox as root, a profile of its own,
 * its place on screen).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppEvent } from './xvfb.ts';

export interface MailPage {
  url: string;
  events: AppEvent[];
  next(pred: (e: AppEvent) => boolean, timeoutMs?: number): Promise<AppEvent>;
  close(): Promise<void>;
}

/** The page: a heading, a search field named by its placeholder only, a labelled field, a button, and `rows` messages. */
export function mailHtml(title: string, rows = 0): string {
  const list = Array.from({ length: rows }, (_, i) => `<li><a href="#m${i}">Message ${i + 1}</a> <span>from sender${i + 1}@example.org</span> <button>Archive ${i + 1}</button></li>`).join('');
  return `<!doctype html><meta charset="utf-8"><title>${title}</title>
<style>body{font:16px sans-serif;margin:16px} input{display:block;margin:8px 0;width:300px} ul{padding:0}</style>
<h1>Inbox</h1>
<input id="search" placeholder="Search mail">
<label for="to">To</label><input id="to">
<button id="send">Send</button>
<ul>${list}</ul>
<script>
const say = (e) => fetch('/event', { method: 'POST', body: JSON.stringify(e) });
for (const f of document.querySelectorAll('input')) f.addEventListener('input', () => say({ event: 'text', field: f.id, value: f.value }));
document.getElementById('send').addEventListener('click', () => say({ event: 'click', button: 'Send' }));
</script>`;
}

export async function serveMailPage(title: string, rows = 0): Promise<MailPage> {
  const events: AppEvent[] = [];
  const waiters: { pred: (e: AppEvent) => boolean; ok: (e: AppEvent) => void }[] = [];
  const html = mailHtml(title, rows);
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/event') {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const e = JSON.parse(body) as AppEvent;
        events.push(e);
        for (const w of [...waiters]) {
          if (!w.pred(e)) continue;
          waiters.splice(waiters.indexOf(w), 1);
          w.ok(e);
        }
        res.end();
      });
      return;
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(html);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    events,
    next: (pred, timeoutMs = 10_000) =>
      new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`mail page: no matching event in ${timeoutMs} ms; saw ${JSON.stringify(events.slice(-5))}`)), timeoutMs);
        waiters.push({ pred, ok: (e) => (clearTimeout(timer), ok(e)) });
      }),
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

export interface ChromiumWindow {
  windowId: number;
  pid: number;
  close(): Promise<void>;
}

/**
 * Chromium started from `exec` (a desktop entry's Exec line; `%U` becomes the URL) on the display
 * of `env`, in a window at `geometry` (WxH+X+Y); resolves once the window titled `title` is mapped.
 */
export async function startChromiumWindow(env: NodeJS.ProcessEnv, opts: { exec?: string; url: string; title: string; geometry?: string }): Promise<ChromiumWindow> {
  const [size, x, y] = (opts.geometry ?? '900x640+40+40').split('+') as [string, string, string];
  const profile = mkdtempSync(join(tmpdir(), 'sightline-chromium-window-'));
  const own = ['--no-sandbox', `--user-data-dir=${profile}`, '--no-first-run', '--no-default-browser-check', '--disable-gpu', '--password-store=basic', `--window-position=${x},${y}`, `--window-size=${size.replace('x', ',')}`];
  const words = (opts.exec ?? '/usr/bin/chromium %U').split(' ').filter(Boolean);
  const args = words.flatMap((w) => (w === '%U' || w === '%u' ? [...own, opts.url] : /^%[a-zA-Z]$/.test(w) ? [] : [w]));
  const [program, ...rest] = args as [string, ...string[]];
  // A process group of its own: closing it ends its helper processes too, which would otherwise
  // go on writing to the profile while it is removed.
  const proc: ChildProcess = spawn(program, rest, { env, stdio: 'ignore', detached: true });
  const kill = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-(proc.pid as number), signal);
    } catch {
      // The group is gone already.
    }
  };
  // Polled without blocking: the page's server runs in this process and must answer meanwhile.
  let windowId = 0;
  for (const deadline = Date.now() + 60_000; !windowId && Date.now() < deadline; ) {
    // By process too: another window may show the same page under the same title.
    const out = await run('xdotool', ['search', '--all', '--onlyvisible', '--pid', String(proc.pid), '--name', `^${opts.title} - Chromium$`], env);
    windowId = Number(out.trim().split('\n').pop());
    if (!windowId) await new Promise((r) => setTimeout(r, 200));
  }
  if (!windowId) {
    kill('SIGKILL');
    throw new Error(`chromium window "${opts.title}" not found in 60 s`);
  }
  return {
    windowId,
    pid: proc.pid!,
    close: () =>
      new Promise((ok) => {
        const done = (): void => {
          kill('SIGKILL');
          rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
          ok();
        };
        if (proc.exitCode !== null || proc.signalCode !== null) return done();
        proc.once('exit', done);
        kill('SIGTERM');
        setTimeout(() => kill('SIGKILL'), 3000).unref();
      }),
  };
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((ok) => execFile(cmd, args, { env, encoding: 'utf8', timeout: 10_000 }, (_e, stdout) => ok(stdout ?? '')));
}
