import { describe, expect, it } from 'vitest';
import { defaultCandidates, locateManicTime } from '../../../src/main/core/sources/manictime/dataDir.ts';

const winEnv = { LOCALAPPDATA: 'C:\\Users\\ana\\AppData\\Local', USERPROFILE: 'C:\\Users\\ana', ProgramFiles: 'C:\\Program Files' };

describe('locateManicTime', () => {
  it('prefers settings over the environment and defaults', () => {
    const loc = locateManicTime({
      settings: { dataDir: 'D:\\MT' },
      env: { ...winEnv, MANICTIME_DATA_DIR: 'E:\\Other' },
      platform: 'win32',
      homedir: 'C:\\Users\\ana',
      exists: () => true,
    });
    expect(loc).toMatchObject({ dataDir: 'D:\\MT', origin: 'settings', screenshotsDir: 'D:\\MT\\Screenshots', dbPath: 'D:\\MT\\ManicTimeReports.db' });
    expect(loc.candidates).toHaveLength(1);
  });

  it('uses MANICTIME_DATA_DIR next, even when it does not exist (and says so)', () => {
    const loc = locateManicTime({ settings: {}, env: { MANICTIME_DATA_DIR: '/srv/mt ' }, platform: 'linux', homedir: '/home/ana', exists: () => false });
    expect(loc).toMatchObject({ dataDir: '/srv/mt', origin: 'env', dataDirExists: false, screenshotsDir: '/srv/mt/Screenshots' });
  });

  it('falls back to %LOCALAPPDATA%\\Finkit\\ManicTime on Windows', () => {
    const loc = locateManicTime({ settings: {}, env: winEnv, platform: 'win32', homedir: 'C:\\Users\\ana', exists: (p) => p === 'C:\\Users\\ana\\AppData\\Local\\Finkit\\ManicTime' });
    expect(loc).toMatchObject({ dataDir: 'C:\\Users\\ana\\AppData\\Local\\Finkit\\ManicTime', origin: 'default', dataDirExists: true });
  });

  it('finds a portable Data folder when the installed one is absent', () => {
    const portable = 'C:\\Program Files\\ManicTime\\Data';
    const loc = locateManicTime({ settings: {}, env: winEnv, platform: 'win32', homedir: 'C:\\Users\\ana', exists: (p) => p === portable });
    expect(loc).toMatchObject({ dataDir: portable, origin: 'portable' });
  });

  it('derives LOCALAPPDATA from the profile when the variable is missing (bare MCP env)', () => {
    const c = defaultCandidates('win32', { USERPROFILE: 'C:\\Users\\bo' }, 'C:\\Users\\bo');
    expect(c[0]?.path).toBe('C:\\Users\\bo\\AppData\\Local\\Finkit\\ManicTime');
  });

  it('knows Linux and macOS locations', () => {
    expect(defaultCandidates('linux', { HOME: '/home/ana' }, '/x').map((c) => c.path)).toContain('/home/ana/.local/share/ManicTime');
    expect(defaultCandidates('linux', { HOME: '/home/ana', XDG_DATA_HOME: '/d' }, '/x')[0]?.path).toBe('/d/ManicTime');
    expect(defaultCandidates('darwin', { HOME: '/Users/ana' }, '/x')[0]?.path).toBe('/Users/ana/Library/Application Support/ManicTime');
  });

  it('reports no data dir when nothing exists, listing where it looked', () => {
    const loc = locateManicTime({ settings: {}, env: { HOME: '/home/ana' }, platform: 'linux', homedir: '/home/ana', exists: () => false });
    expect(loc.dataDir).toBeUndefined();
    expect(loc.screenshotsDir).toBeUndefined();
    expect(loc.candidates.length).toBeGreaterThan(1);
  });

  it('lets screenshotsDir move the screenshots folder on its own', () => {
    const loc = locateManicTime({
      settings: { screenshotsDir: '/mnt/shots' },
      env: { MANICTIME_DATA_DIR: '/srv/mt' },
      platform: 'linux',
      homedir: '/home/ana',
      exists: () => true,
    });
    expect(loc).toMatchObject({ dataDir: '/srv/mt', screenshotsDir: '/mnt/shots', screenshotsDirFromSettings: true, dbPath: '/srv/mt/ManicTimeReports.db' });
  });
});
