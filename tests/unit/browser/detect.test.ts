import { describe, expect, it } from 'vitest';
import {
  cdpTargetId,
  executableCandidates,
  findExecutable,
  httpBaseOf,
  isListedPage,
  launchPlan,
  parseDevToolsActivePort,
  parseEndpoint,
  userDataDirs,
} from '../../../src/main/core/sources/browser/detect.ts';

const only = (...paths: string[]) => (p: string) => paths.includes(p);

describe('findExecutable', () => {
  it('finds Chromium on Linux through PATH, preferring Chrome when both exist', () => {
    const env = { PATH: '/home/u/bin:/usr/bin' };
    expect(findExecutable({ platform: 'linux', env, exists: only('/usr/bin/chromium') })).toEqual({ kind: 'chromium', path: '/usr/bin/chromium' });
    expect(findExecutable({ platform: 'linux', env, exists: only('/usr/bin/chromium', '/usr/bin/google-chrome-stable') })).toEqual({ kind: 'chrome', path: '/usr/bin/google-chrome-stable' });
    expect(findExecutable({ platform: 'linux', env, exists: only('/home/u/bin/brave-browser') })).toEqual({ kind: 'brave', path: '/home/u/bin/brave-browser' });
    expect(findExecutable({ platform: 'linux', env: {}, exists: only('/opt/microsoft/msedge/msedge') })).toEqual({ kind: 'edge', path: '/opt/microsoft/msedge/msedge' });
    expect(findExecutable({ platform: 'linux', env: {}, exists: only('/snap/bin/chromium') })?.path).toBe('/snap/bin/chromium');
  });

  it('finds app bundles on macOS, system-wide and per user', () => {
    const env = { HOME: '/Users/ann' };
    expect(findExecutable({ platform: 'darwin', env, exists: only('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome') })).toEqual({
      kind: 'chrome',
      path: '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    });
    expect(findExecutable({ platform: 'darwin', env, exists: only('/Users/ann/Applications/Brave Browser.app/Contents/MacOS/Brave Browser') })?.kind).toBe('brave');
    expect(findExecutable({ platform: 'darwin', env, exists: only('/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge') })?.kind).toBe('edge');
  });

  it('finds Windows installs under Program Files and LocalAppData with Windows paths', () => {
    const env = { PROGRAMFILES: 'C:\\Program Files', 'PROGRAMFILES(X86)': 'C:\\Program Files (x86)', LOCALAPPDATA: 'C:\\Users\\ann\\AppData\\Local' };
    expect(findExecutable({ platform: 'win32', env, exists: only('C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe') })).toEqual({
      kind: 'edge',
      path: 'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe',
    });
    expect(findExecutable({ platform: 'win32', env, exists: only('C:\\Users\\ann\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe') })?.kind).toBe('chrome');
    expect(executableCandidates('win32', env).every((c) => !c.path.includes('/'))).toBe(true);
  });

  it('uses the configured executable only, and reports none when it is missing', () => {
    const exists = only('/usr/bin/chromium', '/opt/my/msedge');
    expect(findExecutable({ platform: 'linux', env: {}, exists, configured: '/opt/my/msedge' })).toEqual({ kind: 'edge', path: '/opt/my/msedge' });
    expect(findExecutable({ platform: 'linux', env: {}, exists, configured: '/nope/chrome' })).toBeUndefined();
  });

  it('returns undefined when nothing is installed', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(findExecutable({ platform, env: { HOME: '/h', PATH: '/usr/bin' }, exists: () => false })).toBeUndefined();
    }
  });
});

describe('userDataDirs', () => {
  it('lists the profiles of Chrome, Chromium, Edge and Brave per OS', () => {
    const linux = userDataDirs('linux', { HOME: '/home/u' });
    expect(linux).toContain('/home/u/.config/google-chrome');
    expect(linux).toContain('/home/u/.config/chromium');
    expect(linux).toContain('/home/u/.config/BraveSoftware/Brave-Browser');
    expect(userDataDirs('linux', { HOME: '/home/u', XDG_CONFIG_HOME: '/cfg' })).toContain('/cfg/microsoft-edge');
    expect(userDataDirs('darwin', { HOME: '/Users/a' })).toContain('/Users/a/Library/Application Support/Google/Chrome');
    expect(userDataDirs('win32', { LOCALAPPDATA: 'C:\\L' })).toEqual([
      'C:\\L\\Google\\Chrome\\User Data',
      'C:\\L\\Chromium\\User Data',
      'C:\\L\\Microsoft\\Edge\\User Data',
      'C:\\L\\BraveSoftware\\Brave-Browser\\User Data',
    ]);
    expect(userDataDirs('linux', {})).toEqual([]);
  });
});

