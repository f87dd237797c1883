/**
 * Where `adb` is and where its server listens. Pure functions over an injected environment
 * (`exists`, platform, home) so every platform's search order is unit-tested on any machine.
 */
import { posix, win32 } from 'node:path';

export interface LocateInput {
  /** `android.adbPath` from settings: a binary, or a platform-tools folder. */
  adbPath?: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homedir: string;
  exists: (path: string) => boolean;
}

export interface LocateResult {
  /** The adb binary found, if any. */
  path?: string;
  /** How it was found. */
  via?: 'settings' | 'PATH' | 'ANDROID_HOME' | 'ANDROID_SDK_ROOT' | 'usual location';
  /** Every path tried, in order (for ADB_NOT_FOUND and the onboarding check). */
  searched: string[];
}

/**
 * Search order: the setting (alone: a wrong explicit path is reported, never silently replaced),
 * then PATH, ANDROID_HOME and ANDROID_SDK_ROOT platform-tools, then where SDK installers,
 * Homebrew, winget/Scoop/Chocolatey and distributions put it. An MCP client spawns Sightline
 * with a bare environment, so the usual locations matter even when a terminal finds adb.
 */
export function locateAdb(input: LocateInput): LocateResult {
  const { platform, env, homedir, exists } = input;
  const path = platform === 'win32' ? win32 : posix;
  const exe = platform === 'win32' ? 'adb.exe' : 'adb';
  const searched: string[] = [];
  const tryPath = (p: string): boolean => {
    if (searched.includes(p)) return false;
    searched.push(p);
    return exists(p);
  };

  if (input.adbPath) {
    const p = input.adbPath;
    const candidates = /adb(\.exe)?$/i.test(path.basename(p)) ? [p] : [path.join(p, exe), path.join(p, 'platform-tools', exe)];
    for (const c of candidates) if (tryPath(c)) return { path: c, via: 'settings', searched };
    return { searched };
  }

  const get = (name: string): string | undefined => envValue(env, name, platform);
  for (const entry of (get('PATH') ?? '').split(platform === 'win32' ? ';' : ':')) {
    const dir = entry.replace(/^"(.*)"$/, '$1');
    const p = dir ? path.join(dir, exe) : '';
    if (p && tryPath(p)) return { path: p, via: 'PATH', searched };
  }
  for (const name of ['ANDROID_HOME', 'ANDROID_SDK_ROOT'] as const) {
    const sdk = get(name);
    if (sdk && tryPath(path.join(sdk, 'platform-tools', exe))) return { path: path.join(sdk, 'platform-tools', exe), via: name, searched };
  }
  for (const p of usualLocations(platform, homedir, get)) {
    if (tryPath(p)) return { path: p, via: 'usual location', searched };
  }
  return { searched };
}

function usualLocations(platform: NodeJS.Platform, home: string, get: (n: string) => string | undefined): string[] {
  if (platform === 'win32') {
    const local = get('LOCALAPPDATA') ?? win32.join(home, 'AppData', 'Local');
    const pf86 = get('ProgramFiles(x86)') ?? 'C:\\Program Files (x86)';
    const programData = get('ProgramData') ?? 'C:\\ProgramData';
    return [
      win32.join(local, 'Android', 'Sdk', 'platform-tools', 'adb.exe'),
      win32.join(local, 'Microsoft', 'WinGet', 'Links', 'adb.exe'),
      win32.join(home, 'scoop', 'shims', 'adb.exe'),
      win32.join(programData, 'chocolatey', 'bin', 'adb.exe'),
      win32.join(pf86, 'Android', 'android-sdk', 'platform-tools', 'adb.exe'),
      'C:\\platform-tools\\adb.exe',
    ];
  }
  if (platform === 'darwin') {
    return [
      posix.join(home, 'Library', 'Android', 'sdk', 'platform-tools', 'adb'),
      '/opt/homebrew/bin/adb',
      '/usr/local/bin/adb',
      '/opt/homebrew/share/android-commandlinetools/platform-tools/adb',
      '/usr/local/share/android-commandlinetools/platform-tools/adb',
    ];
  }
  return [
    posix.join(home, 'Android', 'Sdk', 'platform-tools', 'adb'),
    '/usr/bin/adb',
    '/usr/local/bin/adb',
    '/usr/lib/android-sdk/platform-tools/adb',
    '/opt/android-sdk/platform-tools/adb',
    '/snap/bin/adb',
  ];
}

/** Windows environment names are case-insensitive (`Path`, `PATH`). */
function envValue(env: NodeJS.ProcessEnv, name: string, platform: NodeJS.Platform): string | undefined {
  if (env[name] !== undefined) return env[name];
  if (platform !== 'win32') return undefined;
  const key = Object.keys(env).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : env[key];
}

/** How to install platform-tools, per platform (for ADB_NOT_FOUND and the onboarding check). */
export function installHint(platform: NodeJS.Platform): string {
  const how =
    platform === 'darwin'
      ? '`brew install --cask android-platform-tools`'
      : platform === 'win32'
        ? '`winget install Google.PlatformTools`'
        : '`sudo apt install adb` (Debian/Ubuntu) or `sudo dnf install android-tools` (Fedora)';
  return `Install Android platform-tools: ${how}, or download them from https://developer.android.com/tools/releases/platform-tools ; or set android.adbPath in settings to your adb binary.`;
}

export interface ServerAddress {
  host: string;
  port: number;
}

/**
 * The adb server address, as adb itself reads it: ADB_SERVER_SOCKET (`tcp:HOST:PORT` or
 * `tcp:PORT`), else ANDROID_ADB_SERVER_PORT, else 5037. Returns an error string for a bad value.
 */
export function adbServerAddress(env: NodeJS.ProcessEnv): ServerAddress | { error: string } {
  const socket = env.ADB_SERVER_SOCKET;
  if (socket) {
    const m = /^tcp:(?:(.+):)?(\d+)$/.exec(socket);
    const port = m ? Number(m[2]) : NaN;
    if (!m || !validPort(port)) return { error: `ADB_SERVER_SOCKET="${socket}" is not tcp:HOST:PORT or tcp:PORT` };
    return { host: m[1] ?? '127.0.0.1', port };
  }
  const raw = env.ANDROID_ADB_SERVER_PORT;
  if (raw !== undefined && raw !== '') {
    const port = Number(raw);
    if (!/^\d+$/.test(raw) || !validPort(port)) return { error: `ANDROID_ADB_SERVER_PORT="${raw}" is not a port number (1-65535)` };
    return { host: '127.0.0.1', port };
  }
  return { host: '127.0.0.1', port: 5037 };
}

function validPort(n: number): boolean {
  return Number.isInteger(n) && n > 0 && n < 65536;
}

/** adb starts a server only on this machine. */
export function isLocalHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}
