/**
 * The app-accessibility check and the D-Bus connection it rides on, where no session bus answers:
 * a call fails with the connection's own error (not after the call's time limit), and the check,
 * while the choice is on, says the status cannot be read instead of claiming all is well.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppAccess } from '../../../src/main/core/sources/desktop/tree/appAccess.ts';
import { connectDbus } from '../../../src/main/core/sources/desktop/tree/dbus.ts';

describe('without a session bus', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'sightline-appaccess-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a call on a bus that cannot be reached fails with the connection’s error', async () => {
    const bus = await connectDbus(`unix:path=${join(root, 'no-bus')}`);
    try {
      await expect(bus.call({ destination: 'org.a11y.Bus', path: '/org/a11y/bus', interface: 'org.freedesktop.DBus.Properties', member: 'Get', signature: 'ss', body: ['org.a11y.Status', 'IsEnabled'] })).rejects.toThrow(/ENOENT/);
    } finally {
      bus.close();
    }
  });

  it('on, the check says the session’s status cannot be read; off, it asks nothing of the bus', async () => {
    const env = { HOME: join(root, 'home'), XDG_DATA_DIRS: join(root, 'share'), DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(root, 'no-bus')}` };
    const access = new AppAccess({ env, dataDir: root, proc: join(root, 'proc') });
    const on = await access.check(true);
    expect(on.status).toBe('warning');
    expect(on.detail).toMatch(/status cannot be read \(.*ENOENT.*\)/);
    const off = await access.check(false);
    expect(off.detail).not.toMatch(/cannot be read/);
    // Nothing of Sightline's to undo: turning off leaves the unreachable bus alone and reports no problem.
    expect(await access.apply(false)).toEqual({ launchers: [] });
  });
});
