import { describe, expect, it } from 'vitest';
import { desktopPermissionStates, loginItemSettings, permissionChecks, permissionPaneUrl } from '../../../src/main/app/permissions.ts';
import { trayIconFile, trayMenu, trayState, trayTooltip, truncate, type TrayItem } from '../../../src/main/app/trayModel.ts';
import type { StatusInfo } from '../../../src/shared/api.ts';
import type { TargetInfo } from '../../../src/shared/frame.ts';

function status(over: Partial<StatusInfo> = {}): StatusInfo {
  return {
    version: '0.1.0',
    paused: false,
    readOnly: false,
    clients: 2,
    platform: 'linux',
    dataDir: '/tmp/x',
    sources: [
      { source: 'desktop', enabled: true, available: true, degraded: false },
      { source: 'browser', enabled: true, available: false, degraded: false, reason: 'no endpoint' },
      { source: 'android', enabled: false, available: false, degraded: false },
      { source: 'manictime', enabled: true, available: true, degraded: false },
    ],
    ...over,
  };
}

const targets: TargetInfo[] = [
  { id: 'desktop:window:0x1', source: 'desktop', kind: 'window', title: 'Terminal' },
  { id: 'desktop:display:0', source: 'desktop', kind: 'display', title: 'Display 1' },
  { id: 'android:emulator-5554', source: 'android', kind: 'device', title: 'Pixel 7' },
];

const labels = (items: TrayItem[]): string[] => items.map((i) => (i.type === 'separator' ? '—' : i.label));

describe('tray state and icon', () => {
  it('shows paused above everything, then busy, then a problem', () => {
    expect(trayState({ status: status({ paused: true }), targets, busy: true })).toBe('paused');
    expect(trayState({ status: status(), targets, busy: true })).toBe('busy');
    expect(trayState({ status: status(), targets, busy: false })).toBe('attention');
    const allOk = status({ sources: [{ source: 'desktop', enabled: true, available: true, degraded: false }] });
    expect(trayState({ status: allOk, targets, busy: false })).toBe('idle');
    expect(trayState({ status: null, targets: [], busy: false })).toBe('attention');
  });

  it('uses template images on macOS and a distinct icon per state', () => {
    expect(trayIconFile('idle', 'darwin')).toBe('trayTemplate.png');
    expect(trayIconFile('paused', 'darwin')).toBe('tray-pausedTemplate.png');
    expect(trayIconFile('busy', 'linux')).toBe('tray-busy.png');
    expect(trayIconFile('attention', 'win32')).toBe('tray.png');
  });
});

