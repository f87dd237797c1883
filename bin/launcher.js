// How `bin/sightline.js` gets onto a Node >= 22.12. MCP clients spawn `node bin/sightline.js mcp`
// with a bare environment, whose `node` is often the system's (Node 20 on Debian 12, Ubuntu 24.04).
// Such a Node re-executes the script with the Node 22 that `npm start` / `npm test` fetched into the
// checkout's .node/. Plain JS with nothing newer than Node 12's syntax (no ?., no ??, no top-level
// await): this file must run on exactly the old Nodes it replaces.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const MIN_NODE = [22, 12];
/** Set in the re-executed child (to the old Node's path): a child that is still too old must not loop. */
export const LAUNCHED_ENV = 'SIGHTLINE_LAUNCHED_BY';
/** A Node 22 binary to use instead of the checkout's .node/ (e.g. one from nvm, set in the client's env block). */
export const NODE_ENV = 'SIGHTLINE_NODE';

/** True when `version` ("20.20.2" or "v20.20.2") is at least 22.12. */
export function isSupported(version) {
  const parts = String(version).replace(/^v/, '').split('.').map(Number);
  const major = parts[0] || 0;
  const minor = parts[1] || 0;
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

/** Where a Node 22 may be, best first: SIGHTLINE_NODE, then the checkout's .node/ (scripts/node22.sh). */
export function nodeCandidates(root, env, platform) {
  const out = [];
  if (env[NODE_ENV]) out.push(env[NODE_ENV]);
  out.push(platform === 'win32' ? join(root, '.node', 'node.exe') : join(root, '.node', 'bin', 'node'));
  return out;
}

/**
 * What to do on this Node: run the CLI here, re-execute on another Node, or fail with one line that
 * says what to run. Pure (the file system comes in as `exists`), so every branch is tested on any Node.
 */
export function planLaunch(o) {
  if (isSupported(o.version)) return { kind: 'run' };
  const here = 'v' + String(o.version).replace(/^v/, '') + ' (' + o.execPath + ')';
  const fix = 'run `npm start` once in ' + o.root + ' (it fetches Node 22 into .node/), or install Node 22.12+ and use it (or set ' + NODE_ENV + ' to it)';
  if (o.env[LAUNCHED_ENV]) {
    return { kind: 'fail', message: 'sightline needs Node 22.12 or newer, and the Node it switched to is ' + here + '. Delete ' + join(o.root, '.node') + ' and ' + fix + '.' };
  }
  const candidates = nodeCandidates(o.root, o.env, o.platform);
  for (let i = 0; i < candidates.length; i++) {
    if (o.exists(candidates[i])) return { kind: 'reexec', node: candidates[i] };
  }
  return { kind: 'fail', message: 'sightline needs Node 22.12 or newer; `node` here is ' + here + ' and ' + join(o.root, '.node') + ' has none: ' + fix + ', then start sightline again.' };
}

export function defaultExists(path) {
  return existsSync(path);
}

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Run `script argv…` on `node` with this process's stdio (inherited: the MCP stream never passes
 * through here), forwarding signals, and leave with the child's exit code or signal. `onSpawnError`
 * runs when the binary cannot be started at all (nothing has read stdin yet, so it may still answer).
 */
export function reexec(node, script, argv, onSpawnError) {
  const env = Object.assign({}, process.env);
  env[LAUNCHED_ENV] = process.execPath;
  const child = spawn(node, process.execArgv.concat([script], argv), { stdio: 'inherit', env: env, windowsHide: true });
  const handlers = {};
  FORWARDED.forEach(function (sig) {
    handlers[sig] = function () {
      try {
        child.kill(sig);
      } catch {
        // already gone
      }
    };
    process.on(sig, handlers[sig]);
  });
  const unhook = function () {
    FORWARDED.forEach(function (sig) {
      process.removeListener(sig, handlers[sig]);
    });
  };
  child.once('error', function (e) {
    unhook();
    onSpawnError(e);
  });
  child.once('exit', function (code, signal) {
    unhook();
    if (signal) {
      // Die the way the child died, so the caller sees the same signal.
      process.kill(process.pid, signal);
      setTimeout(function () {
        process.exit(1);
      }, 200);
      return;
    }
    process.exit(code === null ? 1 : code);
  });
}

/**
 * `sightline mcp` cannot start: tell the MCP client in its own protocol. Every request (the first is
 * `initialize`) gets a JSON-RPC error whose message says what to run, so the client shows that instead
 * of "Connection closed"; then exit 1. Ends at once on a terminal, when stdin ends, or after `waitMs`.
 */
export function refuseMcpClient(message, waitMs) {
  if (process.stdin.isTTY) return process.exit(1);
  let buffered = '';
  const leave = function () {
    process.exit(1);
  };
  const timer = setTimeout(leave, waitMs);
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', function (chunk) {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      // Notifications (no id) and responses (no method) need no answer.
      if (!msg || typeof msg.method !== 'string' || msg.id === undefined || msg.id === null) continue;
      const reply = JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: message } }) + '\n';
      if (msg.method === 'initialize') {
        clearTimeout(timer);
        // Leave once the answer is written: the client reads it before it sees the pipe close.
        process.stdout.write(reply, leave);
        return;
      }
      process.stdout.write(reply);
    }
  });
  process.stdin.on('end', leave);
  process.stdin.on('error', leave);
}
