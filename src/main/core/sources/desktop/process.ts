/**
 * The process behind a window: what the input allowlist judges a window by and what tells the
 * Sightline app's own window, since a title is the app's (or a web page's) to choose. It is read
 * from the OS, never from the window: on X11 the X server says which client owns the window
 * (X-Resource, xres.ts; `_NET_WM_PID` and the window's class are the app's own claims), on macOS
 * and Windows the window list names its owning process. /proc/<pid>/exe names the executable.
 */
import { realpathSync } from 'node:fs';
import type { TargetInfo } from '../../../../shared/frame.ts';
import type { TargetFacts, WindowOwner } from '../source.ts';
import type { XOwner, XResourceOwners } from './xres.ts';

export function exeOf(pid: number, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'linux') return undefined;
  try {
    return realpathSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

export class WindowProcesses {
  readonly #owners: XResourceOwners | undefined;
  readonly #platform: NodeJS.Platform;

  /** `owners` answers on X11; elsewhere the window list's own pid is the OS's word. */
  constructor(owners: XResourceOwners | undefined, platform: NodeJS.Platform) {
    this.#owners = owners;
    this.#platform = platform;
  }

  /** Set each window's `pid` and `exe` details as the OS tells them (none where it cannot tell). */
  async annotate(targets: TargetInfo[]): Promise<void> {
    const windows = targets.filter((t) => t.kind === 'window');
    const x = this.#owners ? await this.#owners.owners(windows.map((t) => windowIdOf(t.id))) : undefined;
    for (const t of windows) {
      const { pid: _claimed, exe: _exe, ...rest } = t.details ?? {};
      const owner = this.#owner(t, x?.get(windowIdOf(t.id)));
      t.details = { ...rest, ...('pid' in owner ? { pid: owner.pid, ...(owner.exe ? { exe: owner.exe } : {}) } : {}) };
    }
  }

  /** A window as the action's judge sees it, read now. */
  async facts(target: TargetInfo): Promise<TargetFacts> {
    const x = this.#owners ? await this.#owners.owner(windowIdOf(target.id)) : undefined;
    const owner = this.#owner(target, x);
    const label = target.app ?? target.title;
    return 'pid' in owner ? { kind: 'window', owner, ...(label ? { label } : {}) } : { kind: 'window', unknown: owner.unknown, ...(label ? { label } : {}) };
  }

  #owner(t: TargetInfo, x: XOwner | undefined): WindowOwner | { unknown: string } {
    if (this.#owners) {
      if (!x || 'unknown' in x) return { unknown: x?.unknown ?? 'no answer from the X server' };
      const exe = exeOf(x.pid, this.#platform);
      return { pid: x.pid, ...(exe ? { exe } : {}) };
    }
    const pid = typeof t.details?.pid === 'number' ? t.details.pid : undefined;
    if (pid === undefined) return { unknown: 'the system names no process for it' };
    const exe = exeOf(pid, this.#platform);
    return { pid, ...(exe ? { exe } : {}), ...(t.app ? { app: t.app } : {}) };
  }
}

function windowIdOf(target: string): number {
  return Number(target.slice(target.lastIndexOf(':') + 1));
}
