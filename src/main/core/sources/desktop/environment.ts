/**
 * Which desktop this is, and what that allows: pure decisions over the platform and
 * environment, so the Wayland, no-display and macOS-permission paths are tested on
 * any machine.
 */
import type { HealthCheck, SourceHealth } from '../../../../shared/frame.ts';
import type { PermissionState } from '../module.ts';

export type { PermissionState };
export type DisplayServer = 'x11' | 'xwayland' | 'wayland' | 'none' | 'quartz' | 'win32';

export interface DesktopFacts {
  platform: NodeJS.Platform;
  /** DISPLAY from the environment, else from settings (MCP clients pass a bare env). */
  display?: string;
  waylandDisplay?: string;
  sessionType?: string;
  /** X11: xdotool present (exact typing of symbols and non-ASCII, focusing windows). */
  xdotool?: boolean;
  /** X11: xmodmap present (binds non-ASCII characters before xdotool types them; Debian x11-xserver-utils). */
  xmodmap?: boolean;
  /** macOS: Screen Recording and Accessibility, when known. */
  screenRecording?: PermissionState;
  accessibility?: PermissionState;
}

export function displayServer(f: DesktopFacts): DisplayServer {
  if (f.platform === 'darwin') return 'quartz';
  if (f.platform === 'win32') return 'win32';
  const wayland = f.sessionType === 'wayland' || !!f.waylandDisplay;
  if (f.display) return wayland ? 'xwayland' : 'x11';
  return wayland ? 'wayland' : 'none';
}

export const MAC_SCREEN_RECORDING = 'System Settings → Privacy & Security → Screen Recording';
export const MAC_ACCESSIBILITY = 'System Settings → Privacy & Security → Accessibility';

/** Health and the onboarding checklist, from the facts. */
export function desktopHealth(f: DesktopFacts): SourceHealth {
  const server = displayServer(f);
  const checks: HealthCheck[] = [];
  const base = { source: 'desktop' as const, enabled: true, checks };
  switch (server) {
    case 'none':
      checks.push({ id: 'display', label: 'X11 display', status: 'error', detail: 'DISPLAY is not set.', fix: 'Start Sightline from your desktop session, or set desktop.display (e.g. ":0") in settings.' });
      return { ...base, available: false, degraded: false, reason: 'no X11 display (DISPLAY is not set)', remediation: 'Set desktop.display in settings (e.g. ":0"), or start Sightline from the desktop session.' };
    case 'wayland':
      checks.push({ id: 'display', label: 'Display server', status: 'error', detail: 'Wayland without XWayland: other apps\' windows cannot be captured or driven.', fix: 'Log in to an "X11"/"Xorg" session, or enable XWayland and set desktop.display.' });
      return {
        ...base,
        available: false,
        degraded: false,
        reason: 'Wayland does not let one app capture or control other apps\' windows',
        remediation: 'Choose an X11 (Xorg) session at the login screen, or run the apps under XWayland and set desktop.display.',
      };
    case 'quartz': {
      const sr = f.screenRecording ?? 'unknown';
      const ax = f.accessibility ?? 'unknown';
      checks.push(permissionCheck('screen-recording', 'Screen Recording permission', sr, MAC_SCREEN_RECORDING));
      checks.push(permissionCheck('accessibility', 'Accessibility permission', ax, MAC_ACCESSIBILITY));
      if (sr === 'denied') {
        return { ...base, available: false, degraded: false, reason: 'Screen Recording permission is not granted', remediation: `Allow Sightline in ${MAC_SCREEN_RECORDING}, then restart it.` };
      }
      if (ax === 'denied') {
        return { ...base, available: true, degraded: true, reason: 'Accessibility permission is not granted: capture works, input does not', remediation: `Allow Sightline in ${MAC_ACCESSIBILITY}.` };
      }
      return { ...base, available: true, degraded: false };
    }
    case 'win32':
      checks.push({ id: 'display', label: 'Windows desktop', status: 'ok' });
      return { ...base, available: true, degraded: false };
    case 'x11':
    case 'xwayland': {
      checks.push(
        server === 'x11'
          ? { id: 'display', label: 'X11 display', status: 'ok', detail: `DISPLAY=${f.display}` }
          : { id: 'display', label: 'Display server', status: 'warning', detail: `Wayland session with XWayland (DISPLAY=${f.display}): only X11 apps can be seen and driven.`, fix: 'Log in to an X11 session to reach native Wayland apps.' },
      );
      checks.push(
        f.xdotool
          ? { id: 'xdotool', label: 'xdotool (exact typing, window focus)', status: 'ok' }
          : { id: 'xdotool', label: 'xdotool (exact typing, window focus)', status: 'warning', detail: 'Not found: typing is limited to characters on the keyboard layout, focusing falls back to clicking.', fix: 'Install it: sudo apt install xdotool' },
      );
      if (f.xdotool && f.xmodmap === false) {
        checks.push({
          id: 'xmodmap',
          label: 'xmodmap (reliable non-ASCII typing)',
          status: 'warning',
          detail: 'Not found: xdotool remaps a key per non-ASCII character, which a busy app can miss.',
          fix: 'Install it: sudo apt install x11-xserver-utils',
        });
      } else if (f.xdotool && f.xmodmap) {
        checks.push({ id: 'xmodmap', label: 'xmodmap (reliable non-ASCII typing)', status: 'ok' });
      }
      const degraded = server === 'xwayland' || !f.xdotool;
      return {
        ...base,
        available: true,
        degraded,
        ...(degraded
          ? {
              reason: server === 'xwayland' ? 'Wayland session: only XWayland windows are reachable' : 'xdotool is missing: exact typing of symbols and non-ASCII text is unavailable',
              remediation: server === 'xwayland' ? 'Log in to an X11 session to reach every app.' : 'sudo apt install xdotool',
            }
          : {}),
      };
    }
  }
}

function permissionCheck(id: string, label: string, state: PermissionState, pane: string): HealthCheck {
  if (state === 'granted') return { id, label, status: 'ok' };
  if (state === 'denied') return { id, label, status: 'error', detail: 'Not granted.', fix: `Allow Sightline in ${pane}.` };
  return { id, label, status: 'unknown', detail: 'Checked by the Sightline app.', fix: `If capture or input fails, allow Sightline in ${pane}.` };
}

/**
 * The X authority file a bare environment misses. Xlib falls back to ~/.Xauthority, but
 * GDM keeps the cookie in /run/user/<uid>/gdm/Xauthority and names it only in the session's
 * environment, which MCP clients do not pass on.
 */
export function xauthorityFallback(env: NodeJS.ProcessEnv, uid: number | undefined, exists: (path: string) => boolean): string | undefined {
  if (env.XAUTHORITY || uid === undefined) return undefined;
  if (env.HOME && exists(`${env.HOME}/.Xauthority`)) return undefined;
  const gdm = `/run/user/${uid}/gdm/Xauthority`;
  return exists(gdm) ? gdm : undefined;
}