describe('parseDevToolsActivePort', () => {
  it('reads the port and browser path Chrome writes', () => {
    expect(parseDevToolsActivePort('9222\n/devtools/browser/5f4e1c2a-0b1e-4a5e-9d6f-1a2b3c4d5e6f\n')).toEqual({
      port: 9222,
      path: '/devtools/browser/5f4e1c2a-0b1e-4a5e-9d6f-1a2b3c4d5e6f',
    });
    expect(parseDevToolsActivePort('41233\r\n/devtools/browser/abc')).toEqual({ port: 41233, path: '/devtools/browser/abc' });
  });
  it('rejects anything else', () => {
    for (const s of ['', '9222', 'x\n/devtools/browser/a', '0\n/devtools/browser/a', '70000\n/devtools/browser/a', '9222\n/json']) {
      expect(parseDevToolsActivePort(s)).toBeUndefined();
    }
  });
});

describe('endpoints', () => {
  it('tells HTTP bases from WebSocket URLs', () => {
    expect(parseEndpoint('http://127.0.0.1:9222/')).toEqual({ kind: 'http', url: 'http://127.0.0.1:9222' });
    expect(parseEndpoint('http://localhost:9222/json/version')).toEqual({ kind: 'http', url: 'http://localhost:9222' });
    expect(parseEndpoint('ws://127.0.0.1:9222/devtools/browser/x')).toEqual({ kind: 'ws', url: 'ws://127.0.0.1:9222/devtools/browser/x' });
    expect(httpBaseOf('ws://127.0.0.1:9333/devtools/browser/x')).toBe('http://127.0.0.1:9333');
    expect(() => parseEndpoint('not a url')).toThrow();
  });
});

describe('launchPlan', () => {
  const base = { platform: 'linux' as const, profileDir: '/data/browser-profile', headless: false, isRoot: false };
  it('uses a dedicated profile and the quiet flags', () => {
    const p = launchPlan({ ...base, env: { DISPLAY: ':0' } });
    expect(p.args).toEqual([
      '--user-data-dir=/data/browser-profile',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      'about:blank',
    ]);
    expect(p.headless).toBe(false);
  });
  it('adds --no-sandbox only as root and --headless=new when asked', () => {
    const p = launchPlan({ ...base, env: { DISPLAY: ':0' }, isRoot: true, headless: true });
    expect(p.args).toContain('--no-sandbox');
    expect(p.args).toContain('--headless=new');
    expect(launchPlan({ ...base, env: { DISPLAY: ':0' } }).args).not.toContain('--no-sandbox');
  });
  it('goes headless on a Linux box with no display, and says so', () => {
    const p = launchPlan({ ...base, env: {} });
    expect(p.headless).toBe(true);
    expect(p.args).toContain('--headless=new');
    expect(p.note).toMatch(/DISPLAY/);
    expect(launchPlan({ ...base, env: { WAYLAND_DISPLAY: 'wayland-0' } }).headless).toBe(false);
    expect(launchPlan({ ...base, platform: 'darwin', env: {} }).headless).toBe(false);
  });
});

describe('isListedPage', () => {
  it('keeps web pages and the new-tab page, skips browser UI and extensions', () => {
    for (const url of ['https://example.com/', 'http://127.0.0.1:8080/x', 'file:///tmp/a.html', 'about:blank', 'data:text/html,hi', 'chrome://newtab/', 'chrome://new-tab-page/']) {
      expect(isListedPage(url), url).toBe(true);
    }
    for (const url of ['devtools://devtools/bundled/inspector.html', 'chrome-extension://abc/popup.html', 'chrome://settings/', 'chrome://version/', 'edge://settings', 'brave://rewards', 'chrome-untrusted://print']) {
      expect(isListedPage(url), url).toBe(false);
    }
  });
});

describe('cdpTargetId', () => {
  it('accepts browser:<id> only', () => {
    expect(cdpTargetId('browser:8A2F4C1B9E0D7A6B5C4D3E2F1A0B9C8D')).toBe('8A2F4C1B9E0D7A6B5C4D3E2F1A0B9C8D');
    expect(cdpTargetId('desktop:window:0x1')).toBeUndefined();
    expect(cdpTargetId('browser:')).toBeUndefined();
    expect(cdpTargetId('browser:a b')).toBeUndefined();
  });
});
