/**
 * The process behind a window: what the input allowlist judges a window by and what tells the
 * Sightline app's own window, since a title is the app's (or a web page's) to choose. On X11 the
 * window names its process in _NET_WM_PID (read with xprop when node-screenshots has no pid),
 * and /proc/<pid>/exe names the executable.
 */
import { realpathSync } from 'node:fs';
import type { TargetInfo } from '../../../../shared/frame.ts';

/** How long "this window names no process" is trusted. */
const UNKNOWN_TTL_MS = 10_000;

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
  readonly #known = new Map<string, WindowProcess & { at: number }>();
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
          let p: WindowProcess | undefined = this.#known.get(t.id);
          if (p) {
            const { at: _at, ...known } = p as WindowProcess & { at: number };
            p = known;
          } else {
            let pid = typeof t.details?.pid === 'number' ? t.details.pid : undefined;
            if (pid === undefined && this.#platform === 'linux') pid = parseWmPid(await this.#xprop(t.id.slice(t.id.lastIndexOf(':') + 1)).catch(() => ''));
            const exe = pid !== undefined ? exeOf(pid, this.#platform) : undefined;
            p = { ...(pid !== undefined ? { pid } : {}), ...(exe ? { exe } : {}) };
            this.#known.set(t.id, { ...p, at: Date.now() });
          }
          t.details = { ...t.details, ...p };
        }),
    );
    // A window may set _NET_WM_PID after it maps: one without is asked again after a while.
    const stale = Date.now() - UNKNOWN_TTL_MS;
    for (const [id, p] of this.#known) if (!live.has(id) || (p.pid === undefined && p.at < stale)) this.#known.delete(id);
  }
}
