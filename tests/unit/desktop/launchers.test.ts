/**
 * Launchers that start Chromium-based apps with accessibility on, on real folders: which apps are
 * recognised, how their Exec lines change, that a user's own launcher is never touched and that
 * turning off removes exactly Sightline's copies; and which running apps must be reopened.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runningWithout } from '../../../src/main/core/sources/desktop/tree/appAccess.ts';
import { execWithAccessibility, launcherDirs, readLaunchers, removeLaunchers, withAccessibility, writeLaunchers, type LauncherDirs } from '../../../src/main/core/sources/desktop/tree/launchers.ts';

const entry = (name: string, exec: string, more = ''): string => `[Desktop Entry]\nType=Application\nName=${name}\nExec=${exec}\n${more}`;

describe('Exec lines with accessibility on', () => {
  it('adds the bridge variable and the flag after the program, once', () => {
    expect(execWithAccessibility('/usr/bin/chromium %U')).toBe('env ACCESSIBILITY_ENABLED=1 /usr/bin/chromium --force-renderer-accessibility %U');
    expect(execWithAccessibility('env LANG=C /opt/App/app --no-sandbox %U')).toBe('env LANG=C ACCESSIBILITY_ENABLED=1 /opt/App/app --force-renderer-accessibility --no-sandbox %U');
    expect(execWithAccessibility('"/opt/My App/app" %F')).toBe('env ACCESSIBILITY_ENABLED=1 "/opt/My App/app" --force-renderer-accessibility %F');
    const once = execWithAccessibility('/usr/bin/chromium %U')!;
    expect(execWithAccessibility(once)).toBe(once);
  });

  it('leaves a sandboxed launcher alone (a flag after flatpak or snap would go to them)', () => {
    expect(execWithAccessibility('flatpak run com.slack.Slack %U')).toBeUndefined();
    expect(execWithAccessibility('/usr/bin/snap run discord')).toBeUndefined();
    expect(withAccessibility(entry('Slack', '/usr/bin/flatpak run com.slack.Slack'))).toBeUndefined();
  });

  it('changes every Exec line, of the entry and its actions, and marks the copy', () => {
    const copy = withAccessibility(`${entry('Chromium', '/usr/bin/chromium %U')}\n[Desktop Action new-window]\nName=New Window\nExec=/usr/bin/chromium --new-window\n`)!;
    expect(copy.split('\n').filter((l) => l.startsWith('Exec='))).toEqual([
      'Exec=env ACCESSIBILITY_ENABLED=1 /usr/bin/chromium --force-renderer-accessibility %U',
      'Exec=env ACCESSIBILITY_ENABLED=1 /usr/bin/chromium --force-renderer-accessibility --new-window',
    ]);
    expect(copy).toMatch(/^\[Desktop Entry\]\nX-Sightline-Accessibility=true\n/);
  });
});

describe('launchers on disk', () => {
  let root: string;
  let dirs: LauncherDirs;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'sightline-launchers-'));
    env = { HOME: join(root, 'home'), XDG_DATA_DIRS: `${join(root, 'local')}:${join(root, 'usr')}`, PATH: join(root, 'bin') };
    dirs = launcherDirs(env);
    for (const d of dirs.system) mkdirSync(d, { recursive: true });
    const [local, usr] = dirs.system as [string, string];
    // An Electron app recognised by Chromium's ICU data beside its executable, reached through PATH.
    mkdirSync(join(root, 'opt/notes'), { recursive: true });
    writeFileSync(join(root, 'opt/notes/notes'), '');
    writeFileSync(join(root, 'opt/notes/icudtl.dat'), '');
    mkdirSync(join(root, 'bin'));
    symlinkSync(join(root, 'opt/notes/notes'), join(root, 'bin/notes'));
    writeFileSync(join(usr, 'notes.desktop'), entry('Notes', 'notes %U'));
    writeFileSync(join(usr, 'chromium.desktop'), entry('Chromium', '/usr/bin/chromium %U'));
    // The first folder of XDG_DATA_DIRS wins for an id.
    writeFileSync(join(local, 'chromium.desktop'), entry('Chromium (local)', '/usr/local/bin/chromium %U'));
    writeFileSync(join(usr, 'code.desktop'), entry('Visual Studio Code', '/usr/share/code/code %F'));
    writeFileSync(join(usr, 'gedit.desktop'), entry('Text Editor', 'gedit %U'));
    writeFileSync(join(usr, 'slack.desktop'), entry('Slack', 'flatpak run com.slack.Slack %U'));
    // The user's own launcher for VS Code.
    mkdirSync(dirs.user, { recursive: true });
    writeFileSync(join(dirs.user, 'code.desktop'), entry('My Code', '/usr/share/code/code --my-flag %F'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('finds the Chromium-based apps, writes copies for them, never over the user’s own, and removes only its copies', () => {
    const before = readLaunchers(dirs, env);
    expect(before.apps.map((a) => a.name).sort()).toEqual(['Chromium (local)', 'Notes', 'Visual Studio Code']);
    expect(before.userOwn).toEqual(['code.desktop']);
    expect(before.ours).toEqual([]);

    expect(writeLaunchers(dirs, before).sort()).toEqual(['chromium.desktop', 'notes.desktop']);
    expect(readFileSync(join(dirs.user, 'chromium.desktop'), 'utf8')).toMatch(/^Exec=env ACCESSIBILITY_ENABLED=1 \/usr\/local\/bin\/chromium --force-renderer-accessibility %U$/m);
    expect(readFileSync(join(dirs.user, 'code.desktop'), 'utf8')).toBe(entry('My Code', '/usr/share/code/code --my-flag %F'));
    expect(readLaunchers(dirs, env).ours.sort()).toEqual(['chromium.desktop', 'notes.desktop']);
    // No temporary file is left behind.
    expect(readdirSync(dirs.user).sort()).toEqual(['chromium.desktop', 'code.desktop', 'notes.desktop']);

    expect(removeLaunchers(dirs).sort()).toEqual(['chromium.desktop', 'notes.desktop']);
    expect(readdirSync(dirs.user)).toEqual(['code.desktop']);
    expect(existsSync(join(dirs.user, 'code.desktop'))).toBe(true);
  });
});

describe('running apps to reopen', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'sightline-proc-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function proc(pid: number, uid: number, exe: string, args: string[]): void {
    const d = join(root, 'proc', String(pid));
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'status'), `Name:\tx\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\n`);
    writeFileSync(join(d, 'cmdline'), `${[exe, ...args].join('\0')}\0`);
    symlinkSync(exe, join(d, 'exe'));
  }

  it('names Chromium-based browser processes of this user started without the flag (not helpers, not headless ones)', () => {
    mkdirSync(join(root, 'slack'));
    writeFileSync(join(root, 'slack/icudtl.dat'), '');
    mkdirSync(join(root, 'gedit'));
    proc(100, 1000, join(root, 'slack/slack'), ['--enable-crashpad']);
    proc(101, 1000, join(root, 'slack/slack'), ['--type=renderer']);
    proc(102, 1000, join(root, 'slack/chrome'), ['--force-renderer-accessibility']);
    proc(103, 1001, join(root, 'slack/code'), []);
    proc(104, 1000, join(root, 'gedit/gedit'), []);
    proc(105, 1000, join(root, 'slack/chrome_crashpad_handler'), ['--monitor-self']);
    proc(106, 1000, join(root, 'slack/chromium'), ['--headless', '--remote-debugging-port=0']);
    expect(runningWithout(join(root, 'proc'), 1000)).toEqual(['slack']);
  });
});
