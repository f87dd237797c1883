#!/usr/bin/env node
// The `sightline` command: gets onto Node >= 22.12 (re-executing with the checkout's .node/ Node when
// this one is older, see launcher.js), then runs the built CLI (out/main/cli.js). Plain JS that parses
// on old Nodes: no top-level await, no ?. or ??.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultExists, LAUNCHED_ENV, planLaunch, reexec, refuseMcpClient } from './launcher.js';

const script = fileURLToPath(import.meta.url);
const root = dirname(dirname(script));
const argv = process.argv.slice(2);

/** One line on stderr; for `mcp`, the same words as the answer to the client's initialize. */
function fail(message) {
  process.stderr.write(message + '\n');
  if (argv.indexOf('mcp') >= 0) refuseMcpClient(message, 30000);
  else process.exit(1);
}

const plan = planLaunch({ version: process.versions.node, execPath: process.execPath, root: root, env: process.env, platform: process.platform, exists: defaultExists });
if (plan.kind === 'reexec') {
  reexec(plan.node, script, argv, function (e) {
    fail('sightline: could not start ' + plan.node + ' (' + e.message + '); run `npm start` once in ' + root + ', or install Node 22.12+.');
  });
} else if (plan.kind === 'fail') {
  fail(plan.message);
} else {
  // Re-executed (or never needed to be): the marker must not reach what the CLI spawns.
  delete process.env[LAUNCHED_ENV];
  const cli = new URL('../out/main/cli.js', import.meta.url);
  if (!existsSync(cli)) fail('sightline is not built yet: run `npm start` (or `npm run build`) once in ' + root + '.');
  else import(cli.href);
}
