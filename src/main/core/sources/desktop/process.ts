/**
 * The process behind a window: what the input allowlist judges a window by and what tells the
 * Sightline app's own window, since a title is the app's (or a web page's) to choose. On X11 the
 * window names its process in _NET_WM_PID (read with xprop when node-screenshots has no pid),
 * and /proc/<pid>/exe names the executable.
 */
import { realpathSync } from 'node:fs';
import type { TargetInfo } from '../../../../shared/frame.ts';

export interface WindowProcess {
  pid?: number;
  /** The executable's real path. */
  exe?: string;
}

/** The pid in `xprop -id <w> _NET_WM_PID` output ("_NET_WM_PID(CARDINAL) = 1234"). */
export function parseWmPid(out: string): number | undefined {
  const m = /_NET_WM_PID\(CARDINAL\) = (\d+)/.exec(out);
  const pid = m ? Number(m[1]) : NaN;
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export function exeOf(pid: number, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'linux') return undefined;
  try {
    return realpathSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

/**
 * Processes of windows, remembered per window id (a window keeps its process); `xprop` runs
 * once for a window node-screenshots gives no pid for.
 */
export class WindowProcesses {
  readonly #known = new Map<string, WindowProcess>();
  readonly #xprop: (windowId: string) => Promise<string>;
  readonly #platform: NodeJS.Platform;

  constructor(xprop: (windowId: string) => Promise<string>, platform: NodeJS.Platform) {
    this.#xprop = xprop;
    this.#platform = platform;
  }

  /** Add `pid` and `exe` to each window's details. */
  async annotate(targets: TargetInfo[]): Promise<void> {
    const live = new Set<string>();
    await Promise.all(
      targets
        .filter((t) => t.kind === 'window')
        .map(async (t) => {
          live.add(t.id);
          let p = this.#known.get(t.id);
          if (!p) {
            let pid = typeof t.details?.pid === 'number' ? t.details.pid : undefined;
            if (pid === undefined && this.#platform === 'linux') pid = parseWmPid(await this.#xprop(t.id.slice(t.id.lastIndexOf(':') + 1)).catch(() => ''));
            const exe = pid !== undefined ? exeOf(pid, this.#platform) : undefined;
            p = { ...(pid !== undefined ? { pid } : {}), ...(exe ? { exe } : {}) };
            // An unknown process may be learnt later (a window sets _NET_WM_PID after it maps): keep only answers.
            if (pid !== undefined) this.#known.set(t.id, p);
          }
          t.details = { ...t.details, ...p };
        }),
    );
    for (const id of this.#known.keys()) if (!live.has(id)) this.#known.delete(id);
  }
}
