/**
 * macOS privacy permissions as onboarding checks. The app reads them through Electron
 * (`systemPreferences`) and passes the raw answers here; other platforms have none.
 */
import type { HealthCheck } from '../../shared/frame.ts';

/** What `systemPreferences.getMediaAccessStatus('screen')` answers. */
export type MediaAccessStatus = 'not-determined' | 'granted' | 'denied' | 'restricted' | 'unknown';

export interface PermissionFacts {
  platform: string;
  screen?: MediaAccessStatus;
  /** `systemPreferences.isTrustedAccessibilityClient(false)`. */
  accessibility?: boolean;
}

export function permissionChecks(facts: PermissionFacts): HealthCheck[] {
  if (facts.platform !== 'darwin') return [];
  const screen = facts.screen ?? 'unknown';
  const checks: HealthCheck[] = [];
  checks.push(
    screen === 'granted'
      ? { id: 'macos.screen-recording', label: 'Screen Recording permission', status: 'ok', detail: 'Sightline may capture windows and displays.' }
      : {
          id: 'macos.screen-recording',
          label: 'Screen Recording permission',
          status: screen === 'not-determined' || screen === 'unknown' ? 'warning' : 'error',
          detail:
            screen === 'not-determined'
              ? 'macOS has not asked yet; the first capture will ask, and captures show only the desktop wallpaper until it is granted.'
              : screen === 'restricted'
                ? 'A device profile restricts screen recording on this Mac.'
                : 'Without it, captures show only the wallpaper and menu bar, not your windows.',
          fix: 'Open System Settings → Privacy & Security → Screen & System Audio Recording, turn on Sightline, then quit and reopen Sightline.',
        },
  );
  checks.push(
    facts.accessibility
      ? { id: 'macos.accessibility', label: 'Accessibility permission', status: 'ok', detail: 'Agents may click, type and focus windows.' }
      : {
          id: 'macos.accessibility',
          label: 'Accessibility permission',
          status: 'error',
          detail: 'Needed to click, type, scroll and focus windows; capture works without it.',
          fix: 'Open System Settings → Privacy & Security → Accessibility and turn on Sightline.',
        },
  );
  return checks;
}

/** The System Settings pane for a permission (opened with shell.openExternal). */
export function permissionPaneUrl(pane: 'screen' | 'accessibility'): string {
  return pane === 'screen'
    ? 'x-apple.systempreferences:com.apple.preference.security?Privacy_ScreenCapture'
    : 'x-apple.systempreferences:com.apple.preference.security?Privacy_Accessibility';
}

/** `app.setLoginItemSettings` arguments for the `app.startAtLogin` setting. */
export function loginItemSettings(startAtLogin: boolean): { openAtLogin: boolean; openAsHidden: boolean; args: string[] } {
  // Started at login, the app goes straight to the tray without opening a window.
  return { openAtLogin: startAtLogin, openAsHidden: true, args: startAtLogin ? ['--hidden'] : [] };
}

/** The same facts as the desktop source's permission states (it refuses with the right pane named). */
export function desktopPermissionStates(facts: PermissionFacts): { screenRecording?: 'granted' | 'denied' | 'unknown'; accessibility?: 'granted' | 'denied' | 'unknown' } {
  if (facts.platform !== 'darwin') return {};
  const screen = facts.screen ?? 'unknown';
  return {
    screenRecording: screen === 'granted' ? 'granted' : screen === 'denied' || screen === 'restricted' ? 'denied' : 'unknown',
    accessibility: facts.accessibility === undefined ? 'unknown' : facts.accessibility ? 'granted' : 'denied',
  };
}
