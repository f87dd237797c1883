/**
 * Launchers that start Chromium-based apps with their accessibility tree on (Linux). Chromium,
 * Chrome and Electron apps (VS Code, Slack, Discord…) expose their pages and controls over AT-SPI
 * only when started with `--force-renderer-accessibility` and with their accessibility bridge on
 * (`ACCESSIBILITY_ENABLED=1`, or the bus's `IsEnabled` status when they start); nothing turns it on
 * while they run. So the app's desktop entry is copied into the user's applications folder (which
 * wins over the system's under the same id, for the menu, the dock and opening links alike) with
 * both added to every Exec line, and marked as Sightline's so that turning it off removes exactly
 * those copies. A launcher the user wrote is never touched.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join } from 'node:path';

export const ACCESSIBILITY_FLAG = '--force-renderer-accessibility';
const BRIDGE_ENV = 'ACCESSIBILITY_ENABLED=1';
/** The key that marks a launcher as Sightline's copy. */
export const LAUNCHER_MARK = 'X-Sightline-Accessibility';

/**
 * Desktop ids of Chromium-based browsers and Electron apps whose launcher runs a wrapper script
 * (so the executable's folder says nothing); others are recognised by the ICU data file every
 * Chromium build ships beside its executable.
 */
const KNOWN = new Set([
  'chromium.desktop',
  'chromium-browser.desktop',
  'google-chrome.desktop',
  'google-chrome-beta.desktop',
  'google-chrome-unstable.desktop',
  'microsoft-edge.desktop',
  'microsoft-edge-beta.desktop',
  'brave-browser.desktop',
  'vivaldi-stable.desktop',
  'opera.desktop',
  'code.desktop',
  'code-url-handler.desktop',
  'code-insiders.desktop',
  'codium.desktop',
  'slack.desktop',
  'discord.desktop',
  'teams-for-linux.desktop',
  'signal-desktop.desktop',
  'element-desktop.desktop',
  'obsidian.desktop',
]);
/** Sandboxed launchers start another program with the app's id: a flag after it goes astray. */
const SANDBOXED = new Set(['flatpak', 'snap']);

export interface Launcher {
  /** The desktop id, e.g. "chromium.desktop". */
  id: string;
  /** Its Name, e.g. "Chromium". */
  name: string;
  /** Where the system's entry is. */
  path: string;
}

export interface LauncherDirs {
  /** The user's applications folder, where the copies go. */
  user: string;
  /** The system's applications folders, in precedence order. */
  system: string[];
}

/** The folders of the XDG base directory spec, as the desktop's menu reads them. */
export function launcherDirs(env: NodeJS.ProcessEnv): LauncherDirs {
  const home = env.HOME || homedir();
  const dataHome = env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : join(home, '.local/share');
  const dataDirs = (env.XDG_DATA_DIRS || '/usr/local/share:/usr/share').split(':').filter((d) => isAbsolute(d));
  return { user: join(dataHome, 'applications'), system: dataDirs.map((d) => join(d, 'applications')) };
}

/** What is installed and what Sightline wrote: the apps it can start with accessibility on. */
export interface LauncherState {
  /** Chromium-based apps installed system-wide (the first entry of each id). */
  apps: Launcher[];
  /** Ids Sightline's copies stand in for now. */
  ours: string[];
  /** Ids the user has a launcher of their own for (left alone). */
  userOwn: string[];
}

export function readLaunchers(dirs: LauncherDirs, env: NodeJS.ProcessEnv): LauncherState {
  const apps: Launcher[] = [];
  const seen = new Set<string>();
  for (const dir of dirs.system) {
    for (const id of desktopFiles(dir)) {
      if (seen.has(id)) continue;
      seen.add(id);
      const path = join(dir, id);
      const entry = parseEntry(read(path));
      if (!entry || !isChromiumApp(id, entry.exec, env)) continue;
      apps.push({ id, name: entry.name || id.replace(/\.desktop$/, ''), path });
    }
  }
  const ours: string[] = [];
  const userOwn: string[] = [];
  for (const app of apps) {
    const text = read(join(dirs.user, app.id));
    if (text === undefined) continue;
    (isOurs(text) ? ours : userOwn).push(app.id);
  }
  return { apps, ours, userOwn };
}

/** Writes Sightline's copy of each app's launcher (rewritten from the system's entry each time). */
export function writeLaunchers(dirs: LauncherDirs, state: LauncherState): string[] {
  const written: string[] = [];
  for (const app of state.apps) {
    if (state.userOwn.includes(app.id)) continue;
    const text = read(app.path);
    if (text === undefined) continue;
    const copy = withAccessibility(text);
    if (!copy) continue;
    mkdirSync(dirs.user, { recursive: true });
    // Written whole or not at all: a menu never reads half a launcher.
    const tmp = join(dirs.user, `.${app.id}.${randomBytes(4).toString('hex')}.tmp`);
    writeFileSync(tmp, copy, { mode: 0o644 });
    renameSync(tmp, join(dirs.user, app.id));
    written.push(app.id);
  }
  return written;
}