describe('tray menu', () => {
  it('shows status, the kill switch, capture per target, open and quit', () => {
    const items = trayMenu({ status: status(), targets, busy: false });
    expect(labels(items)).toEqual([
      'Sources: 2 of 3 available',
      'Agents connected: 2',
      'Agent input: live',
      '—',
      'Pause agent input',
      'Capture now',
      '—',
      'Open dashboard',
      'Fix setup…',
      '—',
      'Quit Sightline',
    ]);
    const capture = items.find((i) => i.type === 'submenu');
    expect(capture?.type === 'submenu' && labels(capture.items)).toEqual(['Desktop', 'Terminal', 'Display 1', '—', 'Android', 'Pixel 7']);
    const pixel = capture?.type === 'submenu' ? capture.items.find((i) => i.type === 'action' && i.label === 'Pixel 7') : undefined;
    expect(pixel).toMatchObject({ action: { kind: 'capture', target: 'android:emulator-5554' }, enabled: true });
  });

  it('offers Resume while paused and disables capture while busy', () => {
    const items = trayMenu({ status: status({ paused: true }), targets, busy: true });
    expect(items).toContainEqual({ type: 'action', label: 'Resume agent input', action: { kind: 'resume' }, enabled: true });
    expect(labels(items)).toContain('Agent input: PAUSED');
    const capture = items.find((i) => i.type === 'submenu');
    expect(capture?.type === 'submenu' && capture.label).toBe('Capture now (busy…)');
    expect(capture?.type === 'submenu' && capture.items.filter((i) => i.type === 'action').every((i) => i.type === 'action' && !i.enabled)).toBe(true);
  });

  it('says so when there is nothing to capture, and before the core is up', () => {
    const items = trayMenu({ status: null, targets: [], busy: false });
    expect(labels(items)[0]).toBe('Starting…');
    expect(items).toContainEqual({ type: 'action', label: 'Pause agent input', action: { kind: 'pause' }, enabled: false });
    const capture = items.find((i) => i.type === 'submenu');
    expect(capture?.type === 'submenu' && labels(capture.items)).toEqual(['No targets available']);
  });

  it('caps long target lists and shortens long titles', () => {
    const many: TargetInfo[] = Array.from({ length: 20 }, (_, i) => ({ id: `browser:${i}`, source: 'browser', kind: 'tab', title: `Tab ${i} ${'x'.repeat(80)}` }));
    const capture = trayMenu({ status: status(), targets: many, busy: false }).find((i) => i.type === 'submenu');
    const sub = capture?.type === 'submenu' ? capture.items : [];
    expect(sub.filter((i) => i.type === 'action')).toHaveLength(12);
    expect(labels(sub).at(-1)).toBe('8 more in the dashboard');
    expect(truncate('a'.repeat(100)).length).toBe(48);
    expect(truncate('  two\n lines ')).toBe('two lines');
  });

  it('summarises status in the tooltip', () => {
    expect(trayTooltip({ status: status({ clients: 1, paused: true }), targets, busy: false })).toBe('Sightline — 2/3 sources · 1 agent connected · input PAUSED');
    expect(trayTooltip({ status: null, targets, busy: false })).toMatch(/starting/);
  });
});

describe('macOS permissions for onboarding', () => {
  it('has no checks off macOS', () => {
    expect(permissionChecks({ platform: 'linux' })).toEqual([]);
  });

  it('reports granted and missing permissions with a fix', () => {
    const ok = permissionChecks({ platform: 'darwin', screen: 'granted', accessibility: true });
    expect(ok.map((c) => c.status)).toEqual(['ok', 'ok']);
    const bad = permissionChecks({ platform: 'darwin', screen: 'denied', accessibility: false });
    expect(bad.map((c) => [c.id, c.status])).toEqual([
      ['macos.screen-recording', 'error'],
      ['macos.accessibility', 'error'],
    ]);
    expect(bad[0]!.fix).toMatch(/Screen & System Audio Recording/);
    expect(permissionChecks({ platform: 'darwin', screen: 'not-determined', accessibility: true })[0]!.status).toBe('warning');
    expect(permissionPaneUrl('accessibility')).toMatch(/Privacy_Accessibility$/);
  });

  it('maps the start-at-login setting', () => {
    expect(loginItemSettings(true)).toEqual({ openAtLogin: true, openAsHidden: true, args: ['--hidden'] });
    expect(loginItemSettings(false).openAtLogin).toBe(false);
  });
});

describe('macOS permissions for the desktop source', () => {
  it('maps Electron answers onto granted / denied / unknown', () => {
    expect(desktopPermissionStates({ platform: 'linux' })).toEqual({});
    expect(desktopPermissionStates({ platform: 'darwin', screen: 'granted', accessibility: true })).toEqual({ screenRecording: 'granted', accessibility: 'granted' });
    expect(desktopPermissionStates({ platform: 'darwin', screen: 'restricted', accessibility: false })).toEqual({ screenRecording: 'denied', accessibility: 'denied' });
    expect(desktopPermissionStates({ platform: 'darwin', screen: 'not-determined' })).toEqual({ screenRecording: 'unknown', accessibility: 'unknown' });
  });
});
