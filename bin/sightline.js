#!/usr/bin/env node
// The `sightline` command: checks Node, then runs the built CLI (out/main/cli.js).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `sightline needs Node 22.12 or newer; this is ${process.version}.\n` +
      'Install Node 22 (or run `source scripts/node22.sh` in the Sightline checkout), then try again.\n',
  );
  process.exit(1);
}
const cli = new URL('../out/main/cli.js', import.meta.url);
const { existsSync } = await import('node:fs');
if (!existsSync(cli)) {
  process.stderr.write('sightline is not built yet: run `npm run build` in the Sightline checkout.\n');
  process.exit(1);
}
await import(cli.href);