/** Removes every launcher Sightline wrote (and only those). */
export function removeLaunchers(dirs: LauncherDirs): string[] {
  const removed: string[] = [];
  for (const id of desktopFiles(dirs.user)) {
    const path = join(dirs.user, id);
    const text = read(path);
    if (text === undefined || !isOurs(text)) continue;
    unlinkSync(path);
    removed.push(id);
  }
  return removed;
}

/**
 * The entry with accessibility on in every Exec line and Sightline's mark, or undefined when it
 * cannot be changed safely (no Exec line, or a sandboxed launcher).
 */
export function withAccessibility(text: string): string | undefined {
  const lines = text.split('\n');
  let changed = false;
  let marked = false;
  let group = '';
  const out: string[] = [];
  for (const line of lines) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) {
      group = header[1]!;
      out.push(line);
      if (group === 'Desktop Entry' && !marked) {
        out.push(`${LAUNCHER_MARK}=true`);
        marked = true;
      }
      continue;
    }
    if (line.startsWith(`${LAUNCHER_MARK}=`)) continue;
    const exec = /^Exec\s*=\s*(.*)$/.exec(line);
    if (exec && (group === 'Desktop Entry' || group.startsWith('Desktop Action '))) {
      const next = execWithAccessibility(exec[1]!);
      if (next === undefined) return undefined;
      out.push(`Exec=${next}`);
      changed = true;
      continue;
    }
    out.push(line);
  }
  return changed && marked ? out.join('\n') : undefined;
}

/** One Exec command line with the bridge variable and the flag (unchanged where they are there). */
export function execWithAccessibility(exec: string): string | undefined {
  const words = splitExec(exec);
  let i = 0;
  const hasEnv = words[0] === 'env';
  if (hasEnv) {
    i = 1;
    while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
  }
  const program = words[i];
  if (!program || SANDBOXED.has(basename(unquote(program)))) return undefined;
  const rest = words.slice(i + 1);
  if (!rest.includes(ACCESSIBILITY_FLAG)) rest.unshift(ACCESSIBILITY_FLAG);
  const vars = hasEnv ? words.slice(1, i) : [];
  if (!vars.some((v) => v.startsWith('ACCESSIBILITY_ENABLED='))) vars.push(BRIDGE_ENV);
  return ['env', ...vars, program, ...rest].join(' ');
}

/** Exec words as the desktop entry spec splits them (double quotes group; the quotes are kept). */
function splitExec(exec: string): string[] {
  const words: string[] = [];
  let word = '';
  let quoted = false;
  for (let i = 0; i < exec.length; i++) {
    const c = exec[i]!;
    if (c === '\\' && quoted && i + 1 < exec.length) {
      word += c + exec[++i]!;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ' ' && !quoted) {
      if (word) words.push(word);
      word = '';
      continue;
    }
    word += c;
  }
  if (word) words.push(word);
  return words;
}

function unquote(word: string): string {
  return word.replace(/^"(.*)"$/, '$1');
}

function isOurs(text: string): boolean {
  return new RegExp(`^${LAUNCHER_MARK}=true\\s*$`, 'm').test(text);
}

function parseEntry(text: string | undefined): { name: string; exec: string } | undefined {
  if (!text) return undefined;
  let group = '';
  let name = '';
  let exec = '';
  let type = '';
  for (const line of text.split('\n')) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) {
      group = header[1]!;
      continue;
    }
    if (group !== 'Desktop Entry') continue;
    const kv = /^([A-Za-z0-9-]+)\s*=\s*(.*)$/.exec(line);
    if (!kv) continue;
    if (kv[1] === 'Name') name = kv[2]!.trim();
    else if (kv[1] === 'Exec') exec = kv[2]!.trim();
    else if (kv[1] === 'Type') type = kv[2]!.trim();
  }
  return type === 'Application' && exec ? { name, exec } : undefined;
}

/** A Chromium-based app Sightline can start: a known id, or an executable with Chromium's ICU data beside it; never a sandboxed one. */
function isChromiumApp(id: string, exec: string, env: NodeJS.ProcessEnv): boolean {
  const words = splitExec(exec);
  let i = 0;
  if (words[0] === 'env') {
    i = 1;
    while (i < words.length && words[i]!.includes('=')) i++;
  }
  const program = words[i] ? unquote(words[i]!) : undefined;
  if (!program || SANDBOXED.has(basename(program))) return false;
  if (KNOWN.has(id)) return true;
  const path = resolveProgram(program, env);
  return path !== undefined && existsSync(join(dirname(path), 'icudtl.dat'));
}

function resolveProgram(program: string, env: NodeJS.ProcessEnv): string | undefined {
  const candidates = isAbsolute(program) ? [program] : (env.PATH ?? '/usr/bin:/bin').split(delimiter).map((d) => join(d, program));
  for (const c of candidates) {
    try {
      if (statSync(c).isFile()) return realpathSync(c);
    } catch {
      // Not here: the next folder of PATH.
    }
  }
  return undefined;
}

function desktopFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.desktop'));
  } catch {
    return [];
  }
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
