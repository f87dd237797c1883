import { describe, expect, it } from 'vitest';
import { adbServerAddress, installHint, isLocalHost, locateAdb, type LocateInput } from '../../../src/main/core/sources/android/locate.ts';

const only = (...present: string[]) => (p: string) => present.includes(p);
const base = (over: Partial<LocateInput>): LocateInput => ({ env: {}, platform: 'linux', homedir: '/home/u', exists: only(), ...over });

describe('locateAdb', () => {
  it('takes the setting alone, and reports it when wrong instead of using another adb', () => {
    expect(locateAdb(base({ adbPath: '/opt/pt/adb', exists: only('/opt/pt/adb', '/usr/bin/adb') }))).toEqual({ path: '/opt/pt/adb', via: 'settings', searched: ['/opt/pt/adb'] });
    const miss = locateAdb(base({ adbPath: '/nope/adb', env: { PATH: '/usr/bin' }, exists: only('/usr/bin/adb') }));
    expect(miss.path).toBeUndefined();
    expect(miss.searched).toEqual(['/nope/adb']);
  });

  it('accepts a platform-tools folder or an SDK folder as the setting', () => {
    expect(locateAdb(base({ adbPath: '/sdk/platform-tools', exists: only('/sdk/platform-tools/adb') })).path).toBe('/sdk/platform-tools/adb');
    expect(locateAdb(base({ adbPath: '/sdk', exists: only('/sdk/platform-tools/adb') })).path).toBe('/sdk/platform-tools/adb');
  });

  it('searches PATH, then ANDROID_HOME, then ANDROID_SDK_ROOT, then the usual places', () => {
    const env = { PATH: '/a:/b', ANDROID_HOME: '/sdk1', ANDROID_SDK_ROOT: '/sdk2' };
    expect(locateAdb(base({ env, exists: only('/b/adb', '/sdk1/platform-tools/adb') }))).toMatchObject({ path: '/b/adb', via: 'PATH' });
    expect(locateAdb(base({ env, exists: only('/sdk2/platform-tools/adb', '/sdk1/platform-tools/adb') }))).toMatchObject({ path: '/sdk1/platform-tools/adb', via: 'ANDROID_HOME' });
    expect(locateAdb(base({ env, exists: only('/sdk2/platform-tools/adb') }))).toMatchObject({ path: '/sdk2/platform-tools/adb', via: 'ANDROID_SDK_ROOT' });
    const r = locateAdb(base({ env: {}, exists: only('/home/u/Android/Sdk/platform-tools/adb') }));
    expect(r).toMatchObject({ path: '/home/u/Android/Sdk/platform-tools/adb', via: 'usual location' });
  });

  it('lists every place it looked when adb is nowhere', () => {
    const r = locateAdb(base({ env: { PATH: '/usr/local/sbin:/usr/bin', ANDROID_HOME: '/sdk' } }));
    expect(r.path).toBeUndefined();
    expect(r.searched).toEqual([
      '/usr/local/sbin/adb',
      '/usr/bin/adb',
      '/sdk/platform-tools/adb',
      '/home/u/Android/Sdk/platform-tools/adb',
      '/usr/local/bin/adb',
      '/usr/lib/android-sdk/platform-tools/adb',
      '/opt/android-sdk/platform-tools/adb',
      '/snap/bin/adb',
    ]);
  });

  it('knows macOS SDK and Homebrew locations', () => {
    const r = locateAdb(base({ platform: 'darwin', homedir: '/Users/u', exists: only('/opt/homebrew/bin/adb') }));
    expect(r).toMatchObject({ path: '/opt/homebrew/bin/adb', via: 'usual location' });
    expect(r.searched[0]).toBe('/Users/u/Library/Android/sdk/platform-tools/adb');
  });

  it('on Windows reads Path case-insensitively, strips quotes and looks for adb.exe in the SDK, winget, Scoop and Chocolatey', () => {
    const env = { Path: 'C:\\Windows;"C:\\Tools\\pt"', LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' };
    expect(locateAdb(base({ platform: 'win32', homedir: 'C:\\Users\\u', env, exists: only('C:\\Tools\\pt\\adb.exe') })).path).toBe('C:\\Tools\\pt\\adb.exe');
    const r = locateAdb(base({ platform: 'win32', homedir: 'C:\\Users\\u', env }));
    expect(r.searched).toContain('C:\\Users\\u\\AppData\\Local\\Android\\Sdk\\platform-tools\\adb.exe');
    expect(r.searched).toContain('C:\\Users\\u\\AppData\\Local\\Microsoft\\WinGet\\Links\\adb.exe');
    expect(r.searched).toContain('C:\\Users\\u\\scoop\\shims\\adb.exe');
    expect(r.searched).toContain('C:\\ProgramData\\chocolatey\\bin\\adb.exe');
  });

  it('says how to install platform-tools on each platform', () => {
    expect(installHint('darwin')).toMatch(/brew install --cask android-platform-tools/);
    expect(installHint('win32')).toMatch(/winget install Google\.PlatformTools/);
    expect(installHint('linux')).toMatch(/apt install adb/);
    for (const p of ['darwin', 'win32', 'linux'] as const) expect(installHint(p)).toMatch(/android\.adbPath/);
  });
});

describe('adbServerAddress', () => {
  it('defaults to 127.0.0.1:5037 and honours ANDROID_ADB_SERVER_PORT like adb', () => {
    expect(adbServerAddress({})).toEqual({ host: '127.0.0.1', port: 5037 });
    expect(adbServerAddress({ ANDROID_ADB_SERVER_PORT: '5099' })).toEqual({ host: '127.0.0.1', port: 5099 });
    expect(adbServerAddress({ ANDROID_ADB_SERVER_PORT: '' })).toEqual({ host: '127.0.0.1', port: 5037 });
  });

  it('reads ADB_SERVER_SOCKET first', () => {
    expect(adbServerAddress({ ADB_SERVER_SOCKET: 'tcp:10.0.0.2:5038', ANDROID_ADB_SERVER_PORT: '5099' })).toEqual({ host: '10.0.0.2', port: 5038 });
    expect(adbServerAddress({ ADB_SERVER_SOCKET: 'tcp:6000' })).toEqual({ host: '127.0.0.1', port: 6000 });
  });

  it('rejects bad values with a message naming them', () => {
    expect(adbServerAddress({ ANDROID_ADB_SERVER_PORT: 'abc' })).toEqual({ error: expect.stringContaining('ANDROID_ADB_SERVER_PORT="abc"') });
    expect(adbServerAddress({ ANDROID_ADB_SERVER_PORT: '70000' })).toHaveProperty('error');
    expect(adbServerAddress({ ADB_SERVER_SOCKET: 'localfilesystem:/x' })).toHaveProperty('error');
  });

  it('starts a server only for this machine', () => {
    expect(isLocalHost('127.0.0.1')).toBe(true);
    expect(isLocalHost('localhost')).toBe(true);
    expect(isLocalHost('10.0.0.2')).toBe(false);
  });
});
