/**
 * The launcher's decision (bin/launcher.js), with fake Node versions and a fake file system: every
 * branch runs on any machine, including one whose only Node is already >= 22.12.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAUNCHED_ENV, NODE_ENV, isSupported, nodeCandidates, planLaunch } from '../../../bin/launcher.js';

const root = '/opt/sightline';
const dotNode = join(root, '.node', 'bin', 'node');
const plan = (version: string, env: Record<string, string> = {}, present: string[] = [], platform = 'linux') =>
  planLaunch({ version, execPath: '/usr/bin/node', root, env, platform, exists: (p) => present.includes(p) });

describe('isSupported', () => {
  it('accepts 22.12 and newer, refuses older, with or without the v', () => {
    expect(['22.12.0', 'v22.12.0', '22.23.3', '23.0.0', '24.1.0', '100.0.0'].map(isSupported)).toEqual([true, true, true, true, true, true]);
    expect(['22.11.9', 'v22.0.0', '20.20.2', '18.19.0', '12.22.12', '9.99.99'].map(isSupported)).toEqual([false, false, false, false, false, false]);
  });
});

describe('planLaunch', () => {
  it('runs in place on a Node that is new enough, whatever else exists', () => {
    expect(plan('22.12.0', {}, [dotNode])).toEqual({ kind: 'run' });
    expect(plan('24.0.0', { [LAUNCHED_ENV]: '/usr/bin/node' })).toEqual({ kind: 'run' });
  });

  it('re-executes an old Node with the checkout\'s .node/bin/node', () => {
    expect(plan('20.20.2', {}, [dotNode])).toEqual({ kind: 'reexec', node: dotNode });
  });

  it('prefers SIGHTLINE_NODE, and falls back to .node/ when it is missing', () => {
    expect(plan('20.20.2', { [NODE_ENV]: '/nvm/22/bin/node' }, ['/nvm/22/bin/node', dotNode])).toEqual({ kind: 'reexec', node: '/nvm/22/bin/node' });
    expect(plan('20.20.2', { [NODE_ENV]: '/gone/node' }, [dotNode])).toEqual({ kind: 'reexec', node: dotNode });
  });

  it('looks for node.exe on Windows', () => {
    expect(nodeCandidates(root, {}, 'win32')).toEqual([join(root, '.node', 'node.exe')]);
  });

  it('fails with one line that says what to run when there is no Node 22', () => {
    const p = plan('20.20.2');
    expect(p.kind).toBe('fail');
    const message = (p as { message: string }).message;
    expect(message).not.toContain('\n');
    expect(message).toContain('v20.20.2 (/usr/bin/node)');
    expect(message).toContain(`run \`npm start\` once in ${root}`);
    expect(message).toContain('install Node 22.12+');
  });

  it('never re-executes twice: a re-executed child that is still too old fails', () => {
    const p = plan('22.3.0', { [LAUNCHED_ENV]: '/usr/bin/node' }, [dotNode]);
    expect(p.kind).toBe('fail');
    expect((p as { message: string }).message).toContain(`Delete ${join(root, '.node')}`);
  });
});
